//! Pagers and man, judged in one place: `less +!cmd`/`+|cmd` (and an unknown `+` command) run a
//! shell command from the pager; `man -P`/`--pager=`/`-H` name programs man runs. The programs
//! pagers run through environment variables (`LESSOPEN`, `PAGER`, `MANPAGER`, ...) are judged
//! for every command, in `rules/exec.rs` `env_programs`.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::rules::next_arg;
use crate::walk::{Frame, Judged, Shell, Walker};
use crate::words::Arg;

/// The programs [`Walker::pager`] judges.
pub(crate) const PAGERS: &[&str] = &["less", "more", "most", "man"];

impl Walker<'_> {
    /// Judges a program of [`PAGERS`].
    pub(crate) fn pager(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        if base == "man" {
            return self.man(args, shell, frame);
        }
        if let Some(cmd) = args.iter().find(|a| {
            a.text.starts_with('+') && (a.text.contains('!') || a.text.contains('|') || !a.known)
        }) {
            return self.deny(
                frame,
                RuleId::Interpreter,
                format!(
                    "{base} `{}` runs a shell command from the pager; the guard does not model it",
                    cmd.text
                ),
            );
        }
        Continue(())
    }

    /// `man -P pager` / `--pager=` / `-H browser`: commands man runs.
    fn man(&mut self, args: &[Arg], shell: &mut Shell, frame: &Frame) -> Judged {
        let mut index = 0;
        while index < args.len() {
            let text = args[index].text.clone();
            index += 1;
            let value = if matches!(text.as_str(), "-P" | "--pager" | "-H" | "--html") {
                next_arg(args, &mut index)
            } else if let Some(v) = text
                .strip_prefix("--pager=")
                .or_else(|| text.strip_prefix("--html="))
            {
                Some(Arg {
                    text: v.to_owned(),
                    ..args[index - 1].clone()
                })
            } else if text.len() > 2 && (text.starts_with("-P") || text.starts_with("-H")) {
                Some(Arg {
                    text: text[2..].to_owned(),
                    ..args[index - 1].clone()
                })
            } else {
                None
            };
            if let Some(value) = value {
                match value.known {
                    true => self.walk_piped_shell("man pager", &value.text, shell, frame)?,
                    false => self.fail_closed(
                        frame,
                        RuleId::NotStatic,
                        format!(
                            "man runs a pager `{}` that is not statically known",
                            value.text
                        ),
                    )?,
                }
            }
        }
        Continue(())
    }
}
