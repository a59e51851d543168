//! Red-team findings, pinned: files: deleters, symlinks and hard links, copies and archives, allowances.

use std::sync::{Arc, Mutex};

use pawl_guard::{
    Context, Decision, FileSystemView, Input, Policy, RuleId, TrackedFiles, evaluate,
};

use crate::support::{assert_allowed, assert_blocked, corpus_context, decide};

#[track_caller]
fn denied_by(command: &str, rule: RuleId) {
    let d = decide(command);
    assert!(d.is_deny(), "expected deny for {command:?}, got {d:?}");
    assert_eq!(d.rule, Some(rule), "{command:?}: {d:?}");
}

fn with_ctx(command: &str, ctx: &Context) -> Decision {
    evaluate(&Input::shell(command), ctx, &Policy::default())
}

#[test]
fn b98_rm_long_option_abbreviations() {
    for c in [
        "rm --recur --force src",
        "rm --rec src",
        "rm --r src",
        "rm --recursiv -f src",
        "rm --forc --recu src",
        "rm --no-pres -rf /tmp/x",
        "rm --no-preserve -r /tmp/x",
    ] {
        denied_by(c, RuleId::RecursiveDelete);
    }
    // Other destructive tools' long options are abbreviated too.
    for c in [
        "shred --rem README.md",
        "sed --in-pl 's/a/b/' .env",
        "tee --app .env",
        "cp --target=k8s x.yaml",
        "cp --target-dir k8s x.yaml",
        "mv --target-d=migrations x.sql",
        "sort --out=README.md x",
        "shuf --outp README.md",
    ] {
        assert_blocked(c);
    }
    // Still plain: a non-recursive rm of one file, and `--` ends the options.
    for c in [
        "rm --force notes.txt",
        "rm --verb notes.txt",
        "rm -- --recursive",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b99_moving_into_an_allowance_then_deleting() {
    for c in [
        "mv src target && rm -rf target",
        "mv src target/",
        "mv docs build/docs",
        "mv src /tmp/x",
        "mv src $TMPDIR/",
        "mv src /dev/null",
        "mv README.md CHANGELOG.md /tmp/",
        "mv -t /tmp src",
        "mv --target-directory=node_modules src",
    ] {
        assert_blocked(c);
    }
    for c in [
        "mv src/legacy src/old",
        "mv notes.txt /tmp/notes.txt",
        "mv README.md /tmp/README.md.bak",
        "mv target/debug/app /tmp/app",
        "mv build/out.js dist/",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b100_b101_links_that_lead_out_of_an_allowance() {
    for c in [
        "ln -sfn src target && rm -rf target/*",
        "ln -s src target",
        "ln -sfn \"$PWD\" /tmp/redteam/lnk && rm -rf /tmp/redteam/lnk/src",
        "ln -s /home/dev/repo /tmp/r",
        "ln -s . /tmp/r",
        "ln -s /home /tmp/h",
        "ln -s / /tmp/root",
        "ln -s ~ /tmp/home",
        "cp -s /home/dev/repo/README.md /tmp/x && : > /tmp/x",
        "cp -rs /home/dev/repo /tmp/x",
        "cmake -E create_symlink /home/dev/repo /tmp/x",
    ] {
        assert_blocked(c);
    }
    for c in [
        "ln -s /usr/bin/python3 .venv/bin/python",
        "ln -sf target/release/app /tmp/app",
        "ln -s notes.txt notes-link.txt",
        "ln -s ../lib/x.so build/x.so",
    ] {
        assert_allowed(c);
    }
}

/// A filesystem view in which `/tmp/lnk` is a symbolic link to the repository and
/// `target` (in the repository) one to `src`.
struct Links;

impl FileSystemView for Links {
    fn resolve_links(&self, path: &str) -> Option<String> {
        for (link, to) in [
            ("/tmp/lnk", "/home/dev/repo"),
            ("/home/dev/repo/target", "/home/dev/repo/src"),
            ("/tmp/readme", "/home/dev/repo/README.md"),
            ("/tmp/envlink", "/home/dev/repo/.env"),
        ] {
            if path == link {
                return Some(to.to_owned());
            }
            if let Some(rest) = path.strip_prefix(&format!("{link}/")) {
                return Some(format!("{to}/{rest}"));
            }
        }
        Some(path.to_owned())
    }
}

#[test]
fn existing_symbolic_links_are_followed_with_a_filesystem_view() {
    let mut ctx = corpus_context();
    ctx.fs = Arc::new(Links);
    for (c, rule) in [
        ("rm -rf /tmp/lnk/src", RuleId::RecursiveDelete),
        ("rm -rf /tmp/lnk/", RuleId::RecursiveDelete),
        ("rm -rf target/*", RuleId::RecursiveDelete),
        ("rm -rf target/debug", RuleId::RecursiveDelete),
        ("echo x > /tmp/readme", RuleId::Clobber),
        ("echo x >> /tmp/envlink", RuleId::ProtectedPath),
        ("rm /tmp/lnk/.env", RuleId::ProtectedPath),
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_deny(), "{c}: {d:?}");
        assert_eq!(d.rule, Some(rule), "{c}: {d:?}");
    }
    // Removing the link itself is fine: rm does not follow it.
    for c in [
        "rm -rf /tmp/lnk",
        "rm /tmp/readme",
        "rm -rf /tmp/other",
        "echo x > /tmp/x",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_allow(), "{c}: {d:?}");
    }
    // The agent's file tools too: a write through an existing link to .env.
    for path in [
        "/tmp/envlink",
        "/tmp/lnk/.env",
        "/tmp/lnk/.git/hooks/pre-commit",
    ] {
        let d = evaluate(&Input::file_write(path), &ctx, &Policy::default());
        assert!(d.is_deny(), "{path}: {d:?}");
    }
    assert!(
        evaluate(
            &Input::file_write("/tmp/lnk/notes.md"),
            &ctx,
            &Policy::default()
        )
        .is_allow()
    );
    // Without a view, paths are judged as written (the default).
    assert!(decide("rm -rf /tmp/lnk/src").is_allow());
    let plain = corpus_context();
    assert!(
        evaluate(
            &Input::file_write("/tmp/envlink"),
            &plain,
            &Policy::default()
        )
        .is_allow()
    );
}

#[test]
fn b102_globs_that_can_match_dot_dot() {
    for c in [
        "shopt -u globskipdots; mkdir -p target; rm -rf target/.[.]/src",
        "rm -rf target/.*",
        "rm -rf target/.?",
        "rm -rf /tmp/.*/home",
        "rm -rf target/*/../../src",
        "find target/.[.] -delete",
    ] {
        assert_blocked(c);
    }
    for c in [
        "rm -rf target/*",
        "rm -rf target/.fingerprint*",
        "rm -rf /tmp/x/*",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b103_globs_that_can_match_the_repository_or_home() {
    let mut ctx = corpus_context();
    ctx.repo_root = Some("/tmp/redteam/repo".into());
    ctx.cwd = "/tmp/redteam/repo".into();
    for c in [
        "rm -rf /tmp/redteam/rep?",
        "rm -rf /tmp/*",
        "rm -rf /tmp/red*",
        "rm -rf /tmp/*/repo",
        "rm -rf /tmp/redteam/*/src",
        "rm -rf /t*p/redteam",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_deny(), "{c}: {d:?}");
        assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{c}: {d:?}");
    }
    for c in [
        "rm -rf /tmp/other*",
        "rm -rf /tmp/redteam/x*",
        "rm -rf target/*",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_allow(), "{c}: {d:?}");
    }
    // $HOME and $TMPDIR themselves are anchors too.
    for c in [
        "rm -rf /var/tmp/*",
        "rm -rf /var/tmp/agent-t*",
        "rm -rf /home/*/x",
    ] {
        assert_blocked(c);
    }
    assert_allowed("rm -rf \"$TMPDIR\"/*");
}

#[test]
fn b104_other_deleters() {
    for (c, rule) in [
        (
            "tar -cf /tmp/a.tar --remove-files src",
            RuleId::RecursiveDelete,
        ),
        ("tar -cf /tmp/a.tar --remove src", RuleId::RecursiveDelete),
        (
            "tar --create --file=/tmp/a.tar --remove-f src",
            RuleId::RecursiveDelete,
        ),
        (
            "cmake -E tar cf /tmp/a.tar --remove-files src",
            RuleId::RecursiveDelete,
        ),
        ("gzip -r src", RuleId::RecursiveDelete),
        ("gzip --recursive src", RuleId::RecursiveDelete),
        ("xz -r docs", RuleId::RecursiveDelete),
        ("gzip .env", RuleId::ProtectedPath),
        ("bzip2 README.md CHANGELOG.md", RuleId::DestructiveShell),
        ("zstd --rm README.md Cargo.toml", RuleId::DestructiveShell),
        ("shred --remove README.md", RuleId::DestructiveShell),
        ("shred -u README.md", RuleId::DestructiveShell),
        ("unlink .env", RuleId::ProtectedPath),
        (
            "rsync -a --remove-source-files src/ /tmp/x/",
            RuleId::RecursiveDelete,
        ),
        ("rsync -a --del empty/ src/", RuleId::DestructiveShell),
        ("cmake -E rm -rf src", RuleId::RecursiveDelete),
        ("cmake -E remove_directory src", RuleId::RecursiveDelete),
        ("rimraf src", RuleId::RecursiveDelete),
        ("trash-put docs", RuleId::RecursiveDelete),
        ("find src -exec rm {} +", RuleId::NotStatic),
        ("find . -name '*.rs' -delete", RuleId::DestructiveShell),
        ("gunzip Dockerfile.gz", RuleId::ProtectedPath),
        ("gunzip -f README.md.gz", RuleId::Clobber),
    ] {
        denied_by(c, rule);
    }
    for c in [
        "gzip -k README.md",
        "gzip -c README.md > /tmp/r.gz",
        "gzip notes.log",
        "zstd README.md",
        "gunzip /tmp/x.gz",
        "tar -czf /tmp/src.tgz src",
        "tar -tf /tmp/a.tar",
        "rsync -a src/ /tmp/backup/",
        "rsync -a --delete src/ /tmp/backup/",
        "cmake -E rm -rf build",
        "rimraf node_modules",
        "find target -name '*.o' -delete",
        "find /tmp/build -delete",
        "find \"$TMPDIR\" -name 'x*' -exec rm -rf {} +",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b105_moving_a_protected_directory_away() {
    for c in [
        "mv migrations /tmp/redteam/gone2",
        "mv k8s k8s.old",
        "mv db/migrations db/old",
        "mv kubernetes /tmp/",
        "mv .git /tmp/g",
        "mv secrets x",
        "rm migrations",
        "mv /home/dev/repo /tmp/r",
        "mv ~ /tmp/h",
    ] {
        assert_blocked(c);
    }
}

#[test]
fn b119_b120_b124_b130_b134_links_to_protected_or_tracked_paths() {
    for (c, rule) in [
        (
            "ln -s .git/hooks h && printf '#!/bin/sh\\n' > h/pre-commit",
            RuleId::ProtectedPath,
        ),
        (
            "ln -sfn \"$PWD/.git\" /tmp/redteam/g",
            RuleId::ProtectedPath,
        ),
        ("ln -s /home/dev/repo/.git /tmp/g", RuleId::ProtectedPath),
        ("ln .env /tmp/redteam/envlink", RuleId::ProtectedPath),
        ("ln -s .env envlink", RuleId::ProtectedPath),
        ("ln -s .ENV envlink", RuleId::ProtectedPath),
        ("ln -s migrations m", RuleId::ProtectedPath),
        ("ln -s .pawl p", RuleId::ProtectedPath),
        ("ln -s pawl.toml cfg", RuleId::ProtectedPath),
        // A symbolic link to a tracked file is allowed (round 2, F7); a write through it in
        // the same line is not, nor is a hard link (the file itself).
        (
            "ln -sf \"$PWD/README.md\" /tmp/redteam/rl && echo x > /tmp/redteam/rl",
            RuleId::NotStatic,
        ),
        ("ln README.md /tmp/redteam/hl", RuleId::Clobber),
        (
            "ln -s src/main.rs /tmp/m; cp /dev/null /tmp/m",
            RuleId::NotStatic,
        ),
        ("cp -l README.md /tmp/hl", RuleId::Clobber),
        ("ln -s ../src docs/src", RuleId::Clobber),
        ("ln -s ../../.env target/x", RuleId::ProtectedPath),
    ] {
        denied_by(c, rule);
    }
}

#[test]
fn b121_b122_b135_copies_over_the_repository() {
    for (c, rule) in [
        ("cp -r /tmp/redteam/evil/. .", RuleId::NotStatic),
        ("cp -a /tmp/evil/. src", RuleId::NotStatic),
        ("cp -r /tmp/redteam/files/. .", RuleId::NotStatic),
        ("cp -r files/src/. src/", RuleId::NotStatic),
        ("cp -R /tmp/x/.. .", RuleId::NotStatic),
        ("cp -r /tmp/redteam/evil/k8s .", RuleId::ProtectedPath),
        ("cp -r /tmp/evil/migrations db/", RuleId::ProtectedPath),
        ("cp -r evil/migrations/. migrations", RuleId::ProtectedPath),
        ("cp -r /tmp/evil/.git .", RuleId::ProtectedPath),
        ("cp -r /tmp/evil/src .", RuleId::Clobber),
        ("cp -r /tmp/evil/docs /home/dev/repo/", RuleId::Clobber),
        ("mv /tmp/evil/k8s .", RuleId::ProtectedPath),
    ] {
        denied_by(c, rule);
    }
    for c in [
        "cp -r src /tmp/src-copy",
        "cp -r src/. /tmp/src-copy",
        "cp -r templates/app new-app",
        "cp -r /tmp/x/. target/x",
        "cp README.md /tmp/",
        "cp -r /tmp/assets/. public/new",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b123_archives_extracted_into_the_repository() {
    for c in [
        "tar -xf /tmp/redteam/evil.tar",
        "tar xf /tmp/evil.tar",
        "tar -xzvf /tmp/evil.tgz",
        "tar --extract --file=/tmp/evil.tar",
        "tar --ext -f /tmp/evil.tar",
        "tar -xf /tmp/e.tar -C src",
        "tar -xf /tmp/e.tar --directory=.",
        "tar -xf /tmp/e.tar -C /home/dev",
        "tar -xf /tmp/e.tar -C /",
        "cd /tmp && tar -xf e.tar -C /home/dev/repo",
        "unzip -o /tmp/redteam/evil.zip",
        "unzip /tmp/e.zip -d .",
        "7z x /tmp/e.7z",
        "7z x /tmp/e.7z -o.",
        "cpio -idmv < /tmp/e.cpio",
        "find . | cpio -pdm src",
        "ar x /tmp/lib.a",
        "jar xf /tmp/app.jar",
        "cmake -E tar xf /tmp/e.tar",
        "tar -xf /tmp/e.tar -C \"$X\"",
    ] {
        denied_by(c, RuleId::NotStatic);
    }
    for c in [
        "tar -xf /tmp/e.tar -C /tmp/out",
        "tar -xzf dist.tgz -C target/unpacked",
        "tar -tf /tmp/e.tar",
        "tar -xOf /tmp/e.tar README.md",
        "tar -xf /tmp/e.tar --to-stdout",
        "cd /tmp && tar -xf e.tar",
        "unzip -l /tmp/e.zip",
        "unzip -d /tmp/out /tmp/e.zip",
        "unzip /tmp/e.zip -d \"$TMPDIR/x\"",
        "7z x /tmp/e.7z -o/tmp/out",
        "7z l /tmp/e.7z",
        "cpio -t < /tmp/e.cpio",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b125_b131_b133_descriptor_and_proc_aliases() {
    for (c, rule) in [
        ("exec 3<.env; echo pwned > /dev/fd/3", RuleId::NotStatic),
        (
            "{ echo pwned > /dev/fd/3; } 3< Dockerfile",
            RuleId::NotStatic,
        ),
        (
            "exec 3<README.md; echo pwned > /dev/fd/3",
            RuleId::NotStatic,
        ),
        ("echo x > /proc/self/fd/4", RuleId::NotStatic),
        ("echo x > /dev/fd/0", RuleId::NotStatic),
        ("echo x > /dev/stdin", RuleId::NotStatic),
        ("echo x > /proc/1/cwd/README.md", RuleId::NotStatic),
        ("echo x > /proc/self/cwd/README.md", RuleId::Clobber),
        ("echo x > /proc/thread-self/cwd/README.md", RuleId::Clobber),
        ("echo x > /proc/self/task/1/cwd/README.md", RuleId::Clobber),
        (
            "echo x > /proc/self/root/home/dev/repo/README.md",
            RuleId::Clobber,
        ),
        ("echo x >> /proc/self/cwd/.env", RuleId::ProtectedPath),
        ("cd src && echo x > /proc/self/cwd/main.rs", RuleId::Clobber),
        ("dd if=/dev/zero of=/dev/fd/3", RuleId::DestructiveShell),
    ] {
        denied_by(c, rule);
    }
    for c in [
        "echo x > /dev/stdout",
        "echo x > /dev/stderr",
        "echo x > /dev/fd/1",
        "echo x > /dev/fd/2",
        "echo x | tee /dev/stderr",
        "echo x > /proc/self/fd/2",
        "echo x > /proc/self/cwd/notes.txt",
        "dd if=/tmp/x of=/dev/stdout",
        "cat /proc/self/cwd/README.md",
        "cat /proc/cpuinfo",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b126_patch_and_ed() {
    for (c, rule) in [
        ("patch -p1 < /tmp/fix.diff", RuleId::NotStatic),
        ("patch < /tmp/p.diff", RuleId::NotStatic),
        ("patch -i /tmp/p.diff", RuleId::NotStatic),
        ("patch Dockerfile < /tmp/p.diff", RuleId::ProtectedPath),
        (
            "patch -d k8s deploy.yaml < /tmp/p.diff",
            RuleId::ProtectedPath,
        ),
        (
            "patch -o README.md src/lib.rs < /tmp/p.diff",
            RuleId::Clobber,
        ),
        ("patch --outp=.env x < /tmp/p.diff", RuleId::ProtectedPath),
    ] {
        denied_by(c, rule);
    }
    for c in [
        "patch src/lib.rs < /tmp/p.diff",
        "patch --dry-run -p1 < /tmp/p.diff",
        "patch -o /tmp/out.rs src/lib.rs < /tmp/p.diff",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b128_the_pawl_store_whatever_the_spelling() {
    for c in [
        "sqlite3 .paw?/pawl.db 'delete from x'",
        "sqlite3 .pawl/pawl.db",
        "cd .pawl && sqlite3 pawl.db 'delete from x'",
        "cd .pawl; duckdb :memory:",
        "cd .pawl; sqlite3 :memory:",
        "sqlite3 \"$(printf .pawl)/pawl.db\"",
        "sqlite3 /home/dev/repo/.p*/p*.db",
        "duckdb .paw?/pawl.db",
        "cd .pawl && litecli pawl.db",
        "sqlite-utils tables .pawl/pawl.db",
        "duckdb \"file:.paw%6c/pawl.db\"",
        "cd .pawl && duckdb pawl.db",
        "sqlite3 :memory: \"attach '.paw'||'l/pawl.db' as p; delete from p.x\"",
        "duckdb x.db \"ATTACH '.pa' || 'wl/pawl.db'\"",
        "cd /home/dev/repo/.pawl/ && sqlite3 ./pawl.db",
    ] {
        assert_blocked(c);
    }
    for c in [
        "sqlite3 /tmp/app.db 'select 1'",
        "sqlite3 app.db .tables",
        "duckdb /tmp/x.duckdb 'select 42'",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b136_tools_with_an_output_file() {
    for (c, rule) in [
        ("shuf -o README.md < /dev/null", RuleId::Clobber),
        ("shuf --output=README.md x", RuleId::Clobber),
        ("uniq /dev/null README.md", RuleId::Clobber),
        ("uniq -c x .env", RuleId::ProtectedPath),
        ("sort -o README.md x", RuleId::Clobber),
        ("sort --output README.md x", RuleId::Clobber),
        ("fallocate -p -o 0 -l 3 README.md", RuleId::Clobber),
        (
            "fallocate --punch-hole -o 0 -l 3 README.md",
            RuleId::Clobber,
        ),
        ("fallocate -l 10 .env", RuleId::ProtectedPath),
        ("xxd -r /tmp/x README.md", RuleId::Clobber),
        ("echo x | sponge README.md", RuleId::Clobber),
        ("gcc -o README.md x.c", RuleId::Clobber),
        ("cc x.c -oREADME.md", RuleId::Clobber),
        ("pandoc x.md -o README.md", RuleId::Clobber),
        (
            "iconv -f utf8 -t ascii x --output=Cargo.toml",
            RuleId::Clobber,
        ),
        ("gpg -o .env -d x.gpg", RuleId::ProtectedPath),
        ("wget --output-doc=README.md http://x", RuleId::Clobber),
    ] {
        denied_by(c, rule);
    }
    for c in [
        "shuf -o /tmp/x in.txt",
        "uniq in.txt",
        "uniq -c in.txt out.txt",
        "sort -o sorted.txt x",
        "fallocate -l 1M /tmp/big",
        "xxd README.md",
        "xxd -s 16 -l 32 README.md",
        "gcc -O2 -fno-omit-frame-pointer -o target/app x.c",
        "echo x | sponge -a README.md",
        "echo x | sponge notes.txt",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn b138_protected_names_regardless_of_case() {
    for c in [
        "echo x > .ENV",
        "echo x > .Env.Local",
        "echo x > DOCKERFILE",
        "echo x > dockerfile.dev",
        "echo x > Secrets/x",
        "echo x > K8S/deploy.yaml",
        "echo x > Migrations/1.sql",
        "echo x > main.TF",
        "echo x > server.KEY",
        "echo x > .GIT/config",
        "echo x > PAWL.TOML",
        "echo x > .Claude/Settings.json",
    ] {
        denied_by(c, RuleId::ProtectedPath);
    }
    let ctx = corpus_context();
    let policy = Policy::default();
    for path in [".ENV", "DockerFile", "SECRETS/token"] {
        assert!(
            evaluate(&Input::file_write(path), &ctx, &policy).is_deny(),
            "{path}"
        );
    }
    for c in ["echo x > .ENV.EXAMPLE", "echo x > notes.env.txt"] {
        assert_allowed(c);
    }
}

#[test]
fn b139_more_than_one_tracked_file_per_rm() {
    for c in [
        "rm README.md src/main.rs src/lib.rs .gitignore",
        "rm -f README.md CHANGELOG.md",
        "unlink README.md; rm Cargo.toml Cargo.lock",
        "rm README.md src/m*.rs src/l*.rs",
    ] {
        denied_by(c, RuleId::DestructiveShell);
    }
    // A glob that matches more than one tracked file (and possibly a protected one).
    for c in ["rm src/*.rs", "rm -f src/*", "rm -f src/*.bak src/*.rs"] {
        assert_blocked(c);
    }
    denied_by("rm -f src/m*.rs src/l*.rs", RuleId::DestructiveShell);
    let d = decide("rm README.md CHANGELOG.md");
    assert!(d.reason.contains("git rm"), "{d:?}");
    for c in [
        "rm README.md",
        "rm README.md notes.txt other.txt",
        "rm -f src/m*.rs",
        "rm CHANGELOG.md && echo done",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn f1_a_mktemp_directory_is_a_temporary_path() {
    // The usual pattern: a fresh directory under $TMPDIR, used and removed.
    assert_allowed("d=$(mktemp -d); echo hi > \"$d/x\"; rm -rf \"$d\"");
    assert_allowed("f=\"$(mktemp)\"; cargo test > \"$f\" 2>&1; rm -f \"$f\"");
    assert_allowed("d=$(mktemp -d -t pawl.XXXXXX); rm -rf \"$d\"");
    // Not a temporary path any more: another directory, TMPDIR changed, or a computed template.
    assert_blocked("d=$(mktemp -d -p .); rm -rf \"$d\"");
    assert_blocked("TMPDIR=.; d=$(mktemp -d); rm -rf \"$d\"");
    assert_blocked("d=$(mktemp -d src/XXXX); rm -rf \"$d\"");
    assert_blocked("d=$(mktemp -d); d=src; rm -rf \"$d\"");
}

#[test]
fn f7_glob_rm_of_untracked_files() {
    for c in [
        "rm -f *.orig",
        "rm src/*.bak",
        "rm -f *.pyc",
        "rm -f docs/*.tmp",
        "rm -f ./*.log",
        "rm *.orig *.rej",
    ] {
        assert_allowed(c);
    }
    for (c, rule) in [
        ("rm *", RuleId::ProtectedPath),
        ("rm -f *.key", RuleId::ProtectedPath),
        ("rm -f *.tf", RuleId::ProtectedPath),
        ("rm -f D*", RuleId::ProtectedPath),
        ("rm -f .env*", RuleId::ProtectedPath),
        ("rm -f .e?v", RuleId::ProtectedPath),
        ("shopt -s dotglob; rm -f *.orig", RuleId::ProtectedPath),
        ("GLOBIGNORE=x; rm -f *.orig", RuleId::ProtectedPath),
        ("rm -f migrations/*.sql", RuleId::ProtectedPath),
        ("rm -f k8s/*.yaml", RuleId::ProtectedPath),
        ("rm -f */*.orig", RuleId::DestructiveShell),
        ("rm -f ~/*.txt", RuleId::DestructiveShell),
    ] {
        denied_by(c, rule);
    }
    // Two tracked files (README.md, CHANGELOG.md), or a Dockerfile variant: denied either way.
    assert_blocked("rm -f *.md");
    // zsh's glob qualifiers (`(D)`: dotfiles too) are not bash; whatever parses is denied.
    assert_blocked("rm -f *.orig(D)");
}

/// A tracked-file index that cannot list its files (like a lazy caller that only answers
/// yes/no questions).
struct Opaque;

impl TrackedFiles for Opaque {
    fn is_tracked(&self, path: &str) -> bool {
        path == "README.md"
    }
    fn has_tracked_under(&self, dir: &str) -> bool {
        dir.is_empty() || dir == "src"
    }
}

#[test]
fn f7_without_a_listing_a_glob_rm_stays_denied() {
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(Opaque);
    let d = with_ctx("rm -f *.orig", &ctx);
    assert!(d.is_deny(), "{d:?}");
    assert_eq!(d.rule, Some(RuleId::DestructiveShell));
}

#[test]
fn f8_more_build_outputs() {
    for c in [
        "rm -rf .venv",
        "rm -rf venv",
        "rm -rf out",
        "rm -rf .cache",
        "rm -rf .nuxt .svelte-kit .angular",
        "rm -rf .eggs pkg.egg-info",
        "rm -rf .nox .hypothesis htmlcov .coverage .nyc_output",
        "rm -rf web/.next web/out",
        "rm -rf tmp",
    ] {
        assert_allowed(c);
    }
    // Not build outputs: terraform state, vendored code, and an allowance name that holds
    // tracked files.
    for c in ["rm -rf .terraform", "rm -rf vendor"] {
        assert_blocked(c);
    }
    denied_by("rm -rf vendor", RuleId::RecursiveDelete);
    // `bin`, `obj`, `site`, `_build` are removable while they hold no tracked file.
    for c in ["rm -rf bin obj", "rm -rf site", "rm -rf docs/_build"] {
        assert_allowed(c);
    }
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(
        ["dist/index.js", "README.md"]
            .into_iter()
            .collect::<pawl_guard::TrackedSet>(),
    );
    let d = with_ctx("rm -rf dist", &ctx);
    assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{d:?}");
    let mut ctx2 = corpus_context();
    ctx2.tracked = Arc::new(
        ["bin/release.sh", "site/index.md", "docs/_build/keep.txt"]
            .into_iter()
            .collect::<pawl_guard::TrackedSet>(),
    );
    for c in ["rm -rf bin", "rm -rf site", "rm -rf docs/_build"] {
        let d = with_ctx(c, &ctx2);
        assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{c}: {d:?}");
    }
    let d = with_ctx("rm -rf dist/*", &ctx);
    assert_eq!(d.rule, Some(RuleId::RecursiveDelete), "{d:?}");
}

#[test]
fn f9_example_files_with_a_suffix() {
    for c in [
        "cp .env.example .env.example.bak",
        "cp .env.sample .env.sample.orig",
        "echo x > .env.template.new",
        "echo x > .env.dist",
        "echo x > .env.local.example",
        "echo x > config/.env.production.sample",
    ] {
        assert_allowed(c);
    }
    for c in [
        "cp .env.example .env",
        "echo x > .env.local",
        "echo x > .env.production",
        "cp .env.example.bak .env.backup",
    ] {
        denied_by(c, RuleId::ProtectedPath);
    }
}

/// macOS: `/tmp` and `/var` are links into `/private`, and so is a repository under them.
struct Private;

impl FileSystemView for Private {
    fn resolve_links(&self, path: &str) -> Option<String> {
        for prefix in ["/tmp", "/var"] {
            if path == prefix || path.starts_with(&format!("{prefix}/")) {
                return Some(format!("/private{path}"));
            }
        }
        Some(path.to_owned())
    }
}

#[test]
fn resolved_anchors_keep_their_usual_names() {
    let mut ctx = corpus_context();
    ctx.fs = Arc::new(Private);
    for c in [
        "rm -rf /tmp/x",
        "rm -rf \"$TMPDIR/cache\"",
        "rm -rf /tmp/x/*",
        "echo x > /tmp/notes",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_allow(), "{c}: {d:?}");
    }
    ctx.repo_root = Some("/tmp/work/repo".into());
    ctx.cwd = "/tmp/work/repo".into();
    for c in ["rm -rf target", "rm -rf /tmp/other", "echo x > notes.txt"] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_allow(), "{c}: {d:?}");
    }
    for c in [
        "rm -rf src",
        "rm -rf /tmp/work",
        "echo x > README.md",
        "echo x > .env",
    ] {
        assert!(with_ctx(c, &ctx).is_deny(), "{c}");
    }
}

/// A filesystem view that records what it was asked: it is asked lazily, and only about
/// paths the command names.
struct Recording(Mutex<Vec<String>>);

impl FileSystemView for Recording {
    fn resolve_links(&self, path: &str) -> Option<String> {
        if let Ok(mut asked) = self.0.lock() {
            asked.push(path.to_owned());
        }
        None
    }
}

#[test]
fn the_filesystem_view_is_asked_lazily() {
    let view = Arc::new(Recording(Mutex::new(Vec::new())));
    let mut ctx = corpus_context();
    ctx.fs = view.clone();
    assert!(with_ctx("cargo test && git status", &ctx).is_allow());
    assert!(view.0.lock().map(|a| a.is_empty()).unwrap_or(false));
    assert!(with_ctx("rm -rf target/debug", &ctx).is_allow());
    let asked = view.0.lock().map(|a| a.clone()).unwrap_or_default();
    assert!(
        asked.iter().any(|p| p == "/home/dev/repo/target"),
        "{asked:?}"
    );
}

#[test]
fn downloads_copies_and_devices_found_while_checking_the_red_team_log() {
    for (c, rule) in [
        ("curl -O https://example.com/.env", RuleId::ProtectedPath),
        (
            "curl -sSLO https://example.com/x/README.md?raw=1",
            RuleId::Clobber,
        ),
        (
            "curl --remote-name https://e.com/Dockerfile",
            RuleId::ProtectedPath,
        ),
        (
            "curl -O --output-dir k8s https://e.com/deploy.yaml",
            RuleId::ProtectedPath,
        ),
        (
            "wget -P secrets https://example.com/x",
            RuleId::ProtectedPath,
        ),
        ("wget https://example.com/.env", RuleId::ProtectedPath),
        (
            "wget --output-doc README.md https://e.com/x",
            RuleId::Clobber,
        ),
        ("rsync /tmp/redteam/emptyfile README.md", RuleId::Clobber),
        ("rsync -a /tmp/redteam/files/ .", RuleId::NotStatic),
        ("rsync -a /tmp/evil/k8s .", RuleId::ProtectedPath),
        ("mkswap /dev/sdz", RuleId::DestructiveShell),
        ("mke2fs /dev/sdz1", RuleId::DestructiveShell),
        ("sfdisk /dev/sda < layout", RuleId::DestructiveShell),
        (
            "echo key >> /root/.ssh/authorized_keys # HOME",
            RuleId::ProtectedPath,
        ),
        (
            "HOME=/x; echo key >> /home/dev/.ssh/authorized_keys",
            RuleId::ProtectedPath,
        ),
        (
            "echo x > /home/other/.aws/credentials",
            RuleId::ProtectedPath,
        ),
        ("echo x > ~/.netrc", RuleId::ProtectedPath),
    ] {
        denied_by(c, rule);
    }
    for c in [
        "curl -O https://example.com/release.tar.gz",
        "curl -o /tmp/x https://example.com/.env",
        "curl -s https://example.com/.env",
        "wget -q https://example.com/tool.tgz -P /tmp",
        "wget https://example.com",
        "rsync -a src/ /tmp/backup/",
        "rsync -av dist/ user@host:/srv/app/",
        "fdisk -l",
        "cat ~/.ssh/id_ed25519.pub",
    ] {
        assert_allowed(c);
    }
}

// ---- Round 2 (files) ----

#[test]
fn r2_b6_cp_no_target_directory_lands_on_the_destination() {
    for c in [
        "cp -rT /tmp/d .",
        "cp -r -T /tmp/d .",
        "cp -aT /tmp/d .",
        "cp -r --no-target-directory /tmp/d .",
        "cp -r --no-target /tmp/d .",
        "cp -rT /tmp/d src",
        "cp -RT /tmp/d /home/dev/repo",
    ] {
        assert_blocked(c);
    }
    // Into a new directory nothing is overwritten.
    assert_allowed("cp -rT /tmp/d build/copy");
    assert_allowed("cp -rT /tmp/d /tmp/e");
}

#[test]
fn r2_b8_parents_of_named_protected_paths() {
    for c in [
        "cp -r /tmp/d/.claude .",
        "cp -r /tmp/d/.codex .",
        "cp -r /tmp/d/.gemini /home/dev/repo/",
        "mv .claude /tmp/somewhere",
        "mv .codex /tmp/x",
        "mv .gemini x",
        "rm -r .claude",
        "cp -r /tmp/evil .claude",
        "mv /tmp/evil .claude",
        "mv alembic /tmp/a",
        "mv db /tmp/db",
        "mv ~/.config /tmp/c",
    ] {
        assert_blocked(c);
    }
    denied_by("mv .claude /tmp/somewhere", RuleId::ProtectedPath);
    denied_by("cp -r /tmp/d/.claude .", RuleId::ProtectedPath);
    // A directory that merely could hold a `.env` is not a holder of protected paths.
    assert_allowed("cp -r /tmp/d/assets public/");
    assert_allowed("mv build/out /tmp/out");
    assert_allowed("cp -r .claude/commands /tmp/commands");
}

#[test]
fn r2_b25_moving_tracked_trees_out_of_the_repository() {
    for c in [
        "mv src ~/junk",
        "mv src ~",
        "mv src ~/",
        "mv -t ~ src",
        "mv --target-directory=/home/dev src",
        "mv src ~/.cache/x",
        "mv src /var/backups/src",
        "mv src/legacy /opt/x",
        "mv docs ../docs-old",
    ] {
        denied_by(c, RuleId::RecursiveDelete);
    }
    denied_by("mv README.md Cargo.toml /opt/", RuleId::DestructiveShell);
    // Renames inside the repository, untracked trees and one file are fine.
    for c in [
        "mv src lib",
        "mv src/legacy src/old",
        "mv newdir /tmp/newdir",
        "mv README.md /tmp/",
        "mv /tmp/x /tmp/y",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_b32_dev_fd_parent_is_proc_self() {
    for c in [
        "echo x > /dev/fd/../cwd/README.md",
        "echo x > /dev/fd/../cwd/.env",
        "echo x > /dev/fd/../../self/cwd/README.md",
        "echo x > /dev/fd/../root/home/dev/repo/README.md",
        "echo x > /proc/self/cwd/../repo/README.md",
        "echo x > /proc/self/cwd/../repo/.env",
        "echo x > /dev/fd/3/../README.md",
        "echo x > /dev/stdout/../README.md",
        "cp /dev/null /dev/fd/../cwd/README.md",
    ] {
        assert_blocked(c);
    }
    denied_by("echo x > /dev/fd/../cwd/README.md", RuleId::Clobber);
    denied_by(
        "echo x > /proc/self/cwd/../repo/.env",
        RuleId::ProtectedPath,
    );
    assert_allowed("echo x > /dev/fd/../cwd/notes.txt");
    assert_allowed("cat /proc/self/status");
}

#[test]
fn r2_protected_path_defaults() {
    for path in [
        "Containerfile",
        "deploy/Containerfile.prod",
        "infra/terraform.tfstate",
        "terraform.tfstate.backup",
        "terraform.tfstate.1700000000.backup",
        ".terraform/providers/x",
        "k8s-overlays/prod/kustomization.yaml",
        "overlays/kustomization.yml",
        "alembic/versions/001_init.py",
        "db/migrate/20240101_create_users.rb",
        "prisma/migrations/001/migration.sql",
        "config/secrets.yml",
        "credentials.json",
        ".npmrc",
        ".pypirc",
        ".envrc",
        ".husky/pre-commit",
        "~/.bashrc",
        "~/.bash_profile",
        "~/.profile",
        "~/.zshrc",
        "~/.zprofile",
        "~/.bash_logout",
        "~/.config/fish/config.fish",
        "~/.claude/settings.json",
        "~/.claude/hooks/pre.sh",
        "~/.claude.json",
        "/etc/claude-code/managed-settings.json",
        "~/.codex/auth.json",
        "~/.codex/config.toml",
        "~/.gemini/settings.json",
        "~/.git-credentials",
        "~/.netrc",
        "~/.config/gh/hosts.yml",
        "~/.docker/config.json",
        "~/.kube/config",
        "/root/.bashrc",
        "/root/.claude/settings.json",
        "sub/.claude/settings.json",
    ] {
        denied_by(&format!("echo x >> {path}"), RuleId::ProtectedPath);
        denied_by(&format!("touch {path}"), RuleId::ProtectedPath);
    }
    // Ordinary project files an agent edits stay editable.
    for c in [
        "echo x >> .github/workflows/ci.yml",
        "echo x >> .pre-commit-config.yaml",
        "echo x >> src/secrets_test.rs",
        "echo x >> src/secrets.rs",
        "echo x >> docs/terraform.md",
        "echo x >> .claude/commands/review.md",
        "echo x >> ~/.claude/plans/plan.md",
        "echo x >> ~/.gemini/GEMINI.md",
        "touch bin/run.sh",
    ] {
        assert_allowed(c);
    }
}

#[test]
fn r2_f2_in_place_edits_over_globs() {
    for c in [
        "sed -i 's/foo/bar/g' src/*.rs",
        "perl -pi -e 's/foo/bar/g' src/*.rs",
        "chmod +x scripts/*.sh",
        "touch src/*.rs",
        "sed -i 's/a/b/' docs/*.md src/*.rs",
        "for f in tests/*.py; do echo '# auto' >> \"$f\"; done",
        "sed -i 's/a/b/' *.md",
    ] {
        assert_allowed(c);
    }
    // A glob that can reach a protected path (or leaves what can be judged) is still denied.
    for c in [
        "sed -i 's/a/b/' migrations/*.sql",
        "sed -i 's/a/b/' */*.sql",
        "sed -i 's/a/b/' .env*",
        "sed -i 's/a/b/' .*",
        "sed -i 's/a/b/' k8s/*.yaml",
        "sed -i 's/a/b/' *.tf",
        "sed -i 's/a/b/' *.pem",
        "chmod 777 .git/*",
        "chmod +x .husky/*",
        "sed -i 's/a/b/' Dockerfile*",
        "sed -i 's/a/b/' ../*/src/*.rs",
        "sed -i 's/a/b/' secrets/*",
        "sed -i 's/a/b/' ~/.ssh/*",
        "sed -i 's/a/b/' /dev/fd/*",
        "shopt -s dotglob; sed -i 's/a/b/' *",
        "sed -i 's/a/b/' *",
        "sed -i 's/a/b/' */*",
        "echo x >> *",
        "sed -i 's/a/b/' {src,.git}/*",
    ] {
        assert_blocked(c);
    }
    // Under /tmp and build outputs anything may be edited.
    for c in ["sed -i 's/a/b/' /tmp/*", "touch target/*"] {
        assert_allowed(c);
    }
    // Clobbering through a glob stays denied.
    for c in ["tee src/*.rs < /dev/null", "cp /dev/null src/*.rs"] {
        assert_blocked(c);
    }
}

#[test]
fn r2_b36_compressors_remove_one_file_like_rm() {
    // `gzip README.md` replaces README.md by README.md.gz: it removes one tracked file,
    // which `rm README.md` may too (recoverable with git). More than one, a protected file,
    // or a recursive run is denied.
    assert_allowed("gzip README.md");
    assert_allowed("rm README.md");
    for c in [
        "gzip README.md Cargo.toml",
        "gzip -r src",
        "gzip .env",
        "xz Dockerfile",
        "bzip2 src/main.rs src/lib.rs",
    ] {
        assert_blocked(c);
    }
}

#[test]
fn r2_f3_globs_of_allowance_directories() {
    for c in [
        "rm -rf packages/*/node_modules",
        "rm -rf packages/*/dist",
        "rm -rf **/__pycache__",
        "rm -rf */__pycache__ */*/__pycache__",
        "rm -rf build/ dist/ *.egg-info",
        "rm -rf apps/*/.next",
        "rm -rf crates/*/target",
        "rm -rf node_modules package-lock.json",
        "rm -rf node_modules yarn.lock pnpm-lock.yaml",
        "rm -rf target Cargo.lock",
        "rm -rf ~/.cache/pip",
        "rm -rf /home/dev/.cache/uv",
        "rm -rf \"$HOME/.cargo/registry/cache\"",
    ] {
        assert_allowed(c);
    }
    for c in [
        // Wildcards that can reach git's or pawl's own state, or leave the repository.
        "rm -rf .*/node_modules",
        "rm -rf ../*/node_modules",
        "shopt -s dotglob; rm -rf */node_modules",
        "rm -rf .git/*/node_modules",
        "rm -rf /home/*/node_modules",
        "rm -rf ~/.cache",
        "rm -rf ~/.cache/",
        "rm -rf ~/.cache/../.ssh",
        "rm -rf ~/.cargo",
        "rm -rf ~/.cargo/registry",
        // A trailing slash follows matches that are links.
        "rm -rf packages/*/node_modules/",
        "rm -rf */node_modules/.",
        // Not an allowance name.
        "rm -rf packages/*/src",
        "rm -rf */docs",
        // A lock file is one file: a recursive removal of a directory of that name is not.
        "rm -rf node_modules src/Cargo.lock/..",
        "rm -rf Cargo.lock/",
        "rm -rf node_modules Cargo.lock/.",
    ] {
        assert_blocked(c);
    }
    // A tracked file inside a matched directory, or two tracked lock files.
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(
        [
            "packages/a/dist/keep.js",
            "py/__pycache__/x.pyc",
            "Cargo.lock",
            "package-lock.json",
        ]
        .into_iter()
        .collect::<pawl_guard::TrackedSet>(),
    );
    for c in [
        "rm -rf packages/*/dist",
        "rm -rf **/__pycache__",
        "rm -rf */__pycache__",
        "rm -rf Cargo.lock package-lock.json",
    ] {
        assert!(with_ctx(c, &ctx).is_deny(), "{c}");
    }
    assert!(with_ctx("rm -rf packages/*/node_modules", &ctx).is_allow());
    assert!(with_ctx("rm -rf node_modules package-lock.json", &ctx).is_allow());
    // Without a listing of tracked files, a glob of allowance directories is not removable.
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(Unlisted);
    assert!(with_ctx("rm -rf packages/*/node_modules", &ctx).is_deny());
}

/// A tracked-file index that cannot be enumerated.
struct Unlisted;

impl TrackedFiles for Unlisted {
    fn is_tracked(&self, path: &str) -> bool {
        path == "README.md"
    }
    fn has_tracked_under(&self, dir: &str) -> bool {
        dir.is_empty()
    }
}

#[test]
fn r2_f3_find_removes_build_debris() {
    for c in [
        "find . -name '*.pyc' -delete",
        "find . -name .DS_Store -delete",
        "find . -type f -name '*.class' -delete",
        "find src -name '*.o' -delete",
        "find . -type d -name __pycache__ -exec rm -rf {} +",
        "find . -name __pycache__ -type d -exec rm -rf {} +",
        "find . -name node_modules -type d -prune -exec rm -rf {} + 2>/dev/null || true",
        "find . -name '*.pyc' -exec rm {} \\;",
        "find target -name '*.d' -exec rm {} +",
        "find . -iname '*.PYC' -delete",
        "find /tmp -name 'demo-*' -mtime +1 -delete",
        "find target -name '*.o' -delete",
        "find /tmp/build -delete",
        "find \"$TMPDIR\" -name 'x*' -exec rm -rf {} +",
    ] {
        if c.contains("-prune") {
            // `-prune` is not modelled: stays denied.
            assert_blocked(c);
        } else {
            assert_allowed(c);
        }
    }
    for c in [
        // Not debris, or more than a name selects.
        "find . -name '*.rs' -delete",
        "find . -name '*.key' -delete",
        "find . -name '*' -delete",
        "find . -delete",
        "find . -name '*.pyc' -o -name '*.rs' -delete",
        "find . ! -name '*.pyc' -delete",
        "find . -path '*.pyc' -delete",
        "find . -name src -exec rm -rf {} +",
        "find . -name build -exec rm -rf {} +",
        "find . -name tmp -exec rm -rf {} +",
        "find . -name '*.pyc' -exec rm -rf {} src +",
        "find . -name '*.pyc' -exec sh -c 'rm -rf src' \\;",
        "find .git -name '*.orig' -delete",
        "find .. -name '*.orig' -delete",
        "find / -name '*.orig' -delete",
        "find ~ -name '*.pyc' -delete",
        "find /tmp/.. -name '*.pyc' -delete",
        "find /var/tmp -delete",
        "find /tmp -name x -exec sh -c 'rm -rf src' \\;",
        "find /tmp -follow -name x -delete",
        "find -L /tmp -name x -delete",
        "find /tmp -name \"$X\" -delete",
        "find \"$D\" -name '*.pyc' -delete",
        "find -L . -name '*.pyc' -delete",
        "find . -name '.env*' -delete",
        "find . -name 'Dockerfile' -delete",
        // A tracked file would be removed.
        "find . -name '*.md' -delete",
        // Leftovers that may be the only copy of something (the corpus keeps these denied).
        "find . -name '*.orig' -delete",
        "find . -name '*.log' -delete",
        "find . -name '*.bak' -exec rm {} \\;",
        "find . -name '*.orig' -exec rm -f {} \\;",
    ] {
        assert_blocked(c);
    }
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(
        ["src/a.o", "lib/__pycache__/keep.pyc", "README.md"]
            .into_iter()
            .collect::<pawl_guard::TrackedSet>(),
    );
    for c in [
        "find . -name '*.o' -delete",
        "find src -name '*.o' -delete",
        "find . -type d -name __pycache__ -exec rm -rf {} +",
        "find lib -name '*.pyc' -delete",
    ] {
        assert!(with_ctx(c, &ctx).is_deny(), "{c}");
    }
    assert!(with_ctx("find docs -name '*.o' -delete", &ctx).is_allow());
    // `rm -rf` of a directory whose name looks like an artifact removes what it holds.
    let mut ctx2 = corpus_context();
    ctx2.tracked = Arc::new(
        ["lib/data.o/keep.txt"]
            .into_iter()
            .collect::<pawl_guard::TrackedSet>(),
    );
    assert!(with_ctx("find . -name '*.o' -exec rm -rf {} +", &ctx2).is_deny());
    assert!(with_ctx("find . -name '*.o' -delete", &ctx2).is_allow());
    let mut ctx = corpus_context();
    ctx.tracked = Arc::new(Unlisted);
    assert!(with_ctx("find . -name '*.pyc' -delete", &ctx).is_deny());
}

#[test]
fn r2_f6_extraction_into_a_fresh_subdirectory() {
    for c in [
        "tar xzf /tmp/fixtures.tgz -C tests/fixtures",
        "tar -xzf /tmp/fixtures.tgz -C tests/fixtures",
        "tar -xf /tmp/f.tar --directory=tests/fixtures",
        "unzip -o /tmp/data.zip -d tests/fixtures",
        "unzip -q /tmp/data.zip -d vendor/data",
        "mkdir -p tests/fixtures && tar xzf /tmp/f.tgz -C tests/fixtures",
    ] {
        assert_allowed(c);
    }
    for c in [
        // The root, directories with tracked files, protected places and their parents.
        "tar xzf /tmp/f.tgz",
        "tar xzf /tmp/f.tgz -C .",
        "tar xzf /tmp/f.tgz -C src",
        "tar xzf /tmp/f.tgz -C src/legacy",
        "tar xzf /tmp/f.tgz -C docs",
        "tar xzf /tmp/f.tgz -C .github",
        "tar xzf /tmp/f.tgz -C migrations",
        "tar xzf /tmp/f.tgz -C .claude",
        "tar xzf /tmp/f.tgz -C .git/hooks",
        "tar xzf /tmp/f.tgz -C ~",
        "tar xzf /tmp/f.tgz -C ..",
        "unzip -o /tmp/d.zip",
        "unzip -o /tmp/d.zip -d .",
        "unzip -o /tmp/d.zip -d src",
        // Member names kept absolute or with `..`, or rewritten.
        "tar xPzf /tmp/f.tgz -C tests/fixtures",
        "tar -xzPf /tmp/f.tgz -C tests/fixtures",
        "tar -xzf /tmp/f.tgz --absolute-names -C tests/fixtures",
        "tar -xzf /tmp/f.tgz --abs -C tests/fixtures",
        "tar -xzf /tmp/f.tgz --transform='s,^,../../,' -C tests/fixtures",
        "unzip -: /tmp/d.zip -d tests/fixtures",
        "unzip -o -: /tmp/d.zip -d tests/fixtures",
        "tar xzf /tmp/f.tgz -C \"$D\"",
    ] {
        assert_blocked(c);
    }
}

#[test]
fn r2_f7_symbolic_links_to_tracked_files() {
    for c in [
        "ln -s ../scripts/test.sh bin/test",
        "ln -s ../src/main.rs bin/main.rs",
        "ln -sf ../README.md docs/README.md",
        "cd docs && ln -s ../README.md index.md",
        "ln -s /home/dev/repo/Cargo.toml /tmp/Cargo.toml",
    ] {
        assert_allowed(c);
    }
    for c in [
        // Links to protected paths, trees with tracked files, anchors; hard links.
        "ln -s ../.env bin/env",
        "ln -s ../src bin/src",
        "ln -s /home/dev/repo bin/repo",
        "ln -s /home/dev x",
        "ln src/main.rs bin/main.rs",
        "cp -l src/main.rs bin/main.rs",
        "ln -s ../src target/src",
        // A write through a link made earlier in the same line.
        "ln -s ../src/main.rs bin/main.rs && echo x > bin/main.rs",
        "ln -s ../src/main.rs bin/main.rs; cp /dev/null bin/main.rs",
        "ln -s ../src/main.rs bin/ && echo x > bin/main.rs",
        "cp -s /home/dev/repo/src/main.rs bin/m.rs && truncate -s0 bin/m.rs",
        "ln -sf ../README.md docs/index.md && sed -i d docs/index.md",
        // A link in the place of a directory that holds protected paths.
        "ln -s /tmp/evil .claude",
        "ln -sfn /tmp/evil .codex",
        "ln -s /tmp/evil ~/.claude",
        "ln -s /tmp/evil alembic",
        "cp -rs /tmp/evil .gemini",
    ] {
        assert_blocked(c);
    }
    denied_by(
        "ln -s ../src/main.rs bin/main.rs && echo x > bin/main.rs",
        RuleId::NotStatic,
    );
}

#[test]
fn r2_f7_truncate_follows_links_into_the_repository() {
    // `/tmp/readme` leads to README.md (see `Links`).
    let mut ctx = corpus_context();
    ctx.fs = Arc::new(Links);
    for c in [
        "truncate -s0 /tmp/readme",
        "shred /tmp/readme",
        "dd if=/dev/zero of=/tmp/readme",
    ] {
        let d = with_ctx(c, &ctx);
        assert!(d.is_deny(), "{c}: {d:?}");
        // Without the view the path is judged as written.
        assert!(decide(c).is_allow(), "{c}");
    }
    assert!(with_ctx("truncate -s0 /tmp/other.log", &ctx).is_allow());
}
