//! pawl-guard: decides whether an AI agent's shell command or file write
//! may run while a pawl run is active.
//!
//! The guard parses shell with a real parser (brush-parser), walks every
//! simple command the line would run — through lists, pipelines,
//! subshells, compound commands, substitutions, here-documents fed to
//! shells, `bash -c`, `eval`, `xargs`, `find -exec`, wrappers such as
//! `sudo` and `env`, git global options and aliases — and judges each one
//! against the rules and the [`Policy`]. While active it fails closed: what
//! it cannot know statically is denied, with a reason.
//!
//! It is a pure library: no I/O, no environment reads, no printing. The
//! caller passes a [`Context`] (cwd, repository, branch, tracked files)
//! and a [`Policy`] (from `pawl.toml [guard]`).
//!
//! ```
//! use pawl_guard::{evaluate, Context, Input, Policy, TrackedSet};
//! use std::sync::Arc;
//!
//! let mut ctx = Context::new("/repo");
//! ctx.repo_root = Some("/repo".into());
//! ctx.branch = Some("feat/x".into());
//! ctx.run_active = true;
//! ctx.tracked = Arc::new(["src/main.rs"].into_iter().collect::<TrackedSet>());
//! let policy = Policy::default();
//!
//! let d = evaluate(&Input::shell("bash -c 'git push -f'"), &ctx, &policy);
//! assert!(d.is_deny());
//! let d = evaluate(&Input::shell("cargo test"), &ctx, &policy);
//! assert!(d.is_allow());
//! ```

mod balance;
mod context;
mod decision;
mod glob;
mod input;
mod lang;
mod paths;
mod policy;
mod registry;
mod rules;
mod scripts;
mod walk;
mod words;

use std::panic::{AssertUnwindSafe, catch_unwind};

pub use context::{
    AllTracked, Context, FileSystemView, GitAliases, NoFileSystem, NoGitAliases, TrackedFiles,
    TrackedSet,
};
pub use decision::{Decision, Explanation, FoundCommand, RuleId, SWITCHABLE_RULES, Verdict};
pub use input::Input;
pub use policy::{
    CompiledPolicy, DenyRule, PawlPath, PawlPathKind, Policy, PolicyError, default_allowances,
    default_pawl_paths, default_protected_paths,
};
pub use scripts::{MAX_SCRIPT_BYTES, NoScripts, ScriptReader};
pub use walk::{MAX_INPUT_BYTES, MAX_NESTING, MAX_SCRIPT_DEPTH, MAX_STEPS};

/// Decides one input. Compiles the policy on each call; use [`Guard`] to
/// evaluate many inputs with one policy.
pub fn evaluate(input: &Input, ctx: &Context, policy: &Policy) -> Decision {
    explain(input, ctx, policy).decision
}

/// Decides one input and says how: the parse outline, the commands found
/// and the rule that decided.
pub fn explain(input: &Input, ctx: &Context, policy: &Policy) -> Explanation {
    if let Some(inert) = inert(ctx, policy) {
        return inert;
    }
    match CompiledPolicy::new(policy) {
        Ok(compiled) => explain_with_deadline(Guard { compiled }, input, ctx, DECISION_DEADLINE),
        Err(error) => Explanation {
            decision: Decision::deny(
                RuleId::PolicyError,
                format!("the guard policy is invalid, so everything is denied: {error}"),
            ),
            active: true,
            parse: String::new(),
            commands: Vec::new(),
        },
    }
}

/// How long one decision may take. The shell parser is third-party code; an input that makes it
/// loop (fuzzing found several) must become a denial, not a hook that hangs until the agent CLI
/// gives up on it.
pub const DECISION_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs the analysis on a worker thread and denies if it misses `deadline`.
fn explain_with_deadline(
    guard: Guard,
    input: &Input,
    ctx: &Context,
    deadline: std::time::Duration,
) -> Explanation {
    let (input, ctx) = (input.clone(), ctx.clone());
    within(deadline, move || guard.explain(&input, &ctx))
}

/// Runs `analyse` on a worker thread; if it misses `deadline` the answer is a denial. The
/// worker is left to finish on its own (a one-shot caller such as a hook exits right after).
fn within(
    deadline: std::time::Duration,
    analyse: impl FnOnce() -> Explanation + Send + 'static,
) -> Explanation {
    let denied = |reason: String| Explanation {
        decision: Decision::deny(RuleId::ParseError, reason),
        active: true,
        parse: String::new(),
        commands: Vec::new(),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("pawl-guard".into())
        .spawn(move || {
            let _ = tx.send(analyse());
        });
    if let Err(e) = worker {
        return denied(format!(
            "the guard could not start its analysis ({e}); denied to be safe"
        ));
    }
    rx.recv_timeout(deadline).unwrap_or_else(|_| {
        denied(format!(
            "the shell parser did not finish within {:.1}s on this input; denied to be safe",
            deadline.as_secs_f64()
        ))
    })
}

/// The decision when the guard is off or inert for this context.
fn inert(ctx: &Context, policy: &Policy) -> Option<Explanation> {
    let reason = if policy.allow_unsafe {
        "the guard is switched off (guard.allow_unsafe = true)"
    } else if !ctx.run_active && !policy.always {
        "no pawl run is active; the guard is inert (set guard.always to keep it on)"
    } else {
        return None;
    };
    Some(Explanation {
        decision: Decision::allow(reason),
        active: false,
        parse: String::new(),
        commands: Vec::new(),
    })
}

/// A guard with its policy compiled once.
#[derive(Debug, Clone)]
pub struct Guard {
    compiled: CompiledPolicy,
}

impl Guard {
    /// Compiles `policy`.
    pub fn new(policy: &Policy) -> Result<Self, PolicyError> {
        Ok(Self {
            compiled: CompiledPolicy::new(policy)?,
        })
    }

    /// Decides one input.
    pub fn evaluate(&self, input: &Input, ctx: &Context) -> Decision {
        self.explain(input, ctx).decision
    }

    /// Decides one input and says how.
    pub fn explain(&self, input: &Input, ctx: &Context) -> Explanation {
        if let Some(inert) = inert(ctx, self.compiled.policy()) {
            return inert;
        }
        // The parser is third-party code: a panic in it must become a
        // denial, never a crashed hook (which an agent may read as allow).
        let result = catch_unwind(AssertUnwindSafe(|| self.judge(input, ctx)));
        result.unwrap_or_else(|_| Explanation {
            decision: Decision::deny(
                RuleId::ParseError,
                "the guard failed while analysing this input; denied to be safe",
            ),
            active: true,
            parse: String::new(),
            commands: Vec::new(),
        })
    }

    fn judge(&self, input: &Input, ctx: &Context) -> Explanation {
        match input {
            Input::Shell { command } => {
                if command.len() > MAX_INPUT_BYTES {
                    return Explanation {
                        decision: Decision::deny(
                            RuleId::TooLarge,
                            format!(
                                "the command is {} bytes, more than the {MAX_INPUT_BYTES} the guard analyses",
                                command.len()
                            ),
                        ),
                        active: true,
                        parse: String::new(),
                        commands: Vec::new(),
                    };
                }
                let mut walker = walk::Walker::new(ctx, &self.compiled, command);
                walker.walk_input(command);
                // One `cd` to a directory that may not exist (`cd out; cp x y`) left the rest of
                // the list judged nowhere: judge it in both places it can run — the directory,
                // and where it was when the `cd` failed. Allowed only when both are.
                if walker.denial.is_some()
                    && walker.uncertain_cds == 1
                    && [true, false].into_iter().all(|succeeded| {
                        let mut fork = walk::Walker::new(ctx, &self.compiled, command);
                        fork.cd_outcome = Some(succeeded);
                        fork.walk_input(command);
                        fork.denial.is_none() && fork.uncertain_cds == 1
                    })
                {
                    walker.denial = None;
                    walker.outline.push(
                        "judged with the `cd` succeeded and with it failed: both allowed".into(),
                    );
                }
                let decision = walker.denial.take().unwrap_or_else(|| {
                    Decision::allow(format!(
                        "{} command(s) checked; no rule matched",
                        walker.found.len()
                    ))
                });
                Explanation {
                    decision,
                    active: true,
                    parse: walker.outline.join("\n"),
                    commands: walker.found,
                }
            }
            Input::FileWrite { path } => {
                let mut walker = walk::Walker::new(ctx, &self.compiled, "");
                let decision = walker.file_write(path);
                Explanation {
                    decision,
                    active: true,
                    parse: format!("file write: {path}"),
                    commands: Vec::new(),
                }
            }
        }
    }
}

impl walk::Walker<'_> {
    /// Judges an agent tool's write to `path`.
    fn file_write(&mut self, path: &str) -> Decision {
        if path.trim().is_empty() {
            return Decision::deny(RuleId::NotStatic, "a file write with an empty path");
        }
        let expanded = match (path.strip_prefix("~/"), self.anchors.home.as_deref()) {
            (Some(rest), Some(home)) => format!("{home}/{rest}"),
            (Some(_), None) => {
                return Decision::deny(RuleId::NotStatic, "a file write under ~ with HOME unknown");
            }
            (None, _) => path.to_owned(),
        };
        let cwd = paths::normalize("/", &self.ctx.cwd.to_string_lossy());
        let absolute = paths::normalize(&cwd, &expanded);
        if self.is_protected(&absolute) {
            return Decision::deny(
                RuleId::ProtectedPath,
                format!("writing `{path}`: the path is protected by the guard policy"),
            );
        }
        Decision::allow(format!("`{path}` is not a protected path"))
    }
}

#[cfg(test)]
mod deadline_tests {
    use super::*;
    use std::time::Duration;

    fn allow() -> Explanation {
        Explanation {
            decision: Decision::allow("ok"),
            active: true,
            parse: String::new(),
            commands: Vec::new(),
        }
    }

    #[test]
    fn an_analysis_that_misses_the_deadline_is_a_denial() {
        let e = within(Duration::from_millis(20), || {
            std::thread::sleep(Duration::from_millis(500));
            allow()
        });
        assert!(e.decision.is_deny(), "{e:?}");
        assert_eq!(e.decision.rule, Some(RuleId::ParseError));
        assert!(e.decision.reason.contains("did not finish"), "{e:?}");
    }

    #[test]
    fn an_analysis_within_the_deadline_is_its_own_answer() {
        let e = within(Duration::from_secs(5), allow);
        assert!(e.decision.is_allow(), "{e:?}");
    }
}
