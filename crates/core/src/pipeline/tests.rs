use super::output::*;
use super::*;

fn story(id: &str, size: Size, files: &[&str], deps: &[&str]) -> PlanStory {
    PlanStory {
        id: id.into(),
        title: format!("story {id}"),
        size,
        security: false,
        acceptance: vec!["it works".into()],
        files: files.iter().map(|s| s.to_string()).collect(),
        depends_on: deps.iter().map(|s| s.to_string()).collect(),
    }
}

fn crit(kind: VerifyKind, command: Option<&str>) -> PlanCriterion {
    PlanCriterion {
        id: "C1".into(),
        text: "x".into(),
        verify: kind,
        command: command.map(str::to_string),
        required: true,
    }
}

fn finding(sev: FindingSeverity, text: &str) -> Finding {
    Finding {
        severity: sev,
        text: text.into(),
        file: Some("src/a.rs".into()),
    }
}

#[test]
fn flag_conflicts_are_refused_with_a_reason() {
    let ok = RunFlags {
        mode: ModeArg::Qa,
        driver: Driver::Headless,
        interactive: true,
        json: false,
    };
    assert!(check_flags(&ok).is_ok());
    let e = check_flags(&RunFlags {
        driver: Driver::Session,
        ..ok
    })
    .unwrap_err();
    assert!(e.0.contains("--mode qa needs the headless driver"), "{e}");
    assert!(
        check_flags(&RunFlags {
            mode: ModeArg::Simple,
            ..ok
        })
        .is_err()
    );
    assert!(check_flags(&RunFlags { json: true, ..ok }).is_err());
    // Work mode plans: its plan check-in is asked on the terminal.
    assert!(
        check_flags(&RunFlags {
            mode: ModeArg::Work,
            ..ok
        })
        .is_ok()
    );
    assert!(
        check_flags(&RunFlags {
            mode: ModeArg::Auto,
            driver: Driver::Manual,
            interactive: false,
            json: false
        })
        .is_ok()
    );
}

#[test]
fn modes_run_their_phases_in_canonical_order() {
    assert_eq!(phases(Mode::Simple, DEFAULT_PHASES), vec![Phase::Execute]);
    assert_eq!(
        phases(Mode::Work, DEFAULT_PHASES),
        vec![Phase::Plan, Phase::Execute]
    );
    assert_eq!(phases(Mode::Qa, DEFAULT_PHASES), DEFAULT_PHASES.to_vec());
    // The configured list filters, never reorders, and execute always stays.
    assert_eq!(
        phases(Mode::Qa, &[Phase::Review, Phase::Plan]),
        vec![Phase::Plan, Phase::Execute, Phase::Review]
    );
    let auto = ModeChoice {
        mode: Mode::Work,
        reason: "r".into(),
    };
    assert_eq!(resolve_mode(ModeArg::Auto, &auto), auto);
    assert_eq!(resolve_mode(ModeArg::Ralph, &auto).mode, Mode::Ralph);
}

#[test]
fn critic_before_architect_is_refused() {
    let fresh = Round::default();
    assert_eq!(
        accept_plan_verdict(&fresh, Role::Critic),
        Err(ConsensusError::CriticBeforeArchitect)
    );
    let rejected = Round {
        architect: Some(false),
        critic: None,
    };
    assert_eq!(
        accept_plan_verdict(&rejected, Role::Critic),
        Err(ConsensusError::CriticBeforeArchitect)
    );
    assert!(accept_plan_verdict(&fresh, Role::Architect).is_ok());
    let approved = Round {
        architect: Some(true),
        critic: None,
    };
    assert!(accept_plan_verdict(&approved, Role::Critic).is_ok());
    assert_eq!(
        accept_plan_verdict(&approved, Role::Architect),
        Err(ConsensusError::Duplicate(Role::Architect))
    );
    assert!(accept_plan_verdict(&fresh, Role::Qa).is_err());
}

#[test]
fn consensus_needs_both_and_stops_after_the_last_round() {
    let both = Round {
        architect: Some(true),
        critic: Some(true),
    };
    assert_eq!(consensus(&both, 3, 3), Consensus::Approved);
    let critic_no = Round {
        architect: Some(true),
        critic: Some(false),
    };
    assert_eq!(consensus(&critic_no, 1, 3), Consensus::Revise);
    assert_eq!(consensus(&critic_no, 3, 3), Consensus::Exhausted);
}

#[test]
fn plan_score_dimensions() {
    let good = PlanOutput {
        criteria: vec![crit(VerifyKind::Command, Some("test -f a"))],
        stories: vec![
            story("S1", Size::S, &["a.rs"], &[]),
            story("S2", Size::M, &["b.rs"], &["S1"]),
        ],
    };
    let s = score_plan(&good, false);
    assert_eq!(s.overall(), 1.0);
    // A security goal with no security story has no risk coverage.
    assert_eq!(score_plan(&good, true).risk, 0.0);
    let weak = PlanOutput {
        criteria: vec![crit(VerifyKind::Assumption, None)],
        stories: vec![
            story("S1", Size::XL, &[], &["S9"]),
            story("S2", Size::M, &[], &[]),
        ],
    };
    let w = score_plan(&weak, false);
    assert_eq!(w.verifiability, 0.0);
    assert_eq!(w.feasibility, 0.5);
    assert_eq!(w.clarity, 0.0);
    assert_eq!(w.dependencies, 0.0);
    assert!(w.overall() < 0.70);
    let cyclic = PlanOutput {
        criteria: good.criteria.clone(),
        stories: vec![
            story("S1", Size::S, &["a"], &["S2"]),
            story("S2", Size::S, &["b"], &["S1"]),
        ],
    };
    assert_eq!(score_plan(&cyclic, false).dependencies, 0.0);
    let empty = PlanOutput {
        criteria: vec![],
        stories: vec![],
    };
    assert_eq!(score_plan(&empty, false).completeness, 0.0);
}

#[test]
fn stories_run_dependencies_first() {
    let p = PlanOutput {
        criteria: vec![],
        stories: vec![
            story("S1", Size::S, &[], &["S2"]),
            story("S2", Size::S, &[], &[]),
            story("S3", Size::S, &[], &[]),
        ],
    };
    assert_eq!(story_order(&p), vec!["S2", "S1", "S3"]);
}

#[test]
fn threshold_tuning_is_bounded_and_explained() {
    let failed = PastRun {
        plan_score: 0.8,
        threshold: 0.7,
        verified: false,
    };
    let t = tune_threshold(0.7, 0.7, &failed).unwrap();
    assert_eq!(t.after, 0.72);
    assert!(t.reason.contains("not verified"));
    // Never above base + 0.10.
    assert_eq!(tune_threshold(0.7, 0.8, &failed), None);
    assert_eq!(tune_threshold(0.7, 0.79, &failed).unwrap().after, 0.8);
    let close = PastRun {
        plan_score: 0.71,
        threshold: 0.7,
        verified: true,
    };
    assert_eq!(tune_threshold(0.7, 0.7, &close).unwrap().after, 0.69);
    // Never below base - 0.10, nor below the floor.
    assert_eq!(tune_threshold(0.7, 0.6, &close), None);
    assert_eq!(tune_threshold(0.55, 0.5, &close), None);
    // A comfortable verified run, or a plan that failed its threshold, changes nothing.
    let comfy = PastRun {
        plan_score: 0.95,
        threshold: 0.7,
        verified: true,
    };
    assert_eq!(tune_threshold(0.7, 0.7, &comfy), None);
}

#[test]
fn convergence_rule() {
    assert_eq!(convergence(0.5, 1.0, true, 0.95), Convergence::Converged);
    // A high share with a required criterion open is only rising.
    assert_eq!(convergence(0.5, 0.96, false, 0.95), Convergence::Rising);
    assert_eq!(convergence(0.5, 0.5, false, 0.95), Convergence::Stalled);
    assert_eq!(convergence(0.5, 0.4, false, 0.95), Convergence::Stalled);
    // Nothing left to raise by the stage's measure: not stalled.
    assert_eq!(convergence(1.0, 1.0, false, 0.95), Convergence::Rising);
    assert_eq!(verified_share(1, 4), 0.25);
    assert_eq!(verified_share(0, 0), 0.0);
}

#[test]
fn the_same_blocking_finding_in_three_cycles() {
    let f = |t: &str| finding(FindingSeverity::Blocking, t);
    let cycles = vec![
        vec![
            f("Missing error handling at line 10"),
            f("Missing error handling at line 10"),
        ],
        vec![f("missing error handling at line 12")],
    ];
    assert_eq!(repeated_finding(&cycles, 3), None);
    let mut three = cycles.clone();
    three.push(vec![
        f("Missing error handling at line 14"),
        finding(FindingSeverity::Suggestion, "rename"),
    ]);
    let r = repeated_finding(&three, 3).unwrap();
    assert!(r.text.starts_with("Missing error handling"));
    // Suggestions never stop a run.
    let sug = vec![vec![finding(FindingSeverity::Suggestion, "x")]; 3];
    assert_eq!(repeated_finding(&sug, 3), None);
}

#[test]
fn verdicts_approve_only_without_blocking_findings() {
    let v = VerdictOutput {
        approve: true,
        architecture_status: ArchitectureStatus::Clear,
        findings: vec![finding(FindingSeverity::Info, "fine")],
        verified_criteria: vec![],
        accept_test_changes: None,
    };
    assert!(v.approves() && v.clean());
    let concerns = VerdictOutput {
        architecture_status: ArchitectureStatus::Concerns,
        ..v.clone()
    };
    assert!(concerns.approves() && !concerns.clean());
    let contradictory = VerdictOutput {
        findings: vec![finding(FindingSeverity::Blocking, "SQL injection")],
        ..v
    };
    assert!(!contradictory.approves());
    assert_eq!(blocking_reason(&contradictory), "SQL injection (src/a.rs)");
}

#[test]
fn verdict_json_is_strict() {
    let ok: VerdictOutput = serde_json::from_str(
        r#"{"approve": true, "architecture_status": "clear", "findings": [{"severity": "info", "text": "t"}]}"#,
    )
    .unwrap();
    assert!(ok.approve);
    assert!(
        serde_json::from_str::<VerdictOutput>(
            r#"{"approve": "yes", "architecture_status": "clear"}"#
        )
        .is_err()
    );
    assert!(
        serde_json::from_str::<VerdictOutput>(
            r#"{"approve": true, "architecture_status": "clear", "extra": 1}"#
        )
        .is_err()
    );
    assert!(
        serde_json::from_str::<VerdictOutput>(
            r#"{"approve": true, "architecture_status": "fine"}"#
        )
        .is_err()
    );
}

#[test]
fn ralph_skips_an_item_after_three_failures_in_a_row() {
    let mut items = vec![
        RalphItem {
            id: "C1".into(),
            verified: false,
            fails_in_a_row: 0,
            skipped: false,
        },
        RalphItem {
            id: "C2".into(),
            verified: false,
            fails_in_a_row: 0,
            skipped: false,
        },
    ];
    assert_eq!(
        ralph_next(&items, 0, 50),
        RalphNext::Item { id: "C1".into() }
    );
    assert!(!ralph_after(&mut items[0], false, 3));
    assert!(!ralph_after(&mut items[0], false, 3));
    assert!(ralph_after(&mut items[0], false, 3));
    assert_eq!(
        ralph_next(&items, 3, 50),
        RalphNext::Item { id: "C2".into() }
    );
    ralph_after(&mut items[1], true, 3);
    assert_eq!(items[1].fails_in_a_row, 0);
    assert_eq!(ralph_next(&items, 4, 50), RalphNext::AllSkipped);
    assert_eq!(ralph_next(&items, 50, 50), RalphNext::MaxLoops);
    items[0].verified = true;
    assert_eq!(ralph_next(&items, 50, 50), RalphNext::Done);
}

#[test]
fn tdd_red_and_green() {
    let t = vec!["tests/test_add.py".to_string()];
    assert_eq!(check_red(&t, false), Ok(()));
    assert_eq!(check_red(&t, true), Err(TddViolation::RedDidNotFail));
    assert_eq!(
        check_red(&["src/add.py".to_string()], false),
        Err(TddViolation::NoNewTest)
    );
    assert!(check_green(true).is_ok());
    assert_eq!(check_green(false), Err(TddViolation::GreenStillFails));
    for p in [
        "test_calc.py",
        "src/a_test.go",
        "web/x.test.ts",
        "spec/a_spec.rb",
        "crates/x/tests/it.rs",
    ] {
        assert!(is_test_file(p), "{p}");
    }
    for p in ["src/calc.py", "contest.py", "README.md"] {
        assert!(!is_test_file(p), "{p}");
    }
}

#[test]
fn qa_skip_reasons() {
    assert_eq!(qa_skip_reason(&[]).unwrap(), "no files changed");
    assert!(
        qa_skip_reason(&["README.md".into(), "docs/a.rst".into()])
            .unwrap()
            .starts_with("docs-only")
    );
    assert!(
        qa_skip_reason(&["README.md".into(), ".github/workflows/ci.yml".into()])
            .unwrap()
            .starts_with("no runtime change")
    );
    assert_eq!(
        qa_skip_reason(&["src/a.rs".into(), "README.md".into()]),
        None
    );
}

#[test]
fn progress_every_three_stories_or_thirty_minutes() {
    assert!(!progress_due(2, 29 * 60 * 1000));
    assert!(progress_due(3, 0));
    assert!(progress_due(0, 30 * 60 * 1000));
}

#[test]
fn where_a_resumed_round_picks_up() {
    let phase = |phase: Phase, outcome: Option<&'static str>| PhaseState {
        phase,
        outcome,
        note: Some("review note"),
    };
    assert_eq!(resume_point(&[], None), Resume::Fresh);
    // Stopped while planning, or the plan was rejected: plan again.
    assert_eq!(
        resume_point(&[phase(Phase::Plan, None)], None),
        Resume::Fresh
    );
    assert_eq!(
        resume_point(&[phase(Phase::Plan, Some("failed"))], None),
        Resume::Fresh
    );
    // Approved, then stopped in execution or in review: go on without planning.
    let approved = phase(Phase::Plan, Some("passed"));
    assert_eq!(
        resume_point(&[approved, phase(Phase::Execute, Some("stopped"))], None),
        Resume::PlanApproved
    );
    assert_eq!(
        resume_point(
            &[
                approved,
                phase(Phase::Execute, Some("failed")),
                phase(Phase::Review, None)
            ],
            None
        ),
        Resume::PlanApproved
    );
    // Sent back by review or QA, or stalled: a new round, with the reason.
    assert_eq!(
        resume_point(&[approved, phase(Phase::Review, Some("failed"))], None),
        Resume::RoundOver("review note".into())
    );
    let stalled = Stalled {
        stage: "execute",
        before: 0.5,
        after: 0.5,
    };
    assert!(matches!(
        resume_point(&[approved], Some(stalled)),
        Resume::RoundOver(r) if r.contains("did not rise during execute")
    ));
}

#[test]
fn a_plain_text_agent_runs_simple_or_is_refused_before_the_run() {
    use crate::spec::{Mode, ModeChoice};
    let qa = ModeChoice {
        mode: Mode::Qa,
        reason: "code with tests".into(),
    };
    // (flag, plain agent) -> mode, or refused
    let rows = [
        (ModeArg::Auto, false, Some(Mode::Qa)),
        (ModeArg::Auto, true, Some(Mode::Simple)),
        (ModeArg::Simple, true, Some(Mode::Simple)),
        (ModeArg::Work, true, None),
        (ModeArg::Qa, true, None),
        (ModeArg::Ralph, true, None),
        (ModeArg::Qa, false, Some(Mode::Qa)),
    ];
    for (arg, plain, want) in rows {
        let got = resolve_mode_for_agent(arg, &qa, plain);
        assert_eq!(got.as_ref().ok().map(|c| c.mode), want, "{arg:?} {plain}");
        if let Err(e) = got {
            assert!(e.0.contains("--mode simple"), "{e:?}");
        }
    }
    let auto = resolve_mode_for_agent(ModeArg::Auto, &qa, true).unwrap();
    assert!(auto.reason.contains("command agent"), "{}", auto.reason);
}

#[test]
fn tdd_red_by_test_id_against_the_baseline() {
    let t = vec!["tests/test_add.py".to_string()];
    let check = |passed: bool, failing: &[&str], baseline: Option<(bool, &[&str])>| RedCheck {
        name: "test".into(),
        passed,
        failing: failing.iter().map(|s| s.to_string()).collect(),
        baseline: baseline.map(|(p, f)| (p, f.iter().map(|s| s.to_string()).collect())),
    };
    // (what the test gate shows now and at the baseline) -> red holds with, or the violation
    let old: &[&str] = &["test_old"];
    let none: &[&str] = &[];
    let rows: Vec<(RedCheck, Result<Vec<String>, &str>)> = vec![
        // A new failing test id: red holds, naming it.
        (
            check(false, &["test_old", "test_new"], Some((false, old))),
            Ok(vec!["test: test_new".into()]),
        ),
        // Regression (issue 16): only the failure that existed before the story.
        (
            check(false, &["test_old"], Some((false, old))),
            Err("RedNotNew"),
        ),
        // The tests pass: red did not fail.
        (check(true, none, Some((false, old))), Err("RedDidNotFail")),
        // A check without test ids: new if it passed at the baseline.
        (
            check(false, none, Some((true, none))),
            Ok(vec!["test".into()]),
        ),
        (check(false, none, Some((false, none))), Err("RedNotNew")),
        // No baseline: as before.
        (check(false, none, None), Ok(vec!["test".into()])),
    ];
    for (c, want) in rows {
        let got = check_red_by_id(&t, std::slice::from_ref(&c));
        match (&got, want) {
            (Ok(ids), Ok(w)) => assert_eq!(ids, &w, "{c:?}"),
            (Err(TddViolation::RedNotNew(_)), Err("RedNotNew")) => {}
            (Err(TddViolation::RedDidNotFail), Err("RedDidNotFail")) => {}
            _ => panic!("{c:?}: got {got:?}"),
        }
    }
    assert_eq!(
        check_red_by_id(&["src/add.py".to_string()], &[check(false, &["x"], None)]),
        Err(TddViolation::NoNewTest)
    );
}

#[test]
fn risky_stories_get_a_checkpoint_first() {
    use crate::spec::Reversibility::*;
    for (class, security, want) in [
        (Irreversible, false, true),
        (Costly, false, false),
        (Reversible, false, false),
        (Reversible, true, true),
    ] {
        assert_eq!(
            checkpoint_before_story(class, security),
            want,
            "{class:?} {security}"
        );
    }
}

#[test]
fn checkpoint_thresholds_follow_how_runs_went_within_bounds() {
    // Met, not verified: up. Missed, verified: down. Otherwise unchanged.
    assert_eq!(
        tune_checkpoint(0.75, 0.75, true, false).map(|t| t.after),
        Some(0.77)
    );
    assert_eq!(
        tune_checkpoint(0.75, 0.75, false, true).map(|t| t.after),
        Some(0.73)
    );
    assert_eq!(tune_checkpoint(0.75, 0.75, true, true), None);
    assert_eq!(tune_checkpoint(0.75, 0.75, false, false), None);
    // Bounded by base ± 0.10.
    assert_eq!(tune_checkpoint(0.75, 0.65, false, true), None);
    assert_eq!(tune_checkpoint(0.60, 0.70, true, false), None);
    assert_eq!(
        checkpoint_key("debug", "checkpoint_end"),
        "debug:checkpoint_end"
    );
}
