//! libtest's JSON event lines (`{"type":"test","event":"failed",...}`), as written by
//! `cargo nextest run --message-format libtest-json` and by nightly `cargo test -- --format json`.
//! Lines that are not JSON (cargo's own messages) are skipped.

use serde::Deserialize;

use super::{Runner, TestList, TestStatus, TestSummary, rust_panic};

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
    let mut tests = TestList::default();
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
            "ok" => {
                s.passed = s.passed.saturating_add(1);
                tests.add(name, TestStatus::Passed);
            }
            "ignored" => {
                s.skipped = s.skipped.saturating_add(1);
                tests.add(name, TestStatus::Skipped);
            }
            "failed" | "timeout" => {
                s.failed = s.failed.saturating_add(1);
                tests.add(name, TestStatus::Failed);
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
    s.tests = tests.into_vec();
    any.then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_give_ids() {
        let text = r#"{"type":"suite","event":"started","test_count":3}
{"type":"test","event":"ok","name":"m::a"}
{"type":"test","event":"ignored","name":"m::b"}
{"type":"test","event":"failed","name":"m::c","stdout":"boom"}
{"type":"test","event":"timeout","name":"m::d"}
{"type":"test","event":"started","name":"m::e"}"#;
        let s = parse(text, Runner::CargoTest).unwrap();
        let ids: Vec<(&str, TestStatus)> =
            s.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("m::a", TestStatus::Passed),
                ("m::b", TestStatus::Skipped),
                ("m::c", TestStatus::Failed),
                ("m::d", TestStatus::Failed)
            ]
        );
    }
}
