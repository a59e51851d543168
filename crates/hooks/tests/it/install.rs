//! Settings installers: merge keeps what the user had, is idempotent, and remove takes out
//! exactly pawl's entries.

use pawl_hooks::install::{self, merge, merge_permissions, remove, remove_permissions};
use pawl_hooks::{Agent, HookKind};
use serde_json::Value;

const USER_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": ["Read"],
    "deny": ["Bash(curl *)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "python3 hooks/mine.py"}]
      }
    ]
  },
  "env": {"A": "1"}
}
"#;

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn merge_into_a_users_file_keeps_everything_and_in_order() {
    let m = merge(
        Agent::Claude,
        "settings.json",
        Some(USER_SETTINGS),
        "/bin/pawl",
    )
    .unwrap();
    assert!(m.changed);
    let v = json(&m.text);
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["model", "permissions", "hooks", "env"],
        "key order kept"
    );
    let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(
        pre.len(),
        2,
        "the user's group stays first, pawl's is its own group"
    );
    assert_eq!(pre[0]["hooks"][0]["command"], "python3 hooks/mine.py");
    assert_eq!(
        pre[1]["hooks"][0]["command"],
        "/bin/pawl hook claude pre-tool-use"
    );
    assert_eq!(pre[1]["matcher"], "Bash|Write|Edit|MultiEdit|NotebookEdit");
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["timeout"],
        install::STOP_TIMEOUT_S
    );
    assert_eq!(
        v["hooks"]["SessionStart"][0]["matcher"],
        "startup|resume|compact"
    );
    for kind in HookKind::ALL {
        assert!(v["hooks"][kind.event_name(Agent::Claude)].is_array());
    }
}

#[test]
fn merge_is_idempotent_and_updates_a_moved_binary_in_place() {
    let once = merge(Agent::Claude, "s", Some(USER_SETTINGS), "/bin/pawl").unwrap();
    let twice = merge(Agent::Claude, "s", Some(&once.text), "/bin/pawl").unwrap();
    assert!(!twice.changed);
    assert_eq!(once.text, twice.text);
    let moved = merge(Agent::Claude, "s", Some(&once.text), "'/opt/my tools/pawl'").unwrap();
    assert!(moved.changed);
    let v = json(&moved.text);
    assert_eq!(v["hooks"]["Stop"].as_array().unwrap().len(), 1);
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "'/opt/my tools/pawl' hook claude stop"
    );
}

#[test]
fn remove_restores_the_users_file_exactly() {
    for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
        let m = merge(agent, "s", Some(USER_SETTINGS), "/bin/pawl").unwrap();
        let r = remove("s", &m.text).unwrap();
        assert_eq!(r.removed, 5, "{agent}");
        assert_eq!(
            json(r.text.as_deref().unwrap()),
            json(USER_SETTINGS),
            "{agent}"
        );
    }
}

#[test]
fn a_file_pawl_created_is_deleted_on_remove() {
    let m = merge(Agent::Codex, ".codex/hooks.json", None, "pawl").unwrap();
    let v = json(&m.text);
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["matcher"],
        "Bash|apply_patch|Edit|Write"
    );
    let r = remove(".codex/hooks.json", &m.text).unwrap();
    assert_eq!(r.text, None);
}

#[test]
fn gemini_gets_its_own_event_names_names_and_milliseconds() {
    let m = merge(Agent::Gemini, ".gemini/settings.json", Some("{}"), "pawl").unwrap();
    let v = json(&m.text);
    let h = &v["hooks"]["AfterAgent"][0]["hooks"][0];
    assert_eq!(h["name"], "pawl-stop");
    assert_eq!(h["command"], "pawl hook gemini stop");
    assert_eq!(h["timeout"], install::STOP_TIMEOUT_S * 1000);
    assert_eq!(
        v["hooks"]["BeforeTool"][0]["matcher"],
        "run_shell_command|write_file|replace"
    );
    assert!(v["hooks"]["PreCompress"].is_array());
    assert!(v["hooks"].get("Stop").is_none());
}

#[test]
fn a_settings_file_of_the_wrong_shape_is_left_alone() {
    assert!(merge(Agent::Claude, "s", Some("[1]"), "pawl").is_err());
    assert!(merge(Agent::Claude, "s", Some(r#"{"hooks": []}"#), "pawl").is_err());
    assert!(merge(Agent::Claude, "s", Some("{not json"), "pawl").is_err());
}

#[test]
fn autonomous_permissions_come_and_go_exactly() {
    let wanted = vec!["Read".to_string(), "Bash".to_string(), "Edit".to_string()];
    let (text, added) = merge_permissions("s", Some(USER_SETTINGS), &wanted).unwrap();
    assert_eq!(added, ["Bash", "Edit"], "Read was the user's already");
    let back = remove_permissions("s", &text, &added).unwrap().unwrap();
    assert_eq!(json(&back), json(USER_SETTINGS));
    let (text, added) = merge_permissions("s", None, &wanted).unwrap();
    assert_eq!(remove_permissions("s", &text, &added).unwrap(), None);
}

#[test]
fn the_plugin_calls_the_pawl_binary() {
    let files = install::plugin_files("/bin/pawl", "0.1.0");
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, [".claude-plugin/plugin.json", "hooks/hooks.json"]);
    let hooks = json(&files[1].1);
    assert_eq!(
        hooks["hooks"]["Stop"][0]["hooks"][0]["command"],
        "/bin/pawl hook claude stop"
    );
    assert_eq!(json(&files[0].1)["name"], "pawl");
}
