//! The CLI's one error type: every failure maps to a documented exit code.

use pawl_core::ExitCode;
use pawl_store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad arguments that clap could not catch (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Anything that went wrong doing the work (exit 1).
    #[error("{0}")]
    Failed(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Config(#[from] pawl_core::config::ConfigError),
    #[error("git: {0}")]
    Git(#[from] pawl_git::Error),
    #[error(transparent)]
    Engine(#[from] pawl_engine::EngineError),
    #[error(transparent)]
    Verify(#[from] pawl_engine::VerifyError),
    /// An agent's settings file pawl cannot merge its hooks into (or take them out of).
    #[error(transparent)]
    Hooks(#[from] pawl_hooks::HookError),
    /// The agent cannot be started (configuration, scenario, a nested session).
    #[error(transparent)]
    Agent(#[from] pawl_agent::AgentError),
    /// One step of the replay agent (`pawl __replay`).
    #[error(transparent)]
    Replay(#[from] pawl_agent::replay::ReplayError),
    /// A platform descriptor (built in or `.pawl/platforms/*.toml`) that cannot be read.
    #[error(transparent)]
    Platform(#[from] pawl_verify::platform::DescriptorError),
    /// The project's files cannot be listed for the platform detection.
    #[error(transparent)]
    Facts(#[from] pawl_verify::platform::FactsError),
    #[error("{context}: {source}")]
    Io {
        context: String,
        source: std::io::Error,
    },
    /// A verb that only the user may run, started from inside a pawl agent step (its
    /// `.pawl/` is read-only there: the sandbox tells, the agent cannot fake it).
    #[error(
        "`pawl {0}` cannot be used from inside a pawl agent step (its .pawl/ is read-only): it steers the run, and only the user does that (docs/sandbox.md)"
    )]
    InsideStep(String),
    /// stdout went away (e.g. `pawl events | head`): exit quietly.
    #[error("broken pipe")]
    BrokenPipe,
}

impl CliError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::Usage,
            CliError::BrokenPipe => ExitCode::Done,
            _ => ExitCode::Error,
        }
    }

    pub fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> CliError {
        let context = context.into();
        move |source| {
            if source.kind() == std::io::ErrorKind::BrokenPipe {
                CliError::BrokenPipe
            } else {
                CliError::Io { context, source }
            }
        }
    }
}

/// A start refused (the repository's state, the seal) fails with its message; the git and store
/// errors underneath keep their own variants.
impl From<pawl_engine::start::StartError> for CliError {
    fn from(e: pawl_engine::start::StartError) -> Self {
        use pawl_engine::start::StartError;
        match e {
            StartError::Git(e) => CliError::Git(e),
            StartError::Store(e) => CliError::Store(e),
            StartError::Usage(m) => CliError::Usage(m),
            other => CliError::Failed(other.to_string()),
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            CliError::BrokenPipe
        } else {
            CliError::Io {
                context: "I/O error".into(),
                source: e,
            }
        }
    }
}

pub type CliResult<T = ()> = Result<T, CliError>;
