//! Shell semantics: the cases that need script files, their own context, a reason or bounded
//! time. The other bypasses are rows of `tests/data/classes-shell.tsv`.

use crate::support::decide;
use pawl_guard::RuleId;

// F4: a redirect to an unknown variable stays denied, and says why.
#[test]
fn unknown_redirect_reason() {
    let d = decide("cargo build > \"$LOG\" 2>&1");
    assert!(d.is_deny());
    assert!(d.reason.contains("$LOG"), "{}", d.reason);
}

// F2/F3: a loop variable over one glob is one path matching it; the rules
// judge the glob (so `rm` of every match is still a glob rm).
#[test]
fn loop_variable_over_a_glob() {
    // The rules now see the glob, not an unknown `$f`.
    let d = decide("for f in src/*.rs; do sed -i 's/foo/bar/' \"$f\"; done");
    assert!(!d.reason.contains("$f"), "{d:?}");
}

// Arithmetic follows variables that name variables: bounded work.
#[test]
fn arithmetic_name_chains_are_bounded() {
    let mut line = String::new();
    for i in 0..40 {
        let next = format!("v{}", i + 1);
        let value = vec![next.as_str(); 60].join("+");
        line.push_str(&format!("v{i}='{value}'; "));
    }
    line.push_str("v40=$(cat x); (( v0 ))");
    let started = std::time::Instant::now();
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

#[test]
fn a_descriptor_path_is_code_for_interpreters_and_a_path_for_everything_else() {
    // `tee /dev/fd/5` writes through a descriptor that may be open on any file.
    let d = decide("echo x | tee /dev/fd/5");
    assert!(d.is_deny(), "{d:?}");
    assert!(decide("python3 /dev/fd/3 3<<<'print(1)'").is_allow());
    assert!(decide("python3 /dev/fd/3 3<<<'import shutil; shutil.rmtree(\"src\")'").is_deny());
}

#[test]
fn cd_into_a_directory_with_tracked_files_is_certain() {
    // `src/` holds tracked files: it exists, so the commit after `;` is judged in src, on the
    // run's branch (not "somewhere unknown").
    assert!(
        decide("cd src; git commit -am wip").is_allow(),
        "{:?}",
        decide("cd src; git commit -am wip")
    );
    assert!(decide("cd src; rm -f main.rs.orig").is_allow());
    // A directory without tracked files may not exist: what follows `;` runs there or, the
    // `cd` having failed, here. Session 19: judged both ways, allowed only when both are
    // (`build` is a build output in either place; `src` here is tracked).
    assert!(decide("cd nowhere; rm -rf build").is_allow());
    assert!(decide("cd nowhere; rm -rf src").is_deny());
    assert!(decide("cd nowhere; rm -rf ../src").is_deny());
    // Two such `cd`s: the mixed outcomes are not walked, denied as before.
    assert!(decide("cd nowhere; cd deeper; echo x > stamp.txt").is_deny());
    assert!(decide("cd nowhere; echo x > stamp.txt").is_allow());
}

/// A script reader over a fixed set of files (absolute paths).
struct Files(Vec<(&'static str, &'static str)>);

impl pawl_guard::ScriptReader for Files {
    fn read_script(&self, path: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, text)| (*text).to_owned())
    }
}

fn decide_with(files: &[(&'static str, &'static str)], command: &str) -> pawl_guard::Decision {
    let mut ctx = crate::support::corpus_context();
    ctx.scripts = std::sync::Arc::new(Files(files.to_vec()));
    pawl_guard::evaluate(
        &pawl_guard::Input::shell(command),
        &ctx,
        &pawl_guard::Policy::default(),
    )
}

const CLEAN: (&str, &str) = (
    "/home/dev/repo/scripts/clean.sh",
    "#!/bin/sh\nrm -rf src\ngit push\n",
);
const PUSH: (&str, &str) = (
    "/home/dev/repo/push",
    "#!/usr/bin/env bash\nx=gi; x+=t; $x push\n",
);
const NO_SHEBANG: (&str, &str) = ("/tmp/x", "git push origin HEAD\n");
const OBFUSCATED: (&str, &str) = ("/tmp/o.sh", "x=$(cat /tmp/name); $x -rf src\n");
const PYTHON: (&str, &str) = ("/home/dev/repo/tool", "#!/usr/bin/env python3\nimport os\n");
const BINARY: (&str, &str) = ("/tmp/a.out", "\x7fELF\0\0\0rm -rf src");
const FINE: (&str, &str) = (
    "/home/dev/repo/scripts/check.sh",
    "#!/bin/bash\nset -eu\ncargo fmt --check\ncargo test \"$@\"\nrm -rf target/tmp\n",
);
// Tracked (src/guard.rs is in the corpus's tracked set): unknowns are not denied there,
// plain destructive commands are.
const TRACKED_WRAPPER: (&str, &str) = (
    "/home/dev/repo/src/guard.rs",
    "#!/bin/sh\nexec \"$JAVACMD\" \"$@\"\n",
);
const TRACKED_BAD: (&str, &str) = ("/home/dev/repo/src/lib.rs", "#!/bin/sh\ngit push\n");

// Round 2, B14: a script file written in an earlier command and run now is read and walked.
#[test]
fn existing_script_files_are_walked() {
    let files = [
        CLEAN,
        PUSH,
        NO_SHEBANG,
        OBFUSCATED,
        PYTHON,
        BINARY,
        FINE,
        TRACKED_WRAPPER,
        TRACKED_BAD,
    ];
    let deny = |c: &str, rule: RuleId| {
        let d = decide_with(&files, c);
        assert_eq!(d.rule, Some(rule), "{c:?} -> {d:?}");
    };
    let allow = |c: &str| {
        let d = decide_with(&files, c);
        assert!(d.is_allow(), "{c:?} -> {d:?}");
    };
    for runner in [
        "bash",
        "sh",
        "dash",
        "zsh",
        "source",
        ".",
        "bash -e",
        "bash -x --",
    ] {
        deny(
            &format!("{runner} scripts/clean.sh"),
            RuleId::RecursiveDelete,
        );
    }
    deny("cd scripts && bash clean.sh", RuleId::RecursiveDelete);
    deny("bash < scripts/clean.sh", RuleId::RecursiveDelete);
    deny("sh -s < scripts/clean.sh", RuleId::RecursiveDelete);
    // Session 16: a file printed whole into a shell is that script (not an unknown pipe).
    deny("cat scripts/clean.sh | sh", RuleId::RecursiveDelete);
    deny("cat /tmp/x | bash -s -- -v", RuleId::GitPush);
    deny("cat ./push | bash", RuleId::GitPush);
    deny("cat /tmp/o.sh | sh", RuleId::NotStatic);
    deny("cat scripts/clean.sh | bash -c sh", RuleId::NotStatic);
    deny("cat scripts/clean.sh | { true; sh; }", RuleId::NotStatic);
    allow("cat scripts/check.sh | bash");
    deny(
        "bash /home/dev/repo/scripts/clean.sh",
        RuleId::RecursiveDelete,
    );
    deny(
        "chmod +x scripts/clean.sh && ./scripts/clean.sh",
        RuleId::RecursiveDelete,
    );
    deny("nohup ./push &", RuleId::GitPush);
    deny("/tmp/x", RuleId::GitPush);
    deny("bash /tmp/o.sh", RuleId::NotStatic);
    deny("src/lib.rs", RuleId::GitPush);
    // Opaque: another interpreter, a binary, a file the reader does not have.
    allow("./tool --help");
    allow("/tmp/a.out");
    allow("bash scripts/missing.sh");
    allow("bash scripts/check.sh --lib");
    allow("./src/guard.rs");
    // Without a reader nothing changes.
    assert!(decide("bash scripts/clean.sh").is_allow());
    // Written in this command: judged as written, not read from disk.
    let d = decide_with(&files, "echo ls >> scripts/clean.sh; bash scripts/clean.sh");
    assert_eq!(d.rule, Some(RuleId::NotStatic), "{d:?}");
    let d = decide_with(
        &files,
        "cat > scripts/clean.sh <<'EOF'\necho hi\nEOF\nbash scripts/clean.sh",
    );
    assert!(d.is_allow(), "{d:?}");
}

// Scripts outside the places an agent writes its own (untracked files in the repository, temp
// directories), and virtualenv activation scripts, are walked leniently: only what surely
// matches a rule is denied.
#[test]
fn system_and_virtualenv_scripts_are_walked_leniently() {
    let files = [
        (
            "/usr/local/bin/tool",
            "#!/bin/sh\nexec \"$JAVA_HOME/bin/java\" \"$@\"\n",
        ),
        (
            "/home/dev/repo/.venv/bin/activate",
            "deactivate () { PS1=\"${_OLD_PS1:-}\"; }\nVIRTUAL_ENV=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n$x\n",
        ),
        ("/usr/local/bin/bad", "#!/bin/sh\ngit push\n"),
        (
            "/home/dev/repo/new.sh",
            "#!/bin/sh\nexec \"$JAVA_HOME/bin/java\" \"$@\"\n",
        ),
    ];
    assert!(decide_with(&files, "/usr/local/bin/tool -v").is_allow());
    assert!(decide_with(&files, "source .venv/bin/activate && pytest").is_allow());
    assert!(decide_with(&files, ". .venv/bin/activate").is_allow());
    let d = decide_with(&files, "/usr/local/bin/bad");
    assert_eq!(d.rule, Some(RuleId::GitPush), "{d:?}");
    // The same text in an untracked script of the repository is walked strictly.
    let d = decide_with(&files, "./new.sh");
    assert_eq!(d.rule, Some(RuleId::NotStatic), "{d:?}");
}

#[test]
fn devices_and_kernel_files_are_never_read_as_scripts() {
    // A reader that would answer for them (reading a FIFO or a terminal could block the hook).
    let files = [
        ("/dev/tty", "git push\n"),
        ("/proc/self/fd/9", "git push\n"),
    ];
    // Not read (the reader's `git push` would be `git-push`), and a shell given one fails
    // closed since session 17: what it reads is whatever is written there.
    let d = decide_with(&files, "bash /dev/tty");
    assert_eq!(d.rule, Some(RuleId::NotStatic), "{d:?}");
    assert!(decide_with(&files, "bash /dev/null").is_allow());
    assert!(decide_with(&files, "/dev/tty").is_allow());
}

#[test]
fn a_script_that_runs_itself_is_bounded() {
    let files = [("/home/dev/repo/loop.sh", "bash loop.sh\nbash loop.sh\n")];
    let d = decide_with(&files, "bash loop.sh");
    assert!(d.is_deny(), "{d:?}");
}

#[test]
fn package_json_scripts_are_walked() {
    const PKG: (&str, &str) = (
        "/home/dev/repo/package.json",
        r#"{"name":"x","scripts":{
            "test":"node --test",
            "pretest":"tsc --noEmit",
            "clean":"rm -rf src",
            "postbuild":"git push",
            "build":"tsc",
            "g":"git",
            "lint":"eslint ."
        }}"#,
    );
    let files = [PKG];
    let deny = |c: &str, rule: RuleId| {
        let d = decide_with(&files, c);
        assert_eq!(d.rule, Some(rule), "{c:?} -> {d:?}");
    };
    let allow = |c: &str| {
        let d = decide_with(&files, c);
        assert!(d.is_allow(), "{c:?} -> {d:?}");
    };
    for c in [
        "npm run clean",
        "npm run-script clean",
        "npm --silent run clean",
        "npm run --if-present clean",
        "yarn clean",
        "yarn run clean",
        "pnpm clean",
        "pnpm run clean",
        "cd src && npm run clean",
        "npm --prefix /home/dev/repo run clean",
    ] {
        deny(c, RuleId::RecursiveDelete);
    }
    deny("npm run build", RuleId::GitPush);
    deny("npm run g -- push", RuleId::GitPush);
    deny("yarn g push --force", RuleId::GitPush);
    allow("npm test");
    allow("npm test -- --watch");
    allow("npm run lint");
    allow("yarn test");
    allow("pnpm lint");
    allow("npm install");
    allow("npm run missing");
    // Another package's scripts (workspaces) are not modelled.
    allow("npm run clean -w packages/a");
    // The lifecycle scripts of install run too.
    let files = [(
        "/home/dev/repo/package.json",
        r#"{"scripts":{"postinstall":"rm -rf src"}}"#,
    )];
    for c in [
        "npm install",
        "npm ci",
        "yarn",
        "pnpm install",
        "yarn --frozen-lockfile",
    ] {
        let d = decide_with(&files, c);
        assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{c:?} -> {d:?}");
    }
    for c in ["yarn --version", "pnpm -v", "npm --version", "npm ls"] {
        let d = decide_with(&files, c);
        assert!(d.is_allow(), "{c:?} -> {d:?}");
    }
}

// Round 2, part A: a `for` over a short list of literal words is walked once per word.
#[test]
fn loops_over_literal_words_bind_each_word() {
    // Many nested literal loops stay bounded.
    let nested = "for a in 1 2 3 4 5 6 7 8; do for b in 1 2 3 4 5 6 7 8; do for c in 1 2 3 4 5 6 7 8; do echo $a$b$c; done; done; done";
    let _ = decide(nested);
}
