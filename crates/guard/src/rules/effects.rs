//! Effects that cannot be undone, reached through tools the guard has no other model of
//! (issue 36; the principle and the table: `docs/guard.md`). Judged for every command by the
//! every-command pass, after the program's family, from the rows below (data, one a tool):
//!
//! - persistence outside the repository (rule `persist`): global installs (`npm i -g`,
//!   `pip install --user`, `cargo install`, `go install`, pipx, `uv tool`, gem, toolchains),
//!   system package managers, service managers (systemctl, launchctl, pm2, ...), global git
//!   configuration, hooks installers — each denial names the project-local form when there is one;
//! - task runners asked for a target whose name publishes (rule `publish`): `make publish`,
//!   `npm run deploy`, `just release`, `./gradlew publish`, `mvn deploy`;
//! - resource exhaustion (rule `resource-exhaustion`): stress tools, huge allocations and
//!   copies, unbounded parallelism.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::walk::{Frame, Judged, Walker};
use crate::words::Arg;

/// What a row asks of the arguments.
enum Needs {
    /// The first operand is one of these verbs (and, when given, some argument is one of the flags).
    Verb(&'static [&'static str], &'static [&'static str]),
    /// Some argument is one of these flags, and none is one of the read-only flags.
    Flag(&'static [&'static str], &'static [&'static str]),
    /// The first operand is one of the first verbs and the second one of the second.
    Verb2(&'static [&'static str], &'static [&'static str]),
    /// As `Verb2`, and some argument is one of the flags (all of them when empty), and none is
    /// one of the last (a two-word entry, `--location project`, is two arguments in a row).
    Verb2Flag(
        &'static [&'static str],
        &'static [&'static str],
        &'static [&'static str],
        &'static [&'static str],
    ),
    /// The first operand is one of these verbs and the second none of the others (`brew bundle`
    /// installs; `brew bundle check` reads).
    VerbBut(&'static [&'static str], &'static [&'static str]),
    /// Any use but with one of these arguments (`sdkmanager <package>` installs; `--list` reads).
    AnyBut(&'static [&'static str]),
    /// Any use at all.
    Any,
}

/// `(program, what it needs, the effect, the nearest allowed form or "")`.
type Row = (&'static str, Needs, &'static str, &'static str);

const G: &[&str] = &["-g", "--global", "--location=global"];
const NPM_INSTALL: &[&str] = &[
    "i",
    "install",
    "add",
    "un",
    "uninstall",
    "rm",
    "remove",
    "r",
    "update",
    "up",
    "upgrade",
    "link",
    "ln",
];
const GLOBAL: &str = "installs outside the repository (a global install): pawl could not undo it";
const SERVICE: &str = "starts, stops or installs a service outside the repository: it outlives the run and pawl could not undo it";
const SYSTEM_PKG: &str = "changes the system's packages: pawl could not undo it";
const SYSTEM: &str =
    "changes the system's configuration outside the repository: pawl could not undo it";
const KUBECONFIG: &str = "changes the user's cluster configuration (`~/.kube/config`): every later kubectl on this machine would use it, and pawl could not undo it";
const KEYRING: &str = "changes the user's GnuPG keyring (`~/.gnupg`): every later gpg on this machine would trust or miss those keys, and pawl could not undo it";
const KEYCHAIN: &str = "changes or unlocks the user's keychains outside the repository: pawl could not undo it, and an unlocked keychain hands its secrets to later commands";
/// gpg's options that change the keyring (`--import`, key generation, deletion, signing).
#[rustfmt::skip]
const GPG_KEYRING: &[&str] = &[
    "--import", "--recv-keys", "--recv-key", "--receive-keys", "--fetch-keys", "--refresh-keys",
    "--import-ownertrust", "--update-trustdb", "--delete-key", "--delete-keys",
    "--delete-secret-keys", "--delete-secret-and-public-key", "--gen-key", "--generate-key",
    "--full-gen-key", "--full-generate-key", "--quick-gen-key", "--quick-generate-key",
    "--quick-add-key", "--quick-add-uid", "--quick-revoke-uid", "--quick-set-expire",
    "--sign-key", "--lsign-key", "--quick-sign-key", "--quick-lsign-key", "--edit-key",
    "--passwd", "--change-passphrase",
];
/// macOS `security` verbs that change or unlock keychains.
#[rustfmt::skip]
const KEYCHAIN_VERBS: &[&str] = &[
    "unlock-keychain", "create-keychain", "delete-keychain", "set-keychain-settings",
    "set-keychain-password", "import", "add-generic-password", "add-internet-password",
    "add-certificates", "add-trusted-cert", "remove-trusted-cert", "delete-generic-password",
    "delete-internet-password", "delete-certificate", "delete-identity",
    "set-key-partition-list", "set-generic-password-partition-list",
    "set-internet-password-partition-list", "authorizationdb", "trust-settings-import",
];

#[rustfmt::skip]
const PERSIST: &[Row] = &[
    ("npm", Needs::Verb(NPM_INSTALL, G), GLOBAL, "the project-local install (`npm install -D <pkg>`, then `npx <tool>`) is allowed"),
    ("npm", Needs::Verb(&["link", "ln"], &[]), "links the package into the global prefix: pawl could not undo it", "`npm install -D <path>` is allowed"),
    ("pnpm", Needs::Verb(NPM_INSTALL, G), GLOBAL, "the project-local install (`pnpm add -D <pkg>`) is allowed"),
    ("yarn", Needs::Verb(&["global"], &[]), GLOBAL, "the project-local install (`yarn add -D <pkg>`) is allowed"),
    ("bun", Needs::Verb(NPM_INSTALL, G), GLOBAL, "the project-local install (`bun add -d <pkg>`) is allowed"),
    ("deno", Needs::Verb(&["install", "uninstall"], G), GLOBAL, "`deno add <pkg>` (project-local) is allowed"),
    ("pip", Needs::Flag(&["--user"], &[]), GLOBAL, "the same install without `--user`, into the project's virtual environment, is allowed"),
    ("pip3", Needs::Flag(&["--user"], &[]), GLOBAL, "the same install without `--user`, into the project's virtual environment, is allowed"),
    ("uv", Needs::Verb2(&["tool"], &["install", "uninstall", "upgrade", "update-shell"]), GLOBAL, "`uvx <tool>` or `uv add --dev <tool>` then `uv run <tool>` is allowed"),
    ("pipx", Needs::Verb(&["install", "uninstall", "upgrade", "upgrade-all", "inject", "reinstall", "ensurepath"], &[]), GLOBAL, "`pipx run <tool>` is allowed"),
    ("cargo", Needs::Verb(&["install", "uninstall", "binstall"], &[]), GLOBAL, "`cargo build`/`cargo run` in the project is allowed"),
    ("cargo-binstall", Needs::Any, GLOBAL, "`cargo build`/`cargo run` in the project is allowed"),
    ("go", Needs::Verb(&["install"], &[]), GLOBAL, "`go build ./...` or `go run <pkg>@<version>` is allowed"),
    ("gem", Needs::Verb(&["install", "uninstall", "update"], &[]), GLOBAL, "`bundle install` with the project's Gemfile is allowed"),
    ("composer", Needs::Verb(&["global"], &[]), GLOBAL, "the project-local `composer require --dev <pkg>` is allowed"),
    ("dotnet", Needs::Flag(&["-g", "--global"], &[]), GLOBAL, "a local tool manifest (`dotnet tool install <tool>` without `-g`) is allowed"),
    // `rustup toolchain list`, `rustup target list`, `rustup component list` only read.
    ("rustup", Needs::Verb(&["install", "uninstall", "update", "default", "override", "self", "set"], &[]), "changes the toolchains installed outside the repository: pawl could not undo it", "pin the toolchain in `rust-toolchain.toml` instead"),
    ("rustup", Needs::Verb2(&["toolchain"], &["install", "add", "uninstall", "remove", "link"]), "changes the toolchains installed outside the repository: pawl could not undo it", "pin the toolchain in `rust-toolchain.toml` instead"),
    ("rustup", Needs::Verb2(&["component", "target"], &["add", "install", "remove", "uninstall"]), "changes the toolchains installed outside the repository: pawl could not undo it", "pin the toolchain in `rust-toolchain.toml` instead"),
    ("uv", Needs::Verb2(&["python"], &["install", "uninstall", "upgrade"]), "installs a Python outside the repository: pawl could not undo it", "`uv python pin <version>` (writes `.python-version` in the repository) is allowed"),
    ("pyenv", Needs::Verb(&["install", "uninstall", "global"], &[]), GLOBAL, "`pyenv local` (writes `.python-version` in the repository) is allowed"),
    ("corepack", Needs::Verb(&["enable", "disable", "install", "prepare"], &[]), GLOBAL, "`npx <tool>` or a `packageManager` field is allowed"),
    ("brew", Needs::Verb(&["install", "uninstall", "remove", "rm", "reinstall", "upgrade", "tap", "untap", "link", "unlink", "pin", "autoremove", "cleanup", "update", "update-reset"], &[]), SYSTEM_PKG, ""),
    ("brew", Needs::Verb2(&["services"], &["start", "stop", "restart", "run", "kill", "cleanup"]), SERVICE, "`brew services list` (read-only) is allowed"),
    ("apt", Needs::Verb(&["install", "remove", "purge", "upgrade", "full-upgrade", "dist-upgrade", "autoremove", "update"], &[]), SYSTEM_PKG, ""),
    ("apt-get", Needs::Verb(&["install", "remove", "purge", "upgrade", "dist-upgrade", "autoremove", "update", "build-dep"], &[]), SYSTEM_PKG, ""),
    ("dnf", Needs::Verb(&["install", "remove", "erase", "upgrade", "update", "downgrade"], &[]), SYSTEM_PKG, ""),
    ("yum", Needs::Verb(&["install", "remove", "erase", "upgrade", "update", "downgrade"], &[]), SYSTEM_PKG, ""),
    ("apk", Needs::Verb(&["add", "del", "upgrade", "update"], &[]), SYSTEM_PKG, ""),
    ("pacman", Needs::Flag(&["-S", "-Syu", "-Sy", "-R", "-Rs", "-Rns", "-U"], &[]), SYSTEM_PKG, ""),
    ("zypper", Needs::Verb(&["install", "in", "remove", "rm", "update", "up", "dup"], &[]), SYSTEM_PKG, ""),
    ("snap", Needs::Verb(&["install", "remove", "refresh"], &[]), SYSTEM_PKG, ""),
    ("mport", Needs::Verb(&["install", "delete", "upgrade", "update", "autoremove"], &[]), SYSTEM_PKG, ""),
    ("port", Needs::Verb(&["install", "uninstall", "upgrade", "selfupdate"], &[]), SYSTEM_PKG, ""),
    ("choco", Needs::Verb(&["install", "uninstall", "upgrade"], &[]), SYSTEM_PKG, ""),
    ("winget", Needs::Verb(&["install", "uninstall", "upgrade"], &[]), SYSTEM_PKG, ""),
    ("scoop", Needs::Verb(&["install", "uninstall", "update"], &[]), SYSTEM_PKG, ""),
    ("systemctl", Needs::Verb(&["start", "stop", "restart", "reload", "try-restart", "reload-or-restart", "enable", "disable", "reenable", "mask", "unmask", "link", "edit", "set-default", "isolate", "kill", "daemon-reload", "preset", "revert"], &[]), SERVICE, "`systemctl status <unit>` (read-only) is allowed"),
    ("service", Needs::Flag(&["start", "stop", "restart", "reload", "force-reload", "try-restart"], &[]), SERVICE, "`service <name> status` is allowed"),
    ("launchctl", Needs::Verb(&["load", "unload", "bootstrap", "bootout", "enable", "disable", "kickstart", "submit", "start", "stop"], &[]), SERVICE, "`launchctl list` is allowed"),
    ("pm2", Needs::Verb(&["start", "startup", "unstartup", "save", "resurrect", "restart", "reload", "stop", "delete", "kill", "install"], &[]), SERVICE, "running the program in the foreground (with a timeout) is allowed"),
    ("forever", Needs::Verb(&["start", "stop", "restart", "stopall"], &[]), SERVICE, "running the program in the foreground is allowed"),
    ("supervisorctl", Needs::Verb(&["start", "stop", "restart", "reload", "update", "add", "remove", "shutdown"], &[]), SERVICE, "`supervisorctl status` is allowed"),
    ("rc-service", Needs::Any, SERVICE, ""),
    ("rc-update", Needs::Verb(&["add", "del", "delete"], &[]), SERVICE, ""),
    ("update-rc.d", Needs::Any, SERVICE, ""),
    ("chkconfig", Needs::Any, SERVICE, ""),
    ("loginctl", Needs::Verb(&["enable-linger", "disable-linger", "terminate-user", "kill-user"], &[]), SERVICE, ""),
    ("sc", Needs::Verb(&["create", "config", "start", "stop", "delete", "failure"], &[]), SERVICE, "`sc query` is allowed"),
    ("sc.exe", Needs::Verb(&["create", "config", "start", "stop", "delete", "failure"], &[]), SERVICE, "`sc query` is allowed"),
    ("git", Needs::Flag(&["--global", "--system"], &["--get", "--get-all", "--get-regexp", "--list", "-l", "--show-origin", "--help"]), "changes git's configuration outside the repository: every later git command on this machine would see it", "`git config --local <key> <value>` (this repository only) is allowed"),
    ("pre-commit", Needs::Verb(&["install", "install-hooks", "uninstall"], &[]), "installs hooks that git runs on every later commit", "`pre-commit run --all-files` is allowed"),
    ("husky", Needs::Verb(&["install", "add", "set"], &[]), "installs hooks that git runs on every later commit", ""),
    // Into the interpreter's own site-packages (`--system`: outside any virtual environment).
    ("uv", Needs::Verb2Flag(&["pip"], &["install", "uninstall", "sync"], &["--system", "--break-system-packages"], &[]), SYSTEM_PYTHON, "the same without `--system`, into the project's virtual environment, is allowed"),
    // The user's (or, with `--location=global`, the machine's) npm configuration: every later
    // npm command on this machine reads it.
    ("npm", Needs::Verb2Flag(&["config", "c"], &["set", "delete", "rm", "edit", "fix"], &[], NPM_PROJECT), USER_CONFIG, "`npm config set <key> <value> --location=project` (the project's `.npmrc`) or `npm_config_<key>=<value>` for one command is allowed"),
    ("npm", Needs::Verb(&["set"], &[]), USER_CONFIG, "`npm_config_<key>=<value>` for one command is allowed"),
    ("pnpm", Needs::Verb2Flag(&["config", "c"], &["set", "delete", "rm"], &[], NPM_PROJECT), USER_CONFIG, "`pnpm config set <key> <value> --location project` is allowed"),
    // Tools that change the system without a file the guard sees written (session 13).
    ("update-alternatives", Needs::Flag(&["--install", "--remove", "--remove-all", "--set", "--config", "--auto", "--all", "--set-selections"], &[]), SYSTEM, "`update-alternatives --display <name>` (read-only) is allowed"),
    ("playwright", Needs::Verb(&["install"], &["--with-deps"]), SYSTEM_PKG, "`playwright install <browser>` (into the user's cache) is allowed"),
    ("playwright", Needs::Verb(&["install-deps"], &[]), SYSTEM_PKG, "`playwright install <browser>` (into the user's cache) is allowed"),
    ("xcode-select", Needs::Flag(&["-s", "--switch", "-r", "--reset", "--install"], &[]), SYSTEM, "`xcode-select -p` (read-only) or `DEVELOPER_DIR=<path>` for one command is allowed"),
    ("tccutil", Needs::Verb(&["reset"], &[]), SYSTEM, ""),
    ("udevadm", Needs::Verb(&["control", "trigger"], &[]), SYSTEM, "`udevadm info` (read-only) is allowed"),
    ("brew", Needs::VerbBut(&["bundle"], &["check", "list", "dump", "exec", "env", "sh", "edit"]), SYSTEM_PKG, "`brew bundle check` (read-only) is allowed"),
    // Android's SDK (under `$ANDROID_HOME`) and virtual devices (`~/.android/avd`).
    ("sdkmanager", Needs::AnyBut(&["--list", "--list_installed", "--version", "--help"]), SYSTEM_PKG, "`sdkmanager --list` (read-only) is allowed"),
    ("avdmanager", Needs::Verb(&["create", "delete", "move"], &[]), USER_CONFIG, "`avdmanager list` (read-only) is allowed"),
    // The user's configuration, keyrings and keychains (session 13).
    ("kubectl", Needs::Verb2(&["config"], &["set-context", "use-context", "use", "set-cluster", "set-credentials", "set", "unset", "delete-context", "delete-cluster", "delete-user", "rename-context"]), KUBECONFIG, "`kubectl --context <name> ...` for one command, or `KUBECONFIG=<file in the repository or /tmp>`, is allowed"),
    ("gpg", Needs::Flag(GPG_KEYRING, &["--dry-run"]), KEYRING, "`gpg --verify`, `gpg --list-keys` and `gpg --show-keys <file>` (read-only) are allowed"),
    ("gpg2", Needs::Flag(GPG_KEYRING, &["--dry-run"]), KEYRING, "`gpg --verify`, `gpg --list-keys` and `gpg --show-keys <file>` (read-only) are allowed"),
    ("security", Needs::Verb(KEYCHAIN_VERBS, &[]), KEYCHAIN, "`security find-identity`, `security list-keychains` (read-only) are allowed"),
    ("security", Needs::Verb(&["default-keychain", "list-keychains", "login-keychain"], &["-s"]), KEYCHAIN, "`security list-keychains` (read-only) is allowed"),
];

/// Rows that change the system only when run as root (`sudo pip install`: root's pip is the
/// system's, `sudo` does not keep a virtual environment's PATH).
#[rustfmt::skip]
const AS_ROOT: &[Row] = &[
    ("pip", Needs::Verb(&["install", "uninstall", "download"], &[]), SYSTEM_PYTHON, "the same install without `sudo`, into the project's virtual environment, is allowed"),
    ("pip3", Needs::Verb(&["install", "uninstall", "download"], &[]), SYSTEM_PYTHON, "the same install without `sudo`, into the project's virtual environment, is allowed"),
    ("uv", Needs::Verb2(&["pip"], &["install", "uninstall", "sync"]), SYSTEM_PYTHON, "the same install without `sudo`, into the project's virtual environment, is allowed"),
    ("npm", Needs::Verb(NPM_INSTALL, &[]), GLOBAL, "the same install without `sudo`, into the project's `node_modules`, is allowed"),
];

const SYSTEM_PYTHON: &str = "changes the system Python's packages: pawl could not undo it";
const USER_CONFIG: &str = "changes the user's configuration outside the repository: every later command on this machine would see it, and pawl could not undo it";
const NPM_PROJECT: &[&str] = &["--location=project", "--location project", "-L project"];

/// Task runners: `(program, how many leading words are its own before the target)`.
#[rustfmt::skip]
const TASK_RUNNERS: &[(&str, usize)] = &[
    ("make", 0), ("gmake", 0), ("just", 0), ("task", 0), ("rake", 0), ("invoke", 0),
    ("inv", 0), ("mage", 0), ("poe", 0), ("gradle", 0), ("gradlew", 0), ("mvn", 0),
    ("mvnw", 0), ("sbt", 0), ("ant", 0), ("grunt", 0), ("gulp", 0), ("doit", 0),
];

/// Whether a task's name says it publishes: one of its `:`-separated parts is `publish`,
/// `deploy`, `release`, `upload` or `ship`, or starts with `publish`/`deploy`
/// (`publishToMavenCentral`, `deploy-prod`); `release:perform`; the Sonar scanner's goal and
/// tasks (`mvn sonar:sonar`, `gradle sonar`, `sonarqube`), which send the analysis and the
/// sources it quotes to a server.
fn publishing_target(name: &str) -> bool {
    name.split(':').any(|part| {
        let p = part.to_ascii_lowercase();
        matches!(
            p.as_str(),
            "publish"
                | "deploy"
                | "release"
                | "upload"
                | "ship"
                | "perform"
                | "sonar"
                | "sonarqube"
        ) || p.starts_with("publish")
            || p.starts_with("deploy")
    })
}

/// A size such as `500G`, `1g`, `2T`, `4096M` in bytes (`None` when not a size).
fn size_bytes(text: &str) -> Option<u128> {
    let t = text.trim();
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let n: u128 = digits.parse().ok()?;
    let unit = t[digits.len()..].to_ascii_uppercase();
    let mult: u128 = match unit.trim_end_matches(['B', 'I']) {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        "P" => 1 << 50,
        _ => return None,
    };
    Some(n.saturating_mul(mult))
}

/// More than this many bytes written, allocated or read from an endless device is exhaustion.
const HUGE: u128 = 8 << 30;

impl Walker<'_> {
    /// The rows above for one command (`base` is the program's name, `args` its arguments).
    pub(crate) fn effects(&mut self, base: &str, args: &[Arg], frame: &Frame) -> Judged {
        if super::is_help(args) {
            return Continue(());
        }
        let base = base.trim_start_matches("./");
        // `python -m pip install --user x` is pip.
        let (base, args) = pip_module(base, args);
        if let Some(why) = row_hit(PERSIST, base, args) {
            return self.deny(frame, RuleId::Persist, why);
        }
        self.task_runner(base, args, frame)?;
        self.exhaustion(base, args, frame)
    }

    /// The rows of [`AS_ROOT`] for a command `sudo` runs.
    pub(crate) fn effects_as_root(&mut self, base: &str, args: &[Arg], frame: &Frame) -> Judged {
        if super::is_help(args) {
            return Continue(());
        }
        let (base, args) = pip_module(base.rsplit('/').next().unwrap_or(base), args);
        match row_hit(AS_ROOT, base, args) {
            Some(why) => self.deny(frame, RuleId::Persist, format!("as root, {why}")),
            None => Continue(()),
        }
    }
}

/// `python -m pip install ...` is pip.
fn pip_module<'a>(base: &'a str, args: &'a [Arg]) -> (&'a str, &'a [Arg]) {
    if base.starts_with("python")
        && args.first().is_some_and(|a| a.is("-m"))
        && args.get(1).is_some_and(|a| a.is("pip") || a.is("pip3"))
    {
        ("pip", &args[2..])
    } else {
        (base, args)
    }
}

/// The first two operands (words not starting with `-`) are one of `firsts`, then one of
/// `seconds` (`npm config set`, `uv pip install`).
fn two_verbs(args: &[Arg], firsts: &[&str], seconds: &[&str]) -> bool {
    let mut ops = operands(args);
    ops.next()
        .is_some_and(|f| firsts.contains(&f.text.as_str()))
        && ops
            .next()
            .is_some_and(|s| seconds.contains(&s.text.as_str()))
}

/// Long options of the rows' programs that take their value as the next word.
const LONG_VALUES: &[&str] = &[
    "--context",
    "--kubeconfig",
    "--namespace",
    "--cluster",
    "--homedir",
    "--keyring",
];

/// The operands of `args`: the words not starting with `-`, less the value of a long option
/// that takes one (`kubectl --context dev config set-cluster`: `dev` is the option's).
fn operands(args: &[Arg]) -> impl Iterator<Item = &Arg> {
    let mut skip = false;
    args.iter().filter(move |a| {
        let t = a.text.as_str();
        if std::mem::take(&mut skip) {
            return false;
        }
        if t.starts_with('-') {
            skip = LONG_VALUES.contains(&t);
            return false;
        }
        true
    })
}

/// Whether any argument is one of `flags`; an entry with a space is two arguments in a row.
fn any_flag(args: &[Arg], flags: &[&str]) -> bool {
    flags.iter().any(|f| match f.split_once(' ') {
        Some((a, b)) => args.windows(2).any(|w| w[0].is(a) && w[1].is(b)),
        None => args.iter().any(|a| a.is(f)),
    })
}

/// The reason of the first row of `table` that `base args` matches.
fn row_hit(table: &[Row], base: &str, args: &[Arg]) -> Option<String> {
    let first = operands(args).next();
    for (program, needs, effect, allowed) in table {
        if *program != base {
            continue;
        }
        let hit = match needs {
            Needs::Any => true,
            Needs::AnyBut(readers) => !args.iter().any(|a| readers.contains(&a.text.as_str())),
            Needs::Verb(verbs, flags) => {
                first.is_some_and(|f| verbs.contains(&f.text.as_str()))
                    && (flags.is_empty() || args.iter().any(|a| flags.contains(&a.text.as_str())))
            }
            Needs::Verb2(firsts, seconds) => two_verbs(args, firsts, seconds),
            Needs::VerbBut(verbs, readers) => {
                let mut ops = operands(args);
                ops.next().is_some_and(|f| verbs.contains(&f.text.as_str()))
                    && !ops
                        .next()
                        .is_some_and(|s| readers.contains(&s.text.as_str()))
            }
            Needs::Verb2Flag(firsts, seconds, flags, not) => {
                two_verbs(args, firsts, seconds)
                    && (flags.is_empty() || any_flag(args, flags))
                    && !any_flag(args, not)
            }
            Needs::Flag(flags, readers) => {
                args.iter().any(|a| flags.contains(&a.text.as_str()))
                    && !args.iter().any(|a| readers.contains(&a.text.as_str()))
                    && (base != "git" || first.is_some_and(|f| f.is("config")))
            }
        };
        if hit {
            let what: Vec<&str> = std::iter::once(base)
                .chain(args.iter().take(3).map(|a| a.text.as_str()))
                .collect();
            return Some(reason(&what.join(" "), effect, allowed));
        }
    }
    None
}

impl Walker<'_> {
    fn task_runner(&mut self, base: &str, args: &[Arg], frame: &Frame) -> Judged {
        let runner = TASK_RUNNERS.iter().any(|(p, _)| *p == base);
        // `npm run x`, `pnpm run x`, `yarn run x`, `bun run x`; `yarn x`/`pnpm x` of a script;
        // `cargo make x`, `nox -s x`, `tox -e x`.
        let operands: Vec<&Arg> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
        let target: Option<&Arg> = match base {
            _ if runner => {
                // Make's `VAR=value` operands are not targets; the dry-run forms print only.
                if args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "-n" | "--dry-run"
                            | "--just-print"
                            | "--recon"
                            | "--dry"
                            | "-l"
                            | "--list"
                            | "--summary"
                            | "-T"
                            | "--tasks"
                    )
                }) {
                    return Continue(());
                }
                return match operands.iter().find(|a| a.known && !a.text.contains('=') && publishing_target(&a.text)) {
                    Some(t) => self.deny(
                        frame,
                        RuleId::Publish,
                        reason(
                            &format!("{base} {}", t.text),
                            "runs a task whose name says it publishes, deploys or releases: what leaves the machine cannot be taken back",
                            if matches!(base, "make" | "gmake" | "just") {
                                "the same command with `-n` (prints the recipe) is allowed"
                            } else {
                                "run the task's build or check steps by name instead"
                            },
                        ),
                    ),
                    None => Continue(()),
                };
            }
            "npm" | "pnpm" | "yarn" | "bun" => match operands.first() {
                Some(v) if matches!(v.text.as_str(), "run" | "run-script" | "rum" | "urn") => {
                    operands.get(1).copied()
                }
                Some(v) if base != "npm" && base != "bun" => Some(*v),
                _ => None,
            },
            "cargo" => match operands.first() {
                Some(v) if v.is("make") => operands.get(1).copied(),
                _ => None,
            },
            "nox" | "tox" => args
                .windows(2)
                .find(|w| matches!(w[0].text.as_str(), "-s" | "--session" | "-e" | "--sessions"))
                .map(|w| &w[1]),
            _ => None,
        };
        if let Some(t) = target
            && t.known
            && t.text.split(',').any(publishing_target)
            && !args
                .iter()
                .any(|a| matches!(a.text.as_str(), "--dry-run" | "-n"))
        {
            return self.deny(
                frame,
                RuleId::Publish,
                reason(
                    &format!("{base} {}", t.text),
                    "runs a task whose name says it publishes, deploys or releases: what leaves the machine cannot be taken back",
                    "run the task's build or check steps by name instead",
                ),
            );
        }
        Continue(())
    }

    fn exhaustion(&mut self, base: &str, args: &[Arg], frame: &Frame) -> Judged {
        let deny = |w: &mut Self, what: &str| {
            w.deny(
                frame,
                RuleId::Exhaustion,
                format!("`{what}` would exhaust the machine's memory, disk or processes; the same work with a bounded size or count is allowed"),
            )
        };
        let value = |flag: &str| {
            args.iter().enumerate().find_map(|(i, a)| {
                a.text.strip_prefix(flag).and_then(|v| {
                    if v.is_empty() {
                        args.get(i + 1).map(|n| n.text.as_str())
                    } else {
                        Some(v.trim_start_matches('='))
                    }
                })
            })
        };
        match base {
            "stress" | "stress-ng" => return deny(self, base),
            "fallocate"
                if value("-l")
                    .or_else(|| value("--length"))
                    .and_then(size_bytes)
                    .is_some_and(|n| n > HUGE) =>
            {
                return deny(self, "fallocate");
            }
            "dd" => {
                let get = |k: &str| args.iter().find_map(|a| a.text.strip_prefix(k));
                let bs = get("bs=").and_then(size_bytes).unwrap_or(512);
                if let Some(count) = get("count=").and_then(|c| c.parse::<u128>().ok())
                    && bs.saturating_mul(count) > HUGE
                    && get("of=").is_some_and(|o| o != "/dev/null")
                {
                    return deny(self, "dd");
                }
            }
            "head"
                if value("-c")
                    .or_else(|| value("--bytes"))
                    .and_then(size_bytes)
                    .is_some_and(|n| n > HUGE) =>
            {
                return deny(self, "head -c");
            }
            "xargs" | "parallel"
                if args.windows(2).any(|w| {
                    matches!(w[0].text.as_str(), "-P" | "--max-procs" | "-j" | "--jobs")
                        && w[1].is("0")
                }) || args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "-P0" | "--max-procs=0" | "-j0" | "--jobs=0"
                    )
                }) =>
            {
                return deny(self, &format!("{base} -P 0"));
            }
            _ => {}
        }
        Continue(())
    }
}

/// `"`what` effect; allowed"`.
fn reason(what: &str, effect: &str, allowed: &str) -> String {
    if allowed.is_empty() {
        format!("`{what}` {effect}")
    } else {
        format!("`{what}` {effect}; {allowed}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_targets() {
        assert_eq!(size_bytes("500G"), Some(500 << 30));
        assert_eq!(size_bytes("4k"), Some(4096));
        assert_eq!(size_bytes("x"), None);
        assert!(publishing_target("publish"));
        assert!(publishing_target("release:perform"));
        assert!(publishing_target("publishToMavenCentral"));
        assert!(!publishing_target("prepublish"));
        assert!(!publishing_target("release-tool"));
        assert!(!publishing_target("build"));
    }
}
