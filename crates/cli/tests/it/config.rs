//! `pawl.toml`, the environment and flags: layering, provenance, warnings and errors.

use crate::TestEnv;

#[test]
fn config_show_reports_value_and_source_for_every_layer() {
    let env = TestEnv::new();
    env.write(
        "pawl.toml",
        "[limits]\nmax_iterations = 7\n\n[gates]\ntest = \"cargo test\"\n",
    );
    let r = env.pawl_env(
        &["config", "show", "--json"],
        &[("PAWL_LIMITS_MAX_TIME", "90s")],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["config"]["limits"]["max_iterations"], 7);
    assert_eq!(j["config"]["limits"]["max_time"], "90s");
    assert_eq!(j["config"]["limits"]["max_usd"], 25.0);
    assert_eq!(
        j["sources"]["limits.max_iterations"]["source"],
        "pawl.toml:2"
    );
    assert_eq!(
        j["sources"]["limits.max_time"]["source"],
        "env PAWL_LIMITS_MAX_TIME"
    );
    assert_eq!(j["sources"]["limits.max_usd"]["source"], "default");
    assert_eq!(j["sources"]["gates.test"]["source"], "pawl.toml:5");
    let human = env
        .pawl_env(&["config", "show"], &[("PAWL_LIMITS_MAX_TIME", "90s")])
        .stdout;
    assert!(
        human
            .lines()
            .any(|l| l.starts_with("max_time = \"90s\"")
                && l.ends_with("# env PAWL_LIMITS_MAX_TIME")),
        "{human}"
    );
}

#[test]
fn flags_override_env_and_file() {
    let env = TestEnv::new();
    env.write("pawl.toml", "[limits]\nmax_iterations = 7\n");
    env.ok(&["init"]);
    let r = env.pawl_env(
        &[
            "run",
            "--driver",
            "manual",
            "g",
            "--max-iterations",
            "3",
            "--max-usd",
            "2.5",
            "--json",
        ],
        &[("PAWL_LIMITS_MAX_ITERATIONS", "5")],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = r.json();
    assert_eq!(j["settings"]["limits"]["max_iterations"], 3);
    assert_eq!(j["settings"]["limits"]["max_usd"], 2.5);
    // Persisted with the run.
    let settings: String = env
        .db()
        .query_row("SELECT settings_json FROM runs", [], |r| r.get(0))
        .unwrap();
    assert!(settings.contains("\"max_iterations\":3"), "{settings}");
}

#[test]
fn unknown_keys_warn_with_key_and_line() {
    let env = TestEnv::new();
    env.write("pawl.toml", "[limits]\nmax_iteratons = 4\n");
    let r = env.pawl(&["config", "show"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stderr
            .contains("pawl: warning: pawl.toml:2: unknown key `limits.max_iteratons` (ignored)"),
        "{}",
        r.stderr
    );
}

#[test]
fn syntax_and_type_errors_exit_1_with_position_and_write_nothing() {
    let env = TestEnv::new();
    env.write("pawl.toml", "[limits]\nmax_iterations = \"lots\"\n");
    let r = env.pawl(&["init"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("pawl.toml:2:18:"), "{}", r.stderr);
    assert!(
        !env.root().join(".pawl").exists(),
        "init wrote state despite a bad config"
    );
    env.write("pawl.toml", "[limits\n");
    let r = env.pawl(&["run", "--driver", "manual", "g"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("pawl.toml:1:"), "{}", r.stderr);
    assert!(!env.root().join(".pawl").exists());
}

#[test]
fn bad_flag_and_env_values_are_errors_naming_them() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    let r = env.pawl(&["run", "--driver", "manual", "g", "--max-time", "soon"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("flag --max-time"), "{}", r.stderr);
    let r = env.pawl_env(
        &["run", "--driver", "manual", "g"],
        &[("PAWL_BREAKERS_NO_PROGRESS", "-")],
    );
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("env PAWL_BREAKERS_NO_PROGRESS"),
        "{}",
        r.stderr
    );
    let n: i64 = env
        .db()
        .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0, "no run may be created from a bad configuration");
}
