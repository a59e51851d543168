//! File rules: deletion (`rm`, `find -delete` is in the walker), other
//! destructive commands (`truncate`, `dd`, `shred`, `rsync --delete`),
//! clobbering tracked files, and writes to protected paths.
//!
//! Paths are judged lexically against the policy; the guard never looks
//! at the filesystem, so "tracked" comes from the context and an unknown
//! path is treated as possibly protected.

use crate::decision::RuleId;
use crate::paths::is_within;
use crate::rules::{self, Spec};
use crate::walk::{Frame, Shell, Walker, WriteMode};
use crate::words::Arg;

/// Paths that may be written freely: they are not files.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/tty",
    "/dev/zero",
];

fn is_device(path: &str) -> bool {
    DEVICES.contains(&path) || path.starts_with("/dev/fd/")
}

/// The directory part of a glob before its first wildcard component.
fn glob_prefix(text: &str) -> &str {
    let first_wild = text.find(['*', '?', '[']).unwrap_or(text.len());
    match text[..first_wild].rfind('/') {
        Some(slash) => &text[..slash.max(1)],
        None => ".",
    }
}

impl Walker<'_> {
    /// The absolute path an argument names, or a denial reason.
    fn target_path(&self, shell: &Shell, arg: &Arg) -> Result<String, String> {
        if !arg.known {
            return Err(format!("`{}` is not statically known", arg.text));
        }
        self.resolve(shell, &arg.text).ok_or_else(|| {
            format!(
                "`{}` is relative to a directory that is not statically known",
                arg.text
            )
        })
    }

    pub(crate) fn is_protected(&self, absolute: &str) -> bool {
        self.policy
            .protected_paths
            .matches(&self.anchors.forms(absolute), true)
    }

    fn is_tracked_path(&self, absolute: &str) -> (bool, bool) {
        let Some(root) = self.anchors.repo_root.as_deref() else {
            return (false, false);
        };
        match crate::paths::relative_to(absolute, root) {
            Some("") => (false, true),
            Some(rel) => (
                self.ctx.tracked.is_tracked(rel),
                self.ctx.tracked.has_tracked_under(rel),
            ),
            None => (false, false),
        }
    }

    /// Whether `rm -r` may remove `absolute`: it must match an allowance
    /// and must not be (or contain) the repository, `$HOME` or `/tmp`.
    fn removable(&self, absolute: &str) -> bool {
        let guarded = ["/", "/tmp"]
            .into_iter()
            .map(str::to_owned)
            .chain(self.anchors.repo_root.clone())
            .chain(self.anchors.home.clone())
            .chain(self.anchors.tmpdir.clone());
        for place in guarded {
            if is_within(&place, absolute) {
                return false;
            }
        }
        let mut forms = self.anchors.forms(absolute);
        if let Some(root) = self.anchors.repo_root.as_deref()
            && let Some(rel) = crate::paths::relative_to(absolute, root)
        {
            // Inside the repository git's and pawl's own state are never removable, and only
            // in-repository allowances (build outputs) count: the temp-dir allowances must not
            // make a whole repository removable because it happens to live under /tmp.
            let first = rel.split('/').next().unwrap_or("");
            if first == ".git" || first == ".pawl" {
                return false;
            }
            forms = crate::policy::PathForms {
                absolute: String::new(),
                home: None,
                tmpdir: None,
                relative: Some(rel.to_owned()),
            };
        }
        self.policy.allowances.matches(&forms, false)
    }

    /// Whether an argument (a path or a glob) lies in an allowance.
    pub(crate) fn in_allowance(&self, shell: &Shell, arg: &Arg) -> bool {
        if !arg.known {
            return false;
        }
        let text = if arg.glob {
            // Everything the glob can match lies under its fixed prefix;
            // probe a child of it.
            if arg.text.contains("..") {
                return false;
            }
            format!("{}/__pawl_glob__", glob_prefix(&arg.text))
        } else {
            arg.text.clone()
        };
        self.resolve(shell, &text)
            .is_some_and(|absolute| self.removable(&absolute))
    }

    /// Judges one write to `arg`.
    pub(crate) fn check_write(
        &mut self,
        arg: &Arg,
        mode: WriteMode,
        shell: &Shell,
        frame: &Frame,
        what: &str,
    ) {
        if arg.known && is_device(&arg.text) {
            return;
        }
        if arg.glob {
            if !self.in_allowance(shell, arg) {
                self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!(
                        "{what} `{}`: a glob may match protected or tracked files",
                        arg.text
                    ),
                );
            }
            return;
        }
        let absolute = match self.target_path(shell, arg) {
            Ok(p) => p,
            Err(why) => {
                self.deny(
                    frame,
                    RuleId::NotStatic,
                    format!("{what} to {why}; it may be a protected or tracked file"),
                );
                return;
            }
        };
        if is_device(&absolute) {
            return;
        }
        if self.is_protected(&absolute) {
            self.deny(
                frame,
                RuleId::ProtectedPath,
                format!(
                    "{what} `{}`: the path is protected by the guard policy",
                    arg.text
                ),
            );
            return;
        }
        if mode == WriteMode::Clobber && self.is_tracked_path(&absolute).0 {
            self.deny(
                frame,
                RuleId::Clobber,
                format!(
                    "{what} `{}` would overwrite a tracked file; append with >> or edit it instead",
                    arg.text
                ),
            );
        }
    }

    /// Judges a destination that must be a temp or allowed location
    /// (`truncate`, `shred`, `dd of=`, `rsync --delete`).
    fn only_in_allowance(&mut self, shell: &Shell, arg: &Arg, frame: &Frame, what: &str) {
        if arg.known && is_device(&arg.text) {
            return;
        }
        if !self.in_allowance(shell, arg) {
            self.deny(
                frame,
                RuleId::DestructiveShell,
                format!(
                    "{what} `{}` destroys file contents outside the temp and build directories",
                    arg.text
                ),
            );
        }
    }

    /// Rules for commands that are neither wrappers, shells, git nor
    /// interpreters.
    pub(crate) fn file_rules(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) {
        let plain = Spec {
            short_values: "",
            long_values: &[],
            stop_at_operand: false,
        };
        match base {
            "rm" => self.rm(args, shell, frame),
            "unlink" => {
                for arg in args {
                    self.check_delete(arg, shell, frame, "unlink");
                }
            }
            "shred" | "wipefs" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "ns",
                        long_values: &["--iterations", "--size", "--remove"],
                        stop_at_operand: false,
                    },
                );
                for arg in &p.operands {
                    self.only_in_allowance(shell, arg, frame, base);
                }
            }
            _ if base.starts_with("mkfs") => {
                self.deny(
                    frame,
                    RuleId::DestructiveShell,
                    format!("{base} formats a filesystem"),
                );
            }
            "truncate" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "sr",
                        long_values: &["--size", "--reference"],
                        stop_at_operand: false,
                    },
                );
                for arg in &p.operands {
                    self.only_in_allowance(shell, arg, frame, "truncate");
                }
            }
            "dd" => {
                for arg in args {
                    if let Some(out) = arg.text.strip_prefix("of=") {
                        let target = Arg {
                            text: out.to_owned(),
                            ..arg.clone()
                        };
                        self.only_in_allowance(shell, &target, frame, "dd of=");
                    }
                }
            }
            "rsync" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "eBfT",
                        long_values: &["--rsh", "--filter", "--exclude", "--include", "--temp-dir"],
                        stop_at_operand: false,
                    },
                );
                let deletes = p
                    .opts
                    .iter()
                    .any(|o| o.name.starts_with("--delete") || o.name == "--remove-source-files");
                if deletes && let Some(dest) = p.operands.last() {
                    self.only_in_allowance(shell, &dest.clone(), frame, "rsync --delete into");
                }
            }
            "cp" | "mv" | "install" | "ln" => self.copy_like(base, args, shell, frame),
            "tee" => {
                let p = rules::parse(args, &plain);
                let mode = if p.has(&["-a", "--append"]) {
                    WriteMode::Append
                } else {
                    WriteMode::Clobber
                };
                for arg in &p.operands {
                    self.check_write(arg, mode, shell, frame, "tee");
                }
            }
            "touch" | "mkdir" | "chmod" | "chown" | "chgrp" | "setfacl" | "chattr" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "tdrm",
                        long_values: &["--reference", "--date", "--mode"],
                        stop_at_operand: false,
                    },
                );
                let skip = usize::from(matches!(
                    base,
                    "chmod" | "chown" | "chgrp" | "setfacl" | "chattr"
                ));
                for arg in p.operands.iter().skip(skip) {
                    self.check_write(arg, WriteMode::Modify, shell, frame, base);
                }
            }
            "sed" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "efl",
                        long_values: &["--expression", "--file", "--line-length"],
                        stop_at_operand: false,
                    },
                );
                let in_place = p
                    .opts
                    .iter()
                    .any(|o| o.name == "-i" || o.name.starts_with("--in-place"))
                    || args.iter().any(|a| {
                        a.text.starts_with("-i")
                            || (a.text.starts_with('-')
                                && !a.text.starts_with("--")
                                && a.text.contains('i'))
                    });
                if in_place {
                    let script_given = p.has(&["-e", "-f", "--expression", "--file"]);
                    for arg in p.operands.iter().skip(usize::from(!script_given)) {
                        self.check_write(arg, WriteMode::Modify, shell, frame, "sed -i");
                    }
                }
            }
            "ssh-keygen" => {
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: "bCfNtZaOnIVzmEgFPRrsJjKwY",
                        long_values: &[],
                        stop_at_operand: false,
                    },
                );
                let reads = p.has(&["-l", "-y", "-F", "-R", "-B", "-e", "-i", "-L", "-Q"]);
                if !reads && let Some(file) = p.value(&["-f"]).cloned() {
                    self.check_write(&file, WriteMode::Clobber, shell, frame, "ssh-keygen -f");
                }
            }
            "curl" | "wget" | "sort" | "openssl" | "uniq" => {
                let (short, long): (&str, &[&str]) = match base {
                    "curl" => ("oHdXAeEuUwTxKbcrmy", &["--output"]),
                    "wget" => ("OoaPeUTtw", &["--output-document"]),
                    "openssl" => ("", &[]),
                    _ => ("okt", &["--output"]),
                };
                let p = rules::parse(
                    args,
                    &Spec {
                        short_values: short,
                        long_values: long,
                        stop_at_operand: false,
                    },
                );
                let mut outs: Vec<Arg> = Vec::new();
                match base {
                    "curl" => outs.extend(p.value(&["-o", "--output"]).cloned()),
                    "wget" => outs.extend(p.value(&["-O", "--output-document"]).cloned()),
                    "openssl" => {
                        if let Some(i) = args.iter().position(|a| a.is("-out") || a.is("-keyout")) {
                            outs.extend(args.get(i + 1).cloned());
                        }
                    }
                    _ => outs.extend(p.value(&["-o", "--output"]).cloned()),
                }
                for out in outs.iter().filter(|o| o.text != "-") {
                    self.check_write(out, WriteMode::Clobber, shell, frame, base);
                }
            }
            _ => {}
        }
    }

    fn check_delete(&mut self, arg: &Arg, shell: &Shell, frame: &Frame, what: &str) {
        self.check_write(arg, WriteMode::Delete, shell, frame, what);
    }

    fn rm(&mut self, args: &[Arg], shell: &Shell, frame: &Frame) {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "",
                long_values: &[],
                stop_at_operand: false,
            },
        );
        if p.has(&["--no-preserve-root"]) {
            self.deny(frame, RuleId::RecursiveDelete, "rm --no-preserve-root");
            return;
        }
        let recursive = p.has(&["-r", "-R", "--recursive"]);
        for arg in &p.operands {
            if !arg.known {
                self.deny(
                    frame,
                    if recursive {
                        RuleId::RecursiveDelete
                    } else {
                        RuleId::NotStatic
                    },
                    format!("rm of `{}`, which is not statically known", arg.text),
                );
                return;
            }
            if recursive {
                if !self.in_allowance(shell, arg) {
                    self.deny(
                        frame,
                        RuleId::RecursiveDelete,
                        format!(
                            "rm -r of `{}`: only build outputs, /tmp and $TMPDIR may be removed recursively",
                            arg.text
                        ),
                    );
                    return;
                }
                // Even an allowed directory may not hold protected paths,
                // but the allowances are build outputs; nothing more to do.
            } else if arg.glob {
                if !self.in_allowance(shell, arg) {
                    self.deny(
                        frame,
                        RuleId::DestructiveShell,
                        format!(
                            "rm `{}`: a glob may remove many files; name the file",
                            arg.text
                        ),
                    );
                    return;
                }
            } else {
                self.check_delete(arg, shell, frame, "rm");
            }
        }
    }

    fn copy_like(&mut self, base: &str, args: &[Arg], shell: &mut Shell, frame: &Frame) {
        let p = rules::parse(
            args,
            &Spec {
                short_values: "tSmogZ",
                long_values: &[
                    "--target-directory",
                    "--suffix",
                    "--mode",
                    "--owner",
                    "--group",
                    "--backup",
                ],
                stop_at_operand: false,
            },
        );
        let target_dir = p.value(&["-t", "--target-directory"]).cloned();
        let (sources, dest, dest_is_dir): (Vec<Arg>, Option<Arg>, bool) = match target_dir {
            Some(dir) => (p.operands.clone(), Some(dir), true),
            None => {
                let mut ops = p.operands.clone();
                let dest = ops.pop();
                let is_dir = ops.len() > 1 || dest.as_ref().is_some_and(|d| d.text.ends_with('/'));
                (ops, dest, is_dir)
            }
        };
        if base == "mv" {
            for source in &sources {
                self.check_write(source, WriteMode::Delete, shell, frame, "mv");
            }
        }
        let Some(dest) = dest else {
            return;
        };
        if sources.is_empty() && base == "ln" {
            // `ln -s target` links into the current directory.
            return;
        }
        let what = base.to_owned();
        if !dest_is_dir {
            self.check_write(&dest, WriteMode::Clobber, shell, frame, &what);
            if self.denial.is_some() {
                return;
            }
        }
        // The destination may be a directory: check where each source lands.
        let dest_dir_tracked = dest_is_dir
            || self
                .target_path(shell, &dest)
                .is_ok_and(|d| self.is_tracked_path(&d).1);
        if dest_dir_tracked {
            for source in &sources {
                let name = source
                    .text
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or("");
                let landed = Arg {
                    text: format!("{}/{name}", dest.text.trim_end_matches('/')),
                    known: dest.known && source.known,
                    glob: dest.glob || source.glob,
                };
                self.check_write(&landed, WriteMode::Clobber, shell, frame, &what);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::glob_prefix;

    #[test]
    fn glob_prefix_is_the_fixed_directory() {
        assert_eq!(glob_prefix("target/*"), "target");
        assert_eq!(glob_prefix("*"), ".");
        assert_eq!(glob_prefix("/tmp/x*"), "/tmp");
        assert_eq!(glob_prefix("/*"), "/");
    }
}
