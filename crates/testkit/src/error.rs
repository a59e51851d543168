//! The error type of the testkit library: scenario loading and server start-up.
//!
//! Request handling never fails with this type: a malformed request is answered with an HTTP error
//! and recorded in the request log, because a mock that crashes hides what the client did.

/// Errors from loading scenarios and running the mock server.
#[derive(Debug, thiserror::Error)]
pub enum TestkitError {
    /// A scenario file or string is not valid scenario JSON.
    #[error("invalid scenario {origin}: {source}")]
    Scenario {
        origin: String,
        #[source]
        source: serde_json::Error,
    },
    /// An I/O operation failed; `context` says which.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// The server thread could not be started or did not report back.
    #[error("mock server failed to start: {0}")]
    Start(String),
}
