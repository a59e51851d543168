//! pawl-hooks integration tests: the captured stdin of the real CLIs, and settings round trips.

mod install;
mod protocols;
