//! libtest's JSON event lines (`{"type":"test","event":"failed",...}`), as written by
//! `cargo nextest run --message-format libtest-json` and by nightly `cargo test -- --format json`.
//! Lines that are not JSON (cargo's own messages) are skipped.

use serde::Deserialize;

use super::{Runner, TestSummary, rust_panic};

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    event: String,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    stdout: Option<String>,
}

pub(crate) fn parse(text: &str, runner: Runner) -> Option<TestSummary> {
    let mut s = TestSummary::new(runner);
    let mut any = false;
    for line in text.lines() {
        let line = line.trim();
        if !line.starts_with('{') {
            continue;
        }
        let Ok(ev) = serde_json::from_str::<Event>(line) else {
            continue;
        };
        any = true;
        if ev.kind != "test" {
            continue;
        }
        let name = ev.name.as_deref().unwrap_or("");
        match ev.event.as_str() {
            "ok" => s.passed = s.passed.saturating_add(1),
            "ignored" => s.skipped = s.skipped.saturating_add(1),
            "failed" | "timeout" => {
                s.failed = s.failed.saturating_add(1);
                s.add_failing(name);
                if let Some(out) = &ev.stdout {
                    match rust_panic(out, name) {
                        Some(m) => s.set_first_failure(&m),
                        None => s.set_first_failure(&format!("{name}:\n{out}")),
                    }
                }
            }
            _ => {}
        }
    }
    any.then_some(s)
}
