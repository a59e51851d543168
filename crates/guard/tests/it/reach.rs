//! pawl's own machinery in session mode: the rows of `tests/data/reach.tsv` (one loop), and the
//! cases that need their own filesystem view (a link to the binary, a script file's text).

use std::sync::Arc;

use pawl_guard::{
    Context, Decision, FileSystemView, Input, PawlPathKind, Policy, RuleId, ScriptReader, evaluate,
};

use crate::support::corpus_context;

const ROWS: &str = include_str!("../data/reach.tsv");
const BINARY: &str = "/opt/pawl/bin/pawl";
const XDG_STATE: &str = "/home/dev/.xdg/state/pawl";

/// The corpus policy with what the hook adds on this machine: the binary and the XDG state.
fn policy() -> Policy {
    let mut p = Policy::default();
    p.protect_pawl_path(BINARY, PawlPathKind::Binary);
    p.protect_pawl_path(XDG_STATE, PawlPathKind::Secret);
    p
}

fn decide_in(ctx: &Context, command: &str) -> Decision {
    evaluate(&Input::shell(command), ctx, &policy())
}

#[test]
fn every_row_of_the_reach_table_decides_as_written() {
    let ctx = corpus_context();
    let mut wrong = Vec::new();
    let mut rows = 0;
    for line in ROWS.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut cols = line.splitn(3, '\t');
        let (Some(expect), Some(rule), Some(command)) = (cols.next(), cols.next(), cols.next())
        else {
            panic!("malformed row: {line:?}");
        };
        rows += 1;
        let d = decide_in(&ctx, command);
        let ok = match expect {
            "allow" => d.is_allow(),
            "deny" => d.is_deny() && (rule == "*" || d.rule.map(RuleId::as_str) == Some(rule)),
            other => panic!("unknown decision {other:?} in {line:?}"),
        };
        if !ok {
            wrong.push(format!(
                "{expect} {rule}\t{command}\n    got {:?} {:?}: {}",
                d.decision, d.rule, d.reason
            ));
        }
    }
    assert!(rows > 100, "the table did not load ({rows} rows)");
    assert!(
        wrong.is_empty(),
        "{} of {rows} rows decided otherwise:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// `/usr/local/bin/pawl` is a link to the binary; `/usr/local/bin/p` a second one.
struct Links;

impl FileSystemView for Links {
    fn resolve_links(&self, path: &str) -> Option<String> {
        match path {
            "/usr/local/bin/pawl" | "/usr/local/bin/p" => Some(BINARY.to_owned()),
            _ => None,
        }
    }
}

#[test]
fn the_binary_through_a_link_is_the_binary() {
    let mut ctx = corpus_context();
    ctx.fs = Arc::new(Links);
    let d = decide_in(&ctx, "chmod -x /usr/local/bin/pawl");
    assert!(d.is_deny(), "{d:?}");
    let d = decide_in(&ctx, "cp /usr/local/bin/pawl /tmp/p");
    assert_eq!(d.rule, Some(RuleId::Tamper), "{d:?}");
    // A link made earlier, run under another name: still pawl, still judged as pawl.
    let d = decide_in(&ctx, "/usr/local/bin/p off");
    assert_eq!(d.rule, Some(RuleId::RunControl), "{d:?}");
    let d = decide_in(&ctx, "/usr/local/bin/p status");
    assert!(d.is_allow(), "{d:?}");
}

/// Script files an interpreter runs: `tool.py` names pawl's store, `ok.py` does not.
struct Scripts;

impl ScriptReader for Scripts {
    fn read_script(&self, path: &str) -> Option<String> {
        match path {
            "/home/dev/repo/tool.py" => Some(
                "import sqlite3\ndb = sqlite3.connect('.pawl/pawl.db')\ndb.execute('update runs set status = 1')\n"
                    .into(),
            ),
            "/tmp/k.py" => Some(format!("print(open('{XDG_STATE}/key','rb').read())\n")),
            "/home/dev/repo/ok.py" => Some("print('hello')\n".into()),
            _ => None,
        }
    }
}

#[test]
fn an_interpreter_script_that_names_pawls_files_is_denied() {
    let mut ctx = corpus_context();
    ctx.scripts = Arc::new(Scripts);
    for cmd in [
        "python3 tool.py",
        "python3 -u tool.py --x",
        "python3 /tmp/k.py",
    ] {
        let d = decide_in(&ctx, cmd);
        assert_eq!(d.rule, Some(RuleId::Tamper), "{cmd}: {d:?}");
    }
    assert!(decide_in(&ctx, "python3 ok.py").is_allow());
}
