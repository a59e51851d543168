//! Checking a tree of a repository out into a directory of its own: what pawl's clean room is
//! built on (the room's policy — state, rebuilds, warm outputs — lives in the engine).
//!
//! A [`Checkout`] is three paths pawl owns, outside the repository: a *work tree* (the files),
//! an *index* (git's stat cache for them, so an update rewrites only what changed) and a
//! *private git directory*. Every command here runs with that private directory as `GIT_DIR`
//! and reads objects straight from the repository's object directory (`GIT_OBJECT_DIRECTORY`,
//! read only: nothing here writes an object). Why a private git directory rather than the
//! repository's own with another index: everything under the repository's `.git` is writable by
//! the agent, and checking a tree out is where git runs what a repository configures — smudge
//! and process filters, `core.fsmonitor`, line-ending and `ident` conversions, hooks — and reads
//! `info/attributes`, includes and replace refs. With a git directory pawl writes itself (fresh
//! for every [`Checkout`]), no global or system config, `-c` overrides for every knob that
//! changes what a checkout writes ([`CHECKOUT_CONFIG`]) and attributes read from the empty tree
//! (`GIT_ATTR_SOURCE`), the files are the tree's bytes, and no program the repository or the
//! tree names can run. Enumerating `filter.<name>.smudge` keys to blank them out instead would
//! race with an agent editing `.git/config` between the listing and the checkout.
//!
//! Not here: deciding when a room is rebuilt or trusted (the engine's `room` module).

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::oid::TreeHash;
use crate::repo::{Git, Repo, nul_records};

/// git's empty tree, by object format: the attribute source of every checkout command, so
/// neither the tree's `.gitattributes` nor any other attributes file applies.
const EMPTY_TREE_SHA1: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const EMPTY_TREE_SHA256: &str = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321";

/// `-c` overrides for every command of a checkout. The private git directory's config says
/// nothing else, but a check that runs git in the room could have written to it since: these
/// win over any config file. Each row is a program git would run or a setting that changes
/// which bytes, modes or files a checkout writes, or how it decides a file is unchanged.
pub const CHECKOUT_CONFIG: &[(&str, &str)] = &[
    // Programs.
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("submodule.recurse", "false"),
    // Attributes and ignore rules from outside the tree (the tree's own .gitignore still
    // applies: it decides which outputs stay warm).
    ("core.attributesFile", "/dev/null"),
    ("core.excludesFile", "/dev/null"),
    // Bytes and modes as recorded in the tree.
    ("core.autocrlf", "false"),
    ("core.eol", "lf"),
    ("core.symlinks", "true"),
    ("core.fileMode", "true"),
    ("core.ignoreCase", "false"),
    ("core.precomposeUnicode", "false"),
    // The whole tree, in one plain index.
    ("core.sparseCheckout", "false"),
    ("index.sparse", "false"),
    ("core.splitIndex", "false"),
    ("core.untrackedCache", "false"),
    // A first checkout writes every file: git's own workers, one per core.
    ("checkout.workers", "0"),
    // "Unchanged" judged by everything stat says; ctime cannot be set by a process.
    ("core.trustctime", "true"),
    ("core.checkStat", "default"),
];

/// What [`Checkout::survey_and_clean`] found and removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Survey {
    /// Tracked files that differ from the index ([`Checkout::modified`]).
    pub modified: Vec<PathBuf>,
    /// Untracked, not ignored paths removed ([`Checkout::clean`]).
    pub removed: usize,
    /// Paths that differ between the two trees.
    pub changed: Vec<PathBuf>,
}

/// A checkout of a repository's trees into a directory of its own; see the module docs.
#[derive(Debug, Clone)]
pub struct Checkout {
    work_tree: PathBuf,
    git_dir: PathBuf,
    index: PathBuf,
    /// The repository's object directory.
    objects: PathBuf,
    sha256: bool,
    repo: Repo,
    /// `Some`: a clean removes ignored files too, all but these root-relative directories
    /// ([`Checkout::keeping_only`]).
    keep: Option<Vec<String>>,
}

impl Repo {
    /// A checkout into `work_tree` with its index at `index` and its private git directory at
    /// `git_dir` (all absolute, outside the repository; the caller owns them). The private
    /// directory is created afresh now, whatever was there. The work tree must exist.
    pub fn checkout_into(
        &self,
        work_tree: impl Into<PathBuf>,
        git_dir: impl Into<PathBuf>,
        index: impl Into<PathBuf>,
    ) -> Result<Checkout, Error> {
        let (objects, sha256) = self.object_store()?;
        let checkout = Checkout {
            work_tree: work_tree.into(),
            git_dir: git_dir.into(),
            index: index.into(),
            objects,
            sha256,
            repo: self.clone(),
            keep: None,
        };
        let io_error = |source| Error::Checkout {
            path: checkout.git_dir.clone(),
            source,
        };
        remove_any(&checkout.git_dir).map_err(io_error)?;
        write_git_dir(&checkout.git_dir, checkout.sha256).map_err(io_error)?;
        Ok(checkout)
    }

    /// The repository's object directory and whether its ids are SHA-256. A plain repository
    /// answers without git; a linked worktree (a `commondir` file) or an unknown object format
    /// asks `git rev-parse`.
    pub(crate) fn object_store(&self) -> Result<(PathBuf, bool), Error> {
        if self.sha1_ids() && !self.git_dir().join("commondir").exists() {
            return Ok((self.git_dir().join("objects"), false));
        }
        let mut git = self.git();
        git.args([
            "rev-parse",
            "--path-format=absolute",
            "--git-path",
            "objects",
            "--show-object-format",
        ]);
        let out = git.run()?;
        let text = String::from_utf8_lossy(&out);
        let mut lines = text.lines();
        match (lines.next(), lines.next()) {
            (Some(objects), Some(format)) => Ok((PathBuf::from(objects), format == "sha256")),
            _ => Err(Error::Parse {
                command: git.command_line(),
                detail: format!("expected the objects path and the object format: {text:?}"),
            }),
        }
    }
}

impl Checkout {
    pub fn work_tree(&self) -> &Path {
        &self.work_tree
    }

    pub fn index(&self) -> &Path {
        &self.index
    }

    /// Makes the work tree and the index exactly `tree`: files the index holds and `tree` lacks
    /// are deleted, changed or missing ones are written, and a file whose stat data no longer
    /// matches the index (modified, replaced, chmod-ed since) is rewritten even when the tree
    /// did not change it. Untracked files in the way are overwritten; other untracked files are
    /// left (see [`Checkout::clean`]). Unchanged files are not touched.
    /// (`git read-tree --reset -u`.)
    pub fn reset_to(&self, tree: &TreeHash) -> Result<(), Error> {
        let mut git = self.git();
        git.args(["read-tree", "--reset", "-u", tree.as_str()]);
        git.run()?;
        Ok(())
    }

    /// Moves a checkout whose files match its index to `tree`, writing and deleting only the
    /// paths whose entries differ. Unlike [`Checkout::reset_to`] it believes the index for the
    /// paths that do not change (no stat call for them), so call it only when
    /// [`Checkout::modified`] has just found nothing. Fails, changing nothing, when a file it
    /// would replace or delete is not what the index says or an untracked file is in the way.
    /// (`git read-tree -m -u`, a one-way merge.)
    pub fn update_to(&self, tree: &TreeHash) -> Result<(), Error> {
        let mut git = self.git();
        git.args(["read-tree", "-m", "-u", tree.as_str()]);
        git.run()?;
        Ok(())
    }

    /// Tracked files whose content, mode or type in the work tree differs from the index
    /// (`git diff-files`, stat data first, contents when git cannot tell by stat; a path under a
    /// directory replaced by a symlink counts as deleted), relative to the work tree.
    pub fn modified(&self) -> Result<Vec<PathBuf>, Error> {
        Ok(paths(&self.modified_command().run()?))
    }

    /// Makes every clean ([`Checkout::clean`], [`Checkout::survey_and_clean`]) remove ignored
    /// files too, except the directories `keep` names (root-relative, e.g. `.venv`, `target`):
    /// the work tree then holds the tree's files and those directories, nothing else.
    pub fn keeping_only(mut self, keep: Vec<String>) -> Checkout {
        self.keep = Some(keep);
        self
    }

    /// Removes every untracked file and directory that the `.gitignore` files in the work tree
    /// do not ignore, nested repositories included; ignored files stay — unless
    /// [`Checkout::keeping_only`] said which alone stay. Returns how many paths git removed (a
    /// directory counts once). (`git clean -ffd`, `-x -e /<kept>/` with a keep list.)
    pub fn clean(&self) -> Result<usize, Error> {
        Ok(removed(&self.clean_command().run()?))
    }

    /// [`Checkout::modified`], [`Checkout::clean`] and the paths that differ between the trees
    /// `from` and `to` (added, changed, deleted, mode or type changed; none when equal), as
    /// independent git processes side by side. The clean applies the rules of the work tree as
    /// it is, before any update to `to`.
    pub fn survey_and_clean(&self, from: &TreeHash, to: &TreeHash) -> Result<Survey, Error> {
        let modified = self.modified_command();
        let clean = self.clean_command();
        let mut diff = self.git();
        diff.args([
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--name-only",
            from.as_str(),
            to.as_str(),
        ]);
        let started = (modified.start()?, clean.start()?);
        let changed = if from == to {
            Vec::new()
        } else {
            paths(&diff.run()?)
        };
        let modified = paths(&started.0.finish(&[0])?.1);
        let removed = removed(&started.1.finish(&[0])?.1);
        Ok(Survey {
            modified,
            removed,
            changed,
        })
    }

    fn modified_command(&self) -> Git {
        let mut git = self.git();
        git.args([
            "diff-files",
            "--name-only",
            "-z",
            "--ignore-submodules=none",
        ]);
        git
    }

    fn clean_command(&self) -> Git {
        let mut git = self.git();
        git.args(["clean", "-f", "-f", "-d"]);
        if let Some(keep) = &self.keep {
            // `-x` drops the ignore rules but keeps those given with `-e`.
            git.arg("-x");
            for dir in keep {
                git.arg("-e").arg(format!("/{}/", dir.trim_matches('/')));
            }
        }
        git
    }

    /// The number of entries in the index (0 when there is none yet).
    pub fn entries(&self) -> Result<usize, Error> {
        let mut header = [0u8; 12];
        let read = File::open(&self.index).and_then(|mut f| f.read_exact(&mut header));
        match read {
            Ok(()) => {}
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(source) => {
                return Err(Error::Checkout {
                    path: self.index.clone(),
                    source,
                });
            }
        }
        Ok(crate::index::entry_count(&header).unwrap_or(0))
    }

    /// Gives the work tree a `.git` of its own, for the checks: git commands run there see a
    /// repository whose index is this checkout's (so `git ls-files` and `git status` answer about
    /// the checked-out tree) with no commit and no object: nothing in it names the repository
    /// (an `objects/info/alternates` into the live `.git` was a way back to the live tree and
    /// its ignored files for the code under test). Commands that need a blob's contents (`git
    /// show`, a `git diff` with output) find none. Replaced on every call; pawl's own commands
    /// never read it.
    pub fn expose_to_checks(&self) -> Result<(), Error> {
        let dot_git = self.work_tree.join(".git");
        let io_error = |source| Error::Checkout {
            path: dot_git.clone(),
            source,
        };
        remove_any(&dot_git).map_err(io_error)?;
        write_git_dir(&dot_git, self.sha256).map_err(io_error)?;
        // A link costs nothing; git replaces an index by renaming a new file over it, so the
        // checks' git never writes into ours (and pawl checks its digest anyway).
        let shared = dot_git.join("index");
        match fs::hard_link(&self.index, &shared) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(_) => crate::tree::copy_preserving_mtime(&self.index, &shared).map_err(io_error),
        }
    }

    /// A git command on this checkout: the repository's usual fixed environment, then the
    /// private git directory, the work tree, the index, the repository's objects, no global
    /// config, no replace refs, attributes from the empty tree, and [`CHECKOUT_CONFIG`].
    fn git(&self) -> Git {
        let mut git = self.repo.git_in(&self.work_tree);
        for (key, value) in CHECKOUT_CONFIG {
            git.arg("-c").arg(format!("{key}={value}"));
        }
        git.env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.work_tree)
            .env("GIT_INDEX_FILE", &self.index)
            .env("GIT_OBJECT_DIRECTORY", &self.objects)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env(
                "GIT_ATTR_SOURCE",
                if self.sha256 {
                    EMPTY_TREE_SHA256
                } else {
                    EMPTY_TREE_SHA1
                },
            );
        git
    }
}

fn paths(out: &[u8]) -> Vec<PathBuf> {
    nul_records(out).map(crate::repo::path_of).collect()
}

/// How many paths `git clean` says it removed.
fn removed(out: &[u8]) -> usize {
    out.split(|&b| b == b'\n')
        .filter(|line| line.starts_with(b"Removing "))
        .count()
}

/// Removes `path` whatever it is (a directory with its contents, a file, a symlink — never what
/// a symlink points to); a missing path is fine.
fn remove_any(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => fs::remove_dir_all(path),
        Ok(_) => fs::remove_file(path),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(err),
    }
}

/// A minimal git directory: `HEAD` on an unborn branch, `refs/`, a config naming only the
/// format, and an empty `objects/`.
pub(crate) fn write_git_dir(dir: &Path, sha256: bool) -> io::Result<()> {
    fs::create_dir_all(dir.join("refs"))?;
    fs::create_dir_all(dir.join("objects").join("info"))?;
    fs::write(dir.join("HEAD"), "ref: refs/heads/pawl-room\n")?;
    let config = if sha256 {
        "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tobjectformat = sha256\n"
    } else {
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
    };
    fs::write(dir.join("config"), config)?;
    Ok(())
}
