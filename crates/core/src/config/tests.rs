use super::*;

#[test]
fn defaults_are_complete_and_documented_values() {
    let eff = Loader::new().finish().unwrap();
    assert_eq!(eff.config.limits.max_iterations, 20);
    assert_eq!(eff.config.limits.max_time, Dur::secs(3600));
    assert_eq!(eff.config.limits.calls_per_hour, 100);
    assert_eq!(eff.config.breakers.permission_denials, 2);
    assert_eq!(eff.config.stall.idle_timeout, Dur::secs(300));
    assert_eq!(eff.sources.get("limits.max_usd"), Some(&Source::Default));
    assert!(eff.warnings.is_empty());
}

#[test]
fn the_default_file_parses_to_the_defaults() {
    let eff = Loader::new()
        .file("pawl.toml", &default_file_text())
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(eff.config, Config::default());
    assert!(eff.warnings.is_empty(), "{:?}", eff.warnings);
}

#[test]
fn durations_accept_the_documented_forms() {
    for (text, secs) in [
        ("90s", 90),
        ("5m", 300),
        ("1h", 3600),
        ("1h 30m", 5400),
        ("42", 42),
    ] {
        assert_eq!(text.parse::<Dur>().unwrap(), Dur::secs(secs), "{text}");
    }
    assert!("5 parsecs".parse::<Dur>().is_err());
    assert_eq!(Dur::secs(90).to_string(), "90s");
    assert_eq!(Dur::secs(300).to_string(), "5m");
    assert_eq!(Dur::secs(7200).to_string(), "2h");
}

#[test]
fn layers_apply_in_order_and_remember_their_source() {
    let file =
        "[limits]\nmax_iterations = 7\nmax_time = \"90s\"\n\n[gates]\ntest = \"cargo test\"\n";
    let eff = Loader::new()
        .file("pawl.toml", file)
        .unwrap()
        .env([
            ("PAWL_LIMITS_MAX_ITERATIONS", "9"),
            ("PAWL_RUN_ID", "x"),
            ("HOME", "/h"),
        ])
        .unwrap()
        .flag("limits.max_usd", "3.5", "--max-usd")
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(eff.config.limits.max_iterations, 9);
    assert_eq!(eff.config.limits.max_time, Dur::secs(90));
    assert_eq!(eff.config.limits.max_usd, 3.5);
    assert_eq!(
        eff.config.gates.get("test").map(String::as_str),
        Some("cargo test")
    );
    assert_eq!(
        eff.sources.get("limits.max_iterations"),
        Some(&Source::Env {
            var: "PAWL_LIMITS_MAX_ITERATIONS".into()
        })
    );
    assert_eq!(
        eff.sources.get("limits.max_time"),
        Some(&Source::File {
            path: "pawl.toml".into(),
            line: 3
        })
    );
    assert_eq!(
        eff.sources.get("gates.test"),
        Some(&Source::File {
            path: "pawl.toml".into(),
            line: 6
        })
    );
    assert_eq!(
        eff.sources.get("limits.max_usd"),
        Some(&Source::Flag {
            flag: "--max-usd".into()
        })
    );
}

#[test]
fn unknown_keys_warn_with_their_line() {
    let file = "[limits]\nmax_iterations = 3\nmax_iteratons = 4\n\n[colour]\nx = 1\n";
    let eff = Loader::new()
        .file("pawl.toml", file)
        .unwrap()
        .finish()
        .unwrap();
    let w: Vec<String> = eff.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        w,
        vec![
            "pawl.toml:3: unknown key `limits.max_iteratons` (ignored)",
            "pawl.toml:5: unknown key `colour` (ignored)",
        ]
    );
    assert_eq!(eff.config.limits.max_iterations, 3);
    assert!(!eff.sources.contains_key("colour.x"));
}

#[test]
fn syntax_errors_name_line_and_column() {
    let err = Loader::new()
        .file("pawl.toml", "[limits]\nmax_iterations = = 3\n")
        .unwrap_err();
    let ConfigError::File { line, column, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(*line, 2);
    assert!(*column >= 16, "{err}");
    assert!(err.to_string().starts_with("pawl.toml:2:"), "{err}");
}

#[test]
fn type_errors_name_line_and_column() {
    let err = Loader::new()
        .file("cfg/pawl.toml", "[limits]\n\nmax_iterations = \"many\"\n")
        .unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("cfg/pawl.toml:3:18:"), "{msg}");
    assert!(msg.contains("integer") || msg.contains("u32"), "{msg}");
    let err = Loader::new()
        .file("pawl.toml", "[stall]\nidle_timeout = \"soon\"\n")
        .unwrap_err();
    assert!(err.to_string().starts_with("pawl.toml:2:"), "{err}");
    let err = Loader::new()
        .file("pawl.toml", "[agent]\nkind = \"clippy\"\n")
        .unwrap_err();
    assert!(err.to_string().contains("expected one of claude"), "{err}");
}

#[test]
fn bad_overrides_name_their_source() {
    let err = Loader::new()
        .env([("PAWL_LIMITS_MAX_ITERATIONS", "lots")])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "env PAWL_LIMITS_MAX_ITERATIONS: `limits.max_iterations`: expected an integer, got `lots`"
    );
    let err = Loader::new()
        .flag("limits.max_time", "soon", "--max-time")
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("flag --max-time: `limits.max_time`:"),
        "{err}"
    );
    let err = Loader::new()
        .env([("PAWL_LIMITS_MAX_LOOPS", "3")])
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("unknown configuration key `limits.max_loops`"),
        "{err}"
    );
}

#[test]
fn arrays_from_env_take_toml_or_commas() {
    let eff = Loader::new()
        .env([
            ("PAWL_AGENT_COMMAND", "[\"sh\", \"agent.sh\"]"),
            ("PAWL_GUARD_PROTECTED_BRANCHES", "main, trunk"),
        ])
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(eff.config.agent.command, vec!["sh", "agent.sh"]);
    assert_eq!(eff.config.guard.protected_branches, vec!["main", "trunk"]);
}

#[test]
fn gates_can_be_added_from_env() {
    let eff = Loader::new()
        .env([("PAWL_GATES_LINT", "cargo clippy")])
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(
        eff.config.gates.get("lint").map(String::as_str),
        Some("cargo clippy")
    );
}

#[test]
fn annotated_rendering_shows_sources() {
    let eff = Loader::new()
        .file("pawl.toml", "[limits]\nmax_usd = 2.0\n")
        .unwrap()
        .finish()
        .unwrap();
    let text = render_annotated(&eff);
    assert!(text.contains("max_usd = 2.0"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("max_usd") && l.ends_with("# pawl.toml:2")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("max_iterations") && l.ends_with("# default")),
        "{text}"
    );
}

#[test]
fn line_col_is_one_based() {
    assert_eq!(line_col("ab\ncd", 0), (1, 1));
    assert_eq!(line_col("ab\ncd", 3), (2, 1));
    assert_eq!(line_col("ab\ncd", 4), (2, 2));
    assert_eq!(line_col("ab", 99), (1, 3));
}

proptest::proptest! {
    #[test]
    fn any_text_either_loads_or_errors_without_panicking(s in ".{0,200}") {
        let _ = Loader::new().file("pawl.toml", &s).and_then(Loader::finish);
    }
}

/// Regression: `idle_timeout = "1500ms"` was persisted with the run as "1s" (and "500ms" as
/// "0s", an idle timeout that fires at once).
#[test]
fn dur_keeps_sub_second_precision_through_display_and_parse() {
    for text in ["1500ms", "500ms", "1ms", "90s", "5m", "1h", "0s"] {
        let d: Dur = text.parse().unwrap();
        let back: Dur = d.to_string().parse().unwrap();
        assert_eq!(back, d, "{text} -> {d}");
    }
    assert_eq!("1500ms".parse::<Dur>().unwrap().to_string(), "1500ms");
}

#[test]
fn hidden_gates_are_a_sub_table_of_gates() {
    let file = "[gates]\ntest = \"pytest\"\n\n[gates.hidden]\nedge = \"pytest tests_hidden\"\n";
    let eff = Loader::new()
        .file("pawl.toml", file)
        .unwrap()
        .finish()
        .unwrap();
    assert!(eff.warnings.is_empty(), "{:?}", eff.warnings);
    assert_eq!(eff.config.gates.len(), 1);
    assert_eq!(
        eff.config.gates.get("test").map(String::as_str),
        Some("pytest")
    );
    assert_eq!(
        eff.config.gates.hidden.get("edge").map(String::as_str),
        Some("pytest tests_hidden")
    );
    // Round trip (pawl config show).
    let text = toml::to_string(&eff.config).unwrap();
    assert!(text.contains("[gates.hidden]"), "{text}");
    // Any other table under [gates] is an error naming it.
    let err = Loader::new()
        .file("pawl.toml", "[gates.lint]\ncmd = \"x\"\n")
        .unwrap_err();
    assert!(err.to_string().contains("gates.lint"), "{err}");
}

/// Issue "first hour": `max_usd = inf` (or nan, 1e309, negative) was accepted, stored as `null`
/// and made every later command fail; zero iterations, time or timeouts were accepted too.
/// Each is now refused where it was given, naming the key, the source and what to give.
#[test]
fn values_no_run_can_use_are_refused_naming_the_key_and_where_it_came_from() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "file",
            "[limits]\nmax_usd = inf\n",
            "limits.max_usd (from pawl.toml:2)",
        ),
        ("file", "[limits]\nmax_usd = nan\n", "limits.max_usd"),
        (
            "file",
            "[limits]\nmax_usd = 1e309\n",
            "pawl.toml:2:11: floating-point number overflowed",
        ),
        ("file", "[limits]\nmax_usd = -1.0\n", "limits.max_usd"),
        (
            "file",
            "[limits]\nmax_iterations = 0\n",
            "limits.max_iterations",
        ),
        ("file", "[limits]\nmax_time = \"0s\"\n", "limits.max_time"),
        (
            "file",
            "[stall]\nidle_timeout = \"0s\"\n",
            "stall.idle_timeout",
        ),
        (
            "file",
            "[stall]\nstep_timeout = \"0ms\"\n",
            "stall.step_timeout",
        ),
        ("flag", "inf", "limits.max_usd (from flag --max-usd)"),
        (
            "env",
            "NaN",
            "limits.max_usd (from env PAWL_LIMITS_MAX_USD)",
        ),
    ];
    for (layer, value, want) in cases {
        let loader = Loader::new();
        let loader = match *layer {
            "file" => loader.file("pawl.toml", value),
            "flag" => loader.flag("limits.max_usd", value, "--max-usd"),
            _ => loader.env([("PAWL_LIMITS_MAX_USD", *value)]),
        };
        let err = loader
            .and_then(Loader::finish)
            .expect_err(value)
            .to_string();
        assert!(err.starts_with(want), "{value}: {err}");
    }
    // 0 keeps its documented meaning: no dollar limit, no token limit, no calls-per-hour limit.
    let eff = Loader::new()
        .file(
            "pawl.toml",
            "[limits]\nmax_usd = 0.0\nmax_tokens = 0\ncalls_per_hour = 0\n",
        )
        .unwrap()
        .finish()
        .unwrap();
    assert_eq!(eff.config.limits.max_usd, 0.0);
}

#[test]
fn a_stored_null_dollar_limit_still_reads() {
    let limits: Limits = serde_json::from_str(
        r#"{"max_iterations": 3, "max_time": "1h", "max_usd": null, "max_tokens": 0, "calls_per_hour": 0}"#,
    )
    .unwrap();
    assert_eq!(limits.max_usd, 0.0);
}

#[test]
fn an_empty_section_keeps_its_defaults_for_later_layers() {
    let eff = Loader::new()
        .file("pawl.toml", "[pipeline]\n")
        .unwrap()
        .env([("PAWL_PIPELINE_SPEC_GATE", "false")])
        .unwrap()
        .finish()
        .unwrap();
    assert!(!eff.config.pipeline.spec_gate);
    assert!(eff.config.pipeline.tdd);
}
