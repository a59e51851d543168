//! Schedulers (`Family::Scheduler` in `registry.rs`): installing a crontab is running its lines
//! later, outside the guard. A table the guard can read (standard input it can see, a file this
//! line wrote with known text, a file on disk) is judged line by line, each command as the shell
//! would run it; a table it cannot read, or one that sets the shell cron runs (`SHELL=`,
//! `BASH_ENV=`), is denied. `crontab -r` removes every scheduled job of the user (rule
//! `infra-destroy`); `-e` opens an editor on the table, which the guard cannot follow.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::walk::{Frame, Judged, Shell, Stdin, Walker};
use crate::words::Arg;

/// Scheduler programs.
pub(crate) const SCHEDULERS: &[&str] = &["crontab"];

/// The command of one crontab line, or `None` for a blank line, a comment or an assignment
/// (`Err` with the line when cron's shell is changed or the line cannot be read).
fn cron_command(line: &str) -> Result<Option<&str>, &str> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    if let Some((name, _)) = line.split_once('=') {
        let name = name.trim();
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            // `NAME=value`: an environment line.
            return if matches!(name, "SHELL" | "BASH_ENV" | "ENV") {
                Err(line)
            } else {
                Ok(None)
            };
        }
    }
    let fields = if line.starts_with('@') { 1 } else { 5 };
    let mut rest = line;
    for _ in 0..fields {
        let Some((_, tail)) = rest.split_once(char::is_whitespace) else {
            return Err(line);
        };
        rest = tail.trim_start();
    }
    // An unescaped `%` ends the command: the rest is its standard input.
    if rest.replace("\\%", "").contains('%') || rest.is_empty() {
        return Err(line);
    }
    Ok(Some(rest))
}

impl Walker<'_> {
    /// Judges `crontab` (see the module).
    pub(crate) fn crontab(
        &mut self,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let p = super::parse(
            args,
            &super::Spec {
                short_values: "uc",
                long_values: &[],
                stop_at_operand: false,
            },
        );
        if p.has(&["-l", "-T", "-V", "--help", "--version"]) {
            return Continue(());
        }
        if p.has(&["-r"]) {
            return self.deny(
                frame,
                RuleId::InfraDestroy,
                "`crontab -r` removes every scheduled job of the user",
            );
        }
        if p.has(&["-e"]) {
            return self.deny(
                frame,
                RuleId::Interpreter,
                "`crontab -e` edits the scheduled commands in an editor the guard cannot follow",
            );
        }
        let table = match p.operands.first() {
            Some(file) if !super::is_stdin_path(&file.text) => self.file_text(shell, file),
            _ => match stdin {
                Stdin::Text(text) => Some(text.clone()),
                // `crontab < file`.
                Stdin::File => self
                    .cmd_stdin_file
                    .clone()
                    .and_then(|path| self.file_text(shell, &Arg::lit(path))),
                _ => None,
            },
        };
        let Some(table) = table else {
            return self.deny(
                frame,
                RuleId::Interpreter,
                "crontab installs scheduled commands the guard cannot read; they would run later, outside the guard",
            );
        };
        for line in table.lines() {
            match cron_command(line) {
                Ok(None) => {}
                Ok(Some(command)) => {
                    // cron runs the line later, from HOME.
                    let inner = frame.nested("a crontab line").conditional();
                    let mut sub = shell.clone();
                    sub.cwd = self.home();
                    self.run_script(command, &mut sub, &inner)?;
                }
                Err(line) => {
                    return self.deny(
                        frame,
                        RuleId::Interpreter,
                        format!("crontab line `{line}` sets cron's shell or feeds its command input the guard cannot judge"),
                    );
                }
            }
        }
        Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crontab_lines() {
        assert_eq!(
            cron_command("*/5 * * * * make -C /r test"),
            Ok(Some("make -C /r test"))
        );
        assert_eq!(cron_command("@reboot  rm -rf ~"), Ok(Some("rm -rf ~")));
        assert_eq!(cron_command("# m h dom mon dow"), Ok(None));
        assert_eq!(cron_command("MAILTO=me@example.com"), Ok(None));
        assert!(cron_command("SHELL=/tmp/sh").is_err());
        assert!(cron_command("* * * * * cat %x").is_err());
        assert!(cron_command("* * *").is_err());
    }
}
