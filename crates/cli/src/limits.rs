//! The limit flags `pawl run` and `pawl resume` share ([`LimitArgs`]) and the dollar amount
//! parser of every `--max-usd`.

use clap::Args;

#[derive(Debug, Args, Default)]
pub struct LimitArgs {
    /// Stop after this many agent iterations.
    #[arg(long, value_name = "N")]
    pub max_iterations: Option<u32>,
    /// Stop after this much wall time (e.g. 30m, 2h).
    #[arg(long, value_name = "DURATION")]
    pub max_time: Option<String>,
    /// Stop after spending this many dollars (0 = no dollar limit).
    #[arg(long, value_name = "USD", value_parser = dollars)]
    pub max_usd: Option<f64>,
    /// Stop after this many tokens (0 = no limit).
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// At most this many agent calls per hour (pawl waits beyond it).
    #[arg(long, value_name = "N")]
    pub calls_per_hour: Option<u32>,
}

/// A dollar amount on the command line: a finite number ≥ 0 (`inf`, `nan`, `1e309` and negative
/// amounts are refused here, before anything is written).
pub fn dollars(text: &str) -> Result<f64, String> {
    let usd: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of dollars"))?;
    if !usd.is_finite() || usd < 0.0 {
        return Err(format!(
            "`{text}` is not a dollar amount: give a finite number ≥ 0"
        ));
    }
    Ok(usd)
}

impl LimitArgs {
    /// The flags as configuration overrides: (key, value, flag name).
    pub fn overrides(&self) -> Vec<(&'static str, String, &'static str)> {
        let mut v = Vec::new();
        if let Some(n) = self.max_iterations {
            v.push(("limits.max_iterations", n.to_string(), "--max-iterations"));
        }
        if let Some(t) = &self.max_time {
            v.push(("limits.max_time", t.clone(), "--max-time"));
        }
        if let Some(u) = self.max_usd {
            v.push(("limits.max_usd", u.to_string(), "--max-usd"));
        }
        if let Some(n) = self.max_tokens {
            v.push(("limits.max_tokens", n.to_string(), "--max-tokens"));
        }
        if let Some(n) = self.calls_per_hour {
            v.push(("limits.calls_per_hour", n.to_string(), "--calls-per-hour"));
        }
        v
    }
}
