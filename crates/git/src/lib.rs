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
//! pawl's git is not the agent's git. Everything under `.git` may have been written by the agent,
//! so no pawl git call runs a program the repository names or honours an indirection it can
//! write: fsmonitor, hooks, gpg, external diffs and the rest are overridden on the command line
//! ([`HARDENED_CONFIG`], which wins over config files and their includes); the tree hash runs
//! through a private git directory (the repository's objects and ignore rules, nothing else),
//! and the other commands that touch the working tree blank every filter driver by name;
//! replace refs and grafts are ignored (`GIT_NO_REPLACE_OBJECTS`, `GIT_GRAFT_FILE`);
//! `GIT_DIR`/`GIT_WORK_TREE` are always explicit, so `core.worktree` cannot move pawl's git;
//! assume-unchanged and skip-worktree bits are cleared in pawl's private copy of the index;
//! and the git program is the absolute path fixed when the run started
//! ([`set_default_program`]). Alternates only add objects, which are named by their content.
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
mod grep;
mod history;
mod ignore;
mod index;
mod oid;
mod refs;
mod repo;
mod stamp;
mod status;
mod tree;

pub use checkout::{CHECKOUT_CONFIG, Checkout, Survey};
pub use diff::{Change, ChangeKind, DiffStat, FileStat, TreeEdit};
pub use error::Error;
pub use history::{Branch, MergeTree, Worktree};
pub use oid::{CommitId, TreeHash};
pub use refs::{BACKUP_REF_PREFIX, Rollback};
pub use repo::{
    HARDENED_CONFIG, Options, Repo, index_paths, index_paths_and_gitlinks, resolve_program,
    set_default_program,
};
pub use stamp::TreeStamp;
pub use status::StatusEntry;
pub use tree::remember_tree_stamps;
