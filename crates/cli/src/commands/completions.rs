//! `pawl completions <shell>`: the shell completion script for pawl (clap_complete), on stdout.
//!
//! ```sh
//! pawl completions bash > ~/.local/share/bash-completion/completions/pawl
//! pawl completions zsh  > "${fpath[1]}/_pawl"
//! pawl completions fish > ~/.config/fish/completions/pawl.fish
//! ```

use clap::Args;
use clap_complete::Shell;
use pawl_core::ExitCode;

use crate::error::{CliError, CliResult};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// `cmd`: the whole command line, as clap describes it (handed in by the dispatch).
pub fn run(args: &CompletionsArgs, mut cmd: clap::Command) -> CliResult<ExitCode> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "pawl", &mut script);
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(&script)
        .and_then(|()| out.flush())
        .map_err(CliError::io("cannot write to stdout"))?;
    Ok(ExitCode::Done)
}
