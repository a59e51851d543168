//! Compiler and linter diagnostics: rustc and clippy (through cargo or not), in their human
//! format, `--message-format=short` and `--message-format=json`.
//!
//! A failing build or lint check has no tests to name; what the agent needs is the first
//! error, whole: its header (`error[E0308]: mismatched types`), its location
//! (`--> src/lib.rs:7:5`) and the code excerpt with the notes — not the end of the output,
//! where cargo only says `could not compile`. Errors come before warnings even when a warning
//! was printed first.
//!
//! Counts are distinct diagnostics as printed (cargo already drops a diagnostic repeated for
//! the lib and its test target); cargo's own summary lines (`could not compile ... due to N
//! previous errors`, `` `x` (lib) generated N warnings ``, `aborting due to`, `build failed,
//! waiting for other jobs`) are not diagnostics. With `-D warnings` every warning is printed
//! as an error: they count as errors, and [`Diagnostics::warnings_denied`] says so (rustc
//! notes it, once per lint, as "implied by `-D warnings`").
//!
//! Like the test parsers this is total: any text in, `Some` or `None` out, never a panic.

use serde::Serialize;

use crate::parse::trim_message;
use crate::text::strip_ansi;

/// What a check's compiler or linter reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostics {
    /// Distinct `error` diagnostics.
    pub errors: u64,
    /// Distinct `warning` diagnostics.
    pub warnings: u64,
    /// Warnings were turned into errors (`-D warnings`): some of `errors` are lints.
    pub warnings_denied: bool,
    /// The first error as printed: header, location, code excerpt, notes (trimmed like a test
    /// failure, see [`crate::parse::MAX_MESSAGE_LINES`]).
    pub first_error: Option<String>,
    /// `src/lib.rs:7:5`, from the first error's `-->` line.
    pub first_location: Option<String>,
}

impl Diagnostics {
    /// `2 errors, 1 warning`, `3 errors (warnings denied by -D warnings)`.
    pub fn describe(&self) -> String {
        let mut s = plural(self.errors, "error");
        if self.warnings > 0 {
            s.push_str(&format!(", {}", plural(self.warnings, "warning")));
        }
        if self.warnings_denied {
            s.push_str(" (warnings denied by -D warnings)");
        }
        s
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Reads rustc/clippy diagnostics from a check's output. With a `command` that runs cargo or
/// rustc any `error:` line counts; otherwise the output must show rustc's shape (a header
/// followed by a `-->` location, or cargo's JSON messages). `None` when there is no diagnostic.
pub fn parse_diagnostics(command: &str, stdout: &str, stderr: &str) -> Option<Diagnostics> {
    let rust_command = command.split_whitespace().any(|w| {
        ["cargo", "rustc", "clippy-driver", "cargo-clippy"]
            .iter()
            .any(|p| crate::shell::program_is(w, p))
    });
    let mut d = Diagnostics {
        errors: 0,
        warnings: 0,
        warnings_denied: false,
        first_error: None,
        first_location: None,
    };
    let mut shaped = false;
    for text in [stdout, stderr] {
        let text = strip_ansi(text);
        shaped |= read_json(&text, &mut d);
        shaped |= read_human(&text, &mut d);
    }
    if !(shaped || rust_command) || d.errors == 0 && d.warnings == 0 {
        return None;
    }
    Some(d)
}

/// A diagnostic header: `error[E0308]: msg`, `warning: msg`, or the short format's
/// `src/lib.rs:2:9: error: msg`. Returns (is_error, location when the short format gives one).
pub(crate) fn header(line: &str) -> Option<(bool, Option<&str>)> {
    if let Some(level) = level_prefix(line) {
        return Some((level, None));
    }
    // Short format: `path:line:col: level: message`.
    let (loc, rest) = line.split_once(": ")?;
    let mut parts = loc.rsplitn(3, ':');
    let (col, row) = (parts.next()?, parts.next()?);
    let path = parts.next()?;
    let numeric = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if path.is_empty() || path.contains(' ') || !numeric(col) || !numeric(row) {
        return None;
    }
    level_prefix(rest).map(|level| (level, Some(loc)))
}

/// `error: ...` / `error[E0425]: ...` → true, `warning: ...` / `warning[...]: ...` → false.
fn level_prefix(line: &str) -> Option<bool> {
    let (is_error, rest) = if let Some(r) = line.strip_prefix("error") {
        (true, r)
    } else {
        (false, line.strip_prefix("warning")?)
    };
    let rest = match rest.strip_prefix('[') {
        Some(code) => code.split_once(']')?.1,
        None => rest,
    };
    rest.starts_with(": ").then_some(is_error)
}

/// cargo's and rustc's own summaries, which repeat what the diagnostics said.
pub(crate) fn is_summary(line: &str) -> bool {
    let msg = line.split_once(": ").map_or("", |(_, m)| m);
    msg.starts_with("could not compile")
        || msg.starts_with("aborting due to")
        || msg.starts_with("build failed, waiting for other jobs")
        || msg.ends_with(" warnings emitted")
        || msg.ends_with(" warning emitted")
        || msg.starts_with('`') && msg.contains(" generated ") && msg.contains(" warning")
        || msg.starts_with("Some errors have detailed explanations")
}

/// One diagnostic of rustc's human output: its header line, whether it is an error, the
/// `path:line:col` of a short-form header, its lines (to the first blank line or the next
/// header) and where it points (the short form's location or its `--> ` line).
pub(crate) struct HumanBlock<'a> {
    pub line: &'a str,
    pub is_error: bool,
    pub short_loc: Option<&'a str>,
    pub block: &'a [&'a str],
    pub location: Option<String>,
}

/// The diagnostics of rustc's human output, summaries (`aborting due to …`) left out.
pub(crate) fn human_blocks<'a>(lines: &'a [&'a str]) -> Vec<HumanBlock<'a>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        i += 1;
        let line = line.trim_end();
        let Some((is_error, short_loc)) = header(line) else {
            continue;
        };
        if is_summary(line) {
            continue;
        }
        // The diagnostic runs to the first blank line (or the next header).
        let start = i - 1;
        while let Some(l) = lines.get(i) {
            if l.trim().is_empty() || header(l.trim_end()).is_some() {
                break;
            }
            i += 1;
        }
        let block = lines.get(start..i).unwrap_or_default();
        let location = short_loc.map(str::to_owned).or_else(|| {
            block
                .iter()
                .find_map(|l| l.trim_start().strip_prefix("--> "))
                .map(|l| l.trim().to_owned())
        });
        out.push(HumanBlock {
            line,
            is_error,
            short_loc,
            block,
            location,
        });
    }
    out
}

fn read_human(text: &str, d: &mut Diagnostics) -> bool {
    let lines: Vec<&str> = text.lines().collect();
    let mut shaped = false;
    for b in human_blocks(&lines) {
        let (is_error, block, location) = (b.is_error, b.block, b.location);
        shaped |= location.is_some();
        d.warnings_denied |= block.iter().any(|l| l.contains("implied by `-D warnings`"));
        if is_error {
            d.errors = d.errors.saturating_add(1);
            if d.first_error.is_none() {
                d.first_error = Some(trim_message(&block.join("\n")));
                d.first_location = location;
            }
        } else {
            d.warnings = d.warnings.saturating_add(1);
        }
    }
    shaped
}

/// cargo's `--message-format=json` (`{"reason":"compiler-message","message":{...}}`) and
/// rustc's `--error-format=json` (the message object itself): the `rendered` text is the
/// human diagnostic.
fn read_json(text: &str, d: &mut Diagnostics) -> bool {
    let mut shaped = false;
    for line in text.lines() {
        let line = line.trim();
        if !line.starts_with('{') || !line.contains("\"level\"") {
            continue;
        }
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let msg = match v.get("reason").and_then(|r| r.as_str()) {
            Some("compiler-message") => match v.get("message") {
                Some(m) => m,
                None => continue,
            },
            Some(_) => continue,
            None => &v,
        };
        let level = msg.get("level").and_then(|l| l.as_str()).unwrap_or("");
        let rendered = msg
            .get("rendered")
            .and_then(|r| r.as_str())
            .unwrap_or("")
            .to_owned();
        let text = msg.get("message").and_then(|m| m.as_str()).unwrap_or("");
        if is_summary(&format!("{level}: {text}")) {
            continue;
        }
        shaped = true;
        d.warnings_denied |= rendered.contains("implied by `-D warnings`");
        match level {
            "error" | "error: internal compiler error" => {
                d.errors = d.errors.saturating_add(1);
                if d.first_error.is_none() {
                    let body = if rendered.trim().is_empty() {
                        format!("error: {text}")
                    } else {
                        strip_ansi(&rendered).into_owned()
                    };
                    d.first_location = body
                        .lines()
                        .find_map(|l| l.trim_start().strip_prefix("--> "))
                        .map(|l| l.trim().to_owned());
                    d.first_error = Some(trim_message(&body));
                }
            }
            "warning" => d.warnings = d.warnings.saturating_add(1),
            _ => {}
        }
    }
    shaped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_summaries() {
        assert_eq!(header("error[E0308]: mismatched types"), Some((true, None)));
        assert_eq!(header("warning: unused"), Some((false, None)));
        assert_eq!(
            header("src/lib.rs:2:9: error: unused variable: `x`"),
            Some((true, Some("src/lib.rs:2:9")))
        );
        assert_eq!(header("errors: 3"), None);
        assert_eq!(header("error[E0308 mismatched"), None);
        assert_eq!(header("note: 1:2: error: x"), None);
        assert!(is_summary(
            "error: could not compile `x` (lib) due to 2 previous errors; 1 warning emitted"
        ));
        assert!(is_summary("warning: `x` (lib) generated 1 warning"));
        assert!(is_summary("warning: 2 warnings emitted"));
        assert!(!is_summary("error: unused variable: `x`"));
    }

    #[test]
    fn the_first_error_wins_over_an_earlier_warning() {
        let text = "warning: unused\n --> a.rs:1:1\n\nerror[E0425]: cannot find value `y`\n --> a.rs:2:5\n  |\n2 |     y\n  |     ^ not found\n\nerror: aborting due to 1 previous error; 1 warning emitted\n";
        let d = parse_diagnostics("rustc a.rs", "", text).unwrap();
        assert_eq!((d.errors, d.warnings, d.warnings_denied), (1, 1, false));
        assert_eq!(
            d.first_error.as_deref(),
            Some(
                "error[E0425]: cannot find value `y`\n --> a.rs:2:5\n  |\n2 |     y\n  |     ^ not found"
            )
        );
        assert_eq!(d.first_location.as_deref(), Some("a.rs:2:5"));
        assert_eq!(d.describe(), "1 error, 1 warning");
    }

    #[test]
    fn without_a_rust_command_the_shape_decides() {
        assert!(parse_diagnostics("make lint", "", "error: something broke\n").is_none());
        assert!(parse_diagnostics("cargo build", "", "error: something broke\n").is_some());
        assert!(parse_diagnostics("make", "", "error: x\n --> a.rs:1:1\n").is_some());
        assert!(parse_diagnostics("cargo build", "", "   Compiling x\n").is_none());
    }
}
