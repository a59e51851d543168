//! pawl-core
