//! The mode a new headless run works in, with the agent it drives: the request's `--mode`, or for
//! `auto` the spec analysis' choice; a command agent (plain text) runs `auto` simple and refuses
//! an explicit pipeline mode (`pawl_core::pipeline::resolve_mode_for_agent`); a plan file's run
//! is stored as [`PARALLEL_MODE`]; `--workers` above one is refused for a mode without stories.
//!
//! Not here: the analysis itself (`pawl_core::spec::analyze`), saying the choice (the caller
//! renders [`super::Notice::Mode`]).

use pawl_core::config::AgentKind;
use pawl_core::pipeline::ModeArg;
use pawl_core::record::RunSettings;
use pawl_core::spec::{Mode, ModeChoice};

use super::StartError;

/// The mode a run started from a plan file is stored with.
pub const PARALLEL_MODE: &str = "parallel";

/// The mode of a run with the agent it will drive (`--agent` included): a command agent answers
/// in plain text, so `auto` runs it simple and an explicit pipeline mode is a usage error, said
/// before anything starts.
pub fn for_agent(
    arg: ModeArg,
    auto: &ModeChoice,
    settings: &RunSettings,
) -> Result<ModeChoice, StartError> {
    let plain = settings
        .agent
        .as_ref()
        .is_some_and(|a| a.kind == AgentKind::Command);
    pawl_core::pipeline::resolve_mode_for_agent(arg, auto, plain)
        .map_err(|e| StartError::Usage(e.0))
}

/// `--workers N` (N > 1, `workers_flag`) runs stories at once: refused (usage, before anything
/// is written) for a run that has none to run — a simple or ralph run, by `--mode` or by the
/// spec analysis' choice — rather than ignored. `[parallel] workers` in pawl.toml is a default
/// for the runs that have stories, and stays quiet.
pub fn workers_have_stories(
    workers_flag: Option<u32>,
    arg: ModeArg,
    planned: bool,
    mode: Mode,
) -> Result<(), StartError> {
    let Some(n) = workers_flag.filter(|n| *n > 1) else {
        return Ok(());
    };
    if planned || matches!(mode, Mode::Work | Mode::Qa) {
        return Ok(());
    }
    let by = if arg == ModeArg::Auto {
        format!(
            "the spec analysis chose the mode {} for this goal",
            mode.as_str()
        )
    } else {
        format!("--mode {}", mode.as_str())
    };
    Err(StartError::Usage(format!(
        "--workers {n} runs stories at once, each in its worktree, but {by}, which has no stories to run side by side: give a plan (--plan FILE), or --mode work or --mode qa (their planner makes the stories), or leave out --workers"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_than_one_worker_needs_stories() {
        assert!(workers_have_stories(Some(3), ModeArg::Auto, false, Mode::Simple).is_err());
        assert!(workers_have_stories(Some(3), ModeArg::Auto, true, Mode::Simple).is_ok());
        assert!(workers_have_stories(Some(3), ModeArg::Auto, false, Mode::Work).is_ok());
        assert!(workers_have_stories(Some(1), ModeArg::Auto, false, Mode::Ralph).is_ok());
        assert!(workers_have_stories(None, ModeArg::Auto, false, Mode::Ralph).is_ok());
        let err = workers_have_stories(Some(2), ModeArg::Auto, false, Mode::Ralph)
            .expect_err("ralph has no stories")
            .to_string();
        assert!(
            err.contains("the spec analysis chose the mode ralph"),
            "{err}"
        );
    }
}
