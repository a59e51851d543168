//! claude adapter (in progress).
