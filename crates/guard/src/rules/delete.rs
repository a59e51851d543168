//! Deleters, judged in one place: the programs whose job is to remove or destroy what files and
//! devices hold — `rm` and the recursive removers (`rimraf`, `trash`, `del`, `gio trash`),
//! `unlink`, `shred`/`wipefs`, `truncate`, `dd of=`, and the formatters and partitioners. The
//! removals other programs make (`find -delete`, `tar --remove-files`, `zip -m`, `rsync
//! --remove-source-files`, `cmake -E rm`, an interpreter's `os.remove`) come here through
//! [`Walker::delete_operands`] and [`Walker::rm_as`]; what a path is (tracked, protected, an
//! allowance) is `rules/fs.rs`'s.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::rules::fs::{PLAIN, canon_long, is_lockfile};
use crate::rules::{self, Spec};
use crate::walk::{Frame, Judged, Shell, Walker, WriteMode};
use crate::words::Arg;

/// The deleters [`Walker::deleter`] judges (and every `mkfs*`).
#[rustfmt::skip]
const DELETERS: &[&str] = &[
    "rm", "rimraf", "trash", "trash-put", "del", "del-cli", "gio", "unlink", "shred", "wipefs",
    "truncate", "dd", "mkswap", "mke2fs", "blkdiscard", "mkdosfs", "mkntfs", "fdisk", "sfdisk",
    "sgdisk", "gdisk", "cfdisk", "parted",
];

/// Whether `base` is a deleter.
pub(crate) fn is_deleter(base: &str) -> bool {
    DELETERS.contains(&base) || base.starts_with("mkfs")
}

#[rustfmt::skip]
const RM_LONGS: &[&str] = &[
    "--recursive", "--force", "--no-preserve-root", "--preserve-root", "--dir", "--interactive",
    "--one-file-system", "--verbose", "--help", "--version",
];

#[rustfmt::skip]
const SHRED_LONGS: &[&str] = &[
    "--force", "--iterations", "--random-source", "--size", "--remove", "--verbose", "--exact",
    "--zero", "--help", "--version",
];

const TRUNCATE_LONGS: &[&str] = &[
    "--no-create",
    "--io-blocks",
    "--reference",
    "--size",
    "--help",
    "--version",
];

impl Walker<'_> {
    /// Judges a deleter (see [`is_deleter`]) by name; also reached through `file_rules` from
    /// judges that name one (`trash-cli`).
    pub(crate) fn deleter(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        match base {
            "rm" => self.rm_as("rm", args, shell, frame)?,
            "rimraf" | "trash" | "trash-put" | "del" | "del-cli" => {
                // Recursive removers: every operand is removed with what it holds.
                let mut argv = vec![Arg::lit("-r"), Arg::lit("--")];
                argv.extend(
                    args.iter()
                        .filter(|a| !a.exact().is_some_and(|t| t.starts_with('-')))
                        .cloned(),
                );
                self.rm_as(base, &argv, shell, frame)?;
            }
            "gio" => {
                if let Some(sub) = args.first().and_then(Arg::exact)
                    && matches!(sub, "trash" | "remove" | "rm")
                {
                    let mut argv = vec![Arg::lit("-r"), Arg::lit("--")];
                    argv.extend(
                        args[1..]
                            .iter()
                            .filter(|a| !a.exact().is_some_and(|t| t.starts_with('-')))
                            .cloned(),
                    );
                    self.rm_as("gio trash", &argv, shell, frame)?;
                }
            }
            "unlink" => {
                let ops: Vec<Arg> = args
                    .iter()
                    .filter(|a| !a.is("--help") && !a.is("--version") && !a.is("--"))
                    .cloned()
                    .collect();
                self.delete_operands("unlink", &ops, false, shell, frame)?;
            }
            "shred" | "wipefs" => {
                let args = canon_long(args, SHRED_LONGS);
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "ns",
                        long_values: &["--iterations", "--size", "--random-source"],
                        stop_at_operand: false,
                    },
                );
                for arg in &p.operands {
                    self.only_in_allowance(shell, arg, frame, base)?;
                }
            }
            "mkswap" | "mke2fs" | "blkdiscard" | "mkdosfs" | "mkntfs"
                if !args
                    .iter()
                    .any(|a| a.is("--help") || a.is("-V") || a.is("--version")) =>
            {
                self.deny(
                    frame,
                    RuleId::DestructiveShell,
                    format!("{base} destroys what a device or file holds"),
                )?;
            }
            "fdisk" | "sfdisk" | "sgdisk" | "gdisk" | "cfdisk" | "parted"
                if !args.iter().any(|a| {
                    a.is("-l") || a.is("--list") || a.is("-p") || a.is("--print") || a.is("--help")
                }) =>
            {
                self.deny(
                    frame,
                    RuleId::DestructiveShell,
                    format!("{base} changes a partition table"),
                )?;
            }
            _ if base.starts_with("mkfs") => self.deny(
                frame,
                RuleId::DestructiveShell,
                format!("{base} formats a filesystem"),
            )?,
            "truncate" => {
                let args = canon_long(args, TRUNCATE_LONGS);
                let p = rules::parse(
                    &args,
                    &Spec {
                        short_values: "sr",
                        long_values: &["--size", "--reference"],
                        stop_at_operand: false,
                    },
                );
                for arg in &p.operands {
                    self.only_in_allowance(shell, arg, frame, "truncate")?;
                }
            }
            "dd" => {
                for arg in args {
                    if let Some(out) = arg.text.strip_prefix("of=") {
                        let target = Arg {
                            text: out.to_owned(),
                            ..arg.clone()
                        };
                        self.only_in_allowance(shell, &target, frame, "dd of=")?;
                    }
                }
            }
            _ => {}
        }
        Continue(())
    }

    /// `rm` and the programs that remove like it (`what` names them in reasons).
    pub(crate) fn rm_as(
        &mut self,
        what: &str,
        args: &[Arg],
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let args = canon_long(args, RM_LONGS);
        let p = rules::parse(&args, &PLAIN);
        if p.has(&["--help", "--version"]) {
            return Continue(());
        }
        if p.has(&["--no-preserve-root"]) {
            return self.deny(
                frame,
                RuleId::RecursiveDelete,
                format!("{what} --no-preserve-root"),
            );
        }
        let recursive = p.has(&["-r", "-R", "--recursive"]);
        self.delete_operands(what, &p.operands, recursive, shell, frame)
    }

    /// Judges the removal of `operands` (recursively or not): recursive removal only in the
    /// allowances; a single ordinary file otherwise (a glob only when it cannot match a
    /// protected path nor more than one tracked file; without pawl's checkpoint, at most one
    /// named tracked file).
    pub(crate) fn delete_operands(
        &mut self,
        what: &str,
        operands: &[Arg],
        recursive: bool,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let mut tracked = 0usize;
        for arg in operands {
            if !arg.known {
                return self.deny(
                    frame,
                    if recursive {
                        RuleId::RecursiveDelete
                    } else {
                        RuleId::NotStatic
                    },
                    format!("{what} of `{}`, which is not statically known", arg.text),
                );
            }
            if recursive && !is_lockfile(arg) {
                if let Some(why) = self.allowance_refusal(shell, arg)
                    && let Some(kept) = self.checkpoint_refusal(shell, arg)
                {
                    let more = if self.ctx.checkpointed {
                        format!(
                            ", and untracked directories pawl's checkpoint keeps (here: {kept})"
                        )
                    } else {
                        String::new()
                    };
                    return self.deny(
                        frame,
                        RuleId::RecursiveDelete,
                        format!(
                            "{what} -r of `{}`: {why}; only build outputs, /tmp and $TMPDIR may be removed recursively{more}",
                            arg.text
                        ),
                    );
                }
            } else if !recursive && arg.glob {
                match self.glob_delete(shell, arg) {
                    Ok(n) => tracked += n,
                    Err((rule, why)) => {
                        return self.deny(frame, rule, why);
                    }
                }
            } else {
                // One file (`rm -rf node_modules package-lock.json`: a lock file is one too).
                self.check_write(arg, WriteMode::Delete, shell, frame, what)?;
                // With pawl's checkpoint a named tracked file is held, however many are named
                // (`rm -f a.hpp b.hpp`); a glob's matches are still counted (it may name more
                // than the line shows).
                if !self.ctx.checkpointed
                    && let Ok(abs) = self.target_path(shell, arg)
                    && self.is_tracked_path(&abs).0
                {
                    tracked += 1;
                }
            }
        }
        if tracked > 1 {
            self.deny(
                frame,
                RuleId::DestructiveShell,
                format!(
                    "{what} would remove more than one tracked file; only a single ordinary file may be removed this way: use `git rm FILE...` (the removal is staged and can be reviewed and undone)"
                ),
            )?;
        }
        Continue(())
    }
}
