//! Git rules: every push, commands that discard work, and commits or ref
//! moves on a protected branch. Global options (`-C`, `-c`, `--git-dir`,
//! ...) are skipped, `-c` settings that run programs are walked as
//! scripts, and aliases (from `-c alias.x=...`, from `git config` earlier
//! in the input, or from the context) are expanded before judging.

use crate::decision::RuleId;
use crate::rules::{self, Parsed, Spec};
use crate::walk::{Frame, Shell, Walker};
use crate::words::{self, Arg};

/// Subcommands that git runs itself; an alias cannot shadow them.
const BUILTINS: &[&str] = &[
    "add",
    "am",
    "apply",
    "bisect",
    "blame",
    "branch",
    "checkout",
    "checkout-index",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "config",
    "describe",
    "diff",
    "fetch",
    "filter-branch",
    "gc",
    "grep",
    "help",
    "init",
    "log",
    "ls-files",
    "merge",
    "mv",
    "pull",
    "push",
    "read-tree",
    "rebase",
    "reflog",
    "remote",
    "reset",
    "restore",
    "revert",
    "rm",
    "send-pack",
    "show",
    "stash",
    "status",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "update-ref",
    "worktree",
];

/// Config keys whose values git runs as commands.
fn runs_program(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.starts_with("pager.")
        || [
            "core.pager",
            "core.editor",
            "core.sshcommand",
            "core.fsmonitor",
            "core.askpass",
            "sequence.editor",
            "diff.external",
            "credential.helper",
            "gpg.program",
        ]
        .contains(&key.as_str())
        || key.ends_with(".textconv")
        || key.ends_with(".clean")
        || key.ends_with(".smudge")
        || key.ends_with(".process")
        || key.ends_with(".cmd")
}

fn spec() -> Spec<'static> {
    Spec {
        short_values: "",
        long_values: &[],
        stop_at_operand: false,
    }
}

fn short_flag(p: &Parsed, c: char) -> bool {
    p.opts.iter().any(|o| o.name == format!("-{c}"))
}

impl Walker<'_> {
    /// Judges `git <args>`.
    pub(crate) fn git(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) {
        let mut index = 0;
        let mut aliases: Vec<(String, Option<String>)> = Vec::new();
        let mut config_unknown = false;
        while index < args.len() {
            let arg = &args[index];
            let Some(text) = arg.exact() else {
                break;
            };
            if !text.starts_with('-') {
                break;
            }
            index += 1;
            match text {
                "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix"
                | "--exec-path" => {
                    index += 1;
                }
                "-c" | "--config-env" => {
                    let Some(setting) = args.get(index) else {
                        break;
                    };
                    index += 1;
                    match setting.exact().and_then(|s| s.split_once('=')) {
                        Some((key, value)) => {
                            let lower = key.to_ascii_lowercase();
                            if let Some(name) = lower.strip_prefix("alias.") {
                                aliases.push((name.to_owned(), Some(value.to_owned())));
                            } else if runs_program(key) {
                                self.script_args(
                                    &format!("git -c {key}"),
                                    &[Arg::lit(value)],
                                    shell,
                                    frame,
                                    false,
                                );
                            }
                        }
                        None if setting.known => {}
                        None => config_unknown = true,
                    }
                }
                _ => {}
            }
        }
        let Some(sub) = args.get(index) else {
            return;
        };
        let rest: Vec<Arg> = args[index + 1..].to_vec();
        let Some(name) = sub.exact().map(str::to_owned) else {
            self.fail_closed(
                frame,
                RuleId::NotStatic,
                format!("the git subcommand `{}` is not statically known", sub.text),
            );
            return;
        };
        if !BUILTINS.contains(&name.as_str()) {
            let from_input = aliases
                .iter()
                .rev()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.clone())
                .or_else(|| self.world.git_aliases.get(&name).cloned())
                .or_else(|| self.ctx.git_aliases.get(&name).cloned().map(Some));
            match from_input {
                Some(Some(value)) => {
                    self.git_alias(&name, &value, &rest, shell, frame);
                    return;
                }
                Some(None) => {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!("git alias `{name}` is not statically known"),
                    );
                    return;
                }
                None if config_unknown || self.world.git_aliases_unknown => {
                    self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!(
                            "`git {name}` may be an alias defined to something not statically known"
                        ),
                    );
                    return;
                }
                None => {}
            }
        }
        self.git_subcommand(&name, &rest, shell, frame);
    }

    fn git_alias(
        &mut self,
        name: &str,
        value: &str,
        rest: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) {
        let quoted: Vec<String> = rest.iter().map(words::quote).collect();
        let text = match value.strip_prefix('!') {
            Some(script) => format!("{script} {}", quoted.join(" ")),
            None => format!("git {value} {}", quoted.join(" ")),
        };
        let mut sub = shell.clone();
        let inner = frame.nested(&format!("git alias {name}"));
        self.run_script(&text, &mut sub, &inner);
    }

    fn on_protected_branch(&self) -> Option<String> {
        self.world.branches.iter().find_map(|b| match b {
            Some(name) if self.policy.is_protected_branch(name) => Some(name.clone()),
            Some(_) => None,
            None => Some("a branch that is not statically known".to_owned()),
        })
    }

    fn deny_if_protected(&mut self, frame: &Frame, what: &str) {
        if let Some(branch) = self.on_protected_branch() {
            self.deny(
                frame,
                RuleId::ProtectedBranch,
                format!(
                    "{what} would change `{branch}`, a protected branch; work on the run's branch"
                ),
            );
        }
    }

    /// Records that HEAD moves to `branch` (or may, in conditional code).
    fn switch_to(&mut self, branch: Option<String>, frame: &Frame) {
        if frame.conditional {
            self.world.branches.push(branch);
        } else {
            self.world.branches = vec![branch];
        }
        self.world.branches.truncate(64);
    }

    fn destructive(&mut self, frame: &Frame, what: &str) {
        self.deny(
            frame,
            RuleId::GitDestructive,
            format!("{what} discards work that git cannot give back"),
        );
    }

    /// Whether a checkout/reset operand names paths rather than a branch.
    fn looks_like_path(&self, shell: &Shell, arg: &Arg) -> bool {
        let Some(text) = arg.exact() else {
            return true;
        };
        if text == "." || text.starts_with("./") || text.starts_with(':') || arg.glob {
            return true;
        }
        let Some(root) = self.anchors.repo_root.clone() else {
            return false;
        };
        self.resolve(shell, text)
            .and_then(|abs| crate::paths::relative_to(&abs, &root).map(str::to_owned))
            .is_some_and(|rel| {
                rel.is_empty()
                    || self.ctx.tracked.is_tracked(&rel)
                    || self.ctx.tracked.has_tracked_under(&rel)
            })
    }

    fn git_subcommand(&mut self, name: &str, rest: &[Arg], shell: &mut Shell, frame: &Frame) {
        let p = rules::parse(rest, &spec());
        if p.has(&["--help", "-h"]) {
            return;
        }
        match name {
            "push" | "send-pack" | "http-push" => self.deny(
                frame,
                RuleId::GitPush,
                "git push is not allowed while a run is active; pawl publishes work when the run is verified",
            ),
            "subtree" if rest.iter().any(|a| a.is("push")) => {
                self.deny(frame, RuleId::GitPush, "git subtree push publishes to a remote");
            }
            "reset" => {
                if p.has(&["--hard", "--merge"]) {
                    self.destructive(frame, "git reset --hard/--merge");
                    return;
                }
                let moves_ref = p.has(&["--soft", "--mixed", "--keep"])
                    || (p.operands.len() == 1
                        && !rest.iter().any(|a| a.is("--"))
                        && !p.operands[0].is("HEAD")
                        && !self.looks_like_path(shell, &p.operands[0]));
                if moves_ref {
                    self.deny_if_protected(frame, "git reset");
                }
            }
            "clean"
                if !p.has(&["-n", "--dry-run"]) => {
                    self.destructive(frame, "git clean");
                }
            "checkout" => self.git_checkout(rest, &p, shell, frame),
            "switch" => {
                if p.has(&["-f", "--force", "--discard-changes", "-C", "--force-create"]) {
                    self.destructive(frame, "git switch --force/--discard-changes/-C");
                    return;
                }
                let target = if p.has(&["-c", "--create", "--orphan"]) {
                    p.operands.first().map(|a| a.exact().map(str::to_owned))
                } else if p.has(&["--detach", "-d"]) {
                    Some(Some("(detached)".to_owned()))
                } else {
                    p.operands.first().map(|a| a.exact().filter(|t| *t != "-").map(str::to_owned))
                };
                if let Some(target) = target {
                    self.switch_to(target, frame);
                }
            }
            "restore" => {
                let worktree = p.has(&["-W", "--worktree"]) || !p.has(&["-S", "--staged"]);
                if worktree {
                    self.destructive(frame, "git restore of the working tree");
                }
            }
            "branch" => self.git_branch(&p, frame),
            "stash"
                if p.operands.first().is_some_and(|a| a.is("drop") || a.is("clear")) => {
                    self.destructive(frame, "git stash drop/clear");
                }
            "rm"
                if !p.has(&["--cached"]) && (short_flag(&p, 'f') || short_flag(&p, 'r') || p.has(&["--force"])) => {
                    self.destructive(frame, "git rm -r/-f");
                }
            "update-ref" => {
                if p.has(&["-d", "--stdin"]) {
                    self.destructive(frame, "git update-ref -d/--stdin");
                } else if let Some(reference) = p.operands.first() {
                    if !reference.known {
                        self.fail_closed(frame, RuleId::NotStatic, "git update-ref of a ref that is not statically known");
                    } else if self.policy.is_protected_branch(&reference.text) || reference.is("HEAD") {
                        let shown = reference.text.clone();
                        if reference.is("HEAD") {
                            self.deny_if_protected(frame, "git update-ref HEAD");
                        } else {
                            self.deny(frame, RuleId::ProtectedBranch, format!("git update-ref moves `{shown}`, a protected branch"));
                        }
                    }
                }
            }
            "symbolic-ref" => {
                if p.has(&["-d", "--delete"]) {
                    self.destructive(frame, "git symbolic-ref --delete");
                } else if p.operands.len() >= 2 && p.operands[0].is("HEAD") {
                    let target = p.operands[1]
                        .exact()
                        .map(|t| t.strip_prefix("refs/heads/").unwrap_or(t).to_owned());
                    self.switch_to(target, frame);
                }
            }
            "checkout-index"
                if (short_flag(&p, 'f') || p.has(&["--force"])) => {
                    self.destructive(frame, "git checkout-index --force");
                }
            "read-tree"
                if p.has(&["--reset"]) && short_flag(&p, 'u') => {
                    self.destructive(frame, "git read-tree --reset -u");
                }
            "rebase" => {
                if p.has(&["--abort", "--quit", "--skip", "--edit-todo", "--show-current-patch"]) {
                    return;
                }
                let p = rules::parse(rest, &Spec { short_values: "xsX", long_values: &["--exec", "--onto", "--strategy", "--strategy-option"], stop_at_operand: false });
                if let Some(exec) = p.value(&["-x", "--exec"]).cloned() {
                    self.script_args("git rebase --exec", &[exec], shell, frame, false);
                }
                if p.operands.len() >= 2 {
                    let target = p.operands[1].exact().map(str::to_owned);
                    self.switch_to(target, frame);
                }
                self.deny_if_protected(frame, "git rebase");
            }
            "commit" | "merge" | "cherry-pick" | "revert" | "am" | "pull"
                if !p.has(&["--abort", "--quit"]) => {
                    self.deny_if_protected(frame, &format!("git {name}"));
                }
            "fetch" => {
                for operand in &p.operands {
                    if let Some((_, dst)) = operand.text.split_once(':')
                        && self.policy.is_protected_branch(dst) {
                            self.deny(frame, RuleId::ProtectedBranch, format!("git fetch into `{dst}`, a protected branch"));
                        }
                }
            }
            "filter-branch" | "filter-repo" => self.destructive(frame, &format!("git {name}")),
            "reflog"
                if p.operands.first().is_some_and(|a| a.is("expire") || a.is("delete")) => {
                    self.destructive(frame, "git reflog expire/delete");
                }
            "gc" | "prune"
                if (p.opts.iter().any(|o| o.name == "--prune" && o.value.as_ref().is_some_and(|v| v.is("now"))) || name == "prune") => {
                    self.destructive(frame, &format!("git {name} of unreachable objects"));
                }
            "worktree"
                if p.operands.first().is_some_and(|a| a.is("remove")) && (short_flag(&p, 'f') || p.has(&["--force"])) => {
                    self.destructive(frame, "git worktree remove --force");
                }
            "submodule" => {
                if let Some(at) = rest.iter().position(|a| a.is("foreach")) {
                    let script: Vec<Arg> = rest[at + 1..]
                        .iter()
                        .filter(|a| !a.text.starts_with("--"))
                        .cloned()
                        .collect();
                    self.script_args("git submodule foreach", &script, shell, frame, false);
                }
            }
            "bisect" => {
                if let Some(at) = rest.iter().position(|a| a.is("run")) {
                    let argv = rest[at + 1..].to_vec();
                    if !argv.is_empty() {
                        self.dispatch(crate::walk::Cmd { argv, stdin: crate::walk::Stdin::Inherited }, shell, &frame.nested("git bisect run"));
                    }
                }
            }
            "config" => self.git_config(&p),
            _ => {}
        }
    }

    fn git_checkout(&mut self, rest: &[Arg], p: &Parsed, shell: &Shell, frame: &Frame) {
        if p.has(&[
            "-f",
            "--force",
            "-p",
            "--patch",
            "--ours",
            "--theirs",
            "-m",
            "--merge",
            "--overlay",
        ]) {
            self.destructive(frame, "git checkout --force/--patch/--ours/--theirs");
            return;
        }
        if p.has(&["-B"]) {
            self.destructive(frame, "git checkout -B (resets an existing branch)");
            return;
        }
        let dashdash = rest.iter().position(|a| a.is("--"));
        if let Some(at) = dashdash
            && at + 1 < rest.len()
        {
            self.destructive(frame, "git checkout of paths");
            return;
        }
        let creates = p.has(&["-b", "--orphan", "-c"]);
        // Options with values (`-b name`) were parsed as flags, so the new
        // branch name is the first operand.
        let operands: Vec<&Arg> = p.operands.iter().collect();
        if creates {
            let name = operands.first().and_then(|a| a.exact()).map(str::to_owned);
            self.switch_to(name, frame);
            return;
        }
        match operands.as_slice() {
            [] => {}
            [target] => {
                if dashdash.is_none() && self.looks_like_path(shell, target) {
                    self.destructive(frame, &format!("git checkout of `{}` (paths)", target.text));
                } else if p.has(&["--detach"]) {
                    self.switch_to(Some("(detached)".to_owned()), frame);
                } else {
                    let name = target.exact().filter(|t| *t != "-").map(str::to_owned);
                    self.switch_to(name, frame);
                }
            }
            _ => self.destructive(frame, "git checkout <commit> <paths>"),
        }
    }

    fn git_branch(&mut self, p: &Parsed, frame: &Frame) {
        let delete = p.has(&["-d", "--delete"]);
        let force = p.has(&["-f", "--force"]);
        if p.has(&["-D"]) || (delete && force) {
            self.destructive(frame, "git branch -D");
            return;
        }
        if p.has(&["-M", "-C"]) || (force && p.has(&["-m", "--move", "-c", "--copy"])) {
            self.destructive(frame, "git branch -M/-C (overwrites a branch)");
            return;
        }
        if force {
            self.destructive(frame, "git branch --force (moves a branch)");
            return;
        }
        if p.has(&["-m", "--move"]) {
            let touches_protected = p
                .operands
                .iter()
                .any(|a| self.policy.is_protected_branch(&a.text))
                || (p.operands.len() < 2 && self.on_protected_branch().is_some());
            if touches_protected {
                self.deny(
                    frame,
                    RuleId::ProtectedBranch,
                    "git branch -m renames a protected branch",
                );
            }
        }
        if delete
            && p.operands
                .iter()
                .any(|a| self.policy.is_protected_branch(&a.text))
        {
            self.deny(
                frame,
                RuleId::ProtectedBranch,
                "git branch -d of a protected branch",
            );
        }
    }

    fn git_config(&mut self, p: &Parsed) {
        let reading = p.has(&[
            "--get",
            "--get-all",
            "--get-regexp",
            "-l",
            "--list",
            "--unset",
            "--unset-all",
            "--show-origin",
        ]);
        if reading {
            return;
        }
        let (Some(key), Some(value)) = (p.operands.first(), p.operands.get(1)) else {
            return;
        };
        match key.exact() {
            Some(k) => {
                if let Some(alias) = k.to_ascii_lowercase().strip_prefix("alias.") {
                    let v = value.exact().map(str::to_owned);
                    self.world.git_aliases.insert(alias.to_owned(), v);
                }
            }
            None => self.world.git_aliases_unknown = true,
        }
    }
}
