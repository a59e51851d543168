//! Issue 36: denials name the effect and the nearest allowed form; a container run that mounts
//! the working tree depends on `[sandbox] containers` (`Context::containers`).

use pawl_guard::{Input, Policy, RuleId, evaluate};

use crate::support::{corpus_context, decide};

#[track_caller]
fn denied_naming(command: &str, rule: RuleId, parts: &[&str]) {
    let d = decide(command);
    assert!(d.is_deny(), "expected deny for {command:?}, got {d:?}");
    assert_eq!(d.rule, Some(rule), "{command:?}: {d:?}");
    for part in parts {
        assert!(
            d.reason.contains(part),
            "{command:?}: reason {:?} lacks {part:?}",
            d.reason
        );
    }
}

#[test]
fn denials_name_the_effect_and_the_nearest_allowed_form() {
    denied_naming(
        "npm i -g typescript",
        RuleId::Persist,
        &["global install", "npm install -D"],
    );
    denied_naming(
        "pip install --user black",
        RuleId::Persist,
        &["without `--user`"],
    );
    denied_naming("cargo install ripgrep", RuleId::Persist, &["cargo build"]);
    denied_naming(
        "go install golang.org/x/tools/gopls@latest",
        RuleId::Persist,
        &["go run"],
    );
    denied_naming(
        "git config --global core.editor vim",
        RuleId::Persist,
        &["--local"],
    );
    denied_naming(
        "systemctl enable --now app",
        RuleId::Persist,
        &["service", "systemctl status"],
    );
    denied_naming(
        "kubectl apply -f deploy.yaml",
        RuleId::Publish,
        &["cannot be taken back", "--dry-run=client"],
    );
    denied_naming("terraform apply", RuleId::Publish, &["terraform plan"]);
    denied_naming("make publish", RuleId::Publish, &["publishes", "-n"]);
    denied_naming(
        "git restore .",
        RuleId::GitDestructive,
        &["git restore <file>"],
    );
    denied_naming(
        "git reflog expire --expire=now --all",
        RuleId::GitDestructive,
        &[
            "would delete the reflog",
            "could not be recovered",
            "git reflog show",
        ],
    );
    // Without pawl's checkpoint (the corpus context): the work is lost, and `git stash` is named.
    denied_naming(
        "git reset --hard",
        RuleId::GitDestructive,
        &["uncommitted work", "`git stash`"],
    );
    denied_naming(
        "git checkout --force main",
        RuleId::GitDestructive,
        &["uncommitted work", "`git stash`"],
    );
    denied_naming(
        "git checkout -B feat/guard",
        RuleId::GitDestructive,
        &["resets an existing branch", "`-b` creates a new one"],
    );
    denied_naming(
        "git switch -C other",
        RuleId::GitDestructive,
        &["resets an existing branch", "`-c` creates a new one"],
    );
    denied_naming(
        "fallocate -l 500G big.bin",
        RuleId::Exhaustion,
        &["bounded"],
    );
}

#[test]
fn a_container_mounting_the_working_tree_needs_the_sandbox_setting() {
    let cmd = r#"docker run --rm -v "$PWD":/app -w /app node:20 npm test"#;
    let mut ctx = corpus_context();
    let d = evaluate(&Input::shell(cmd), &ctx, &Policy::default());
    assert!(d.is_deny(), "{d:?}");
    assert_eq!(d.rule, Some(RuleId::ContainerMount));
    assert!(
        d.reason.contains("[sandbox] containers = true"),
        "{}",
        d.reason
    );
    assert!(d.reason.contains(":ro"), "{}", d.reason);

    ctx.containers = true;
    let d = evaluate(&Input::shell(cmd), &ctx, &Policy::default());
    assert!(d.is_allow(), "{d:?}");
    // The setting is about the working tree, not the host, HOME or the Docker socket.
    for host in [
        "docker run -v /:/host alpine true",
        "docker run -v /var/run/docker.sock:/var/run/docker.sock alpine true",
        "docker run -v /home/dev:/h alpine true",
        "docker run --privileged -v \"$PWD\":/app alpine true",
        // The working tree with a command that could reach `.git` or `.pawl`.
        "docker run -v $PWD:/w -w /w alpine rm -rf .git",
        "docker run -v $(pwd):/app node sh -c 'rm -rf /app'",
        "docker run --volume=/home/dev/repo:/w alpine",
        "docker run -v .:/src python:3.12 python -c 'import shutil; shutil.rmtree(\"/src/.pawl\")'",
    ] {
        let d = evaluate(&Input::shell(host), &ctx, &Policy::default());
        assert!(d.is_deny(), "{host}: {d:?}");
    }
}

#[test]
fn removing_local_containers_and_images_needs_the_sandbox_setting_and_volumes_stay_denied() {
    let mut ctx = corpus_context();
    let judge = |ctx: &pawl_guard::Context, cmd: &str| {
        evaluate(&Input::shell(cmd), ctx, &Policy::default())
    };
    for cmd in [
        "docker rm -f gemini-telemetry-collector",
        "docker rmi -f app:test",
    ] {
        let d = judge(&ctx, cmd);
        assert_eq!(d.rule, Some(RuleId::InfraDestroy), "{cmd}: {d:?}");
    }
    ctx.containers = true;
    for cmd in [
        "docker rm -f gemini-telemetry-collector || true",
        "docker rmi -f app:test",
    ] {
        assert!(judge(&ctx, cmd).is_allow(), "{cmd}");
    }
    // A volume holds data (a database), a prune removes what other projects built.
    for cmd in [
        "docker volume rm pgdata",
        "docker system prune -af --volumes",
        "docker volume prune -f",
    ] {
        let d = judge(&ctx, cmd);
        assert_eq!(d.rule, Some(RuleId::InfraDestroy), "{cmd}: {d:?}");
    }
}

/// Issue 36: a variable the command line does not assign is judged by the value the environment
/// the agent's shell inherits gives it, when the caller knows it (`Context::env`: the hook's own
/// environment). Without it the same commands stay denied; a value the line assigns, or a use
/// inside a nested script, is not taken from there.
#[test]
fn variables_the_caller_knows_from_the_environment_are_judged_by_their_value() {
    let mut known = corpus_context();
    known.checkpointed = true;
    known.env = std::sync::Arc::new(
        [
            ("BUILD_DIR", "build"),
            ("OUT", "/"),
            ("VIRTUAL_ENV", "/home/dev/repo/.venv"),
            ("KEYS", "/home/dev/.ssh"),
            ("CMD", "git"),
            ("SHLVL", "build"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect(),
    );
    let mut unknown = corpus_context();
    unknown.checkpointed = true;
    let judge = |ctx: &pawl_guard::Context, cmd: &str| {
        evaluate(&Input::shell(cmd), ctx, &Policy::default())
    };
    // The program a literal path names under an inherited directory is judged as that program
    // with or without the value (session 13, `var-program-name` rows).
    let venv_python = r#""$VIRTUAL_ENV/bin/python" -m pytest -q"#;
    assert!(judge(&known, venv_python).is_allow());
    assert!(judge(&unknown, venv_python).is_allow());
    for cmd in [
        r#"rm -rf "$BUILD_DIR"/out"#,
        r#"$VIRTUAL_ENV/bin/ruff check ."#,
        r#"echo done > "$BUILD_DIR/stamp""#,
    ] {
        assert!(
            judge(&known, cmd).is_allow(),
            "{cmd}: {:?}",
            judge(&known, cmd)
        );
        assert!(judge(&unknown, cmd).is_deny(), "{cmd} without the value");
    }
    for cmd in [
        r#"rm -rf "$OUT""#,
        r#"rm -rf "$OUT"/home/dev"#,
        r#"cp evil.pub "$KEYS/authorized_keys""#,
        r#""$CMD" push origin HEAD"#,
        // Assigned by the line, or used inside a nested script: not the environment's value.
        r#"BUILD_DIR=/; rm -rf "$BUILD_DIR""#,
        r#"BUILD_DIR=$(cat f); rm -rf "$BUILD_DIR"/out"#,
        r#"bash -c 'rm -rf "$BUILD_DIR"/out'"#,
        r#"f() { rm -rf "$BUILD_DIR"/out; }; f"#,
        // A variable the shell sets itself is not the caller's.
        r#"rm -rf "$SHLVL"/out"#,
        // Absent from the environment: unknown, not unset.
        r#"rm -rf "$NOT_SET"/out"#,
    ] {
        assert!(
            judge(&known, cmd).is_deny(),
            "{cmd}: {:?}",
            judge(&known, cmd)
        );
    }
}
