//! Write targets led by a variable the line does not assign, inside a confined step
//! (`Context::confined`): the rows of `tests/data/confined.tsv`, each allowed row denied
//! without the confinement (the hook's context today), and the reasons.

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

fn confined() -> Context {
    let mut ctx = checkpointed();
    ctx.confined = true;
    ctx
}

fn decide_in(ctx: &Context, command: &str) -> Decision {
    evaluate(&Input::shell(command), ctx, &Policy::default())
}

fn rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/confined.tsv"),
    )
    .unwrap_or_else(|e| panic!("tests/data/confined.tsv: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (expect, command) = l
                .split_once('\t')
                .unwrap_or_else(|| panic!("confined.tsv: malformed row {l:?}"));
            (expect.to_owned(), unescape(command))
        })
        .collect()
}

#[test]
fn a_confined_step_judges_a_variable_led_target_by_the_places_it_reaches() {
    let ctx = confined();
    let mut wrong = Vec::new();
    let all = rows();
    for (expect, command) in &all {
        let d = decide_in(&ctx, command);
        if (expect == "deny") != d.is_deny() {
            wrong.push(format!("{expect}\t{command}\t{d:?}"));
        }
    }
    assert!(all.len() > 40, "{} rows", all.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn without_the_confinement_or_the_checkpoint_those_targets_stay_denied() {
    let mut unchecked = confined();
    unchecked.checkpointed = false;
    for (expect, command) in rows() {
        if expect != "allow" {
            continue;
        }
        for ctx in [checkpointed(), unchecked.clone()] {
            let d = decide_in(&ctx, &command);
            assert_eq!(d.rule, Some(RuleId::NotStatic), "{command}: {d:?}");
        }
    }
}

#[test]
fn the_reasons_name_where_the_value_leads_and_the_allowed_form() {
    // Outside a confined step: the effect (an unset value makes the path absolute, a set one
    // can point at a shell rc file) and the nearest allowed form (assign it in the command).
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
    // Inside: the protected place the value can lead to.
    let d = decide_in(&confined(), "echo x >> \"$X/.bashrc\"");
    assert_eq!(d.rule, Some(RuleId::ProtectedPath), "{d:?}");
    assert!(
        d.reason.contains("/home/dev/.bashrc") || d.reason.contains(".bashrc"),
        "{}",
        d.reason
    );
    assert!(
        d.reason.contains("`$X` is not set by this command"),
        "{}",
        d.reason
    );
}
