//! Write targets led by a variable the line does not assign: the rows of
//! `tests/data/variable-targets.tsv`, every one denied (the honest forms as `not-static`, with a
//! reason naming the variable and the allowed form), and the reasons. Session 15 allowed the
//! honest forms behind `Context::confined`, which nothing could set honestly; session 16
//! removed the flag (docs/guard.md, "A write target led by a variable").

use std::sync::Arc;

use pawl_guard::{Context, Decision, Input, Policy, RuleId, evaluate};

use crate::ignored::Ignored;
use crate::support::corpus_context;
use crate::unescape::unescape;

fn checkpointed() -> Context {
    let mut ctx = corpus_context();
    ctx.checkpointed = true;
    ctx.fs = Arc::new(Ignored);
    ctx
}

fn decide_in(ctx: &Context, command: &str) -> Decision {
    evaluate(&Input::shell(command), ctx, &Policy::default())
}

fn rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/variable-targets.tsv"),
    )
    .unwrap_or_else(|e| panic!("tests/data/variable-targets.tsv: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (expect, command) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("variable-targets.tsv: malformed row {l:?}"));
            (expect.to_owned(), unescape(command))
        })
        .collect()
}

#[test]
fn a_write_target_a_variable_the_line_does_not_assign_leads_is_denied() {
    let mut unchecked = checkpointed();
    unchecked.checkpointed = false;
    let mut wrong = Vec::new();
    let all = rows();
    for (expect, command) in &all {
        for ctx in [checkpointed(), unchecked.clone()] {
            let d = decide_in(&ctx, command);
            let right = match expect.as_str() {
                "not-static" => d.rule == Some(RuleId::NotStatic),
                "deny" => d.is_deny(),
                other => panic!("variable-targets.tsv: unknown expectation {other:?}"),
            };
            if !right {
                wrong.push(format!("{expect}\t{command}\t{d:?}"));
            }
        }
    }
    assert!(all.len() > 40, "{} rows", all.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_reasons_name_where_the_value_leads_and_the_allowed_form() {
    // The effect (an unset value makes the path absolute, a set one can point at a shell rc
    // file) and the nearest allowed form (assign it in the command).
    let d = decide_in(&checkpointed(), "echo done > \"$ARCHIVE/doc/rg.1\"");
    assert!(d.is_deny(), "{d:?}");
    assert!(
        d.reason.contains("`$ARCHIVE` is not set by this command"),
        "{}",
        d.reason
    );
    assert!(d.reason.contains("ARCHIVE=dist"), "{}", d.reason);
    assert!(
        decide_in(
            &checkpointed(),
            "ARCHIVE=dist; echo done > \"$ARCHIVE/doc/rg.1\""
        )
        .is_allow()
    );
}
