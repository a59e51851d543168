//! `pawl guard check|explain`: decisions as if a run were active, with the policy from pawl.toml.

use crate::TestEnv;

#[test]
fn check_denies_with_rule_and_reason_and_exit_1() {
    let env = TestEnv::new();
    env.write("src/lib.rs", "pub fn f() {}\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "src"]);
    let r = env.pawl(&[
        "guard",
        "check",
        "--json",
        "--",
        "bash -c 'git push --force origin main'",
    ]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    let j = r.json();
    assert_eq!(j["decision"], "deny");
    assert_eq!(j["rule"], "git-push");
    assert!(j["reason"].as_str().unwrap().contains("push"), "{j}");
    // A tracked file clobbered with > is allowed as appending is: pawl checkpoints before
    // every step, so it is as undoable as `sed -i` (issue 36's principle, docs/guard.md).
    assert_eq!(
        env.pawl(&["guard", "check", "--", "echo x > src/lib.rs"])
            .code,
        0
    );
    assert_eq!(
        env.pawl(&["guard", "check", "--", "echo x >> src/lib.rs"])
            .code,
        0
    );
    // On the protected branch a commit is denied; on a feature branch it is fine, and several
    // words after -- are re-quoted, not glued into a different command.
    let r = env.pawl(&[
        "guard",
        "check",
        "--json",
        "--",
        "git",
        "commit",
        "-m",
        "rm -rf src",
    ]);
    assert_eq!(r.json()["rule"], "protected-branch", "{}", r.stdout);
    env.git(&["switch", "-q", "-c", "feat/x"]);
    let r = env.pawl(&[
        "guard",
        "check",
        "--json",
        "--",
        "git",
        "commit",
        "-m",
        "rm -rf src",
    ]);
    assert_eq!(r.json()["decision"], "allow", "{}", r.stdout);
}

#[test]
fn check_allows_ordinary_commands() {
    let env = TestEnv::new();
    let r = env.pawl(&["guard", "check", "--json", "--", "cargo test --workspace"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.json()["decision"], "allow");
}

#[test]
fn file_writes_to_protected_paths_are_denied() {
    let env = TestEnv::new();
    let r = env.pawl(&["guard", "check", "--json", "--write", ".env.production"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.json()["rule"], "protected-path");
    let r = env.pawl(&["guard", "check", "--json", "--write", ".env.example"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn policy_from_pawl_toml_extends_the_built_in_rules() {
    let env = TestEnv::new();
    env.write(
        "pawl.toml",
        "[guard]\nprotected_paths = [\"config/prod/**\"]\n\n[[guard.deny]]\ncommand = \"terraform\"\nreason = \"infra needs a human\"\n",
    );
    let r = env.pawl(&["guard", "check", "--json", "--", "terraform apply"]);
    assert_eq!(r.code, 1);
    assert!(
        r.json()["reason"]
            .as_str()
            .unwrap()
            .contains("infra needs a human"),
        "{}",
        r.stdout
    );
    let r = env.pawl(&["guard", "check", "--json", "--write", "config/prod/db.yml"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    // The built-ins still apply.
    assert_eq!(env.pawl(&["guard", "check", "--", "git push"]).code, 1);
}

#[test]
fn explain_shows_the_parse_the_commands_and_the_rule() {
    let env = TestEnv::new();
    let r = env.pawl(&["guard", "explain", "--", "echo $(git push) && ls"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("git push    [inside $(...)]"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("deny [git-push]"), "{}", r.stdout);
    let j = env
        .pawl(&["guard", "explain", "--json", "--", "ls -la"])
        .json();
    assert_eq!(j["decision"]["decision"], "allow");
    assert_eq!(j["commands"][0]["argv"][0], "ls");
}

#[test]
fn unknown_command_names_fail_closed() {
    let env = TestEnv::new();
    let r = env.pawl(&["guard", "check", "--json", "--", "$CMD -rf build"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.json()["decision"], "deny");
}

#[test]
fn nothing_to_check_is_a_usage_error() {
    let env = TestEnv::new();
    assert_eq!(env.pawl(&["guard", "check"]).code, 2);
}

/// Regression: a repository that lives under /tmp (as every test repository does) was entirely
/// removable, because the /tmp allowance matched its files. Inside the repository only build
/// outputs may be removed recursively, and git's and pawl's own state never.
#[test]
fn a_repository_under_tmp_is_not_removable_through_the_tmp_allowance() {
    let env = TestEnv::new();
    env.write("src/lib.rs", "pub fn f() {}\n");
    // Tracked: an untracked directory is removable inside the repository anyway (pawl's
    // checkpoint keeps it), which is not what this regression is about.
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "src"]);
    assert!(
        env.root().starts_with(std::env::temp_dir()),
        "the regression needs a repo under the temp dir"
    );
    for cmd in ["rm -rf .git", "rm -rf *", "rm -rf .pawl", "rm -rf ./"] {
        let r = env.pawl(&["guard", "check", "--json", "--", cmd]);
        assert_eq!(r.code, 1, "{cmd} must be denied: {}", r.stdout);
    }
    for cmd in [
        "rm -rf target",
        "rm -rf node_modules/.cache",
        "rm -rf /tmp/pawl-scratch",
        "rm README.md",
        // A tracked directory holding no submodule, a tracked file: pawl's checkpoint holds
        // them (the index's modes read in-process, as the hook reads them; session 21).
        "rm -rf src",
        "rm -r README.md",
    ] {
        let r = env.pawl(&["guard", "check", "--json", "--", cmd]);
        assert_eq!(r.code, 0, "{cmd} must be allowed: {}", r.stdout);
    }
}

/// pawl's store holds the run's limits and evidence: no agent may edit or delete it by hand.
#[test]
fn pawls_own_state_is_protected() {
    let env = TestEnv::new();
    env.ok(&["init"]);
    for cmd in [
        "rm .pawl/pawl.db",
        "echo x > .pawl/pawl.db",
        "sqlite3 .pawl/pawl.db 'UPDATE runs SET settings_json = 1'",
        "echo ref > .git/HEAD",
    ] {
        let r = env.pawl(&["guard", "check", "--json", "--", cmd]);
        assert_eq!(r.code, 1, "{cmd} must be denied: {}", r.stdout);
    }
    let r = env.pawl(&["guard", "check", "--json", "--write", ".pawl/pawl.db"]);
    assert_eq!(r.json()["rule"], "protected-path");
    // Reading it, and pawl's own CLI, stay allowed.
    assert_eq!(env.pawl(&["guard", "check", "--", "pawl status"]).code, 0);
    assert_eq!(env.pawl(&["guard", "check", "--", "ls .pawl"]).code, 0);
}

/// pawl passes the guard a view of the real filesystem: a path that goes through an existing
/// symbolic link is judged where it leads (here a `target` link into `src/`, a build-output name
/// that would otherwise be removable), while removing the link itself stays allowed.
#[test]
fn existing_symbolic_links_are_judged_where_they_lead() {
    let env = TestEnv::new();
    env.write("src/lib.rs", "pub fn f() {}\n");
    env.write(".env", "SECRET=1\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "src"]);
    std::os::unix::fs::symlink(env.root().join("src"), env.root().join("target")).unwrap();
    std::os::unix::fs::symlink(env.root().join(".env"), env.root().join("notes.txt")).unwrap();
    let check = |cmd: &str| {
        let r = env.pawl(&["guard", "check", "--json", "--", cmd]);
        r.json()
    };
    let d = check("rm -rf target/*");
    assert_eq!(d["decision"], "deny", "{d}");
    assert_eq!(d["rule"], "recursive-delete", "{d}");
    let d = check("echo x >> notes.txt");
    assert_eq!(d["decision"], "deny", "{d}");
    assert_eq!(d["rule"], "protected-path", "{d}");
    assert_eq!(check("rm -f target")["decision"], "allow");
    assert_eq!(check("rm -rf build")["decision"], "allow");
}

/// Script files that exist are read and judged like the command that runs them: code written
/// by one command and run by the next (`bash scripts/clean.sh`, `npm test`) is seen.
#[test]
fn scripts_that_exist_are_read_and_judged() {
    let env = TestEnv::new();
    env.write("src/lib.rs", "pub fn f() {}\n");
    env.write(
        "scripts/test.sh",
        "#!/bin/sh\nset -eu\ncargo test --quiet\nrm -rf target/tmp\n",
    );
    env.write(
        "package.json",
        r#"{"name": "x", "scripts": {"test": "node --test", "clean": "rm -rf .git"}}"#,
    );
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "project"]);
    let check = |cmd: &str| env.pawl(&["guard", "check", "--json", "--", cmd]).json();
    assert_eq!(check("bash scripts/test.sh")["decision"], "allow");
    // A file printed whole into a shell is that script (issue 36): read and judged.
    assert_eq!(
        check("cat scripts/test.sh | sh -s -- -v")["decision"],
        "allow"
    );
    assert_eq!(check("npm test")["decision"], "allow");
    let d = check("npm run clean");
    assert_eq!(d["decision"], "deny", "{d}");
    assert_eq!(d["rule"], "recursive-delete", "{d}");
    // Written by an earlier command, run by this one.
    env.write("scripts/clean.sh", "rm -rf .git\ngit push origin HEAD\n");
    let d = check("bash scripts/clean.sh");
    assert_eq!(d["decision"], "deny", "{d}");
    let d = check("cat scripts/clean.sh | bash");
    assert_eq!(d["decision"], "deny", "{d}");
    assert_eq!(d["rule"], "recursive-delete", "{d}");
    std::fs::write(env.root().join("run.sh"), "#!/bin/bash\ngit push --force\n").unwrap();
    let d = check("chmod +x run.sh && ./run.sh");
    assert_eq!(d["decision"], "deny", "{d}");
    assert_eq!(d["rule"], "git-push", "{d}");
}

/// The guard v2 rules are on by default and `[guard.rules]` switches one off by name; a rule
/// name pawl does not know is an unknown key.
#[test]
fn guard_rules_switch_off_by_name() {
    let env = TestEnv::new();
    let r = env.pawl(&["guard", "check", "--json", "--", "npm publish"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert_eq!(r.json()["rule"], "publish", "{}", r.stdout);
    env.write(
        "pawl.toml",
        "[guard.rules]\npublish = false\nno-such-rule = false\n",
    );
    let r = env.pawl(&["guard", "check", "--json", "--", "npm publish"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("no-such-rule"), "{}", r.stderr);
    // The others stay on.
    let r = env.pawl(&[
        "guard",
        "check",
        "--json",
        "--",
        "terraform destroy -auto-approve",
    ]);
    assert_eq!(r.json()["rule"], "infra-destroy", "{}", r.stdout);
}

/// Issue 36: `pawl guard check` reads the tracked files as the PreToolUse hook does (the index
/// in-process, with the submodules' gitlinks), so both decide every row of the guard's
/// checkpoint table alike — in a repository laid out as the table's (the corpus repository's
/// tracked files, a tracked `dist/server.js`, a submodule at `third_party/lib`, the ignored
/// `.env`, `target/`, `node_modules/`). With `git ls-files` (modes unknown) `pawl guard check`
/// denied `rm -rf src`, which the hook allows.
#[test]
fn check_and_the_hook_decide_the_checkpoint_rows_alike() {
    use crate::hooks::{arm, bash, hook, project, session_start};
    let env = project("", "");
    for file in [
        "Cargo.toml",
        "Cargo.lock",
        "package.json",
        "CHANGELOG.md",
        "src/main.rs",
        "src/lib.rs",
        "src/guard.rs",
        "src/legacy/mod.rs",
        "docs/guide.md",
        ".github/workflows/ci.yml",
        "dist/server.js",
    ] {
        env.write(file, "x\n");
    }
    let ignore = std::fs::read_to_string(env.root().join(".gitignore")).unwrap_or_default();
    env.write(
        ".gitignore",
        &format!("{ignore}\n.env\ntarget/\nnode_modules/\n"),
    );
    env.git(&["add", "-A"]);
    env.git(&["add", "-f", "dist/server.js"]);
    std::fs::create_dir_all(env.root().join("third_party/lib")).unwrap();
    env.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        "160000,0123456789abcdef0123456789abcdef01234567,third_party/lib",
    ]);
    env.git(&["commit", "-q", "-m", "the corpus's layout"]);
    env.write(".env", "SECRET=1\n");
    env.write("target/debug/x", "x\n");
    env.write("node_modules/x/index.js", "x\n");
    env.git(&["switch", "-q", "-c", "feat/guard"]);
    arm(&env, &[]);
    hook(
        &env,
        "claude",
        "session-start",
        session_start(&env, "c1", "startup"),
    );
    let table = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../guard/tests/data/checkpoint.tsv"),
    )
    .unwrap();
    let (mut rows, mut denied, mut differ) = (0, 0, Vec::new());
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let (_, command) = line.split_once('\t').unwrap();
        let command = command.replace("\\n", "\n").replace("\\t", "\t");
        let h = hook(&env, "claude", "pre-tool-use", bash(&env, "c1", &command));
        let by_hook = h["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("allow")
            .to_owned();
        let reason = h["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        let c = env.pawl(&["guard", "check", "--json", "--", &command]);
        let by_check = c.json()["decision"].as_str().unwrap().to_owned();
        rows += 1;
        denied += usize::from(by_check == "deny");
        if by_hook != by_check {
            differ.push(format!(
                "{command:?}: hook {by_hook} ({reason}), check {}",
                c.stdout
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert!(
        rows > 100 && denied > 20 && rows - denied > 20,
        "{rows} rows, {denied} denied"
    );
    // The rows that tell the index's modes apart: a tracked directory is held, one holding
    // the submodule is not.
    let check = |command: &str| env.pawl(&["guard", "check", "--", command]).code;
    assert_eq!(check("rm -rf src"), 0);
    assert_eq!(check("rm -rf third_party"), 1);
}
