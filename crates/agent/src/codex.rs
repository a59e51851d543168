//! codex adapter (in progress).
