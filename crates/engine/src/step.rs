//! One agent step: spawn the agent through its adapter, stream its lines into events, enforce
//! the idle and step timeouts, honour a hard stop, and sum up what happened.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pawl_agent::{Adapter, AgentEvent, StepRequest, Usage};
use pawl_process::{End, Line, Stream};
use sha2::{Digest, Sha256};

use crate::control::Control;

/// How often the step loop wakes up with no output (for stop checks and heartbeats).
const TICK: Duration = Duration::from_millis(100);

/// What one step did.
#[derive(Debug, Clone, Default)]
pub struct StepOutcome {
    /// How the process ended; `None` when it could not be started.
    pub end: Option<End>,
    pub spawn_error: Option<String>,
    pub usage: Usage,
    pub cost_usd: f64,
    pub cost_estimated: bool,
    pub session_id: Option<String>,
    pub tool_calls: u32,
    /// The shell commands the agent's tool calls ran (a `command` in the call's input), in
    /// order: what the run's "must not" command rules are checked against after the step.
    pub commands: Vec<String>,
    /// Edits per file, in the order first seen.
    pub edits: BTreeMap<String, u32>,
    pub permission_denials: u32,
    /// The provider asked us to wait (with its retry-after, when given).
    pub rate_limited: Option<Option<Duration>>,
    pub rate_limit_message: Option<String>,
    pub errors: Vec<String>,
    /// The agent's own result said it failed.
    pub result_error: bool,
    pub claimed_done: bool,
    /// A fingerprint of the assistant text, for reasoning-loop detection.
    pub text_fingerprint: Option<String>,
    /// The assistant's text and the final result text of this try (not of earlier tries: a
    /// structured answer is read from the try that finished).
    pub text: String,
    pub duration: Duration,
    /// A hard stop (second Ctrl-C) ended the step.
    pub killed: bool,
    pub events: u32,
}

impl StepOutcome {
    /// The step failed as an agent step (not a verification failure).
    pub fn agent_error(&self) -> bool {
        self.spawn_error.is_some()
            || self.result_error
            || !self.errors.is_empty()
            || matches!(self.end, Some(End::Exited(c)) if c != 0)
            || matches!(self.end, Some(End::Signalled(_)) | Some(End::Unknown))
    }

    /// What the step did, as the breakers see it.
    pub fn did(&self) -> Did<'_> {
        Did {
            edits: &self.edits,
            agent_error: self.agent_error(),
            permission_denials: self.permission_denials,
            output_fingerprint: self.text_fingerprint.clone(),
        }
    }

    /// Folds in what an earlier attempt of the same iteration (cut off by an idle timeout or a
    /// provider rate limit, then retried) spent and did, so nothing it cost is lost.
    pub fn absorb_earlier(&mut self, earlier: &StepOutcome) {
        self.usage.add(&earlier.usage);
        self.cost_usd += earlier.cost_usd;
        self.cost_estimated |= earlier.cost_estimated;
        self.tool_calls += earlier.tool_calls;
        let mut commands = earlier.commands.clone();
        commands.append(&mut self.commands);
        self.commands = commands;
        for (path, n) in &earlier.edits {
            *self.edits.entry(path.clone()).or_insert(0) += n;
        }
        self.permission_denials += earlier.permission_denials;
        if self.session_id.is_none() {
            self.session_id = earlier.session_id.clone();
        }
        self.events += earlier.events;
    }

    /// The iteration record of this step: tokens in count cache reads and writes (what the
    /// provider bills as input), cost as reported or estimated.
    pub fn iteration_end(
        &self,
        duration: Duration,
        active: Duration,
        facts: pawl_core::judge::IterationFacts,
        summary: String,
    ) -> pawl_core::record::IterationEnd {
        pawl_core::record::IterationEnd {
            tokens_in: self.usage.input_total(),
            tokens_out: self.usage.output_tokens,
            cost_usd: self.cost_usd,
            cost_estimated: self.cost_estimated,
            tool_calls: self.tool_calls,
            files: self.edits.keys().cloned().collect(),
            outcome: self.outcome_label().to_string(),
            session_id: self.session_id.clone(),
            duration_ms: duration.as_millis() as u64,
            active_ms: active.as_millis() as u64,
            facts,
            summary,
        }
    }

    pub fn outcome_label(&self) -> &'static str {
        if self.killed {
            return "stopped";
        }
        match self.end {
            None => "spawn_error",
            Some(End::TimedOut) => "step_timeout",
            Some(End::IdleTimedOut) => "idle_timeout",
            Some(End::Stopped) => "stopped",
            _ if self.rate_limited.is_some() => "rate_limited",
            _ if self.agent_error() => "agent_error",
            _ => "completed",
        }
    }
}

/// How many lines of agent output may wait to be parsed.
const LINE_BACKLOG: usize = 1024;

/// Runs one step to its end.
#[allow(clippy::too_many_arguments)]
pub fn run_step(
    adapter: &mut dyn Adapter,
    req: &StepRequest,
    containment: Option<&pawl_process::Containment>,
    idle_timeout: Duration,
    step_timeout: Duration,
    log: &Path,
    log_cap: u64,
    control: &Control,
    on_tick: &mut dyn FnMut(),
    on_event: &mut dyn FnMut(&AgentEvent),
) -> StepOutcome {
    let started = Instant::now();
    let mut out = StepOutcome::default();
    let mut cmd = match adapter.command(req) {
        Ok(c) => c,
        Err(e) => {
            out.spawn_error = Some(e.to_string());
            return out;
        }
    };
    // Bounded: the agent's output is read no faster than it is parsed, so memory does not grow
    // with it (this loop receives until the channel closes).
    let (tx, rx) = mpsc::sync_channel::<Line>(LINE_BACKLOG);
    cmd.timeout(step_timeout)
        .idle_timeout(idle_timeout)
        .log_file(log)
        .log_limit(log_cap)
        .line_sink(tx);
    if let Some(c) = containment {
        cmd.contain(c.clone());
    }
    let running = match cmd.spawn() {
        Ok(r) => r,
        Err(e) => {
            out.spawn_error = Some(e.to_string());
            out.duration = started.elapsed();
            return out;
        }
    };
    // The builder keeps a clone of the line sender: drop it, or the channel never closes.
    drop(cmd);
    let cancel = running.cancel_handle();
    let mut text = Sha256::new();
    let mut any_text = false;
    loop {
        match rx.recv_timeout(TICK) {
            Ok(line) => {
                let events = match line.stream {
                    Stream::Stdout => adapter.parse_stdout(&line.text()),
                    Stream::Stderr => adapter.parse_stderr(&line.text()),
                };
                for ev in events {
                    out.events += 1;
                    absorb(&mut out, &ev, &mut text, &mut any_text);
                    on_event(&ev);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if control.kill_requested() && !out.killed {
                    out.killed = true;
                    cancel.kill_now();
                }
                on_tick();
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    match running.wait() {
        Ok(o) => out.end = Some(o.end),
        Err(e) => out.errors.push(format!("waiting for the agent: {e}")),
    }
    // What the stream itself could not carry (e.g. a result for an agent that printed none);
    // this also resets the adapter's per-step state for the next step.
    let exit_code = match out.end {
        Some(End::Exited(c)) => Some(c),
        _ => None,
    };
    for ev in adapter.finish(exit_code) {
        out.events += 1;
        absorb(&mut out, &ev, &mut text, &mut any_text);
        on_event(&ev);
    }
    if any_text {
        out.text_fingerprint = Some(format!("{:x}", text.finalize()));
    }
    out.duration = started.elapsed();
    out
}

fn absorb(out: &mut StepOutcome, ev: &AgentEvent, text: &mut Sha256, any_text: &mut bool) {
    match ev {
        AgentEvent::SessionStarted { session_id, .. } => out.session_id = Some(session_id.clone()),
        AgentEvent::Text { text: t } => {
            keep_text(&mut out.text, t);
            if !t.trim().is_empty() {
                text.update(t.trim().as_bytes());
                *any_text = true;
            }
            recovered(out);
        }
        AgentEvent::ToolCall { input, .. } => {
            out.tool_calls += 1;
            if let Some(c) = tool_command(input) {
                out.commands.push(c);
            }
            recovered(out);
        }
        AgentEvent::ToolResult { .. } | AgentEvent::Unknown { .. } => {}
        AgentEvent::FileEdited { path } => *out.edits.entry(path.clone()).or_insert(0) += 1,
        AgentEvent::PermissionDenied { .. } => out.permission_denials += 1,
        AgentEvent::RateLimited {
            retry_after,
            message,
        } => {
            out.rate_limited = Some(*retry_after);
            out.rate_limit_message = Some(message.clone());
        }
        AgentEvent::Error { message, .. } => out.errors.push(message.clone()),
        AgentEvent::Result {
            is_error,
            usage,
            cost_usd,
            cost_estimated,
            text: result_text,
            ..
        } => {
            if let Some(t) = result_text {
                keep_text(&mut out.text, t);
            }
            out.result_error |= *is_error;
            // A result carries the step's totals: it replaces, not adds to, the running usage.
            out.usage = *usage;
            if let Some(c) = cost_usd {
                out.cost_usd = *c;
                out.cost_estimated = *cost_estimated;
            }
        }
        AgentEvent::ClaimDone { .. } => out.claimed_done = true,
    }
}

/// The most of an agent's text a step keeps (its last part: where the final answer is).
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// Appends `t` and a newline to `text`, keeping the last [`MAX_TEXT_BYTES`] to twice that (cut at
/// a character boundary): memory does not grow with what the agent prints.
fn keep_text(text: &mut String, t: &str) {
    text.push_str(t);
    text.push('\n');
    // Trimmed when twice the limit, to the limit: each byte is moved at most once.
    if text.len() > 2 * MAX_TEXT_BYTES {
        let mut cut = text.len() - MAX_TEXT_BYTES;
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        text.drain(..cut);
    }
}

/// The model answered after a rate-limit event: the agent waited and retried by itself (Claude
/// Code's `api_retry`, Codex's "Reconnecting..."), so the step is not rate limited and must not
/// be run again. A rate limit the agent gave up on comes last, with no model output after it
/// (usage-limit texts are `RateLimited`, never `Text`).
fn recovered(out: &mut StepOutcome) {
    out.rate_limited = None;
    out.rate_limit_message = None;
}

/// The shell command of a tool call, where its input names one: `{"command": "..."}` (Claude
/// Code's Bash, Gemini's shell) or `{"command": ["bash", "-lc", "..."]}` (Codex).
fn tool_command(input: &serde_json::Value) -> Option<String> {
    match input.get("command")? {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(parts) => {
            let words: Vec<&str> = parts.iter().filter_map(|p| p.as_str()).collect();
            Some(words.join(" "))
        }
        _ => None,
    }
}

/// What an iteration did, as the breakers see it.
pub struct Did<'a> {
    /// Edits per file.
    pub edits: &'a BTreeMap<String, u32>,
    pub agent_error: bool,
    pub permission_denials: u32,
    /// A fingerprint of the agent's text (reasoning loops).
    pub output_fingerprint: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn absorbed(events: &[AgentEvent]) -> StepOutcome {
        let mut out = StepOutcome {
            end: Some(End::Exited(0)),
            ..Default::default()
        };
        let (mut text, mut any) = (Sha256::new(), false);
        for ev in events {
            absorb(&mut out, ev, &mut text, &mut any);
        }
        out
    }

    /// Regression: Claude Code 2.1.329 retried a 529 by itself (`system/api_retry`) and finished
    /// the step, yet pawl waited and ran the whole step again (a second session, twice the cost).
    #[test]
    fn a_rate_limit_the_agent_recovered_from_does_not_retry_the_step() {
        let retry = AgentEvent::RateLimited {
            retry_after: Some(Duration::from_millis(500)),
            message: "API retry 1/10 after HTTP 529 (overloaded)".into(),
        };
        let text = AgentEvent::Text {
            text: "Fixing it.".into(),
        };
        let recovered = absorbed(&[retry.clone(), text.clone()]);
        assert_eq!(recovered.rate_limited, None);
        assert_eq!(recovered.outcome_label(), "completed");
        // Given up: the limit comes last (then the error result), nothing after it.
        let gave_up = absorbed(&[
            text,
            retry.clone(),
            AgentEvent::Result {
                is_error: true,
                subtype: Some("success".into()),
                text: Some("API Error: Request rejected (429)".into()),
                usage: Usage::default(),
                cost_usd: Some(0.0),
                cost_estimated: false,
                num_turns: Some(1),
            },
        ]);
        assert_eq!(gave_up.rate_limited, Some(Some(Duration::from_millis(500))));
        assert_eq!(gave_up.outcome_label(), "rate_limited");
    }

    /// Regression: the cost, tokens and edits of an attempt cut off by an idle timeout or a rate
    /// limit were dropped when the iteration retried the agent.
    #[test]
    fn retried_attempts_keep_what_earlier_attempts_spent() {
        let mut earlier = StepOutcome {
            cost_usd: 0.5,
            tool_calls: 2,
            permission_denials: 1,
            session_id: Some("s1".into()),
            ..Default::default()
        };
        earlier.usage.input_tokens = 100;
        earlier.edits.insert("a.rs".into(), 2);
        let mut last = StepOutcome {
            cost_usd: 0.25,
            tool_calls: 1,
            ..Default::default()
        };
        last.usage.output_tokens = 10;
        last.edits.insert("a.rs".into(), 1);
        last.edits.insert("b.rs".into(), 1);
        last.absorb_earlier(&earlier);
        assert_eq!(last.cost_usd, 0.75);
        assert_eq!(last.usage.input_tokens, 100);
        assert_eq!(last.usage.output_tokens, 10);
        assert_eq!(last.tool_calls, 3);
        assert_eq!(last.permission_denials, 1);
        assert_eq!(last.edits.get("a.rs"), Some(&3));
        assert_eq!(last.edits.get("b.rs"), Some(&1));
        assert_eq!(last.session_id.as_deref(), Some("s1"));
    }
}
