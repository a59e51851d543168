//! pawl-testkit: test support for pawl, not published.
//!
//! The centre piece is [`MockServer`], a scripted mock of the model APIs the agent CLIs call
//! (Anthropic Messages for Claude Code, OpenAI Responses for Codex, Gemini generateContent), so the
//! real CLIs can run offline and deterministically against 127.0.0.1. A [`Scenario`] scripts the
//! turns, their token usage and injected failures; the request log records what the CLI sent.
//! The scenario format and the way to run each CLI against the mock are in the crate README.

mod anthropic;
mod conversation;
mod error;
mod gemini;
mod log;
mod openai;
mod reply;
mod scenario;
mod server;

pub use error::TestkitError;
pub use log::{Api, RecordedRequest, RequestKind};
pub use scenario::{Fault, RequestFault, Scenario, ToolCall, Turn, Usage};
pub use server::{MockServer, ServerOptions};
