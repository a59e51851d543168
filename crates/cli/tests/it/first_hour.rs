//! A newcomer's first hour (issue 17). Every command pawl prints works as printed: the hints in
//! a run's output, its report, `pawl status` and errors are collected and each is run (a hint
//! may fail for its own reasons, `pawl: error: …`, never because the command line is not
//! pawl's, clap's `error: unexpected argument …`). The current run is the newest one; limits no
//! run can use and runs that cannot start are refused before anything is written.

use std::collections::BTreeSet;

use crate::TestEnv;
use crate::headless::{NO_BREAKERS, config};

/// pawl's verbs, as `pawl --help` lists them.
fn verbs(env: &TestEnv) -> BTreeSet<String> {
    let help = env.pawl(&["--help"]).stdout;
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// The `pawl <verb> …` commands in `text`: quoted in backticks, or running to the end of a
/// line ("resume with: pawl resume --run X"); templates (`<goal>`) are left out.
fn hints(text: &str, verbs: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(at) = rest.find("pawl ") {
            let before = rest[..at].chars().last();
            let tail = &rest[at..];
            rest = &rest[at + 5..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '[' || c == '/' || c == '-') {
                continue;
            }
            let end = tail.find('`').unwrap_or(tail.len());
            let hint = tail[..end]
                .trim()
                .trim_end_matches(['.', ')', ','])
                .to_owned();
            let verb_ok = hint
                .split_whitespace()
                .nth(1)
                .is_some_and(|v| verbs.contains(v) || v.starts_with("--"));
            if verb_ok && !hint.contains('<') && !hint.contains('…') {
                out.insert(hint);
            }
        }
    }
    out
}

/// Splits a printed command into words, honouring double and single quotes.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if !cur.is_empty() || any {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if !cur.is_empty() || any {
        out.push(cur);
    }
    out
}

#[test]
fn the_global_run_flag_works_before_and_after_the_verb() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let s = env.scenario(
        "idle",
        "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"thinking\"}\n",
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s, "--json"]);
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    let id: String = env
        .db()
        .query_row("SELECT id FROM runs", [], |r| r.get(0))
        .unwrap();
    for verb in ["report", "status", "events"] {
        let after = env.pawl(&[verb, "--run", &id, "--json"]);
        assert_eq!(after.code, 0, "{verb} --run: {}", after.stderr);
        let before = env.pawl(&["--run", &id, verb, "--json"]);
        assert_eq!(before.code, 0, "--run {verb}: {}", before.stderr);
    }
    // A verb with its own positional run takes the flag too (and refuses both at once only
    // when they disagree is not needed: the positional wins).
    let r = env.pawl(&["rollback", "--run", &id]);
    assert!(!r.stderr.starts_with("error:"), "{}", r.stderr);
    let r = env.pawl(&["resume", "--run", &id, "--add-iterations", "1"]);
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
}

#[test]
fn every_command_pawl_prints_after_a_failed_run_parses_as_printed() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let s = env.scenario(
        "idle",
        "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"thinking\"}\n",
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s]);
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    let mut text = format!("{}\n{}", r.stdout, r.stderr);
    for args in [&["status"][..], &["report"], &["verify"], &["rollback"]] {
        let out = env.pawl(args);
        text.push_str(&out.stdout);
        text.push_str(&out.stderr);
    }
    for entry in std::fs::read_dir(env.root().join(".pawl/reports")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            text.push_str(&std::fs::read_to_string(path).unwrap());
        }
    }
    let found = hints(&text, &verbs(&env));
    assert!(
        found.iter().any(|h| h.starts_with("pawl resume")),
        "the run's output names how to resume it: {found:?}\n{text}"
    );
    let mut broken = Vec::new();
    for hint in &found {
        let w = words(hint);
        let args: Vec<&str> = w.iter().skip(1).map(String::as_str).collect();
        let out = env.pawl(&args);
        // clap's own errors start with `error:`; pawl's with `pawl: error:`.
        if out.stderr.starts_with("error:") || out.stderr.contains("\nerror: unexpected") {
            broken.push(format!("`{hint}`: {}", out.stderr));
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn after_a_ship_the_current_run_is_the_new_one_and_verify_never_writes_onto_a_stopped_run() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let idle = env.scenario(
        "idle",
        "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"thinking\"}\n",
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &idle]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let stopped: String = env
        .db()
        .query_row("SELECT id FROM runs", [], |r| r.get(0))
        .unwrap();
    env.git(&["checkout", "-q", "main"]);
    let fix = env.scenario(
        "fix",
        "{\"step\": 1}\n{\"do\": \"write\", \"path\": \"done.txt\", \"content\": \"ok\\n\"}\n",
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &fix]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let shipped: String = env
        .db()
        .query_row("SELECT id FROM runs WHERE status = 'done'", [], |r| {
            r.get(0)
        })
        .unwrap();
    let status = env.ok(&["status", "--json"]).json();
    assert_eq!(status["run"]["id"], shipped.as_str(), "{status}");
    let report = env.ok(&["report", "--json"]).json();
    assert_eq!(report["run_id"], shipped.as_str(), "{report}");

    // A failing verification outside any run is recorded on no run.
    std::fs::remove_file(env.root().join("done.txt")).unwrap();
    let evidence_of = |id: &str| -> i64 {
        env.db()
            .query_row(
                "SELECT COUNT(*) FROM evidence WHERE run_id = ?1",
                [id],
                |r| r.get(0),
            )
            .unwrap()
    };
    let before = evidence_of(&stopped);
    let r = env.pawl(&["verify"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        evidence_of(&stopped),
        before,
        "verify wrote onto the stopped run"
    );
}

#[test]
fn limits_no_run_can_use_are_refused_before_anything_is_written() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let s = env.scenario(
        "idle",
        "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"thinking\"}\n",
    );
    for (args, env_vars, want) in [
        (vec!["--max-usd", "inf"], vec![], "--max-usd"),
        (vec!["--max-usd", "nan"], vec![], "--max-usd"),
        (vec!["--max-usd=-3"], vec![], "--max-usd"),
        (
            vec!["--max-iterations", "0"],
            vec![],
            "limits.max_iterations",
        ),
        (
            vec![],
            vec![("PAWL_LIMITS_MAX_USD", "1e309")],
            "PAWL_LIMITS_MAX_USD",
        ),
    ] {
        let mut all = vec!["run", "make done.txt", "--scenario", s.as_str()];
        all.extend(args.iter().copied());
        let r = env.pawl_env(&all, &env_vars);
        assert!(r.code != 0, "{all:?} was accepted");
        assert!(r.stderr.contains(want), "{all:?}: {}", r.stderr);
        assert_eq!(
            env.count("SELECT COUNT(*) FROM runs"),
            0,
            "{all:?} created a run"
        );
    }
}

/// A store written by an older pawl holds a dollar limit of `null` (a non-finite number in
/// JSON): every command a user needs still works on it. Written by hand into a signed store,
/// the row also reads as modified outside pawl, so the run shows as tampered; reading `null`
/// itself is `pawl_core`'s `a_stored_null_dollar_limit_still_reads`.
#[test]
fn a_store_holding_a_null_dollar_limit_still_opens() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let s = env.scenario(
        "idle",
        "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"thinking\"}\n",
    );
    let r = env.pawl(&["run", "make done.txt", "--scenario", &s]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let db = env.db();
    let settings: String = db
        .query_row("SELECT settings_json FROM runs", [], |r| r.get(0))
        .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&settings).unwrap();
    v["limits"]["max_usd"] = serde_json::Value::Null;
    db.execute("UPDATE runs SET settings_json = ?1", [v.to_string()])
        .unwrap();
    drop(db);
    for args in [&["status"][..], &["report"], &["events"]] {
        let r = env.pawl(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    let status = env.ok(&["status"]).stdout;
    assert!(status.to_lowercase().contains("tampered"), "{status}");
    let r = env.pawl(&["cancel"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// Nothing half-started: what would make a run fail right after it was created is checked
/// before: the run is refused, and the repository and the store are as they were.
#[test]
fn a_run_that_cannot_start_is_refused_before_anything_is_written() {
    type Case = (&'static str, &'static str, fn(&TestEnv), &'static str);
    let cases: [Case; 4] = [
        (
            "empty command",
            "[agent]\nkind = \"command\"\ncommand = []\n",
            |_| {},
            "needs command",
        ),
        (
            "missing program",
            "[agent]\nkind = \"command\"\ncommand = [\"no-such-agent-xyz\", \"--go\"]\n",
            |_| {},
            "`no-such-agent-xyz`",
        ),
        (
            "a branch named pawl",
            "[agent]\nkind = \"command\"\ncommand = [\"true\"]\n",
            |env| {
                env.git(&["branch", "pawl"]);
            },
            "a branch named `pawl` exists",
        ),
        (
            "a merge in progress",
            "[agent]\nkind = \"command\"\ncommand = [\"true\"]\n",
            |env| {
                let head = env.git(&["rev-parse", "HEAD"]).stdout;
                std::fs::write(env.root().join(".git/MERGE_HEAD"), head).unwrap();
            },
            "in the middle of a merge",
        ),
    ];
    for (what, agent, setup, want) in cases {
        let env = TestEnv::new();
        env.headless(&crate::headless::config_with(
            "max_iterations = 1",
            NO_BREAKERS,
            "",
            agent,
            crate::headless::DONE_GATE,
        ));
        setup(&env);
        let before = env.git(&["branch", "--list"]).stdout;
        let r = env.pawl(&["run", "make done.txt"]);
        assert_ne!(r.code, 0, "{what}: accepted");
        assert!(r.stderr.contains(want), "{what}: {}", r.stderr);
        assert_eq!(
            env.count("SELECT COUNT(*) FROM runs"),
            0,
            "{what}: a run was created"
        );
        assert_eq!(
            env.git(&["branch", "--list"]).stdout,
            before,
            "{what}: the branches changed"
        );
    }
}

/// stdout and stderr on a full device: a message where one can be written, exit 1, never a
/// panic's 101.
#[test]
fn a_full_device_is_exit_1_never_a_panic() {
    let env = TestEnv::new();
    env.headless(&config("max_iterations = 1", NO_BREAKERS, ""));
    let s = env.scenario(
        "idle",
        "{\"step\": 1}\n{\"do\": \"text\", \"text\": \"thinking\"}\n",
    );
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    for args in [
        vec!["status"],
        vec!["status", "--json"],
        vec!["run", "make done.txt", "--scenario", s.as_str()],
        vec!["report"],
    ] {
        let out = env
            .command("pawl")
            .args(&args)
            .stdout(full())
            .stderr(full())
            .output()
            .unwrap();
        let code = out.status.code();
        assert_eq!(code, Some(1), "{args:?}");
        let out = env
            .command("pawl")
            .args(&args)
            .stdout(full())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).starts_with("pawl: error:"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
