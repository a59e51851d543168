//! pawl-process
