//! Programs that change a disk or the system itself (`Family::System` in `registry.rs`; rule
//! `infra-destroy`): partitioners and formatters ([`SYSTEM`]; deleters such as `dd`, `wipefs` and
//! `mkfs.*` are judged here after `rules/delete.rs`), `dd` onto a block device, recursive
//! permission changes of `/`, system directories or HOME, `kill -1`, runlevels, firewall flushes.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::paths::normalize;
use crate::walk::{Frame, Judged, Shell, Walker};
use crate::words::Arg;

/// Programs that only destroy a system or disk when they run at all.
#[rustfmt::skip]
pub(crate) const SYSTEM: &[&str] = &[
    "mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk",
    "sgdisk", "blkdiscard", "shutdown", "reboot", "halt", "poweroff", "telinit", "killall5",
    "cryptsetup", "mdadm", "swapoff", "userdel", "groupdel", "deluser", "hdparm", "nvme",
];

/// Programs that change permissions or attributes (judged for `/`, system directories, HOME).
const PERMISSIONS: &[&str] = &["chmod", "chown", "chgrp", "setfacl", "chattr"];

/// Whether `base` belongs to the system family (deleters that are also here stay deleters).
pub(crate) fn is_system(base: &str) -> bool {
    SYSTEM.contains(&base)
        || PERMISSIONS.contains(&base)
        || matches!(
            base,
            "kill" | "init" | "iptables" | "ip6tables" | "nft" | "ufw"
        )
}

/// Whether `dev` names a block device (a whole disk or a partition).
pub(crate) fn is_block_device(dev: &str) -> bool {
    let dev = normalize("/", dev);
    let Some(name) = dev.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop", "disk", "mapper/", "disk/",
        "sr", "nbd", "zd", "rbd",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

impl Walker<'_> {
    /// Judges a program that may change a disk or the system (see the module).
    pub(crate) fn system(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        if super::is_help(args) {
            return Continue(());
        }
        // Listing and inspecting change nothing (`fdisk -l`, `cryptsetup status`).
        let inspects = args.iter().any(|a| {
            matches!(
                a.text.as_str(),
                "-l" | "--list"
                    | "-p"
                    | "--print"
                    | "print"
                    | "list"
                    | "status"
                    | "luksDump"
                    | "--detail"
                    | "--examine"
                    | "-I"
                    | "-i"
                    | "--query"
                    | "-V"
                    | "--version"
                    | "-c"
            )
        });
        if (SYSTEM.contains(&base) || base.starts_with("mkfs.")) && !inspects {
            return self.deny(
                frame,
                RuleId::InfraDestroy,
                format!("`{base}` changes disks or the system itself"),
            );
        }
        match base {
            "dd" => self.dd(args, frame)?,
            "chmod" | "chown" | "chgrp" | "setfacl" | "chattr" => {
                self.perm(base, args, shell, frame)?
            }
            "kill" if args.last().is_some_and(|a| a.text == "-1" || a.text == "1") => self.deny(
                frame,
                RuleId::InfraDestroy,
                "`kill` of every process (-1) or of init (1)",
            )?,
            "init"
                if args
                    .iter()
                    .any(|a| matches!(a.text.as_str(), "0" | "6" | "1" | "s" | "S")) =>
            {
                self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    "`init` changes the system's runlevel",
                )?;
            }
            "iptables" | "ip6tables" | "nft" | "ufw"
                if args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "-F" | "--flush" | "flush" | "disable" | "reset" | "-X"
                    )
                }) =>
            {
                self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!("`{base}` flushes or disables the firewall"),
                )?;
            }
            _ => {}
        }
        Continue(())
    }

    fn dd(&mut self, args: &[Arg], frame: &Frame) -> Judged {
        for a in args {
            if let Some(dev) = a.text.strip_prefix("of=")
                && is_block_device(dev)
            {
                return self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!("`dd` onto the device `{dev}` destroys a disk"),
                );
            }
        }
        Continue(())
    }

    fn perm(&mut self, base: &str, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let recursive = args.iter().any(|a| {
            a.text == "--recursive"
                || (a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains('R'))
        });
        let home = self.home();
        // The first operand of chmod/chown/chgrp is the mode or owner.
        let skip = usize::from(matches!(base, "chmod" | "chown" | "chgrp"));
        for a in args.iter().filter(|a| !a.text.starts_with('-')).skip(skip) {
            let text = match (a.text.strip_prefix('~'), home.as_deref()) {
                (Some(rest), Some(h)) => format!("{h}{rest}"),
                _ => a.text.clone(),
            };
            let Some(abs) = self.resolve(shell, &text) else {
                continue;
            };
            let system = abs == "/"
                || matches!(
                    abs.as_str(),
                    "/var" | "/home" | "/opt" | "/srv" | "/mnt" | "/media"
                )
                || [
                    "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/sys", "/proc",
                    "/dev", "/root",
                ]
                .iter()
                .any(|d| abs == *d || abs.starts_with(&format!("{d}/")));
            let home_itself = home
                .as_deref()
                .is_some_and(|h| abs == h || h.starts_with(&format!("{abs}/")));
            if system && (recursive || abs.matches('/').count() <= 2)
                || recursive && home_itself
                || a.glob && abs.starts_with('/') && abs.matches('/').count() <= 1
            {
                return self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!(
                        "`{base}` of `{}` changes the system's or HOME's permissions",
                        a.text
                    ),
                );
            }
        }
        Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_devices() {
        assert!(is_block_device("/dev/sda"));
        assert!(is_block_device("/dev/nvme0n1p1"));
        assert!(!is_block_device("/dev/null"));
        assert!(!is_block_device("/tmp/sda"));
    }
}
