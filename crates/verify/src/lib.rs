//! pawl-verify
