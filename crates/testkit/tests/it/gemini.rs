//! The real Gemini CLI (`gemini -p ... --output-format stream-json`) against the mock, through
//! `GOOGLE_GEMINI_BASE_URL` with API-key auth.
//!
//! Gemini CLI 0.61 needs `security.auth.selectedType = "gemini-api-key"` in its settings: with
//! only `GOOGLE_GEMINI_BASE_URL` set it picks the `gateway` auth type and then refuses it in
//! headless mode ("Invalid auth method selected."). The settings also switch off what would
//! phone home (usage statistics to play.googleapis.com, telemetry, update checks, the IDE).

use std::path::PathBuf;
use std::time::Duration;

use pawl_testkit::{Fault, MockServer, RequestKind, Scenario, ToolCall, Turn};
use serde_json::Value;

use crate::agents::{CliRun, Sandbox, maybe_record_fixture, run_cli};

pub fn gemini_version() -> &'static str {
    crate::agents::pinned("PAWL_GEMINI_VERSION")
}

/// `PAWL_GEMINI_BIN`, or the CLI `.ci/install-agents.sh` put in the cache; `None` after a loud
/// skip line, a panic under `CI=true`.
fn find_gemini() -> Option<PathBuf> {
    let cached = || {
        let cache = match std::env::var_os("PAWL_AGENT_CACHE") {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(std::env::var_os("HOME")?).join(".cache/pawl-agents"),
        };
        Some(cache.join(format!(
            "gemini-cli-{}/node_modules/.bin/gemini",
            gemini_version()
        )))
    };
    let path = std::env::var_os("PAWL_GEMINI_BIN")
        .map(PathBuf::from)
        .or_else(cached);
    if let Some(path) = path.filter(|path| path.is_file()) {
        return Some(path);
    }
    let message = "Gemini CLI not found: set PAWL_GEMINI_BIN or run `source .ci/install-agents.sh`";
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{message}");
    }
    eprintln!("SKIPPED (real-CLI test): {message}");
    None
}

/// `~/.gemini/settings.json` of the sandbox: API-key auth, and nothing that phones home.
fn write_settings(sandbox: &Sandbox) {
    let dir = sandbox.path("home").join(".gemini");
    std::fs::create_dir_all(&dir).unwrap();
    let settings = serde_json::json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "ide": {"enabled": false}
    });
    std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
}

/// A cleared environment pointed at the mock, with the folder trusted (untrusted, Gemini CLI
/// falls back to the `default` approval mode and ignores project settings).
fn gemini_env(sandbox: &Sandbox, base_url: &str) -> Vec<(String, String)> {
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
    let dir = |name: &str| sandbox.path(name).display().to_string();
    vec![
        ("PATH".into(), path),
        ("HOME".into(), dir("home")),
        ("TMPDIR".into(), dir("tmp")),
        ("TERM".into(), "dumb".into()),
        ("LANG".into(), "C.UTF-8".into()),
        ("GOOGLE_GEMINI_BASE_URL".into(), base_url.into()),
        ("GEMINI_API_KEY".into(), "dummy".into()),
        ("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into()),
    ]
}

/// `gemini -p <prompt>` in headless stream-json mode, with the flags pawl's adapter passes: edits
/// auto-approved and the shell allowed (headless mode drops tools that would need approval).
fn run_gemini(
    server: &MockServer,
    sandbox: &Sandbox,
    prompt: &str,
    resume: Option<&str>,
) -> Option<CliRun> {
    let gemini = find_gemini()?;
    write_settings(sandbox);
    let mut args = vec![
        "-p",
        prompt,
        "--output-format",
        "stream-json",
        "--approval-mode",
        "auto_edit",
        "--allowed-tools",
        "run_shell_command",
    ];
    if let Some(session) = resume {
        args.extend(["--resume", session]);
    }
    Some(run_cli(
        &gemini,
        &args,
        &gemini_env(sandbox, &server.base_url()),
        &sandbox.repo(),
        Duration::from_secs(120),
    ))
}

fn hello_scenario(first_turn_faults: Vec<Fault>) -> Scenario {
    let mut first = Turn::text("Creating hello.txt.")
        .with_tool(ToolCall::bash("echo hello > hello.txt"))
        .with_usage(900, 21);
    first.faults = first_turn_faults;
    Scenario::new(vec![first, Turn::text("Done.").with_usage(1000, 4)])
}

/// The assistant text of the stream, deltas joined per message run.
fn assistant_texts(run: &CliRun) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    let mut open = false;
    for event in run.events() {
        if event["type"] == "message" && event["role"] == "assistant" {
            let chunk = event["content"].as_str().unwrap_or_default();
            match texts.last_mut() {
                Some(last) if open => last.push_str(chunk),
                _ => texts.push(chunk.to_owned()),
            }
            open = true;
        } else {
            open = false;
        }
    }
    texts
}

/// Exit 0, "Done." last, and `result.stats` tokens equal to what the mock reported: `input_tokens`
/// counts cache reads, `input` does not.
fn assert_success_with_mock_usage(run: &CliRun, server: &MockServer) {
    assert!(run.status.success(), "{}", run.describe());
    let result = run
        .last_event("result")
        .unwrap_or_else(|| panic!("no result\n{}", run.describe()));
    assert_eq!(result["status"], "success", "{result}");
    let usage = server.reported_usage();
    let stats = &result["stats"];
    assert_eq!(
        stats["input_tokens"],
        Value::from(usage.input_tokens + usage.cache_read_input_tokens),
        "{result}"
    );
    assert_eq!(stats["input"], Value::from(usage.input_tokens), "{result}");
    assert_eq!(
        stats["cached"],
        Value::from(usage.cache_read_input_tokens),
        "{result}"
    );
    assert_eq!(
        stats["output_tokens"],
        Value::from(usage.output_tokens),
        "{result}"
    );
    assert_eq!(
        assistant_texts(run).last().map(String::as_str),
        Some("Done."),
        "{}",
        run.describe()
    );
}

#[test]
fn gemini_runs_a_scripted_shell_call_and_reports_mock_usage() {
    let server = MockServer::start(hello_scenario(Vec::new())).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_gemini(&server, &sandbox, "create hello.txt", None) else {
        return;
    };

    assert_eq!(
        std::fs::read_to_string(sandbox.repo().join("hello.txt")).unwrap(),
        "hello\n",
        "{}",
        run.describe()
    );
    assert_success_with_mock_usage(&run, &server);
    let init = run.events().into_iter().find(|e| e["type"] == "init");
    assert!(
        init.unwrap()["session_id"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );
    let tool_use = run.last_event("tool_use").unwrap();
    assert_eq!(tool_use["tool_name"], "run_shell_command");
    assert_eq!(tool_use["parameters"]["command"], "echo hello > hello.txt");
    let tool_result = run.last_event("tool_result").unwrap();
    assert_eq!(tool_result["status"], "success", "{tool_result}");
    assert_eq!(tool_result["tool_id"], tool_use["tool_id"]);

    let main = server.main_requests();
    assert_eq!(main.len(), 2, "{:#?}", server.requests());
    assert!(
        main[0].path.ends_with(":streamGenerateContent"),
        "{}",
        main[0].path
    );
    assert_eq!(main[0].query.as_deref(), Some("alt=sse"));
    assert_eq!(main[0].header("x-goog-api-key"), Some("dummy"));
    assert!(
        main[0]
            .header("user-agent")
            .is_some_and(|ua| ua.contains(&format!("/{}/", gemini_version()))),
        "{:?}",
        main[0].headers
    );
    assert!(
        main[0].tools.iter().any(|tool| tool == "run_shell_command"),
        "{:?}",
        main[0].tools
    );
    // The session context is a separate part of the first message, not the prompt.
    assert_eq!(main[0].last_user_text(), Some("create hello.txt"));
    assert_eq!(main[1].tool_outputs.len(), 1);
    // Besides the loop, only the model router's classifier (one tool-less generateContent per
    // prompt): no countTokens, no model listing, nothing else.
    let side: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| !r.is_main())
        .collect();
    assert_eq!(side.len(), 1, "{side:#?}");
    assert_eq!(side[0].kind, RequestKind::Auxiliary);
    assert!(
        side[0].path.ends_with(":generateContent"),
        "{}",
        side[0].path
    );
    maybe_record_fixture(
        &format!("gemini-{}-basic.jsonl", gemini_version()),
        &run,
        &sandbox,
        &server,
    );
}

/// `write_file`, `replace` (which needs an `instruction`) and `read_file`, with the absolute paths
/// the mock derives from the workspace directory Gemini CLI announces.
#[test]
fn gemini_file_tools_write_edit_and_read() {
    let scenario = Scenario::new(vec![
        Turn::text("Writing.").with_tool(ToolCall::Write {
            path: "notes.txt".into(),
            content: "one\n".into(),
        }),
        Turn::text("Editing.").with_tool(ToolCall::Edit {
            path: "notes.txt".into(),
            old: "one".into(),
            new: "two".into(),
        }),
        Turn::text("Reading.").with_tool(ToolCall::Read {
            path: "notes.txt".into(),
        }),
        Turn::text("Done."),
    ]);
    let server = MockServer::start(scenario).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_gemini(&server, &sandbox, "edit notes.txt", None) else {
        return;
    };

    assert_success_with_mock_usage(&run, &server);
    assert_eq!(
        std::fs::read_to_string(sandbox.repo().join("notes.txt")).unwrap(),
        "two\n"
    );
    let results: Vec<Value> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 3, "{}", run.describe());
    assert!(
        results.iter().all(|r| r["status"] == "success"),
        "{results:?}"
    );
    let tools: Vec<Value> = run
        .events()
        .into_iter()
        .filter(|e| e["type"] == "tool_use")
        .map(|e| e["tool_name"].clone())
        .collect();
    assert_eq!(tools, ["write_file", "replace", "read_file"]);
    let last = server.main_requests().pop().unwrap();
    assert!(
        last.tool_outputs.last().is_some_and(|o| o.contains("two")),
        "{:?}",
        last.tool_outputs
    );
    maybe_record_fixture(
        &format!("gemini-{}-write.jsonl", gemini_version()),
        &run,
        &sandbox,
        &server,
    );
}

#[test]
fn gemini_retries_a_503_then_succeeds() {
    let server = MockServer::start(hello_scenario(vec![Fault::Overloaded])).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_gemini(&server, &sandbox, "create hello.txt", None) else {
        return;
    };

    assert!(
        sandbox.repo().join("hello.txt").is_file(),
        "{}",
        run.describe()
    );
    assert_success_with_mock_usage(&run, &server);
    let statuses: Vec<u16> = server.main_requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![503, 200, 200]);
    // The retry shows on stderr only, which is where pawl's adapter looks for it.
    assert!(
        run.stderr
            .contains("Attempt 1 failed with status 503. Retrying with backoff..."),
        "{}",
        run.stderr
    );
    assert!(run.last_event("error").is_none(), "{}", run.stdout);
}

/// A 429 whose message says how long to wait (as the Gemini API's do): the CLI waits at least
/// that long, then retries by itself.
#[test]
fn gemini_waits_out_a_429_that_says_retry_in() {
    let fault = Fault::RateLimit {
        retry_after_secs: 2,
        message: Some("Quota exceeded for requests per minute. Please retry in 2s.".into()),
    };
    let server = MockServer::start(hello_scenario(vec![fault])).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_gemini(&server, &sandbox, "create hello.txt", None) else {
        return;
    };

    let main = server.main_requests();
    assert_success_with_mock_usage(&run, &server);
    assert_eq!(
        main.iter().map(|r| r.status).collect::<Vec<_>>(),
        vec![429, 200, 200]
    );
    let waited = main[1].at_ms - main[0].at_ms;
    assert!(waited >= 2000, "retried after {waited} ms, before 2 s");
    assert!(run.stderr.contains("Attempt 1 failed"), "{}", run.stderr);
}

/// A quota error with a wait beyond what the CLI retries (over 300 s) ends the run: an error
/// result whose message carries the wait, exit status 429 % 256, nothing done.
#[test]
fn gemini_gives_up_on_a_quota_error_with_a_long_wait() {
    let fault = Fault::RateLimit {
        retry_after_secs: 3600,
        message: Some(
            "You exceeded your current quota, please check your plan and billing details. \
             Please retry in 3600s."
                .into(),
        ),
    };
    let server = MockServer::start(hello_scenario(vec![fault])).unwrap();
    let sandbox = Sandbox::new();
    let Some(run) = run_gemini(&server, &sandbox, "create hello.txt", None) else {
        return;
    };

    assert_eq!(run.status.code(), Some(429 % 256), "{}", run.describe());
    let result = run.last_event("result").unwrap();
    assert_eq!(result["status"], "error", "{result}");
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Please retry in 3600s"),
        "{result}"
    );
    assert!(!sandbox.repo().join("hello.txt").exists());
    assert_eq!(server.main_requests().len(), 1);
    maybe_record_fixture(
        &format!("gemini-{}-quota-gave-up.jsonl", gemini_version()),
        &run,
        &sandbox,
        &server,
    );
}

/// `--resume <session id>` continues the session: the same id, and the first exchange is in the
/// history the model receives.
#[test]
fn gemini_resumes_a_session_by_id() {
    let scenario = Scenario::new(vec![
        Turn::text("First.").with_tool(ToolCall::bash("echo one > one.txt")),
        Turn::text("Done one."),
        Turn::text("Second.")
            .with_tool(ToolCall::bash("echo two > two.txt"))
            .when_last_user_contains("second task"),
        Turn::text("Done."),
    ]);
    let server = MockServer::start(scenario).unwrap();
    let sandbox = Sandbox::new();
    let Some(first) = run_gemini(&server, &sandbox, "first task", None) else {
        return;
    };
    assert!(first.status.success(), "{}", first.describe());
    let session = first.last_event("init").unwrap()["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let second = run_gemini(&server, &sandbox, "second task", Some(&session)).unwrap();

    assert!(second.status.success(), "{}", second.describe());
    assert_eq!(
        second.last_event("init").unwrap()["session_id"],
        session.as_str()
    );
    assert!(sandbox.repo().join("one.txt").is_file());
    assert!(
        sandbox.repo().join("two.txt").is_file(),
        "{}",
        second.describe()
    );
    let main = server.main_requests();
    assert_eq!(main.len(), 4, "{main:#?}");
    assert_eq!(main[2].turn, Some(2));
    assert_eq!(main[2].user_texts, ["first task", "second task"]);
    assert_eq!(
        assistant_texts(&second).last().map(String::as_str),
        Some("Done.")
    );
}
