//! State an agent cannot forge: the authentication of the store's rows.
//!
//! Every row that decides something carries an HMAC-SHA-256 over its signed columns, under a key
//! kept in the user's pawl state directory (outside every repository, out of the agent's reach;
//! the CLI reads it and passes it to [`Store::open_keyed`](crate::Store::open_keyed)). The signed
//! tables: the run (limits and seal, status and stop reason, phase, active time — all of
//! `settings_json` and every column), its events (the baseline, accepted test changes, the Stop
//! hook's last verification, guard denials), iterations (what was spent), verdicts (with their
//! session ids), criteria, the session arming and the session bindings (transcript cursors), and
//! the stories of a plan run in parallel (`story_work`, schema 13: state, merge result, criteria).
//! Evidence carries its own code (`evidence.rs`), computed with the same [`hmac`].
//!
//! **What a code cannot prove, and how the rest is covered.** A code proves a row's content, not
//! that the row still exists, nor that it is the latest version of itself. So the run row also
//! counts, per table, the rows pawl wrote for the run (`rows_json`), updated in the same
//! transaction as those rows, and the run row is signed: a removed row (an iteration, to reset the
//! count; the baseline event, to escape the proof) makes a count disagree; an added row has no
//! valid code and makes a count disagree; and the one row version an agent could usefully put
//! back — an iteration as it was when it began, before its cost was charged — makes the count of
//! finished iterations disagree. Aggregates (iterations, dollars, tokens) are sums over rows that
//! are each signed and counted, so they are authentic whenever [`Store::tampering`] finds
//! nothing. Older versions of the other rows carry nothing an agent gains from: a criterion's
//! command status is set again by every verification, a verdict or an event is never updated, an
//! older arming or transcript cursor charges *more* time and tokens.
//!
//! Not covered: putting back a whole, consistent earlier copy of a run (its row and every later
//! row of every counted table, removed together) — nothing inside the database can tell it from
//! the real past; an anchor outside the database (the run's counts kept in the user's pawl state)
//! would. `docs/verification.md` says so.
//!
//! **Never laundered.** A write that changes a signed row checks the row first
//! ([`Tx::changing`]): pawl never signs over a value it did not write, so a forged limit is not
//! made authentic by the next honest update; the write fails with [`StoreError::Tampered`].
//!
//! Not here: what a driver does with a tampered run (the engine stops it `tampered`), the key
//! itself (the CLI's user state).

use std::collections::BTreeMap;

use crate::db::Value;
use crate::db::{Db, OptionalExtension, params};
use rusqlite::types::ValueRef;
use serde::{Deserialize, Serialize};

use crate::{Result, Store, StoreError, Tx};

/// HMAC-SHA-256 (RFC 2104) of `msg` under `key`, hex.
pub fn hmac(key: &[u8; 32], msg: &[u8]) -> String {
    let mut h = Hmac::new(key);
    h.update(msg);
    h.hex()
}

/// HMAC-SHA-256 fed piece by piece (a row's canonical text is written into it as it is
/// encoded, never built whole: a run's check computes a code for each of its rows).
#[derive(Clone)]
pub(crate) struct Hmac {
    inner: sha2::Sha256,
    outer: sha2::Sha256,
}

impl Hmac {
    pub(crate) fn new(key: &[u8; 32]) -> Hmac {
        use sha2::Digest;
        let mut ipad = [0x36u8; 64];
        let mut opad = [0x5cu8; 64];
        for (i, k) in key.iter().enumerate() {
            ipad[i] ^= k;
            opad[i] ^= k;
        }
        Hmac {
            inner: sha2::Sha256::new().chain_update(ipad),
            outer: sha2::Sha256::new().chain_update(opad),
        }
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        sha2::Digest::update(&mut self.inner, bytes);
    }

    /// The code, as lowercase hex.
    pub(crate) fn hex(self) -> String {
        self.hex_bytes().iter().map(|&b| char::from(b)).collect()
    }

    /// The code's lowercase hex digits, without a `String` made for them (a run's check
    /// compares one with each row's stored code).
    pub(crate) fn hex_bytes(self) -> [u8; 64] {
        use sha2::Digest;
        let outer = self.outer.chain_update(self.inner.finalize()).finalize();
        let mut out = [0u8; 64];
        for (pair, &b) in out.chunks_exact_mut(2).zip(outer.iter()) {
            pair[0] = HEX[usize::from(b >> 4)];
            pair[1] = HEX[usize::from(b & 0xf)];
        }
        out
    }
}

impl std::io::Write for Hmac {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// A key's fingerprint (not the key): which key signs a database.
pub(crate) fn fingerprint(key: &[u8; 32]) -> String {
    hmac(key, b"pawl-key-fingerprint-v1")[..16].to_string()
}

/// The code of something pawl keeps outside the store (the guard snapshot beside it): `domain`
/// keeps codes of different things apart.
pub fn seal_text(key: &[u8; 32], domain: &str, text: &str) -> String {
    hmac(key, format!("pawl-{domain}-v1\n{text}").as_bytes())
}

/// One thing found modified: where, and what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The table (`runs`, `events`, `iterations`, ...).
    pub table: String,
    /// The row, by its key (`seq=57 kind=baseline`, `n=2`); empty for the table as a whole.
    pub row: String,
    /// The field that was changed, when pawl can tell (`settings_json.limits.max_iterations`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What pawl found.
    pub what: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.table)?;
        if !self.row.is_empty() {
            write!(f, " row {}", self.row)?;
        }
        if let Some(field) = &self.field {
            write!(f, " field {field}")?;
        }
        write!(f, ": {}", self.what)
    }
}

/// Rows of a run that failed their check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tampering {
    pub run_id: String,
    pub findings: Vec<Finding>,
}

impl std::fmt::Display for Tampering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the state of run {} was modified outside pawl (tampered): ",
            self.run_id
        )?;
        let shown: Vec<String> = self
            .findings
            .iter()
            .take(6)
            .map(Finding::to_string)
            .collect();
        write!(f, "{}", shown.join("; "))?;
        if self.findings.len() > shown.len() {
            write!(f, "; and {} more", self.findings.len() - shown.len())?;
        }
        Ok(())
    }
}

/// A table whose rows pawl signs: the columns the code covers (a later migration that adds a
/// column decides whether to sign it), the one naming the run, and how a finding names a row.
pub(crate) struct Table {
    pub name: &'static str,
    pub cols: &'static [&'static str],
    pub run_col: &'static str,
    pub key: &'static [&'static str],
    /// Counted per run in the run row (`rows_json`).
    pub counted: bool,
}

pub(crate) const RUNS: Table = Table {
    name: "runs",
    cols: &[
        "id",
        "seq",
        "goal",
        "status",
        "driver",
        "mode",
        "phase",
        "created_at",
        "updated_at",
        "ended_at",
        "stop_reason",
        "settings_json",
        "branch",
        "pre_run_commit",
        "active_ms",
        "rows_json",
    ],
    run_col: "id",
    key: &["id"],
    counted: false,
};

pub(crate) const EVENTS: Table = Table {
    name: "events",
    cols: &["seq", "run_id", "at", "kind", "data_json"],
    run_col: "run_id",
    key: &["seq", "kind"],
    counted: true,
};

pub(crate) const ITERATIONS: Table = Table {
    name: "iterations",
    cols: &[
        "run_id",
        "n",
        "story_id",
        "started_at",
        "ended_at",
        "prompt",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "cost_estimated",
        "tool_calls",
        "files_json",
        "outcome",
        "session_id",
        "duration_ms",
        "active_ms",
        "facts_json",
        "summary",
    ],
    run_col: "run_id",
    key: &["n"],
    counted: true,
};

pub(crate) const VERDICTS: Table = Table {
    name: "verdicts",
    cols: &[
        "id",
        "run_id",
        "phase",
        "role",
        "round",
        "story_id",
        "session_id",
        "iteration",
        "approve",
        "clean",
        "architecture_status",
        "findings_json",
        "output_json",
        "created_at",
    ],
    run_col: "run_id",
    key: &["id", "role"],
    counted: true,
};

pub(crate) const CRITERIA: Table = Table {
    name: "criteria",
    cols: &[
        "run_id",
        "id",
        "seq",
        "text",
        "verify_kind",
        "verify_command",
        "status",
        "created_at",
        "updated_at",
    ],
    run_col: "run_id",
    key: &["id"],
    counted: true,
};

pub(crate) const ARMING: Table = Table {
    name: "session_arming",
    cols: &[
        "run_id",
        "agent",
        "armed_at",
        "expires_at",
        "baseline_tree",
        "autonomous_json",
        "turn_started_at",
        "ended_at",
        "end_why",
    ],
    run_col: "run_id",
    key: &[],
    counted: true,
};

/// `last_seen_at` is not signed: it is a sign of life written on every tool call, and decides
/// nothing.
pub(crate) const BINDINGS: Table = Table {
    name: "session_bindings",
    cols: &[
        "session_id",
        "run_id",
        "agent",
        "bound_at",
        "transcript_cursor",
    ],
    run_col: "run_id",
    key: &["session_id"],
    counted: true,
};

/// What a run left that only its clone holds (its final report, its diff), kept in the store
/// when it stops (`artifacts.rs`). Not counted: a run publishes again when it stops again, and
/// each publication is a counted `published` event naming the artifacts' digests.
pub(crate) const ARTIFACTS: Table = Table {
    name: "artifacts",
    cols: &["run_id", "name", "body", "bytes", "truncated", "created_at"],
    run_col: "run_id",
    key: &["name"],
    counted: false,
};

/// The stories of a plan run in parallel (schema 13): what the merge queue decided (state,
/// merge result, merged commit, evidence), the story's criteria and scope, its attempts.
pub(crate) const STORY_WORK: Table = Table {
    name: "story_work",
    cols: &[
        "run_id",
        "story",
        "seq",
        "story_id",
        "plan_json",
        "criteria_json",
        "state",
        "attempts",
        "merge_result",
        "evidence_json",
        "feedback",
        "branch",
        "worktree",
        "merged_commit",
        "updated_at",
    ],
    run_col: "run_id",
    key: &["story"],
    counted: true,
};

/// The tables signed since schema 9 (`sign_legacy` signs what they held then).
const SIGNED_AT_9: [&Table; 6] = [
    &EVENTS,
    &ITERATIONS,
    &VERDICTS,
    &CRITERIA,
    &ARMING,
    &BINDINGS,
];

/// The counted tables, in the order a check reads them.
const COUNTED: [&Table; 7] = [
    &EVENTS,
    &ITERATIONS,
    &VERDICTS,
    &CRITERIA,
    &ARMING,
    &BINDINGS,
    &STORY_WORK,
];

/// Whether a run's whole check ([`Store::tampering`]) reads every row of `t` of the run: the run
/// row and the counted tables (not artifacts, whose rows are checked one by one as they are
/// read).
fn covered(t: &Table) -> bool {
    t.name == RUNS.name || COUNTED.iter().any(|c| c.name == t.name)
}

/// A text value's text.
fn text_of(v: &Value) -> Option<&str> {
    match v {
        Value::Text(s) => Some(s),
        _ => None,
    }
}

/// The counter of iterations pawl finished (begun ones are counted as `iterations`).
pub(crate) const ITERATIONS_ENDED: &str = "iterations_ended";

/// Set in a run's counters when its record could not be restored after tampering: what the row
/// says is not what pawl wrote, and it is kept only to be reported.
const FORGED: &str = "forged";

/// A value's type and text in the canonical form of a row.
fn encode(v: &Value) -> (&'static str, std::borrow::Cow<'_, str>) {
    // A stored text is always UTF-8.
    encode_ref(v.into()).unwrap_or(("t", std::borrow::Cow::Borrowed("")))
}

/// [`encode`] of a value as SQLite hands it out (`None`: a text that is not UTF-8).
fn encode_ref(v: ValueRef<'_>) -> Option<(&'static str, std::borrow::Cow<'_, str>)> {
    use std::borrow::Cow;
    Some(match v {
        ValueRef::Null => ("n", Cow::Borrowed("")),
        ValueRef::Integer(i) => ("i", Cow::Owned(i.to_string())),
        // The exact bits: a float is signed as stored, not as printed.
        ValueRef::Real(f) => ("r", Cow::Owned(format!("{:016x}", f.to_bits()))),
        ValueRef::Text(s) => ("t", Cow::Borrowed(std::str::from_utf8(s).ok()?)),
        ValueRef::Blob(b) => (
            "b",
            Cow::Owned(b.iter().map(|x| format!("{x:02x}")).collect()),
        ),
    })
}

fn decode(tag: &str, text: &str) -> Option<Value> {
    Some(match tag {
        "n" => Value::Null,
        "i" => Value::Integer(text.parse().ok()?),
        "r" => Value::Real(f64::from_bits(u64::from_str_radix(text, 16).ok()?)),
        "t" => Value::Text(text.to_string()),
        "b" => Value::Blob(
            (0..text.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
                .collect::<Option<Vec<u8>>>()?,
        ),
        _ => return None,
    })
}

/// The canonical text of a row: `[[column, type, text], ...]` in the table's signed order.
fn canonical(t: &Table, values: &[Value]) -> String {
    serde_json::to_string(&triples(t, values)).unwrap_or_default()
}

fn triples<'a>(
    t: &Table,
    values: &'a [Value],
) -> Vec<(&'static str, &'static str, std::borrow::Cow<'a, str>)> {
    t.cols
        .iter()
        .zip(values)
        .map(|(c, v)| {
            let (tag, text) = encode(v);
            (*c, tag, text)
        })
        .collect()
}

fn parse_canonical(text: &str) -> Option<Vec<(String, String, String)>> {
    serde_json::from_str(text).ok()
}

/// The code of a row of `table` whose canonical text is `canonical`.
fn row_mac(key: &[u8; 32], table: &str, canonical: &str) -> String {
    let mut h = row_hmac(key, table);
    h.update(canonical.as_bytes());
    h.hex()
}

/// The code of a row of `t` holding `values`: [`row_mac`] of its [`canonical`] text, the text
/// encoded straight into the code.
fn values_mac(key: &[u8; 32], t: &Table, values: &[Value]) -> String {
    let mut text = Vec::new();
    match code_of(
        row_hmac(key, t.name),
        t.cols,
        values.iter().map(ValueRef::from),
        &mut text,
    ) {
        Some(code) => code.iter().map(|&b| char::from(b)).collect(),
        // As `canonical` gives for a row it cannot encode.
        None => row_mac(key, t.name, ""),
    }
}

/// The code (hex digits) of a row's canonical text, `start` being the code of its table's
/// prefix ([`row_hmac`]). The text is encoded into `text` (cleared first, kept by the caller for
/// the next row) and hashed in one piece: the encoder writes a row in many small pieces (every
/// escaped quote of a JSON value is one), and each piece hashed on its own cost more than the
/// hashing. `None` when the row cannot be encoded (a text that is not UTF-8).
fn code_of<'a>(
    mut start: Hmac,
    cols: &[&str],
    values: impl Iterator<Item = ValueRef<'a>>,
    text: &mut Vec<u8>,
) -> Option<[u8; 64]> {
    encode_row(text, cols, values)?;
    start.update(text);
    Some(start.hex_bytes())
}

/// Writes into `out` (cleared first) the canonical text of a row whose columns `cols` hold
/// `values`: byte for byte what [`canonical`] gives (serde_json's compact form of `[[column,
/// type, text], ...]`, every string escaped by serde_json itself), without the triples, the
/// owned texts of numbers, or serde's sequence machinery in between. `None` for a text that is
/// not UTF-8.
fn encode_row<'a>(
    out: &mut Vec<u8>,
    cols: &[&str],
    values: impl Iterator<Item = ValueRef<'a>>,
) -> Option<()> {
    use std::io::Write as _;
    out.clear();
    out.push(b'[');
    for (i, (col, v)) in cols.iter().zip(values).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'[');
        serde_json::to_writer(&mut *out, col).ok()?;
        match v {
            ValueRef::Null => out.extend_from_slice(b",\"n\",\"\""),
            ValueRef::Integer(n) => {
                out.extend_from_slice(b",\"i\",\"");
                write!(out, "{n}\"").ok()?;
            }
            // The exact bits, as `encode_ref` gives them.
            ValueRef::Real(f) => {
                out.extend_from_slice(b",\"r\",\"");
                write!(out, "{:016x}\"", f.to_bits()).ok()?;
            }
            ValueRef::Text(s) => {
                out.extend_from_slice(b",\"t\",");
                serde_json::to_writer(&mut *out, std::str::from_utf8(s).ok()?).ok()?;
            }
            ValueRef::Blob(b) => {
                out.extend_from_slice(b",\"b\",\"");
                for &x in b {
                    out.push(HEX[usize::from(x >> 4)]);
                    out.push(HEX[usize::from(x & 0xf)]);
                }
                out.push(b'"');
            }
        }
        out.push(b']');
    }
    out.push(b']');
    Some(())
}

fn row_hmac(key: &[u8; 32], table: &str) -> Hmac {
    let mut h = Hmac::new(key);
    h.update(b"pawl-row-v1\n");
    h.update(table.as_bytes());
    h.update(b"\n");
    h
}

/// A signed row as read back.
struct Read {
    rowid: i64,
    values: Vec<Value>,
    mac: Option<String>,
    /// The run row's signed text.
    signed: Option<String>,
}

impl Read {
    fn value(&self, t: &Table, col: &str) -> Option<&Value> {
        t.cols
            .iter()
            .position(|c| *c == col)
            .and_then(|i| self.values.get(i))
    }

    fn text(&self, t: &Table, col: &str) -> String {
        match self.value(t, col) {
            Some(v) => show(v),
            None => String::new(),
        }
    }

    /// How a finding names the row.
    fn name(&self, t: &Table) -> String {
        t.key
            .iter()
            .map(|k| format!("{k}={}", self.text(t, k)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn authentic(&self, key: &[u8; 32], t: &Table) -> bool {
        self.mac.as_deref() == Some(values_mac(key, t, &self.values).as_str())
    }
}

/// A value as a person reads it (long text cut).
fn show(v: &Value) -> String {
    let s = match v {
        Value::Null => "NULL".to_string(),
        Value::Integer(i) => i.to_string(),
        Value::Real(f) => f.to_string(),
        Value::Text(s) => s.clone(),
        Value::Blob(b) => format!("<{} bytes>", b.len()),
    };
    cut(&s)
}

fn cut(s: &str) -> String {
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s.to_string()
    }
}

fn select(
    conn: &Db,
    t: &Table,
    filter: &str,
    args: &[&dyn crate::db::ToValue],
) -> Result<Vec<Read>> {
    let signed = if t.name == RUNS.name {
        ", signed"
    } else {
        ", NULL"
    };
    // Table and column names are our own constants, never user input.
    let sql = format!(
        "SELECT rowid, {}, mac{signed} FROM {} WHERE {filter} ORDER BY rowid",
        t.cols.join(", "),
        t.name
    );
    let n = t.cols.len();
    // The values are moved out of the rows read (a table's rows are all read at every Stop).
    let rows = conn
        .query_values(&sql, args)?
        .into_iter()
        .map(|mut values| {
            if values.len() != n + 3 {
                return Err(crate::db::DbError::Conversion(format!(
                    "{} columns where {} were asked",
                    values.len(),
                    n + 3
                )));
            }
            let signed = values.pop().unwrap_or(Value::Null);
            let mac = values.pop().unwrap_or(Value::Null);
            let rowid = values.remove(0);
            use crate::db::FromValue as _;
            Ok(Read {
                rowid: i64::from_value(rowid)?,
                values,
                mac: Option::<String>::from_value(mac)?,
                signed: Option::<String>::from_value(signed)?,
            })
        })
        .collect::<crate::db::DbResult<Vec<Read>>>()?;
    Ok(rows)
}

fn by_rowid(conn: &Db, t: &Table, rowid: i64) -> Result<Option<Read>> {
    Ok(select(conn, t, "rowid = ?1", &[&rowid])?.into_iter().next())
}

/// The finding for a row whose code does not verify.
fn row_finding(t: &Table, r: &Read) -> Finding {
    Finding {
        table: t.name.into(),
        row: r.name(t),
        field: None,
        what: if r.mac.is_none() {
            "not written by pawl (the row carries no code)".into()
        } else {
            "changed outside pawl, or not written by pawl (its code does not verify)".into()
        },
    }
}

/// What a run row says, checked: its findings, and the values pawl last signed (`None` when they
/// cannot be known: the signed text itself was rewritten).
struct RunCheck {
    findings: Vec<Finding>,
    authentic: Option<Vec<Value>>,
}

fn check_run_row(key: &[u8; 32], r: &Read) -> RunCheck {
    if r.authentic(key, &RUNS) {
        return RunCheck {
            findings: Vec::new(),
            authentic: Some(r.values.clone()),
        };
    }
    let row = r.name(&RUNS);
    let snapshot = r
        .signed
        .as_deref()
        .filter(|s| r.mac.as_deref() == Some(row_mac(key, RUNS.name, s).as_str()))
        .and_then(parse_canonical);
    let Some(snapshot) = snapshot else {
        return RunCheck {
            findings: vec![Finding {
                table: RUNS.name.into(),
                row,
                field: None,
                what: "the run's record does not carry pawl's code: it was written or rewritten outside pawl, and what pawl wrote cannot be known".into(),
            }],
            authentic: None,
        };
    };
    let mut before = Vec::with_capacity(RUNS.cols.len());
    let mut findings = Vec::new();
    for (i, col) in RUNS.cols.iter().enumerate() {
        let was = snapshot
            .iter()
            .find(|(c, _, _)| c == col)
            .and_then(|(_, tag, text)| decode(tag, text))
            .unwrap_or(Value::Null);
        let is = r.values.get(i).cloned().unwrap_or(Value::Null);
        if was != is {
            findings.extend(field_findings(&row, col, &was, &is));
        }
        before.push(was);
    }
    if findings.is_empty() {
        findings.push(Finding {
            table: RUNS.name.into(),
            row,
            field: None,
            what: "the run's code was changed".into(),
        });
    }
    RunCheck {
        findings,
        authentic: Some(before),
    }
}

/// One finding per changed leaf of a JSON column (the limits inside `settings_json`), one for the
/// column otherwise.
fn field_findings(row: &str, col: &str, was: &Value, is: &Value) -> Vec<Finding> {
    let finding = |field: String, a: String, b: String| Finding {
        table: RUNS.name.into(),
        row: row.to_string(),
        field: Some(field),
        what: format!("was {a}, is {b}"),
    };
    if let (Value::Text(a), Value::Text(b)) = (was, is)
        && let (Ok(ja), Ok(jb)) = (
            serde_json::from_str::<serde_json::Value>(a),
            serde_json::from_str::<serde_json::Value>(b),
        )
        && (ja.is_object() || jb.is_object())
    {
        let mut leaves = Vec::new();
        json_diff(col, &ja, &jb, &mut leaves);
        if !leaves.is_empty() {
            return leaves
                .into_iter()
                .take(10)
                .map(|(path, a, b)| finding(path, a, b))
                .collect();
        }
    }
    vec![finding(col.to_string(), show(was), show(is))]
}

fn json_diff(
    path: &str,
    a: &serde_json::Value,
    b: &serde_json::Value,
    out: &mut Vec<(String, String, String)>,
) {
    use serde_json::Value as J;
    match (a, b) {
        (J::Object(x), J::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let none = J::Null;
                json_diff(
                    &format!("{path}.{k}"),
                    x.get(k).unwrap_or(&none),
                    y.get(k).unwrap_or(&none),
                    out,
                );
            }
        }
        _ if a == b => {}
        _ => out.push((path.to_string(), cut(&a.to_string()), cut(&b.to_string()))),
    }
}

fn counts_of(values: &[Value]) -> BTreeMap<String, i64> {
    let i = RUNS.cols.iter().position(|c| *c == "rows_json");
    match i.and_then(|i| values.get(i)) {
        Some(Value::Text(t)) => serde_json::from_str(t).unwrap_or_default(),
        _ => BTreeMap::new(),
    }
}

/// Everything pawl finds modified in a run's state: its row, then every counted table's rows
/// and counts, then the run's evidence.
fn findings_of(conn: &Db, key: &[u8; 32], run: &Read) -> Result<(String, Vec<Finding>)> {
    let run_id = run.text(&RUNS, "id");
    let checked = check_run_row(key, run);
    let mut findings = checked.findings;
    let counts = checked.authentic.as_deref().map(counts_of);
    let counts = match counts {
        Some(c) if c.get(FORGED).copied().unwrap_or(0) != 0 => {
            findings.push(Finding {
                table: RUNS.name.into(),
                row: run.name(&RUNS),
                field: None,
                what: "the run's record was rewritten outside pawl and could not be restored: what it shows is not what pawl wrote".into(),
            });
            None
        }
        other => other,
    };
    for t in COUNTED {
        // Every row verifies (the usual case): counted as read, nothing kept. Otherwise the rows
        // are read again, whole, to name the ones that do not.
        let (have, ended) = match clean_rows(conn, key, t, &run_id)? {
            Some(clean) => clean,
            None => {
                let rows = select(conn, t, &format!("{} = ?1", t.run_col), &[&run_id])?;
                for r in rows.iter().filter(|r| !r.authentic(key, t)) {
                    findings.push(row_finding(t, r));
                }
                let ended = rows
                    .iter()
                    .filter(|r| !matches!(r.value(t, "ended_at"), Some(Value::Null) | None))
                    .count();
                (rows.len(), ended)
            }
        };
        let Some(counts) = &counts else { continue };
        let wrote = counts.get(t.name).copied().unwrap_or(0);
        let have = i64::try_from(have).unwrap_or(i64::MAX);
        if have < wrote {
            findings.push(Finding {
                table: t.name.into(),
                row: String::new(),
                field: None,
                what: format!(
                    "{} row(s) of the run removed (pawl wrote {wrote}, {have} remain)",
                    wrote - have
                ),
            });
        } else if have > wrote {
            findings.push(Finding {
                table: t.name.into(),
                row: String::new(),
                field: None,
                what: format!(
                    "{} row(s) added to the run outside pawl (pawl wrote {wrote}, there are {have})",
                    have - wrote
                ),
            });
        }
        if t.name == ITERATIONS.name {
            let ended = i64::try_from(ended).unwrap_or(i64::MAX);
            let wrote = counts.get(ITERATIONS_ENDED).copied().unwrap_or(0);
            if ended != wrote {
                findings.push(Finding {
                    table: t.name.into(),
                    row: String::new(),
                    field: Some("ended_at".into()),
                    what: format!(
                        "pawl finished {wrote} iteration(s), the table shows {ended} finished (an earlier version of a row was put back)"
                    ),
                });
            }
        }
    }
    findings.extend(crate::evidence::unauthentic_of_run(conn, key, &run_id)?);
    Ok((run_id, findings))
}

/// The rows of `t` of run `run_id`, and how many of them have an `ended_at`, when every one of
/// them verifies; `None` when one does not, or cannot be checked here (PostgreSQL, a text that
/// is not UTF-8, a column SQLite does not hand out): the caller reads them the slow way, which
/// names what is wrong. The same code as [`Read::authentic`] computes, on the values as SQLite
/// hands them out (no copy of each row: a run's check reads all of them at every Stop), with the
/// key's pads hashed once per table.
fn clean_rows(
    conn: &Db,
    key: &[u8; 32],
    t: &Table,
    run_id: &str,
) -> Result<Option<(usize, usize)>> {
    let Some(lite) = conn.sqlite_conn() else {
        return Ok(None);
    };
    // Table and column names are our own constants, never user input. The events (most rows
    // of a run, about five per Stop) are read in the table's own order between the run's first
    // and last (both from the index): one pass over the table's pages, not a look-up in the
    // table for each entry of the index. The same rows: every row whose `run_id` is the run's
    // lies in that range (`+` keeps the filter off the index, so the range is what is scanned).
    let sql = if t.name == EVENTS.name {
        format!(
            "SELECT {cols}, mac FROM {table} WHERE rowid BETWEEN \
             (SELECT MIN(rowid) FROM {table} WHERE {run} = ?1) AND \
             (SELECT MAX(rowid) FROM {table} WHERE {run} = ?1) AND +{run} = ?1",
            cols = t.cols.join(", "),
            table = t.name,
            run = t.run_col
        )
    } else {
        format!(
            "SELECT {}, mac FROM {} WHERE {} = ?1",
            t.cols.join(", "),
            t.name,
            t.run_col
        )
    };
    let n = t.cols.len();
    let ended_col = t.cols.iter().position(|c| *c == "ended_at");
    let start = row_hmac(key, t.name);
    let mut stmt = lite
        .prepare_cached(&sql)
        .map_err(crate::db::DbError::from)?;
    let mut rows = stmt.query([run_id]).map_err(crate::db::DbError::from)?;
    let (mut have, mut ended) = (0usize, 0usize);
    let mut text = Vec::with_capacity(4096);
    while let Some(r) = rows.next().map_err(crate::db::DbError::from)? {
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            let Ok(v) = r.get_ref(i) else {
                return Ok(None);
            };
            values.push(v);
        }
        let Some(code) = code_of(start.clone(), t.cols, values.into_iter(), &mut text) else {
            return Ok(None);
        };
        match r.get_ref(n) {
            Ok(ValueRef::Text(mac)) if mac == code.as_slice() => {}
            _ => return Ok(None),
        }
        have += 1;
        if ended_col.is_some_and(|i| !matches!(r.get_ref(i), Ok(ValueRef::Null))) {
            ended += 1;
        }
    }
    Ok(Some((have, ended)))
}

impl Store {
    /// What was modified outside pawl in a run's state (`None`: nothing, or the store has no
    /// key). Reads every signed row of the run: call it where a decision is made, not per hook.
    ///
    /// Cheap when nothing changed: a run that checked clean is not read again until another
    /// connection (another process) commits to the database — this connection's own writes are
    /// signed and check what they change.
    pub fn tampering(&self, run_id: &str) -> Result<Option<Tampering>> {
        let Some(key) = self.key() else {
            return Ok(None);
        };
        let version = self.conn.data_version()?;
        let clean = (run_id.to_string(), version.unwrap_or(-1));
        if version.is_some() && self.checked.borrow().as_ref() == Some(&clean) {
            return Ok(None);
        }
        // One snapshot for the run row and the rows it counts: another connection (a parallel
        // worker) committing between the two reads is not a modification.
        let snapshot = self.conn.snapshot()?;
        let Some(run) = select(&self.conn, &RUNS, "id = ?1", &[&run_id])?
            .into_iter()
            .next()
        else {
            return Err(StoreError::NotFound {
                what: "run",
                id: run_id.into(),
                hint: String::new(),
            });
        };
        let (run_id, findings) = findings_of(&self.conn, key, &run)?;
        drop(snapshot);
        if findings.is_empty() {
            *self.checked.borrow_mut() = Some(clean);
            return Ok(None);
        }
        Ok(Some(Tampering { run_id, findings }))
    }

    /// The run whose every signed row is known to be as pawl wrote it without reading them again:
    /// its whole state checked clean ([`Store::tampering`]) and no other connection has
    /// committed to the database since (SQLite's `data_version`) — what this connection wrote
    /// since, it checked before changing and signed. `None` otherwise (PostgreSQL always: every
    /// check reads again).
    pub(crate) fn clean_run(&self) -> Option<String> {
        self.key()?;
        let (run, version) = self.checked.borrow().clone()?;
        (self.conn.data_version().ok().flatten() == Some(version)).then_some(run)
    }

    /// Whether the rows of run `run_id` a read is about to check are known clean
    /// ([`Store::clean_run`]): the read need not check them again.
    pub(crate) fn known_clean(&self, run_id: &str) -> bool {
        self.checked
            .borrow()
            .as_ref()
            .is_some_and(|(run, _)| run == run_id)
            && self.clean_run().as_deref() == Some(run_id)
    }

    /// Fails with [`StoreError::Tampered`] when a row of `t` for `run_id` does not verify (see
    /// [`check_rows`]); nothing to read when the run is known clean ([`Store::known_clean`]).
    pub(crate) fn check_run_rows(&self, t: &Table, run_id: &str) -> Result<()> {
        if self.known_clean(run_id) {
            return Ok(());
        }
        check_rows(&self.conn, self.key(), t, run_id)
    }

    /// [`Store::tampering`] as an error: `Err(StoreError::Tampered)` when anything was modified.
    pub fn check_run(&self, run_id: &str) -> Result<()> {
        match self.tampering(run_id)? {
            Some(t) => Err(StoreError::Tampered(t)),
            None => Ok(()),
        }
    }

    /// Stops a tampered run `tampered`, as a new event naming what was modified. The run row is
    /// put back to what pawl last signed when that can be known (the limits an agent raised are
    /// lowered again); when it cannot, the row is kept as found and marked forged, so that it is
    /// only ever reported. A run that had already ended keeps its status (the event still says
    /// what was found). Never resumable: `Store::set_run_status` refuses to move it on.
    pub fn mark_tampered(&mut self, t: &Tampering) -> Result<pawl_core::record::Run> {
        let Some(key) = self.key else {
            return self.run(&t.run_id);
        };
        let run_id = t.run_id.clone();
        self.write(|tx| {
            let Some(r) = select(tx, &RUNS, "id = ?1", &[&run_id])?.into_iter().next() else {
                return Err(StoreError::NotFound {
                    what: "run",
                    id: run_id.clone(),
                    hint: String::new(),
                });
            };
            let authentic = check_run_row(&key, &r).authentic;
            // Found again on a run already stopped for it: nothing new to record.
            let already = authentic.is_some()
                && r.values.get(10) == Some(&Value::Text("tampered".into()))
                && last_tampering(tx, &run_id)?.as_ref() == Some(&t.findings);
            if already {
                return Ok(());
            }
            match &authentic {
                Some(values) => {
                    let sets: Vec<String> = RUNS
                        .cols
                        .iter()
                        .enumerate()
                        .map(|(i, c)| format!("{c} = ?{}", i + 2))
                        .collect();
                    let mut args: Vec<&dyn crate::db::ToValue> = vec![&r.rowid];
                    args.extend(values.iter().map(|v| v as &dyn crate::db::ToValue));
                    tx.execute(
                        &format!("UPDATE runs SET {} WHERE rowid = ?1", sets.join(", ")),
                        args.as_slice(),
                    )?;
                }
                None => {
                    update_counts(tx, "rowid = ?1", &r.rowid, FORGED, |_| 1)?;
                }
            }
            let status = authentic
                .as_deref()
                .and_then(|v| v.get(3))
                .map(show)
                .unwrap_or_default();
            let ended = matches!(status.as_str(), "done" | "cancelled");
            if !ended {
                tx.execute(
                    "UPDATE runs SET status = 'stopped', stop_reason = 'tampered', updated_at = ?2 WHERE rowid = ?1",
                    params![r.rowid, tx.now],
                )?;
            }
            tx.sign(&RUNS, r.rowid)?;
            tx.event(
                Some(&run_id),
                pawl_core::EventKind::Tampered,
                serde_json::json!({"findings": t.findings, "restored": authentic.is_some(),
                                   "stopped": !ended}),
            )?;
            Ok(())
        })?;
        self.run(&t.run_id)
    }
}

impl Tx<'_> {
    /// Signs the row `rowid` of `t` as it is now (nothing without a key).
    pub(crate) fn sign(&self, t: &Table, rowid: i64) -> Result<()> {
        let Some(key) = &self.key else {
            return Ok(());
        };
        let Some(r) = by_rowid(self, t, rowid)? else {
            return Ok(());
        };
        let text = canonical(t, &r.values);
        let mac = row_mac(key, t.name, &text);
        if t.name == RUNS.name {
            self.execute(
                "UPDATE runs SET mac = ?2, signed = ?3 WHERE rowid = ?1",
                params![rowid, mac, text],
            )?;
        } else {
            self.execute(
                &format!("UPDATE {} SET mac = ?2 WHERE rowid = ?1", t.name),
                params![rowid, mac],
            )?;
        }
        Ok(())
    }

    /// Checks the row `rowid` of `t` before pawl changes it (not the code of a row of the run
    /// known clean: [`Tx::clean`]).
    pub(crate) fn check(&self, t: &Table, rowid: i64) -> Result<()> {
        let Some(key) = &self.key else {
            return Ok(());
        };
        let Some(r) = by_rowid(self, t, rowid)? else {
            return Ok(());
        };
        if self.clean.is_some()
            && self.clean.as_deref() == r.value(t, t.run_col).and_then(text_of)
            && covered(t)
        {
            return Ok(());
        }
        let findings = if t.name == RUNS.name {
            check_run_row(key, &r).findings
        } else if r.authentic(key, t) {
            Vec::new()
        } else {
            vec![row_finding(t, &r)]
        };
        if findings.is_empty() {
            return Ok(());
        }
        Err(StoreError::Tampered(Tampering {
            run_id: r.text(t, t.run_col),
            findings,
        }))
    }

    /// Changes a signed row: checks it, runs `change`, signs it again.
    pub(crate) fn changing<T>(
        &self,
        t: &Table,
        rowid: i64,
        change: impl FnOnce(&Self) -> Result<T>,
    ) -> Result<T> {
        self.check(t, rowid)?;
        let out = change(self)?;
        self.sign(t, rowid)?;
        Ok(out)
    }

    /// Changes the run row `id` (checked first, signed after); nothing when there is no such run.
    pub(crate) fn changing_run<T>(
        &self,
        id: &str,
        change: impl FnOnce(&Self) -> Result<T>,
    ) -> Result<T> {
        match self.rowid("runs", "id = ?1", &[&id])? {
            // Known clean: as pawl wrote it, nothing to check.
            Some(rowid) if self.key.is_some() && self.clean.as_deref() == Some(id) => {
                let out = change(self)?;
                self.sign(&RUNS, rowid)?;
                Ok(out)
            }
            Some(rowid) => self.changing(&RUNS, rowid, change),
            None => change(self),
        }
    }

    /// A new row of `t` was inserted: signs it and counts it in its run's row.
    pub(crate) fn inserted(&self, t: &Table, rowid: i64, run_id: Option<&str>) -> Result<()> {
        self.sign(t, rowid)?;
        match run_id {
            Some(run) if t.counted => self.count(run, t.name, 1),
            _ => Ok(()),
        }
    }

    /// Adds `delta` to the run's count of `counter`.
    pub(crate) fn count(&self, run_id: &str, counter: &str, delta: i64) -> Result<()> {
        self.changing_run(run_id, |tx| {
            update_counts(tx, "id = ?1", &run_id, counter, |n| n + delta)
        })
    }

    /// The rowid of the row of `table` that `filter` selects.
    pub(crate) fn rowid(
        &self,
        table: &str,
        filter: &str,
        args: &[&dyn crate::db::ToValue],
    ) -> Result<Option<i64>> {
        Ok(self
            .query_row(
                &format!("SELECT rowid FROM {table} WHERE {filter}"),
                args,
                |r| r.get(0),
            )
            .optional()?)
    }
}

/// Changes one counter of the run row `filter` selects (`rows_json`, read and written in the
/// caller's transaction; nothing when there is no such row).
fn update_counts(
    tx: &Db,
    filter: &str,
    arg: &dyn crate::db::ToValue,
    counter: &str,
    change: impl FnOnce(i64) -> i64,
) -> Result<()> {
    let Some(text) = tx
        .query_row(
            &format!("SELECT rows_json FROM runs WHERE {filter}"),
            [arg],
            |r| r.get::<_, String>(0),
        )
        .optional()?
    else {
        return Ok(());
    };
    let mut counts: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text)
        .map_err(|e| StoreError::Corrupt(format!("runs.rows_json: {e}")))?;
    let was = counts
        .get(counter)
        .and_then(serde_json::Value::as_i64)
        .unwrap_or(0);
    counts.insert(counter.to_string(), change(was).into());
    let text = serde_json::Value::Object(counts).to_string();
    tx.execute(
        &format!("UPDATE runs SET rows_json = ?2 WHERE {}", filter),
        params![arg, text],
    )?;
    Ok(())
}

/// Signs every row that exists when the database is migrated to the signed schema, and counts
/// each run's rows (see migration 0009).
pub(crate) fn sign_legacy(conn: &Db, key: &[u8; 32]) -> Result<()> {
    for t in SIGNED_AT_9 {
        for r in select(conn, t, "1 = 1", &[])? {
            let mac = row_mac(key, t.name, &canonical(t, &r.values));
            conn.execute(
                &format!("UPDATE {} SET mac = ?2 WHERE rowid = ?1", t.name),
                params![r.rowid, mac],
            )?;
        }
    }
    let ids: Vec<String> = {
        let mut stmt = conn.prepare("SELECT id FROM runs")?;
        stmt.query_map((), |r| r.get(0))?
            .collect::<crate::db::DbResult<_>>()?
    };
    for id in ids {
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        for t in SIGNED_AT_9 {
            let n: i64 = conn.query_row(
                &format!("SELECT COUNT(*) FROM {} WHERE {} = ?1", t.name, t.run_col),
                [&id],
                |r| r.get(0),
            )?;
            counts.insert(t.name.into(), n);
        }
        let ended: i64 = conn.query_row(
            "SELECT COUNT(*) FROM iterations WHERE run_id = ?1 AND ended_at IS NOT NULL",
            [&id],
            |r| r.get(0),
        )?;
        counts.insert(ITERATIONS_ENDED.into(), ended);
        let text =
            serde_json::to_string(&counts).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        conn.execute(
            "UPDATE runs SET rows_json = ?2 WHERE id = ?1",
            params![id, text],
        )?;
        if let Some(r) = select(conn, &RUNS, "id = ?1", &[&id])?.into_iter().next() {
            let canonical = canonical(&RUNS, &r.values);
            let mac = row_mac(key, RUNS.name, &canonical);
            conn.execute(
                "UPDATE runs SET mac = ?2, signed = ?3 WHERE rowid = ?1",
                params![r.rowid, mac, canonical],
            )?;
        }
    }
    Ok(())
}

/// Signs the `story_work` rows that exist when the database is migrated to schema 13, and
/// counts them in their run's row (see migration 0013). A run row that does not check clean is
/// left as it is: it is reported tampered, never signed over.
pub(crate) fn sign_legacy_stories(conn: &Db, key: &[u8; 32]) -> Result<()> {
    for r in select(conn, &STORY_WORK, "1 = 1", &[])? {
        let mac = row_mac(key, STORY_WORK.name, &canonical(&STORY_WORK, &r.values));
        conn.execute(
            "UPDATE story_work SET mac = ?2 WHERE rowid = ?1",
            params![r.rowid, mac],
        )?;
    }
    let ids: Vec<String> = {
        let mut stmt = conn.prepare("SELECT DISTINCT run_id FROM story_work")?;
        stmt.query_map((), |r| r.get(0))?
            .collect::<crate::db::DbResult<_>>()?
    };
    for id in ids {
        let Some(r) = select(conn, &RUNS, "id = ?1", &[&id])?.into_iter().next() else {
            continue;
        };
        if !check_run_row(key, &r).findings.is_empty() {
            continue;
        }
        let n: i64 = conn.query_row(
            "SELECT COUNT(*) FROM story_work WHERE run_id = ?1",
            [&id],
            |r| r.get(0),
        )?;
        update_counts(conn, "id = ?1", &id, STORY_WORK.name, |_| n)?;
        if let Some(r) = select(conn, &RUNS, "id = ?1", &[&id])?.into_iter().next() {
            let canonical = canonical(&RUNS, &r.values);
            let mac = row_mac(key, RUNS.name, &canonical);
            conn.execute(
                "UPDATE runs SET mac = ?2, signed = ?3 WHERE rowid = ?1",
                params![r.rowid, mac, canonical],
            )?;
        }
    }
    Ok(())
}

/// A run row as read, checked against its code.
pub(crate) struct RunRow {
    /// The values as stored, in [`RUNS`] order.
    pub values: Vec<Value>,
    /// What was modified (empty: the row is what pawl wrote, or the store has no key).
    pub findings: Vec<Finding>,
    /// The values pawl last signed, when they can be known.
    pub signed: Option<Vec<Value>>,
}

/// The run rows `filter` selects, each checked (oldest first).
pub(crate) fn run_rows(
    conn: &Db,
    key: Option<&[u8; 32]>,
    filter: &str,
    args: &[&dyn crate::db::ToValue],
) -> Result<Vec<RunRow>> {
    Ok(select(conn, &RUNS, filter, args)?
        .into_iter()
        .map(|r| match key {
            None => RunRow {
                signed: Some(r.values.clone()),
                values: r.values,
                findings: Vec::new(),
            },
            Some(key) => {
                let c = check_run_row(key, &r);
                RunRow {
                    values: r.values,
                    findings: c.findings,
                    signed: c.authentic,
                }
            }
        })
        .collect())
}

/// Fails with [`StoreError::Tampered`] when a row of `t` for `run_id` does not verify: for the
/// reads a decision rests on (criteria, verdicts), so that such a row is never used.
pub(crate) fn check_rows(conn: &Db, key: Option<&[u8; 32]>, t: &Table, run_id: &str) -> Result<()> {
    let Some(key) = key else {
        return Ok(());
    };
    let findings: Vec<Finding> = select(conn, t, &format!("{} = ?1", t.run_col), &[&run_id])?
        .iter()
        .filter(|r| !r.authentic(key, t))
        .map(|r| row_finding(t, r))
        .collect();
    if findings.is_empty() {
        return Ok(());
    }
    Err(StoreError::Tampered(Tampering {
        run_id: run_id.into(),
        findings,
    }))
}

/// Fails with [`StoreError::Tampered`] when the row `rowid` of `t` does not verify (nothing
/// without a key).
pub(crate) fn check_row(conn: &Db, key: Option<&[u8; 32]>, t: &Table, rowid: i64) -> Result<()> {
    let Some(key) = key else {
        return Ok(());
    };
    let Some(r) = by_rowid(conn, t, rowid)? else {
        return Ok(());
    };
    if r.authentic(key, t) {
        return Ok(());
    }
    Err(StoreError::Tampered(Tampering {
        run_id: r.text(t, t.run_col),
        findings: vec![row_finding(t, &r)],
    }))
}

/// What the run's last `tampered` event recorded.
fn last_tampering(conn: &Db, run_id: &str) -> Result<Option<Vec<Finding>>> {
    let data: Option<String> = conn
        .query_row(
            "SELECT data_json FROM events WHERE run_id = ?1 AND kind = 'tampered' ORDER BY seq DESC LIMIT 1",
            [run_id],
            |r| r.get(0),
        )
        .optional()?;
    Ok(data
        .and_then(|d| serde_json::from_str::<serde_json::Value>(&d).ok())
        .and_then(|v| serde_json::from_value(v.get("findings")?.clone()).ok()))
}

/// Whether an event read back is one pawl wrote (always, without a key).
pub(crate) fn event_authentic(
    conn: &Db,
    key: Option<&[u8; 32]>,
    seq: i64,
) -> Result<Option<Finding>> {
    let Some(key) = key else {
        return Ok(None);
    };
    let Some(r) = by_rowid(conn, &EVENTS, seq)? else {
        return Ok(None);
    };
    Ok((!r.authentic(key, &EVENTS)).then(|| row_finding(&EVENTS, &r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answer (Python's `hmac.new(bytes(range(32)), b"pawl evidence", "sha256")`).
    #[test]
    fn hmac_sha256_known_answer() {
        let mut key = [0u8; 32];
        for (i, b) in key.iter_mut().enumerate() {
            *b = u8::try_from(i).unwrap_or(0);
        }
        assert_eq!(
            hmac(&key, b"pawl evidence"),
            "cfc28c5741b9ef32fcce44072a61f029d5c0c018e10896ec8c25abb8e4494cf3"
        );
    }

    /// A row's code computed while encoding is the code of its canonical text: a forged row is
    /// caught the same way, and rows signed before still verify.
    #[test]
    fn a_code_while_encoding_is_the_code_of_the_canonical_text() {
        let key = [7u8; 32];
        let rows: [Vec<Value>; 3] = [
            vec![
                Value::Integer(1),
                Value::Text("run-1".into()),
                Value::Integer(-5),
                Value::Text("verification".into()),
                Value::Text(r#"{"a":"q\"uote","b":[1,2],"c":"\u00e9\n\t"}"#.into()),
            ],
            vec![
                Value::Null,
                Value::Real(0.1 + 0.2),
                Value::Blob(vec![0, 1, 254]),
                Value::Text("é ☃ \u{1}\u{7f}".into()),
                Value::Text(String::new()),
            ],
            vec![Value::Integer(i64::MIN); 5],
        ];
        for values in &rows {
            assert_eq!(
                values_mac(&key, &EVENTS, values),
                row_mac(&key, EVENTS.name, &canonical(&EVENTS, values))
            );
        }
        // One byte of a row changed changes its code.
        let mut forged = rows[0].clone();
        forged[2] = Value::Integer(-4);
        assert_ne!(
            values_mac(&key, &EVENTS, &forged),
            values_mac(&key, &EVENTS, &rows[0])
        );
    }

    /// The row encoder writes exactly serde_json's text of the triples: every escape of a string
    /// (each control character, quotes, backslashes, non-ASCII), every type.
    #[test]
    fn the_row_encoder_writes_the_canonical_text_byte_for_byte() {
        let every_control: String = (0u8..0x20).map(char::from).collect();
        let rows: [Vec<Value>; 4] = [
            vec![
                Value::Text(format!("{every_control}\"\\/\u{7f}é☃\u{10ffff}")),
                Value::Integer(0),
                Value::Integer(i64::MAX),
                Value::Real(-0.0),
                Value::Real(f64::NAN),
            ],
            vec![
                Value::Blob(Vec::new()),
                Value::Blob((0u8..=255).collect()),
                Value::Null,
                Value::Text(r#"{"tree_hash":"ab","checks":[{"name":"t\"x"}]}"#.into()),
                Value::Real(1e300),
            ],
            vec![Value::Text(String::new()); 5],
            // Fewer values than columns: as many triples as values.
            vec![Value::Integer(-1), Value::Text("x".into())],
        ];
        let mut out = Vec::new();
        for values in &rows {
            encode_row(&mut out, EVENTS.cols, values.iter().map(ValueRef::from)).expect("encodes");
            assert_eq!(
                String::from_utf8(out.clone()).expect("utf-8"),
                canonical(&EVENTS, values)
            );
        }
        // A text that is not UTF-8 is not encoded (the row is read the slow way).
        assert!(
            encode_row(
                &mut out,
                EVENTS.cols,
                [ValueRef::Text(&[0xff, 0xfe])].into_iter()
            )
            .is_none()
        );
    }

    #[test]
    fn values_round_trip_through_the_canonical_form() {
        for v in [
            Value::Null,
            Value::Integer(-42),
            Value::Real(0.1 + 0.2),
            Value::Text("a \"quoted\"\nline".into()),
            Value::Blob(vec![0, 255, 16]),
        ] {
            let (tag, text) = encode(&v);
            assert_eq!(decode(tag, &text), Some(v));
        }
        // An integer is not the same value as the float it equals: a changed type is a change.
        assert_ne!(encode(&Value::Integer(1)), encode(&Value::Real(1.0)));
    }

    #[test]
    fn a_changed_limit_is_named_by_its_path() {
        let was = Value::Text(r#"{"limits":{"max_iterations":3,"max_usd":1.0}}"#.into());
        let is = Value::Text(r#"{"limits":{"max_iterations":500,"max_usd":1.0}}"#.into());
        let f = field_findings("id=r", "settings_json", &was, &is);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].field.as_deref(),
            Some("settings_json.limits.max_iterations")
        );
        assert_eq!(f[0].what, "was 3, is 500");
    }
}
