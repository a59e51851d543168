//! Script files that already exist: `bash x.sh`, `source x`, `./x.sh`, `npm test`. The guard
//! does no I/O itself; a caller that can read files passes a [`ScriptReader`] in the
//! [`Context`](crate::Context), and the text of a script a command runs is walked like the
//! command itself. Without a reader (the default, [`NoScripts`]) such a script stays opaque.

use std::collections::HashMap;

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::paths::{is_within, normalize, relative_to};
use crate::registry;
use crate::walk::Judged;
use crate::walk::{Cmd, Frame, Shell, Stdin, Walker};
use crate::words::{self, Arg};

/// Largest script file (or `package.json`) the guard walks, in bytes; a longer one is denied.
pub const MAX_SCRIPT_BYTES: usize = 256 * 1024;

/// Most distinct script files read for one decision.
const MAX_SCRIPT_FILES: usize = 64;

/// Reads the text of a file a command runs as a script, lazily, when the guard needs it.
pub trait ScriptReader: Send + Sync {
    /// The text of the regular file at `path` (absolute, normalised), with invalid UTF-8
    /// replaced. It must not block: answer `None` for anything but a regular file (a FIFO,
    /// a device, a socket, a directory).
    /// A reader need not read more than [`MAX_SCRIPT_BYTES`] + 1 bytes: a longer text is
    /// denied anyway. `None` when the file does not exist or cannot be read (the script is
    /// then opaque, as without a reader).
    fn read_script(&self, path: &str) -> Option<String>;

    /// Whether something other than a regular file or a directory is at `path` (absolute,
    /// normalised; links followed): a FIFO, a socket, a character or block device. What a shell
    /// or a debugger reads from one is whatever its writer sends (a process of an earlier call),
    /// which the guard cannot read, so running it as a script is denied (fail closed). It must
    /// not open the file. `false` when it cannot be told (the default: the script is then
    /// opaque, as a missing one is).
    fn is_special(&self, path: &str) -> bool {
        let _ = path;
        false
    }
}

/// A [`ScriptReader`] that reads nothing: scripts run from files are opaque. The default in
/// [`Context::new`](crate::Context::new).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoScripts;

impl ScriptReader for NoScripts {
    fn read_script(&self, _path: &str) -> Option<String> {
        None
    }
}

/// How a file run directly (`./x`) is executed, from its first line.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Program {
    /// A shell script: a POSIX shell's `#!` line, or text with no `#!` (bash runs it itself).
    Shell,
    /// Another interpreter, or a binary: opaque.
    Other,
}

/// Classifies the text of a file that is executed directly.
pub(crate) fn program_kind(text: &str) -> Program {
    let Some(line) = text.strip_prefix("#!") else {
        // Without `#!`, bash runs a text file as a shell script; a binary is not text.
        return if text.contains('\0') {
            Program::Other
        } else {
            Program::Shell
        };
    };
    let line = line.lines().next().unwrap_or("");
    let mut words = line.split_ascii_whitespace();
    let Some(first) = words.next() else {
        return Program::Shell;
    };
    let mut name = first.rsplit('/').next().unwrap_or(first);
    if name == "env" {
        // `#!/usr/bin/env [-S] [NAME=VALUE...] bash -e`
        name = words
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .map(|w| w.rsplit('/').next().unwrap_or(w))
            .unwrap_or("");
    }
    if registry::POSIX_SHELLS.contains(&name) {
        Program::Shell
    } else {
        Program::Other
    }
}

/// The lifecycle scripts of `package.json` a package-manager command runs, in order, with the
/// arguments it passes to the main script. `None` when the command runs no script of the
/// package.
fn package_scripts(base: &str, args: &[Arg]) -> Option<PackageRun> {
    // Options that take a value, per manager.
    let valued: &[&str] = match base {
        "npm" => &[
            "--prefix",
            "-C",
            "--workspace",
            "-w",
            "--script-shell",
            "--userconfig",
        ],
        "yarn" => &["--cwd", "--modules-folder", "--cache-folder"],
        "pnpm" => &["--dir", "-C", "--filter", "-F", "--workspace-root"],
        _ => return None,
    };
    let mut dir: Option<Arg> = None;
    // Workspace options count anywhere before `--` (package managers read options after the
    // script's name too).
    let mut workspace = args.iter().take_while(|a| !a.is("--")).any(|a| {
        let option = a.text.split_once('=').map_or(a.text.as_str(), |(o, _)| o);
        matches!(
            option,
            "-w" | "--workspace"
                | "--workspaces"
                | "-ws"
                | "--filter"
                | "-F"
                | "-r"
                | "--recursive"
        ) && (base != "yarn" || option != "-w")
    });
    let mut words: Vec<&Arg> = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let text = arg.text.as_str();
        if !words.is_empty() {
            words.push(arg);
            continue;
        }
        if text == "--" {
            break;
        }
        if let Some((option, value)) = text.split_once('=')
            && option.starts_with('-')
        {
            match option {
                "--prefix" | "--cwd" | "--dir" => dir = Some(Arg::lit(value)),
                "--workspace" | "--filter" | "--workspaces" => workspace = true,
                _ => {}
            }
            continue;
        }
        if valued.contains(&text) {
            let value = iter.next();
            match text {
                "--prefix" | "-C" | "--cwd" | "--dir" => dir = value.cloned(),
                "--workspace" | "-w" | "--filter" | "-F" => workspace = true,
                _ => {}
            }
            continue;
        }
        if matches!(text, "--workspaces" | "-ws" | "-r" | "--recursive") {
            workspace = true;
            continue;
        }
        if text.starts_with('-') {
            continue;
        }
        words.push(arg);
    }
    let sub = words.first().and_then(|a| a.exact());
    let (main, rest): (Option<String>, &[&Arg]) = match (base, sub) {
        (_, Some("run" | "run-script" | "rum" | "urn")) => {
            // The script's name is the first operand after `run`.
            let name_at = words
                .iter()
                .skip(1)
                .position(|a| !a.text.starts_with('-'))
                .map(|i| i + 1)?;
            let name = words[name_at].exact()?.to_owned();
            (Some(name), &words[name_at + 1..])
        }
        ("npm", Some("test" | "t" | "tst")) => (Some("test".into()), &words[1..]),
        ("npm", Some(s @ ("start" | "stop" | "restart"))) => (Some(s.into()), &words[1..]),
        ("npm", Some("install" | "i" | "ci" | "add" | "isntall" | "in")) if words.len() == 1 => {
            return Some(PackageRun::install(dir, workspace));
        }
        ("npm", _) => return None,
        // `yarn`/`pnpm` alone install (not `yarn --version`); `yarn install` too.
        (_, None)
            if args
                .iter()
                .any(|a| matches!(a.text.as_str(), "-v" | "--version" | "-h" | "--help")) =>
        {
            return None;
        }
        (_, None | Some("install" | "i")) if words.len() <= 1 => {
            return Some(PackageRun::install(dir, workspace));
        }
        // `yarn test`, `pnpm build`: a script of that name when there is one.
        (_, Some(name)) => (Some(name.to_owned()), &words[1..]),
        (_, None) => return None,
    };
    let main = main?;
    let rest: Vec<Arg> = rest
        .iter()
        .skip_while(|a| a.is("--"))
        .map(|a| (*a).clone())
        .collect();
    let names = vec![format!("pre{main}"), main.clone(), format!("post{main}")];
    Some(PackageRun {
        dir,
        workspace,
        names,
        main,
        args: rest,
    })
}

/// What a package-manager command runs from `package.json`.
struct PackageRun {
    /// `--prefix`/`--cwd`/`-C`: where the package is.
    dir: Option<Arg>,
    /// A workspace or recursive run: the scripts of other packages.
    workspace: bool,
    /// Script names, in the order they run.
    names: Vec<String>,
    /// The script that receives the extra arguments.
    main: String,
    args: Vec<Arg>,
}

impl PackageRun {
    fn install(dir: Option<Arg>, workspace: bool) -> Self {
        let names = [
            "preinstall",
            "install",
            "postinstall",
            "prepublish",
            "preprepare",
            "prepare",
            "postprepare",
        ];
        Self {
            dir,
            workspace,
            names: names.iter().map(|s| (*s).to_owned()).collect(),
            main: String::new(),
            args: Vec::new(),
        }
    }
}

impl Walker<'_> {
    /// The text of the file at `path` through the context's reader, cached; `Err` with a
    /// reason when the guard must deny (too long, too many files).
    pub(crate) fn read_file(&mut self, path: &str) -> Result<Option<String>, String> {
        if ["/dev/", "/proc/", "/sys/"]
            .iter()
            .any(|p| path.starts_with(p))
        {
            // Devices, descriptors and kernel files are not scripts (and reading one may block).
            return Ok(None);
        }
        if let Some(cached) = self.scripts_read.get(path) {
            return Ok(cached.clone());
        }
        if self.scripts_read.len() >= MAX_SCRIPT_FILES {
            return Err(format!(
                "the command runs more than {MAX_SCRIPT_FILES} script files"
            ));
        }
        let text = self.ctx.scripts.read_script(path);
        self.scripts_read.insert(path.to_owned(), text.clone());
        match text {
            Some(t) if t.len() > MAX_SCRIPT_BYTES => Err(format!(
                "`{path}` is longer than the {MAX_SCRIPT_BYTES} bytes the guard reads of a script"
            )),
            other => Ok(other),
        }
    }

    /// What is at `path` (absolute) when it is not a regular file the guard could read: a FIFO,
    /// socket or device (the context's reader says so), or a device or kernel file (`/dev/`,
    /// `/proc/`, `/sys/`, which the guard never reads; `/dev/null` holds nothing). `None` for a
    /// regular file, a directory, or a path that does not exist.
    pub(crate) fn not_a_regular_file(&self, path: &str) -> Option<&'static str> {
        if path == "/dev/null" {
            return None;
        }
        if ["/dev/", "/proc/", "/sys/"]
            .iter()
            .any(|p| path.starts_with(p))
        {
            return Some("a device or kernel file");
        }
        self.ctx
            .scripts
            .is_special(path)
            .then_some("a FIFO, socket or device, not a regular file")
    }

    /// Whether the script at `path` (absolute) is walked strictly, as a command line is (what
    /// cannot be known in it is denied): an untracked file in the repository or a temp
    /// directory, where an agent writes scripts to run later. Elsewhere (a tracked `./gradlew`,
    /// a system script, a virtualenv's `bin/activate`) only what surely matches a rule is
    /// denied: such scripts are full of values known only at run time.
    fn strict_script(&self, path: &str) -> bool {
        if path.ends_with("/bin/activate") {
            return false;
        }
        if let Some(rel) = self
            .anchors
            .repo_root
            .as_deref()
            .and_then(|root| relative_to(path, root))
        {
            return !rel.is_empty() && !self.ctx.tracked.is_tracked(rel);
        }
        ["/tmp"]
            .into_iter()
            .chain(self.anchors.tmpdir.as_deref())
            .any(|dir| is_within(path, dir))
    }

    /// The nearest `package.json` at or above `start` that the script reader returns: its
    /// directory and text (`None` when there is none the guard can read).
    pub(crate) fn nearest_package_json(
        &mut self,
        start: &str,
        frame: &Frame,
    ) -> Judged<Option<(String, String)>> {
        let found = self.nearest_file(start, &["package.json"], frame)?;
        Continue(found.map(|(dir, _, text)| (dir, text)))
    }

    /// The nearest directory at or above `start` holding one of `names` that the script reader
    /// returns: the directory, the name found (the first of `names` there) and its text.
    pub(crate) fn nearest_file<'n>(
        &mut self,
        start: &str,
        names: &[&'n str],
        frame: &Frame,
    ) -> Judged<Option<(String, &'n str, String)>> {
        let mut dir = normalize("/", start);
        loop {
            for name in names {
                match self.read_file(&format!("{}/{name}", dir.trim_end_matches('/'))) {
                    Ok(Some(text)) => return Continue(Some((dir, name, text))),
                    Ok(None) => {}
                    Err(reason) => {
                        self.deny(frame, RuleId::TooLarge, reason)?;
                        return Continue(None);
                    }
                }
            }
            if dir == "/" {
                return Continue(None);
            }
            dir = match dir.rsplit_once('/') {
                Some(("", _)) | None => "/".to_owned(),
                Some((parent, _)) => parent.to_owned(),
            };
        }
    }

    /// The text of the file `file` names, when the guard can know it: what this command line
    /// wrote there (when it wrote the whole file with known text), else what is on disk.
    pub(crate) fn file_text(&mut self, shell: &Shell, file: &Arg) -> Option<String> {
        let path = self.resolve(shell, file.exact()?)?;
        if let Some(at) = self.written.iter().rposition(|(w, _)| *w == path) {
            return if self.partial_writes.contains(&(at + 1)) {
                None
            } else {
                self.written[at].1.clone()
            };
        }
        self.read_file(&path).ok().flatten()
    }

    /// Walks the script file `script` that `runner` runs (`bash x.sh`, `source x`, `./x`, where
    /// `runner` is `exec`). True when its text was read and walked.
    pub(crate) fn script_file(
        &mut self,
        runner: &str,
        script: &Arg,
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged<bool> {
        if runner != "exec"
            && !registry::POSIX_SHELLS.contains(&runner)
            && !registry::SOURCE.contains(&runner)
        {
            return Continue(false);
        }
        let Some(text) = script.exact() else {
            return Continue(false);
        };
        if self.is_written(shell, script) {
            // Written earlier in this command: judged as such (the file's text on disk is old).
            return Continue(false);
        }
        let Some(path) = self.resolve(shell, text) else {
            return Continue(false);
        };
        if runner != "exec"
            && let Some(what) = self.not_a_regular_file(&path)
        {
            // `sh FIFO`, `source FIFO`, `bash < FIFO`: the text is whatever a writer sends.
            // (A FIFO cannot be executed: `./fifo` fails.)
            self.deny(
                frame,
                RuleId::NotStatic,
                format!(
                    "{runner} runs `{text}`, {what}: the script is whatever is written into it, which the guard cannot read; run a regular file"
                ),
            )?;
            return Continue(true);
        }
        let content = match self.read_file(&path) {
            Ok(Some(content)) => content,
            Ok(None) => return Continue(false),
            Err(reason) => {
                self.deny(frame, RuleId::TooLarge, reason)?;
                return Continue(true);
            }
        };
        if runner == "exec" && program_kind(&content) != Program::Shell {
            return Continue(false);
        }
        if content.contains('\0') {
            return Continue(false);
        }
        let mut sub = shell.clone();
        // The script's own positional parameters are not the caller's.
        sub.vars.retain(|name, _| {
            !(name.chars().all(|c| c.is_ascii_digit()) || matches!(name.as_str(), "@" | "*" | "#"))
        });
        let mut inner = frame
            .nested(&format!("script {text}"))
            .with_stdin(stdin.clone());
        // The script runs from its start in a process of its own.
        inner.conditional = false;
        inner.lenient = inner.lenient || !self.strict_script(&path);
        self.run_script_sized(&content, MAX_SCRIPT_BYTES, &mut sub, &inner)?;
        Continue(true)
    }

    /// `npm test`, `npm run x`, `yarn x`, `pnpm x`: walks the `package.json` scripts the
    /// command runs (with `pre`/`post` scripts), in the package's directory.
    pub(crate) fn package_manager(
        &mut self,
        base: &str,
        cmd: &Cmd,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let args: Vec<Arg> = cmd.argv.iter().skip(1).cloned().collect();
        let Some(run) = package_scripts(base, &args) else {
            return Continue(());
        };
        if run.workspace {
            // Other packages' scripts: where they are is not modelled.
            return Continue(());
        }
        let start = match &run.dir {
            Some(dir) => dir.exact().and_then(|d| self.resolve(shell, d)),
            None => shell.cwd.clone(),
        };
        let Some(start) = start else {
            return Continue(());
        };
        let Some((package_dir, json)) = self.nearest_package_json(&start, frame)? else {
            return Continue(());
        };
        let file = format!("{}/package.json", package_dir.trim_end_matches('/'));
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&json) else {
            // The package manager fails on it too.
            return Continue(());
        };
        let lenient = !self.strict_script(&file);
        for name in &run.names {
            let Some(script) = value
                .get("scripts")
                .and_then(|s| s.get(name))
                .and_then(|s| s.as_str())
            else {
                continue;
            };
            let mut text = script.to_owned();
            if *name == run.main {
                for arg in &run.args {
                    text.push(' ');
                    text.push_str(&words::quote(arg));
                }
            }
            // Scripts run with `sh -c` in the package's directory.
            let mut sub = shell.clone();
            sub.cwd = Some(package_dir.clone());
            let mut inner = frame
                .nested(&format!("{base} script `{name}`"))
                .with_stdin(cmd.stdin.clone());
            inner.lenient = inner.lenient || lenient;
            self.run_script(&text, &mut sub, &inner)?;
        }
        Continue(())
    }
}

/// The reads one decision made, by path.
pub(crate) type ReadCache = HashMap<String, Option<String>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_classified_by_their_first_line() {
        assert_eq!(program_kind("#!/bin/sh\nrm -rf src\n"), Program::Shell);
        assert_eq!(program_kind("#!/usr/bin/env bash\n"), Program::Shell);
        assert_eq!(program_kind("#!/usr/bin/env -S bash -e\n"), Program::Shell);
        assert_eq!(program_kind("#! /bin/bash -eu\n"), Program::Shell);
        assert_eq!(program_kind("rm -rf src\n"), Program::Shell);
        assert_eq!(program_kind("#!/usr/bin/env python3\n"), Program::Other);
        assert_eq!(program_kind("\x7fELF\0\0"), Program::Other);
    }
}
