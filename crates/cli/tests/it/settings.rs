//! Team-safe session settings (issue 17, point 7): `pawl init --agent X` writes the agent's
//! local, uncommitted settings by default, `--shared` the committed file with a command that
//! works on any machine, and install then remove leaves every file byte-identical.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::TestEnv;

/// Every file and directory of the work tree (not `.pawl/`, nor `.git/` but its
/// `info/exclude`), with the files' bytes.
fn snapshot(root: &Path) -> BTreeMap<String, Option<String>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<String>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            if rel == ".pawl" || rel == ".git" {
                continue;
            }
            if p.is_dir() {
                out.insert(format!("{rel}/"), None);
                walk(root, &p, out);
            } else {
                out.insert(
                    rel,
                    Some(String::from_utf8(std::fs::read(&p).unwrap()).unwrap()),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out.insert(
        ".git/info/exclude".into(),
        std::fs::read_to_string(root.join(".git/info/exclude")).ok(),
    );
    out
}

/// A repository where `pawl init` ran and everything it wrote is committed.
fn initialised() -> TestEnv {
    let env = TestEnv::new();
    env.ok(&["init"]);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "pawl init"]);
    env
}

fn porcelain(env: &TestEnv) -> String {
    String::from_utf8(env.git(&["status", "--porcelain", "-uall"]).stdout).unwrap()
}

fn read(env: &TestEnv, rel: &str) -> String {
    std::fs::read_to_string(env.root().join(rel)).unwrap()
}

/// Every hook command in a settings text.
fn commands(text: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(text).unwrap();
    let mut out = Vec::new();
    for groups in v["hooks"].as_object().into_iter().flat_map(|m| m.values()) {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                out.push(h["command"].as_str().unwrap().to_string());
            }
        }
    }
    out
}

#[test]
fn by_default_hooks_and_deny_rules_go_to_the_local_file_and_git_sees_nothing() {
    let env = initialised();
    let team = "{\n  \"model\": \"opus\"\n}\n";
    env.write(".claude/settings.json", team);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "team settings"]);
    let exclude_before = read(&env, ".git/info/exclude");

    let out = env.ok(&["init", "--agent", "claude"]);
    assert_eq!(
        read(&env, ".claude/settings.json"),
        team,
        "committed file untouched"
    );
    let local = read(&env, ".claude/settings.local.json");
    let cmds = commands(&local);
    assert_eq!(cmds.len(), 5, "{local}");
    let exe = std::fs::canonicalize(assert_cmd::cargo::cargo_bin("pawl")).unwrap();
    assert!(
        cmds.iter()
            .all(|c| c.starts_with(&format!("{} hook claude ", exe.display()))),
        "the local file runs this machine's pawl: {cmds:?}"
    );
    let v: Value = serde_json::from_str(&local).unwrap();
    assert!(
        !v["permissions"]["deny"].as_array().unwrap().is_empty(),
        "the deny rules are in the local file too"
    );
    assert_eq!(porcelain(&env), "", "nothing for git to see");
    assert_eq!(
        read(&env, ".git/info/exclude"),
        format!("{exclude_before}/.claude/settings.local.json\n")
    );
    assert!(out.stdout.contains(".git/info/exclude"), "{}", out.stdout);
    let ignored = env.git(&["check-ignore", "-q", ".claude/settings.local.json"]);
    assert!(ignored.status.success());
}

#[test]
fn an_ignore_rule_that_already_covers_the_local_file_is_enough() {
    let env = initialised();
    env.write(".gitignore", ".pawl/\n**/settings.local.json\n");
    env.git(&["commit", "-qam", "ignore local settings"]);
    let exclude_before = read(&env, ".git/info/exclude");
    env.ok(&["init", "--agent", "claude"]);
    assert_eq!(read(&env, ".git/info/exclude"), exclude_before);
    assert_eq!(porcelain(&env), "");
}

#[test]
fn shared_writes_the_committed_file_with_a_command_found_on_path() {
    let env = initialised();
    let out = env.ok(&["init", "--agent", "claude", "--shared"]);
    let shared = read(&env, ".claude/settings.json");
    let cmds = commands(&shared);
    assert_eq!(cmds.len(), 5, "{shared}");
    assert!(
        cmds.iter().all(|c| c.starts_with("pawl hook claude ")),
        "{cmds:?}"
    );
    assert!(
        !shared.contains(&env.root().display().to_string()) && !shared.contains("//"),
        "no path of this machine in the committed file: {shared}"
    );
    assert!(out.stdout.contains("found on PATH"), "{}", out.stdout);
    // The deny rules name this machine's paths: they stay local, out of git.
    let local = read(&env, ".claude/settings.local.json");
    assert!(commands(&local).is_empty(), "{local}");
    assert!(local.contains("\"deny\""), "{local}");
    assert_eq!(porcelain(&env), "?? .claude/settings.json\n");

    // Going back to local moves the hooks: they never run twice.
    env.ok(&["init", "--agent", "claude"]);
    assert_eq!(
        commands(&read(&env, ".claude/settings.local.json")).len(),
        5
    );
    assert!(!env.root().join(".claude/settings.json").exists());
}

#[test]
fn shared_needs_an_agent() {
    let env = initialised();
    let r = env.pawl(&["init", "--shared"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[test]
fn install_then_remove_with_no_prior_files_leaves_the_tree_as_it_was() {
    for shared in [false, true] {
        let env = initialised();
        let before = snapshot(&env.root());
        let mut args = vec![
            "init", "--agent", "claude", "--agent", "codex", "--agent", "gemini",
        ];
        if shared {
            args.push("--shared");
        }
        env.ok(&args);
        assert_ne!(snapshot(&env.root()), before);
        env.ok(&["init", "--remove"]);
        assert_eq!(snapshot(&env.root()), before, "shared: {shared}");
        assert_eq!(porcelain(&env), "");
        assert!(!env.root().join(".pawl/settings-backup.json").exists());
    }
}

#[test]
fn install_then_remove_gives_back_unusual_formatting_byte_for_byte() {
    let odd = "{\"z\":1,\n\t\"hooks\" : {\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"./mine.sh\"}]}]},\n\t\"a\":[ ]}";
    for shared in [false, true] {
        let env = initialised();
        env.write(".claude/settings.json", odd);
        env.write(".claude/settings.local.json", odd);
        env.write(".codex/hooks.json", odd);
        env.write(
            ".codex/config.toml",
            "model   =  \"m\"   # mine\n[tui]\ntheme='x'",
        );
        env.write(".gemini/settings.json", odd);
        std::fs::write(
            env.root().join(".git/info/exclude"),
            "# no newline at the end",
        )
        .unwrap();
        let before = snapshot(&env.root());
        let mut args = vec![
            "init", "--agent", "claude", "--agent", "codex", "--agent", "gemini",
        ];
        if shared {
            args.push("--shared");
        }
        env.ok(&args);
        assert_ne!(snapshot(&env.root()), before);
        // Remove one agent at a time: each file still comes back exactly.
        env.ok(&["init", "--remove", "--agent", "codex"]);
        assert_eq!(read(&env, ".codex/hooks.json"), odd);
        env.ok(&["init", "--remove", "--agent", "claude"]);
        env.ok(&["init", "--remove", "--agent", "gemini"]);
        assert_eq!(snapshot(&env.root()), before, "shared: {shared}");
    }
}

#[test]
fn a_file_the_user_changed_meanwhile_keeps_their_change_and_loses_only_pawls_entries() {
    let env = initialised();
    env.write(".claude/settings.local.json", "{\"model\":\"opus\"}");
    env.ok(&["init", "--agent", "claude"]);
    let mut v: Value = serde_json::from_str(&read(&env, ".claude/settings.local.json")).unwrap();
    v["env"] = serde_json::json!({"K": "v"});
    env.write(".claude/settings.local.json", &v.to_string());
    let out = env.ok(&["init", "--remove"]);
    assert!(out.stdout.contains("rewritten"), "{}", out.stdout);
    let after: Value = serde_json::from_str(&read(&env, ".claude/settings.local.json")).unwrap();
    assert_eq!(
        after,
        serde_json::json!({"model": "opus", "env": {"K": "v"}}),
        "the user's keys stay, pawl's hooks and deny rules are gone"
    );
}

#[test]
fn the_pawl_a_shared_file_finds_on_path_is_protected_by_the_run() {
    let env = initialised();
    env.write(
        "pawl.toml",
        "[agent]\nkind = \"claude\"\n\n[gates]\ntest = \"true\"\n",
    );
    env.ok(&["init", "--agent", "claude", "--shared"]);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "team hooks"]);
    assert_eq!(
        porcelain(&env),
        "",
        "the shared file is committed, the local one ignored"
    );
    let bin = std::fs::canonicalize(assert_cmd::cargo::cargo_bin("pawl")).unwrap();
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let r = env.pawl_env(
        &["run", "--driver", "session", "g", "--json"],
        &[("PATH", path.as_str())],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let run = r.json()["run_id"].as_str().unwrap().to_string();
    let file: Value =
        serde_json::from_str(&read(&env, &format!(".pawl/guard/{run}.json"))).unwrap();
    let snapshot: Value = serde_json::from_str(file["snapshot_json"].as_str().unwrap()).unwrap();
    assert!(
        snapshot["pawl_binaries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b.as_str() == Some(bin.to_str().unwrap())),
        "the run records the pawl found on PATH: {snapshot}"
    );
}

#[test]
fn going_shared_after_a_local_install_lets_git_see_the_shared_file_again() {
    let env = initialised();
    let exclude_before = read(&env, ".git/info/exclude");
    env.ok(&["init", "--agent", "codex"]);
    assert_eq!(porcelain(&env), "");
    let out = env.ok(&["init", "--agent", "codex", "--shared"]);
    assert!(
        out.stdout.contains("took /.codex/hooks.json out"),
        "{}",
        out.stdout
    );
    // The hooks are for git now; the permission profile (this machine's paths) is not.
    assert_eq!(porcelain(&env), "?? .codex/hooks.json\n");
    assert!(
        commands(&read(&env, ".codex/hooks.json"))
            .iter()
            .all(|c| c.starts_with("pawl hook codex "))
    );
    env.ok(&["init", "--remove"]);
    assert_eq!(read(&env, ".git/info/exclude"), exclude_before);
    assert!(!env.root().join(".codex").exists());
}
