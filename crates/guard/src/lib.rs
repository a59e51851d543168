//! pawl-guard
