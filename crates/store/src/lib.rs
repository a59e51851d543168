//! pawl-store
