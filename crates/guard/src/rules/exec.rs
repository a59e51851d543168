//! Programs that run commands given in their arguments or their input:
//! awk's `system()`, sed's `e`, editors run with commands, `make --eval`,
//! tar's checkpoint actions, ... . Each either hands the command it can see
//! to the walker, or fails closed when it cannot see it.

use crate::walk::{Frame, Shell, Stdin, Walker};
use crate::words::Arg;

impl Walker<'_> {
    /// Judges `base` when it is a program that runs commands; `false` when it
    /// is not one (the other rules then judge it).
    pub(crate) fn runs_commands(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &mut Shell,
        frame: &Frame,
    ) -> bool {
        let _ = (base, args, stdin, shell, frame);
        false
    }
}
