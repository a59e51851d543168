//! pawl-git
