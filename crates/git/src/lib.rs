//! pawl-git: git through the git CLI, with a fixed environment and `-z` / porcelain output.
//!
//! Everything goes through [`Repo`], opened on a working tree. The central operation is
//! [`Repo::tree_hash`]: the hash of exactly the bytes a gate would check (tracked and untracked,
//! non-ignored files), computed in a temporary index so the user's real index is never touched.
//! Evidence is bound to that hash. Around it: branch and commit helpers for sandbox runs, a diff
//! stat against the working tree, backup refs under `refs/pawl/backups/` and a rollback that first
//! saves everything (uncommitted and untracked work included) so nothing is ever lost. And
//! [`Checkout`]: a tree checked out into a directory outside the repository through a private
//! git directory, where nothing the repository configures runs (pawl's clean room).
//!
//! Why the CLI and not a library: git's own behaviour (ignore rules, attributes, filters,
//! worktrees, every repository layout) is the reference, and the CLI refuses to clobber.
//! Every call goes through `pawl-process`; the environment is fixed (see [`Options`]).
//!
//! Not here: deciding *when* to commit or roll back (the engine does), or parsing shell commands
//! that mention git (the guard does; it only asks for [`Repo::config_aliases`]).

mod checkout;
mod config;
mod diff;
mod error;
mod index;
mod oid;
mod refs;
mod repo;
mod status;
mod tree;

pub use checkout::{CHECKOUT_CONFIG, Checkout, Survey};
pub use diff::{Change, ChangeKind, DiffStat, FileStat};
pub use error::Error;
pub use oid::{CommitId, TreeHash};
pub use refs::{BACKUP_REF_PREFIX, Rollback};
pub use repo::{HARDENED_CONFIG, Options, Repo, resolve_program, set_default_program};
pub use status::StatusEntry;
