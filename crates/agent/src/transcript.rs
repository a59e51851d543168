//! Token usage read from an agent's own transcript, for the in-session driver.
//!
//! Hooks carry no usage, but every hook input names the session's transcript
//! (`transcript_path`): Claude Code's JSONL, where each assistant message
//! carries its `usage` (repeated on every line of a message that spans several
//! content blocks), and Codex's rollout JSONL, whose `token_count` events carry
//! the session's cumulative `total_token_usage`. Each Stop reads what was
//! appended since the last one ([`Cursor`]) and charges it to the run, so that
//! token and dollar limits hold in session mode too.
//!
//! The cursor only ever moves to the end of a complete line; a line being
//! written when the hook reads is read next time. A transcript that shrank or
//! changed path is read again from its start (a count too high, never too
//! low: limits stay real).

use std::io::{Read as _, Seek, SeekFrom};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Usage;

/// The transcript formats pawl reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Claude Code's session JSONL (`~/.claude/projects/<project>/<session>.jsonl`).
    Claude,
    /// Codex's rollout JSONL (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`).
    Codex,
}

/// Where the previous read of one session's transcript stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// The transcript read (another path starts over).
    #[serde(default)]
    pub path: Option<String>,
    /// Bytes already read, always at the end of a line.
    #[serde(default)]
    pub offset: u64,
    /// Claude: the id of the last assistant message counted (its lines may straddle reads).
    #[serde(default)]
    pub last_message: Option<String>,
    /// Codex: the session's cumulative usage at `offset`.
    #[serde(default)]
    pub total: Option<Usage>,
    /// The model last seen, for the price estimate.
    #[serde(default)]
    pub model: Option<String>,
}

/// What one read found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Read {
    /// Usage appended since the cursor.
    pub usage: Usage,
    /// Estimated dollars for it (list prices; see [`crate::claude::estimate_cost`] and
    /// [`crate::codex::estimate_cost`]).
    pub cost_usd: f64,
    /// Model turns counted (Claude: assistant messages; Codex: token reports).
    pub turns: u32,
    /// Claude: the text of the last assistant text block read, to tell whether the message the
    /// Stop hook reports has reached the file yet (Claude Code may flush it only after the hook
    /// has started).
    pub last_text: Option<String>,
    /// Where the next read starts.
    pub cursor: Cursor,
}

/// Most bytes one read takes in; the rest is read by the next Stop (bounds the hook's time on a
/// transcript that grew by gigabytes, e.g. huge tool outputs).
pub const MAX_READ_BYTES: u64 = 64 * 1024 * 1024;

/// Reads `path` from `cursor` on. A missing file reads as nothing new (the agent may not have
/// written it yet).
pub fn read_since(format: Format, path: &Path, cursor: &Cursor) -> std::io::Result<Read> {
    let shown = path.to_string_lossy().into_owned();
    // Only a regular file is read: opening a FIFO would wait for a writer forever, and a device
    // could be read without end. What the agent points the hook at is not trusted.
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{shown} is not a regular file"),
            ));
        }
        _ => {}
    }
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Read {
                cursor: cursor.clone(),
                ..Read::default()
            });
        }
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let mut start = cursor.clone();
    if start.path.as_deref() != Some(shown.as_str()) || len < start.offset {
        start = Cursor {
            path: Some(shown),
            model: cursor.model.clone(),
            ..Cursor::default()
        };
    }
    file.seek(SeekFrom::Start(start.offset))?;
    let mut bytes = Vec::new();
    file.take(MAX_READ_BYTES).read_to_end(&mut bytes)?;
    // Only complete lines; a line still being written is read next time.
    let complete = bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |last| last + 1);
    let text = String::from_utf8_lossy(&bytes[..complete]);
    let mut read = Read {
        cursor: Cursor {
            offset: start.offset + complete as u64,
            ..start.clone()
        },
        ..Read::default()
    };
    for line in text.lines() {
        match format {
            Format::Claude => claude_line(line, &mut read),
            Format::Codex => codex_line(line, &mut read),
        }
    }
    read.cost_usd = match format {
        Format::Claude => crate::claude::estimate_cost(read.cursor.model.as_deref(), &read.usage),
        Format::Codex => crate::codex::estimate_cost(read.cursor.model.as_deref(), &read.usage),
    };
    Ok(read)
}

/// A Claude Code line: an assistant message's usage, once per message id, and its text.
fn claude_line(line: &str, read: &mut Read) {
    // Most lines are not assistant messages: skip them without parsing.
    if !line.contains("\"assistant\"") {
        return;
    }
    let Ok(v) = serde_json::from_str::<Value>(line) else {
        return;
    };
    if v["type"] != "assistant" {
        return;
    }
    let message = &v["message"];
    let texts: Vec<&str> = message["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    if !texts.is_empty() {
        read.last_text = Some(texts.join("\n"));
    }
    let u = &message["usage"];
    if !u.is_object() {
        return;
    }
    let id = message["id"].as_str().map(str::to_owned);
    if id.is_some() && id == read.cursor.last_message {
        return;
    }
    if let Some(model) = message["model"].as_str().filter(|m| !m.is_empty()) {
        read.cursor.model = Some(model.to_owned());
    }
    read.usage.add(&Usage {
        input_tokens: u["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
        cache_read_tokens: u["cache_read_input_tokens"].as_u64().unwrap_or(0),
        cache_write_tokens: u["cache_creation_input_tokens"].as_u64().unwrap_or(0),
    });
    read.turns += 1;
    read.cursor.last_message = id;
}

/// Whether a read has reached the message the Stop hook reports as the turn's last
/// (`last_assistant_message`): its text ends with the last text block read.
pub fn reached(read: &Read, last_message: &str) -> bool {
    read.last_text
        .as_deref()
        .map(str::trim)
        .is_some_and(|t| !t.is_empty() && last_message.trim().ends_with(t))
}

/// A Codex line: the model (`turn_context`) and the cumulative usage (`token_count`).
fn codex_line(line: &str, read: &mut Read) {
    if !line.contains("\"token_count\"") && !line.contains("\"turn_context\"") {
        return;
    }
    let Ok(v) = serde_json::from_str::<Value>(line) else {
        return;
    };
    let payload = &v["payload"];
    if v["type"] == "turn_context" {
        if let Some(model) = payload["model"].as_str().filter(|m| !m.is_empty()) {
            read.cursor.model = Some(model.to_owned());
        }
        return;
    }
    if payload["type"] != "token_count" {
        return;
    }
    let t = &payload["info"]["total_token_usage"];
    if !t.is_object() {
        return;
    }
    let input = t["input_tokens"].as_u64().unwrap_or(0);
    let cached = t["cached_input_tokens"].as_u64().unwrap_or(0);
    // Codex's input count includes the cached part; pawl's Usage keeps them apart.
    let total = Usage {
        input_tokens: input.saturating_sub(cached),
        output_tokens: t["output_tokens"].as_u64().unwrap_or(0),
        cache_read_tokens: cached,
        cache_write_tokens: t["cache_write_input_tokens"].as_u64().unwrap_or(0),
    };
    let previous = read.cursor.total.unwrap_or_default();
    let grew = total.input_tokens >= previous.input_tokens
        && total.output_tokens >= previous.output_tokens
        && total.cache_read_tokens >= previous.cache_read_tokens
        && total.cache_write_tokens >= previous.cache_write_tokens;
    if grew {
        read.usage.add(&Usage {
            input_tokens: total.input_tokens - previous.input_tokens,
            output_tokens: total.output_tokens - previous.output_tokens,
            cache_read_tokens: total.cache_read_tokens - previous.cache_read_tokens,
            cache_write_tokens: total.cache_write_tokens - previous.cache_write_tokens,
        });
    } else {
        // The count restarted (a new thread in the same file): the figure is new usage.
        read.usage.add(&total);
    }
    if total != previous {
        read.turns += 1;
    }
    read.cursor.total = Some(total);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::io::Write as _;

    use super::*;

    fn claude_message(id: &str, input: u64, output: u64) -> String {
        format!(
            r#"{{"type":"assistant","uuid":"u-{id}","message":{{"id":"{id}","model":"claude-sonnet-4-5","role":"assistant","content":[{{"type":"text","text":"reply {id}"}}],"usage":{{"input_tokens":{input},"cache_creation_input_tokens":10,"cache_read_input_tokens":100,"output_tokens":{output}}}}}}}"#
        )
    }

    fn codex_count(input: u64, cached: u64, output: u64) -> String {
        format!(
            r#"{{"timestamp":"t","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{input},"cached_input_tokens":{cached},"cache_write_input_tokens":0,"output_tokens":{output},"reasoning_output_tokens":0,"total_tokens":0}},"last_token_usage":{{}}}}}}}}"#
        )
    }

    #[test]
    fn claude_counts_each_message_once_across_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut f = std::fs::File::create(&path).unwrap();
        // Message m1 spans two lines (text, then a tool call), each repeating the usage.
        writeln!(
            f,
            r#"{{"type":"user","message":{{"role":"user","content":"hi"}}}}"#
        )
        .unwrap();
        writeln!(f, "{}", claude_message("m1", 1200, 34)).unwrap();
        writeln!(f, "{}", claude_message("m1", 1200, 34)).unwrap();
        let first = read_since(Format::Claude, &path, &Cursor::default()).unwrap();
        assert_eq!(first.turns, 1);
        assert_eq!(
            first.usage,
            Usage {
                input_tokens: 1200,
                output_tokens: 34,
                cache_read_tokens: 100,
                cache_write_tokens: 10
            }
        );
        assert!(first.cost_usd > 0.0);
        assert_eq!(first.cursor.model.as_deref(), Some("claude-sonnet-4-5"));
        assert!(reached(&first, "reply m1"));
        assert!(!reached(&first, "reply m2"));
        // A third line of m1 arrives after the read, then m2, then half a line.
        writeln!(f, "{}", claude_message("m1", 1200, 34)).unwrap();
        writeln!(f, "{}", claude_message("m2", 1300, 7)).unwrap();
        write!(f, "{}", &claude_message("m3", 5, 5)[..20]).unwrap();
        let second = read_since(Format::Claude, &path, &first.cursor).unwrap();
        assert_eq!(second.turns, 1);
        assert_eq!(second.usage.input_tokens, 1300);
        assert_eq!(second.usage.output_tokens, 7);
        assert!(reached(&second, "Thinking out loud.\n\nreply m2"));
        // Nothing new: nothing charged; the half line is not consumed.
        let third = read_since(Format::Claude, &path, &second.cursor).unwrap();
        assert_eq!(third.usage, Usage::default());
        assert_eq!(third.cursor.offset, second.cursor.offset);
    }

    #[test]
    fn a_fifo_or_a_device_is_refused_at_once_never_waited_on() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("t.jsonl");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        for path in [fifo.as_path(), Path::new("/dev/zero"), dir.path()] {
            let err = read_since(Format::Claude, path, &Cursor::default()).unwrap_err();
            assert!(err.to_string().contains("not a regular file"), "{err}");
        }
    }

    #[test]
    fn codex_charges_the_growth_of_the_cumulative_count() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rollout.jsonl");
        let mut f = std::fs::File::create(&path).unwrap();
        writeln!(
            f,
            r#"{{"type":"turn_context","payload":{{"model":"gpt-5-mini","cwd":"/r"}}}}"#
        )
        .unwrap();
        writeln!(f, "{}", codex_count(1200, 200, 34)).unwrap();
        writeln!(f, "{}", codex_count(2500, 200, 41)).unwrap();
        let first = read_since(Format::Codex, &path, &Cursor::default()).unwrap();
        assert_eq!(
            first.usage,
            Usage {
                input_tokens: 2300,
                output_tokens: 41,
                cache_read_tokens: 200,
                cache_write_tokens: 0
            }
        );
        assert_eq!(first.turns, 2);
        assert_eq!(first.cursor.model.as_deref(), Some("gpt-5-mini"));
        writeln!(f, "{}", codex_count(4000, 1000, 50)).unwrap();
        let second = read_since(Format::Codex, &path, &first.cursor).unwrap();
        assert_eq!(
            second.usage,
            Usage {
                input_tokens: 700,
                output_tokens: 9,
                cache_read_tokens: 800,
                cache_write_tokens: 0
            }
        );
    }

    #[test]
    fn a_missing_file_reads_as_nothing_and_a_shrunk_one_starts_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let none = read_since(Format::Claude, &path, &Cursor::default()).unwrap();
        assert_eq!(none.usage, Usage::default());
        std::fs::write(&path, format!("{}\n", claude_message("a", 10, 1))).unwrap();
        let r = read_since(Format::Claude, &path, &Cursor::default()).unwrap();
        std::fs::write(&path, format!("{}\n", claude_message("b", 3, 1))).unwrap();
        // Shorter than the cursor: read again from the start.
        let cursor = Cursor {
            offset: r.cursor.offset + 100,
            ..r.cursor
        };
        let again = read_since(Format::Claude, &path, &cursor).unwrap();
        assert_eq!(again.usage.input_tokens, 3);
    }

    proptest::proptest! {
        /// Whatever an agent writes, a read returns (no panic) and never moves backwards.
        #[test]
        fn any_bytes_read_without_panic(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2048),
                                        offset in 0u64..4096) {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("t.jsonl");
            std::fs::write(&path, &bytes).unwrap();
            let cursor = Cursor { path: Some(path.to_string_lossy().into_owned()), offset, ..Cursor::default() };
            for format in [Format::Claude, Format::Codex] {
                let r = read_since(format, &path, &cursor).unwrap();
                proptest::prop_assert!(r.cursor.offset <= bytes.len() as u64);
                proptest::prop_assert!(r.cost_usd >= 0.0);
            }
        }
    }

    #[test]
    fn garbage_lines_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(
            &path,
            "not json \"assistant\" \"usage\"\n{\"type\":\"assistant\",\"message\":{\"usage\":7}}\n\u{0}\u{ff}\n{\"type\":\"event_msg\",\"payload\":{\"type\":\"token_count\",\"info\":null}}\n",
        )
        .unwrap();
        for format in [Format::Claude, Format::Codex] {
            let r = read_since(format, &path, &Cursor::default()).unwrap();
            assert_eq!(r.usage, Usage::default());
            assert_eq!(r.turns, 0);
        }
    }
}
