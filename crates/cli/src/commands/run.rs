//! `pawl run "<goal>"`: start a run. The flags are checked into a [`runs::Start`] (an empty goal
//! or conflicting flags are usage errors, before anything else); starting it is `crate::runs`'.

use std::path::PathBuf;

use clap::Args;
use pawl_core::ExitCode;
use pawl_core::model::Driver;

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};
use crate::limits::LimitArgs;
use crate::runs;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// What the run must achieve.
    pub goal: String,
    /// How the agent is driven: manual (by hand through the state CLI), headless, session.
    #[arg(long, default_value = "headless")]
    pub driver: Driver,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// The agent to drive (overrides `[agent] kind`): claude, codex, gemini, command, replay.
    #[arg(long, value_name = "KIND")]
    pub agent: Option<pawl_core::config::AgentKind>,
    /// The JSONL scenario for `--agent replay`.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Start even though the working tree has uncommitted changes (they are snapshotted first).
    #[arg(long)]
    pub allow_dirty: bool,
    /// Start the agent even from inside a session of the same agent.
    #[arg(long)]
    pub force_nested: bool,
    /// With `--driver session`: also let the session work without permission prompts (merges
    /// what it needs into Claude Code's permissions.allow; removed again at the end).
    #[arg(long)]
    pub autonomous: bool,
    /// The pipeline: auto (the spec analysis chooses and says why), simple, work, qa, ralph.
    #[arg(long, default_value = "auto", value_name = "MODE")]
    pub mode: pawl_core::pipeline::ModeArg,
    /// Ask the interview's questions and the plan check-in on the terminal (the recommended
    /// answer is taken after `[pipeline] answer_timeout` of silence).
    #[arg(long)]
    pub interactive: bool,
    /// Ask the clarifying questions through pawl's store instead of a terminal: each waits there
    /// (for `[pipeline] answer_timeout`) for an answer from any front end (the dashboard of
    /// `pawl serve`), then its recommendation is taken, recorded as assumed.
    #[arg(long, conflicts_with = "interactive")]
    pub await_answers: bool,
    /// An acceptance check (repeatable): a command that must fail on the pre-run code and pass at
    /// the end — what proves the goal. Sealed with the gates.
    #[arg(long = "check", value_name = "CMD")]
    pub checks: Vec<String>,
    /// Let the sealed checks see this environment variable too (repeatable); by default they see
    /// only locale, identity and toolchain variables, and a PATH without repository directories.
    #[arg(long = "pass-env", value_name = "NAME")]
    pub pass_env: Vec<String>,
    /// A hidden check (repeatable): sealed and run in the clean room like the gates, but the
    /// agent is never shown its command, output or failing tests.
    #[arg(long = "hidden-check", value_name = "CMD")]
    pub hidden_checks: Vec<String>,
    /// Leave out the independent tester (`[tester]`): no hidden tests of the goal's behaviour
    /// are asked for before the first step.
    #[arg(long = "no-tester")]
    pub no_tester: bool,
    /// What the run must not do (repeatable, added to `[run] must_not`): a path glob
    /// (`src/legacy/**`, `*.lock`) or a command pattern (`cmd:git push`, or any pattern with a
    /// space). Checked after every agent step; a violation stops the run (`must_not_violated`).
    #[arg(long = "must-not", value_name = "PATTERN")]
    pub must_not: Vec<String>,
    /// Proceed on the goal as stated even when it is below the clarity threshold (no questions,
    /// no assumption criteria), as `[pipeline] spec_gate = false` does for every run.
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Start from a plan you wrote (`[[stories]]` with id, title, files, depends_on, criteria):
    /// each story is worked on in its own worktree and merged by pawl's merge queue
    /// (docs/parallel.md).
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// How many stories run at once, each in its worktree: a plan's, or the planner's in
    /// `--mode work|qa` (overrides `[parallel] workers`; default 1, one after the other).
    #[arg(long, value_name = "N")]
    pub workers: Option<u32>,
}

impl RunArgs {
    /// The checked request: a goal that says something, the flags as configuration overrides,
    /// and no flags that conflict (`json`: the global `--json`).
    pub fn to_start(&self, json: bool) -> CliResult<runs::Start> {
        let goal = self.goal.trim();
        if goal.is_empty() {
            return Err(CliError::Usage(
                "the goal is empty: say what the run must achieve".into(),
            ));
        }
        let mut overrides = self.limits.overrides();
        if self.no_tester {
            overrides.push(("tester.on", "off".to_string(), "--no-tester"));
        }
        if let Some(kind) = self.agent {
            overrides.push(("agent.kind", kind.to_string(), "--agent"));
        }
        if !self.must_not.is_empty() {
            pawl_core::must_not::parse_all(&self.must_not)
                .map_err(|e| CliError::Usage(e.to_string()))?;
            let list = toml_array(&self.must_not);
            overrides.push(("run.must_not+", list, "--must-not"));
        }
        if self.workers == Some(0) {
            return Err(CliError::Usage(
                "--workers 0: at least one worker runs the stories".into(),
            ));
        }
        if let Some(n) = self.workers {
            overrides.push(("parallel.workers", n.to_string(), "--workers"));
        }
        if self.plan.is_some() {
            if self.driver != Driver::Headless {
                return Err(CliError::Usage(format!(
                    "--plan runs the stories headless, each in its worktree: it cannot go with --driver {}",
                    self.driver
                )));
            }
            if !matches!(self.mode, pawl_core::pipeline::ModeArg::Auto) {
                return Err(CliError::Usage(
                    "--plan is the plan: leave out --mode (the planner's modes make their own)"
                        .into(),
                ));
            }
        }
        if self.await_answers && self.driver != Driver::Headless {
            return Err(CliError::Usage(format!(
                "--await-answers is for a headless run's questions: it cannot go with --driver {}",
                self.driver
            )));
        }
        pawl_core::pipeline::check_flags(&pawl_core::pipeline::RunFlags {
            mode: self.mode,
            driver: self.driver,
            interactive: self.interactive,
            json,
        })
        .map_err(|e| CliError::Usage(e.to_string()))?;
        Ok(runs::Start {
            goal: goal.to_string(),
            driver: self.driver,
            overrides,
            scenario: self.scenario.clone(),
            allow_dirty: self.allow_dirty,
            force_nested: self.force_nested,
            autonomous: self.autonomous,
            mode: self.mode,
            interactive: self.interactive,
            await_answers: self.await_answers,
            checks: self.checks.clone(),
            pass_env: self.pass_env.clone(),
            hidden_checks: self.hidden_checks.clone(),
            plan: self.plan.clone(),
        })
    }
}

/// `["a","b"]`: the values as an array that reads as TOML (a JSON array of strings is one).
fn toml_array(values: &[String]) -> String {
    serde_json::to_string(values).unwrap_or_else(|_| "[]".into())
}

pub fn run(ctx: &mut Ctx, args: &RunArgs) -> CliResult<ExitCode> {
    let start = args.to_start(ctx.json)?;
    ctx.proceed_as_stated = args.yes;
    runs::start(ctx, &start)
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use pawl_core::config::AgentKind;
    use pawl_core::pipeline::ModeArg;

    use super::*;

    /// `pawl run ARGS...` as clap parses it.
    fn parse(argv: &[&str]) -> RunArgs {
        #[derive(Debug, Parser)]
        struct Top {
            #[command(flatten)]
            run: RunArgs,
        }
        let mut full = vec!["pawl-run"];
        full.extend_from_slice(argv);
        Top::try_parse_from(full).expect("valid arguments").run
    }

    #[test]
    fn goal_is_trimmed_and_defaults_hold() {
        let start = parse(&["  fix the parser  "])
            .to_start(false)
            .expect("valid");
        assert_eq!(start.goal, "fix the parser");
        assert_eq!(start.driver, Driver::Headless);
        assert_eq!(start.mode, ModeArg::Auto);
        assert!(start.overrides.is_empty());
        assert!(!start.allow_dirty && !start.force_nested && !start.autonomous);
    }

    #[test]
    fn empty_goal_is_a_usage_error() {
        for goal in ["", "   ", "\n\t"] {
            let err = parse(&[goal]).to_start(false).expect_err("empty goal");
            assert!(
                matches!(&err, CliError::Usage(m) if m.contains("the goal is empty")),
                "{goal:?}: {err:?}"
            );
        }
    }

    #[test]
    fn agent_flag_becomes_an_override_after_the_limits() {
        let start = parse(&[
            "goal",
            "--agent",
            "replay",
            "--scenario",
            "s.jsonl",
            "--max-iterations",
            "3",
        ])
        .to_start(false)
        .expect("valid");
        assert_eq!(
            start.overrides,
            vec![
                ("limits.max_iterations", "3".to_string(), "--max-iterations"),
                ("agent.kind", AgentKind::Replay.to_string(), "--agent"),
            ]
        );
        assert_eq!(start.scenario, Some(PathBuf::from("s.jsonl")));
    }

    #[test]
    fn must_not_flags_add_to_the_configured_rules_and_bad_ones_are_refused() {
        let start = parse(&["goal", "--must-not", "*.lock", "--must-not", "cmd:git push"])
            .to_start(false)
            .expect("valid");
        assert_eq!(
            start.overrides,
            vec![(
                "run.must_not+",
                r#"["*.lock","cmd:git push"]"#.to_string(),
                "--must-not"
            )]
        );
        let err = parse(&["goal", "--must-not", "src/[a"])
            .to_start(false)
            .expect_err("a bad glob");
        assert!(
            matches!(&err, CliError::Usage(m) if m.contains("src/[a")),
            "{err:?}"
        );
    }

    #[test]
    fn conflicting_flags_are_a_usage_error() {
        let err = parse(&["goal", "--driver", "session", "--mode", "qa"])
            .to_start(false)
            .expect_err("--mode needs headless");
        assert!(matches!(err, CliError::Usage(_)), "{err:?}");
        let err = parse(&["goal", "--mode", "qa", "--interactive"])
            .to_start(true)
            .expect_err("--interactive with --json");
        assert!(matches!(err, CliError::Usage(_)), "{err:?}");
    }
}
