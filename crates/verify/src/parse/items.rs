//! Failure items: what a linter, type checker or compiler reported, one item per finding, for
//! judging a check against the baseline (`pawl_core::against`). An item is (tool, rule, file,
//! message) — never a line or column, so a fix that moves lines keeps the items it did not
//! touch equal.
//!
//! | tool | output | rule | file |
//! |---|---|---|---|
//! | rustc, clippy | cargo's `--message-format=json` (or rustc's JSON) | `code.code` (`clippy::needless_return`, `unused_variables`, `E0308`), else the level | the primary span's file |
//! | rustc, clippy | human (`error[E0308]: …` / `warning: …` then `--> file:line:col`), short (`file:line:col: warning: …`) | the bracketed code, else the level (rustc names a lint only on its first diagnostic) | the `-->` location |
//! | ruff | full (`F401 [*] msg` then ` --> file:line:col`), concise (`file:line:col: F401 [*] msg`), JSON; `ruff format --check` (`unformatted: …` then ` --> file:…`, concise `file:l:c: unformatted: …`, before 0.13 `Would reformat: file`) | the code; `unformatted` | as printed |
//! | mypy | `file:line: error: msg  [code]` (`:col` too) | the `[code]` | as printed |
//! | pyright | `  file:line:col - error: msg` (its `(reportRule)` on the same or a continuation line) | the `reportRule`, else the level | as printed |
//! | eslint | stylish (a file line, then `line:col  error  msg  rule`), JSON (`-f json`) | the rule id | as printed |
//! | tsc | `file(line,col): error TS2322: msg`, `--pretty` (`file:line:col - error TS2322: msg`) | `TS2322` | as printed |
//! | black | `black --check`: `would reformat file` | `unformatted` | as printed |
//! | prettier | `prettier --check`: `[warn] file`; `prettier --list-different` (the check's command says so): a path a line | `unformatted` | as printed |
//! | ruff, black, prettier | a file the formatter cannot parse: ruff's `invalid-syntax: …` (as above), black's `error: cannot parse: file:l:c`, prettier's `[error] file: SyntaxError: … (l:c)` | `invalid-syntax`; `error` | as printed |
//! | rustfmt | `cargo fmt --check`: `Diff in file:line:` (or `… at line N:`), one item per file | `unformatted` | as printed |
//!
//! A formatter's item (rule [`pawl_core::against::WHOLE_FILE`]) stands for a whole file: the
//! judge counts it as new in a file the run changed.
//!
//! Paths under the check's directory are made relative to it (eslint and pyright print absolute
//! paths). Notes and summaries are not items. The input is untrusted: every parser is total
//! (any text in, never a panic; a proptest feeds it random input). `None`: no format was
//! recognised, so the check cannot be compared.

use pawl_core::against::FailureItem;

use crate::diagnostics::{human_blocks, is_summary};
use crate::text::strip_ansi;

/// The items in a check's output; `root` is the check's directory (absolute paths under it are
/// made relative). `None` when no known format shows in it.
pub fn parse_items(stdout: &str, stderr: &str, root: &str) -> Option<Vec<FailureItem>> {
    let mut out: Vec<FailureItem> = Vec::new();
    let mut recognised = false;
    for text in [stdout, stderr] {
        let text = strip_ansi(text);
        let found = [
            rust_json(&text),
            rust_human(&text),
            ruff(&text),
            ruff_json(&text),
            mypy(&text),
            pyright(&text),
            eslint_stylish(&text),
            eslint_json(&text),
            tsc(&text),
            formatters(&text),
        ];
        for items in found.into_iter().flatten() {
            recognised = true;
            out.extend(items);
        }
    }
    if !recognised {
        return None;
    }
    let root = root.trim_end_matches('/');
    for i in &mut out {
        if !root.is_empty()
            && let Some(rel) = i.file.strip_prefix(root).and_then(|r| r.strip_prefix('/'))
        {
            i.file = rel.to_string();
        }
    }
    Some(out)
}

/// A failed check's items: its tool findings ([`parse_items`], and the files a listing
/// formatter printed when `command` is one: `prettier --list-different`) and its failing tests
/// (tool `tests`, rule `failed`, the test's id as message). `None` when neither can be read.
pub fn check_items(
    command: &str,
    stdout: &str,
    stderr: &str,
    root: &str,
    tests: Option<&super::TestSummary>,
) -> Option<Vec<FailureItem>> {
    let mut out = parse_items(stdout, stderr, root);
    if let Some(tool) = lists_unformatted(command) {
        let listed = listed_files(tool, &strip_ansi(stdout));
        let all = out.get_or_insert_with(Vec::new);
        let root = root.trim_end_matches('/');
        for mut i in listed {
            if !root.is_empty()
                && let Some(rel) = i.file.strip_prefix(root).and_then(|r| r.strip_prefix('/'))
            {
                i.file = rel.to_string();
            }
            all.push(i);
        }
    }
    if let Some(t) = tests.filter(|t| t.reported_failures() > 0) {
        let mut ids: Vec<&str> = t
            .tests
            .iter()
            .filter(|o| o.status == super::TestStatus::Failed)
            .map(|o| o.id.as_str())
            .collect();
        if ids.is_empty() {
            ids = t.failing.iter().map(String::as_str).collect();
        }
        // Counts say more failed than are named: the unnamed ones cannot be compared.
        if ids.is_empty() {
            return None;
        }
        out.get_or_insert_with(Vec::new)
            .extend(ids.into_iter().map(test_item));
    }
    out
}

/// A failing test as an item.
pub fn test_item(id: &str) -> FailureItem {
    item("tests", "failed", "", id)
}

fn item(tool: &str, rule: &str, file: &str, message: &str) -> FailureItem {
    FailureItem {
        tool: tool.to_string(),
        rule: rule.to_string(),
        file: file.trim().to_string(),
        message: message.trim().to_string(),
    }
}

fn numeric(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// `path:line:col` or `path:line` → path (the location's numbers dropped).
fn path_of_location(loc: &str) -> Option<&str> {
    let mut rest = loc.trim();
    let mut dropped = 0;
    while dropped < 2 {
        match rest.rsplit_once(':') {
            Some((p, n)) if numeric(n) => {
                rest = p;
                dropped += 1;
            }
            _ => break,
        }
    }
    (dropped > 0 && !rest.is_empty() && !rest.contains(' ')).then_some(rest)
}

fn some_if_any(v: Vec<FailureItem>) -> Option<Vec<FailureItem>> {
    (!v.is_empty()).then_some(v)
}

// ---------------------------------------------------------------------------- rustc, clippy

fn rust_json(text: &str) -> Option<Vec<FailureItem>> {
    let mut out = Vec::new();
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
        if !matches!(level, "error" | "warning") {
            continue;
        }
        let text = msg.get("message").and_then(|m| m.as_str()).unwrap_or("");
        if is_summary(&format!("{level}: {text}")) {
            continue;
        }
        let code = msg
            .get("code")
            .and_then(|c| c.get("code"))
            .and_then(|c| c.as_str())
            .unwrap_or(level);
        let file = msg
            .get("spans")
            .and_then(|s| s.as_array())
            .and_then(|spans| {
                spans
                    .iter()
                    .find(|s| s.get("is_primary").and_then(|p| p.as_bool()) == Some(true))
                    .or_else(|| spans.first())
            })
            .and_then(|s| s.get("file_name"))
            .and_then(|f| f.as_str())
            .unwrap_or("");
        out.push(item("rust", code, file, text));
    }
    some_if_any(out)
}

fn rust_human(text: &str) -> Option<Vec<FailureItem>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for b in human_blocks(&lines) {
        let (line, is_error, short_loc) = (b.line, b.is_error, b.short_loc);
        // Only a diagnostic with a location is rustc's shape (`error: could not compile` and
        // other tools' `error:` lines are not).
        let Some(location) = b.location else {
            continue;
        };
        let file = path_of_location(&location).unwrap_or(&location);
        // `path:line:col: error[E0308]: msg` (short) or `error[E0308]: msg`.
        let head = match short_loc {
            Some(loc) => line.get(loc.len() + 2..).unwrap_or(""),
            None => line,
        };
        let level = if is_error { "error" } else { "warning" };
        let after_level = head.get(level.len()..).unwrap_or("");
        let (rule, message) = match after_level.strip_prefix('[') {
            Some(r) => match r.split_once("]: ") {
                Some((code, m)) => (code, m),
                None => (level, r),
            },
            None => (level, after_level.strip_prefix(": ").unwrap_or(after_level)),
        };
        out.push(item("rust", rule, file, message));
    }
    some_if_any(out)
}

// ---------------------------------------------------------------------------- ruff

/// A ruff rule code: letters then digits (`F401`, `E501`, `PLR2004`, `I001`).
fn is_rule_code(s: &str) -> bool {
    let letters = s.chars().take_while(char::is_ascii_uppercase).count();
    let digits = s.len() - letters;
    (1..=4).contains(&letters) && (1..=5).contains(&digits) && numeric(&s[letters..])
}

/// The kinds ruff prints in place of a rule code: `ruff format --check`'s `unformatted`, and
/// `invalid-syntax` (a file ruff cannot parse, in `ruff check` and `ruff format --check`: a
/// syntax error the run brings in is a new item, never nothing). Not rustc's `error:` and
/// `warning:`, which have the same shape and are rustc's.
const RUFF_KINDS: &[&str] = &["unformatted", "invalid-syntax"];

fn ruff(text: &str) -> Option<Vec<FailureItem>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let line = line.trim_end();
        // Concise: `path:line:col: CODE [*] message`, `path:line:col: unformatted: message`.
        if let Some((loc, rest)) = line.split_once(": ")
            && let Some(file) = path_of_location(loc)
            && let Some((code, msg)) = rest
                .split_once(' ')
                .filter(|(code, _)| is_rule_code(code))
                .or_else(|| {
                    rest.split_once(": ")
                        .filter(|(kind, _)| RUFF_KINDS.contains(kind))
                })
        {
            let msg = msg.strip_prefix("[*] ").unwrap_or(msg);
            out.push(item("ruff", code, file, msg));
            continue;
        }
        // Full: `CODE [*] message` then ` --> path:line:col`; `ruff format --check`:
        // `unformatted: File would be reformatted` then the same location line.
        let head = match line.split_once(' ') {
            Some((code, msg)) if is_rule_code(code) => Some((code, msg)),
            _ => line
                .split_once(": ")
                .filter(|(kind, _)| RUFF_KINDS.contains(kind)),
        };
        if let Some((code, msg)) = head
            && let Some(next) = lines.get(n + 1)
            && let Some(loc) = next.trim_start().strip_prefix("--> ")
            && let Some(file) = path_of_location(loc)
        {
            let msg = msg.strip_prefix("[*] ").unwrap_or(msg);
            out.push(item("ruff", code, file, msg));
        }
    }
    some_if_any(out)
}

fn ruff_json(text: &str) -> Option<Vec<FailureItem>> {
    let t = text.trim();
    if !t.starts_with('[') || !t.contains("\"code\"") || !t.contains("\"filename\"") {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(t).ok()?;
    let mut out = Vec::new();
    for d in v.as_array()? {
        let (Some(code), Some(file), Some(msg)) = (
            d.get("code").and_then(|c| c.as_str()),
            d.get("filename").and_then(|c| c.as_str()),
            d.get("message").and_then(|c| c.as_str()),
        ) else {
            continue;
        };
        out.push(item("ruff", code, file, msg));
    }
    some_if_any(out)
}

// ---------------------------------------------------------------------------- mypy, pyright

fn mypy(text: &str) -> Option<Vec<FailureItem>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((loc, msg)) = line.split_once(": error: ") else {
            continue;
        };
        let Some(file) = path_of_location(loc) else {
            continue;
        };
        let msg = msg.trim_end();
        let (msg, code) = match msg.strip_suffix(']').and_then(|m| m.rsplit_once("  [")) {
            Some((m, c)) => (m, c),
            None => (msg, "error"),
        };
        out.push(item("mypy", code, file, msg));
    }
    some_if_any(out)
}

fn pyright(text: &str) -> Option<Vec<FailureItem>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let l = line.trim();
        let Some((loc, rest)) = l.split_once(" - ") else {
            continue;
        };
        let Some(file) = path_of_location(loc) else {
            continue;
        };
        let (level, msg) = match rest.split_once(": ") {
            Some((lvl @ ("error" | "warning"), m)) => (lvl, m),
            _ => continue,
        };
        // The rule closes the message, on this line or on a continuation (indented deeper,
        // not a location).
        // (pyright indents continuations with no-break spaces.)
        let indent = |s: &str| s.chars().take_while(|c| c.is_whitespace()).count();
        let mut rule = None;
        let mut body = vec![msg];
        for next in lines.iter().skip(n + 1) {
            let t = next.trim();
            if t.is_empty()
                || t.split_once(" - ")
                    .is_some_and(|(l, _)| path_of_location(l).is_some())
                || indent(next) <= indent(line)
            {
                break;
            }
            body.push(t);
        }
        if let Some(last) = body.last()
            && let Some(open) = last.rfind(" (report")
            && last.ends_with(')')
        {
            rule = last.get(open + 2..last.len() - 1).map(str::to_owned);
        }
        let first = msg
            .rfind(" (report")
            .filter(|_| msg.ends_with(')'))
            .map_or(msg, |i| &msg[..i]);
        out.push(item(
            "pyright",
            rule.as_deref().unwrap_or(level),
            file,
            first,
        ));
    }
    some_if_any(out)
}

// ---------------------------------------------------------------------------- eslint

fn eslint_stylish(text: &str) -> Option<Vec<FailureItem>> {
    let mut out = Vec::new();
    let mut file: Option<&str> = None;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        if !line.starts_with(' ') {
            // A file header: a path alone on its line.
            file = (!line.contains("  ") && (line.contains('/') || line.contains('.')))
                .then_some(line);
            continue;
        }
        let Some(f) = file else { continue };
        let cols: Vec<&str> = line
            .trim()
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        let [pos, level, rest @ ..] = cols.as_slice() else {
            continue;
        };
        let pos_ok = pos
            .split_once(':')
            .is_some_and(|(l, c)| numeric(l) && numeric(c));
        if !pos_ok || !matches!(*level, "error" | "warning") || rest.is_empty() {
            continue;
        }
        let (msg, rule) = match rest {
            [msg] => (*msg, *level),
            [msg @ .., rule] => (msg.last().copied().unwrap_or(""), *rule),
            [] => continue,
        };
        out.push(item("eslint", rule, f, msg));
    }
    some_if_any(out)
}

fn eslint_json(text: &str) -> Option<Vec<FailureItem>> {
    let t = text.trim();
    if !t.starts_with('[') || !t.contains("\"filePath\"") {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(t).ok()?;
    let mut out = Vec::new();
    for f in v.as_array()? {
        let file = f.get("filePath").and_then(|p| p.as_str()).unwrap_or("");
        let Some(msgs) = f.get("messages").and_then(|m| m.as_array()) else {
            continue;
        };
        for m in msgs {
            let rule = m.get("ruleId").and_then(|r| r.as_str()).unwrap_or("fatal");
            let msg = m.get("message").and_then(|r| r.as_str()).unwrap_or("");
            out.push(item("eslint", rule, file, msg));
        }
    }
    some_if_any(out)
}

// ---------------------------------------------------------------------------- tsc

fn tsc(text: &str) -> Option<Vec<FailureItem>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_end();
        // `file(line,col): error TS2322: msg`
        let plain = line.split_once(": error TS").and_then(|(loc, rest)| {
            let (file, pos) = loc.rsplit_once('(')?;
            let pos = pos.strip_suffix(')')?;
            pos.split_once(',')
                .is_some_and(|(l, c)| numeric(l) && numeric(c))
                .then_some((file, rest))
        });
        // `file:line:col - error TS2322: msg`
        let pretty = || {
            line.split_once(" - error TS").and_then(|(loc, rest)| {
                let file = path_of_location(loc)?;
                Some((file, rest))
            })
        };
        let Some((file, rest)) = plain.or_else(pretty) else {
            continue;
        };
        let Some((num, msg)) = rest.split_once(": ") else {
            continue;
        };
        if !numeric(num) {
            continue;
        }
        out.push(item("tsc", &format!("TS{num}"), file, msg));
    }
    some_if_any(out)
}

// ---------------------------------------------------------------------------- formatters

/// A formatter's report line: (tool, the text before the path, the message the item carries).
/// `ruff format --check` is read with ruff's own shape (`ruff`).
const FORMATTER_LINES: &[(&str, &str, &str)] = &[
    ("black", "would reformat ", "would reformat"),
    ("prettier", "[warn] ", "code style issues"),
    ("rustfmt", "Diff in ", "differs from rustfmt's output"),
    // ruff before 0.13 (`Would reformat: file`); later ones print ruff's own shape.
    ("ruff", "Would reformat: ", "File would be reformatted"),
];

/// A formatter's "cannot read this file" line: (tool, the text before the location). Such a
/// file is an item of its own (rule `error`): a syntax error the run brings in is new, where
/// before it was nothing the judge could see. `prettier`: `[error] file: SyntaxError: … (l:c)`
/// (the first line of its block); `black`: `error: cannot parse: file:l:c` and (older) `error:
/// cannot format file: Cannot parse: l:c: …`.
const FORMATTER_ERRORS: &[(&str, &str)] = &[
    ("prettier", "[error] "),
    ("black", "error: cannot parse: "),
    ("black", "error: cannot format "),
];

/// `prettier --list-different` (`-l`): the files it would reformat, one path a line on stdout,
/// with nothing else to tell them by — read only when the check's command is that.
fn lists_unformatted(command: &str) -> Option<&'static str> {
    let words: Vec<&str> = command.split_whitespace().collect();
    let prettier = words
        .iter()
        .any(|w| w.rsplit('/').next() == Some("prettier"));
    let listing = words.iter().any(|w| *w == "-l" || *w == "--list-different");
    (prettier && listing).then_some("prettier")
}

/// The files a listing formatter ([`lists_unformatted`]) printed: every line that is a path
/// alone.
fn listed_files(tool: &str, stdout: &str) -> Vec<FailureItem> {
    let mut out: Vec<FailureItem> = Vec::new();
    for line in stdout.lines() {
        let file = line.trim_end();
        if file.is_empty() || file.starts_with([' ', '\t', '[']) || file.contains(": ") {
            continue;
        }
        let it = item(
            tool,
            pawl_core::against::WHOLE_FILE,
            file,
            "code style issues",
        );
        if !out.contains(&it) {
            out.push(it);
        }
    }
    out
}

/// A formatter's error line ([`FORMATTER_ERRORS`]) as an item: the file and the message
/// without its line and column.
fn formatter_error(line: &str) -> Option<FailureItem> {
    for (tool, prefix) in FORMATTER_ERRORS {
        let Some(rest) = line.strip_prefix(prefix) else {
            continue;
        };
        let (file, message) = match *prefix {
            "error: cannot parse: " => (path_of_location(rest.trim())?, "cannot parse"),
            _ => {
                let (file, message) = rest.split_once(": ")?;
                (file, message)
            }
        };
        if file.is_empty() || file.contains(' ') || file.starts_with(['>', '|']) {
            return None;
        }
        // `SyntaxError: Unexpected token (1:19)`, `Cannot parse: 1:5: x = (`: no positions.
        let message = match message.rsplit_once(" (") {
            Some((m, pos)) if pos.trim_end_matches(')').split(':').all(numeric) => m,
            _ => message,
        };
        let message = match message.split_once(": ") {
            Some((m, _)) if m == "Cannot parse" => m,
            _ => message,
        };
        return Some(item(tool, "error", file, message));
    }
    None
}

/// `black --check`, `prettier --check`, `cargo fmt --check`: one item per file that would be
/// reformatted (rustfmt prints a `Diff in` per hunk: the file is the item, once).
fn formatters(text: &str) -> Option<Vec<FailureItem>> {
    let mut out: Vec<FailureItem> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(it) = formatter_error(line) {
            if !out.contains(&it) {
                out.push(it);
            }
            continue;
        }
        for (tool, prefix, message) in FORMATTER_LINES {
            let Some(rest) = line.strip_prefix(prefix) else {
                continue;
            };
            let file = match *tool {
                // `Diff in src/lib.rs:12:` (rustfmt ≥ 1.5), `Diff in src/lib.rs at line 12:`.
                "rustfmt" => {
                    let rest = rest.strip_suffix(':').unwrap_or(rest);
                    match rest.rsplit_once(" at line ") {
                        Some((f, n)) if numeric(n) => Some(f),
                        _ => path_of_location(rest),
                    }
                }
                _ => Some(rest),
            };
            // A path alone: prettier's `[warn] Code style issues found …` summary is not one.
            let Some(file) = file.filter(|f| !f.is_empty() && !f.contains(' ')) else {
                continue;
            };
            let it = item(tool, pawl_core::against::WHOLE_FILE, file, message);
            if !out.contains(&it) {
                out.push(it);
            }
        }
    }
    some_if_any(out)
}

#[cfg(test)]
mod tests;
