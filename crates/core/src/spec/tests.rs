use super::*;

fn a(goal: &str) -> Analysis {
    analyze(
        goal,
        &ProjectFacts {
            has_tests: true,
            ..ProjectFacts::default()
        },
    )
}

/// `tests/data/auto_modes.tsv`: at least 40 real goals (bug fixes, features, refactors, docs,
/// migrations) and the mode `--mode auto` must give each.
#[test]
fn auto_chooses_as_a_careful_engineer_would() {
    let table = include_str!("../../tests/data/auto_modes.tsv");
    let mut rows = 0;
    let mut wrong = Vec::new();
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 3, "bad row: {line:?}");
        let goal = cols[0].replace("\\n", "\n");
        let facts = ProjectFacts {
            has_tests: cols[1] == "y",
            ..ProjectFacts::default()
        };
        let x = analyze(&goal, &facts);
        if x.mode.mode.as_str() != cols[2] {
            wrong.push(format!(
                "{goal:?} (tests {}): got {} ({}; not simple because {:?}), want {}",
                cols[1],
                x.mode.mode.as_str(),
                x.mode.reason,
                x.simple_reasons,
                cols[2]
            ));
        }
        rows += 1;
    }
    assert!(rows >= 40, "only {rows} goals");
    assert!(
        wrong.is_empty(),
        "{} of {rows} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn a_plain_text_agent_gets_simple_whatever_the_goal() {
    let facts = ProjectFacts {
        has_tests: true,
        plain_agent: true,
    };
    let x = analyze("Add password reset via email to src/auth.rs", &facts);
    assert_eq!(x.mode.mode, Mode::Simple);
    assert!(x.mode.reason.contains("command agent"), "{}", x.mode.reason);
}

#[test]
fn vague_goals_are_intent_and_must_be_clarified() {
    let x = a("make it better");
    assert_eq!(x.shape, Shape::Intent);
    assert!(!x.gate.proceed);
    assert!(x.gate.reason.contains("clarify first"), "{}", x.gate.reason);
}

#[test]
fn force_prefix_bypasses_the_gate() {
    for g in ["force: make it better", "! make it better"] {
        let x = a(g);
        assert!(x.gate.proceed && x.gate.forced, "{g}");
        assert_eq!(x.goal, "make it better");
    }
}

#[test]
fn anchors_of_every_kind_are_found() {
    let text = "Fix the ParseError in src/parser.rs (#123): `parse_header` and parseBody fail with ENOENT.\n1. read\n2. parse\n```rust\nfn x() {}\n```";
    let kinds: Vec<AnchorKind> = anchors(text).into_iter().map(|a| a.kind).collect();
    for k in [
        AnchorKind::FilePath,
        AnchorKind::Identifier,
        AnchorKind::IssueRef,
        AnchorKind::ErrorName,
        AnchorKind::CodeBlock,
        AnchorKind::NumberedSteps,
    ] {
        assert!(kinds.contains(&k), "{k:?} missing in {kinds:?}");
    }
    assert!(anchors("make the thing work well").is_empty());
    assert!(anchors("see https://example.com/page").is_empty());
}

#[test]
fn an_anchor_lets_a_goal_proceed_a_word_count_does_not() {
    assert!(a("fix parse_header").gate.proceed);
    // Issue 35: the clarity threshold is not a word count. Twenty-odd vague words anchor on
    // nothing in the text (the run's facts may still anchor them: `facts`).
    let long = "please look at how the settings page behaves when a user changes their name and then immediately reloads the page because it seems off";
    assert!(long.split_whitespace().count() > 20);
    assert!(!a(long).gate.proceed);
    assert!(!a("improve the settings page behaviour").gate.proceed);
}

#[test]
fn a_precise_goal_is_a_tool() {
    let x = a(
        "Fix the off-by-one in src/range.rs so that `Range::len` returns 3 for 0..3. Must not change the public API. Done when the range tests pass.",
    );
    assert_eq!(x.clarity.total, 10, "{:?}", x.clarity);
    assert_eq!(x.shape, Shape::Tool);
    assert!(x.simple, "{:?}", x.simple_reasons);
    assert_eq!(x.workflow, Workflow::Debug);
}

#[test]
fn simple_versus_complex() {
    let x = a("Add a --verbose flag to src/cli.rs");
    assert!(x.simple, "{:?}", x.simple_reasons);
    let x = a("Redesign the storage layer architecture and migrate from Postgres to SQLite");
    assert!(!x.simple);
    assert!(x.architecture_decision);
    let x = a("Touch a.rs b.rs c.rs d.rs to rename the config");
    assert!(
        x.simple_reasons
            .iter()
            .any(|r| r.contains("4 target files")),
        "{:?}",
        x.simple_reasons
    );
    let x = a("Add login and fix the logout crash");
    assert!(
        x.simple_reasons.iter().any(|r| r.contains("actions")),
        "{:?}",
        x.simple_reasons
    );
    let x = a("Do this:\n- one\n- two\n- three");
    assert!(
        x.simple_reasons
            .iter()
            .any(|r| r.contains("3 checklist items")),
        "{:?}",
        x.simple_reasons
    );
}

#[test]
fn workflow_types() {
    assert_eq!(a("fix the crash in parse_header").workflow, Workflow::Debug);
    assert_eq!(
        a("refactor parse_header into smaller functions").workflow,
        Workflow::Refactor
    );
    assert_eq!(
        a("add a CSV export to the report page").workflow,
        Workflow::Build
    );
}

#[test]
fn reversibility_classes() {
    assert_eq!(
        a("add a helper to utils.rs").reversibility,
        Reversibility::Reversible
    );
    assert_eq!(
        a("add a database migration for the users table").reversibility,
        Reversibility::Costly
    );
    assert_eq!(
        a("deploy the new version to production").reversibility,
        Reversibility::Irreversible
    );
}

#[test]
fn security_sensitivity() {
    let x = a("store the password with bcrypt and issue a JWT on login");
    assert!(x.security_sensitive);
    for t in ["password", "bcrypt", "jwt", "login"] {
        assert!(
            x.security_terms.iter().any(|s| s == t),
            "{t}: {:?}",
            x.security_terms
        );
    }
    assert!(!a("add a CSV export").security_sensitive);
    // "coauthor" is not "auth".
    assert!(!a("list each coauthor in the changelog").security_sensitive);
}

#[test]
fn external_dependencies_get_a_mock_strategy() {
    let x =
        a("charge the card with Stripe, email a receipt via SendGrid and post to a Slack webhook");
    let cats: Vec<&str> = x.external.iter().map(|e| e.category.as_str()).collect();
    assert_eq!(cats, vec!["payment", "email", "messaging"]);
    assert!(x.external.iter().all(|e| !e.mock_strategy.is_empty()));
    assert!(a("add a CSV export").external.is_empty());
}

#[test]
fn mode_choice_follows_the_rules() {
    let with_tests = ProjectFacts {
        has_tests: true,
        ..ProjectFacts::default()
    };
    let without = ProjectFacts::default();
    let complex = "Implement the export feature:\n- add CSV\n- add JSON\n- add XML";
    assert_eq!(analyze(complex, &with_tests).mode.mode, Mode::Work);
    assert_eq!(analyze(complex, &without).mode.mode, Mode::Work);
    assert_eq!(
        analyze("Add password reset via email to src/auth.rs", &without)
            .mode
            .mode,
        Mode::Qa
    );
    assert_eq!(
        analyze("document the CLI flags in README.md", &with_tests)
            .mode
            .mode,
        Mode::Simple
    );
    assert_eq!(
        analyze("Add a --verbose flag to src/cli.rs", &with_tests)
            .mode
            .mode,
        Mode::Simple
    );
    assert!(!analyze(complex, &with_tests).mode.reason.is_empty());
}

#[test]
fn big_goals_get_a_split_suggestion() {
    let items: String = (1..=10).map(|i| format!("- item {i}\n")).collect();
    assert!(
        a(&format!("Do all of:\n{items}"))
            .split_suggestion
            .is_some()
    );
    assert!(a("fix parse_header").split_suggestion.is_none());
}

proptest::proptest! {
    #[test]
    fn never_panics(s in "\\PC{0,300}") {
        let x = analyze(&s, &ProjectFacts::default());
        proptest::prop_assert!(x.clarity.total <= 10);
    }
}

#[test]
fn a_stored_mode_reads_back_and_nothing_else_is_a_mode() {
    for m in [Mode::Simple, Mode::Work, Mode::Qa, Mode::Ralph] {
        assert_eq!(Mode::parse(m.as_str()), Some(m));
    }
    for other in ["", "plan", "Simple", "qa "] {
        assert_eq!(Mode::parse(other), None, "{other:?}");
    }
}
