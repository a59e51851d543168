//! pawl-testkit
