//! A stamp of the working tree: what every file and directory the tree hash was taken from
//! looked like (their stat data), so that the next hash of an unchanged tree is answered
//! without a git process ([`Repo::tree_hash_unchanged`]). The Stop hook asks for the hash of
//! the same tree at every turn; this is what makes that answer cost a few thousand `lstat`s
//! instead of a `git add --all`.
//!
//! What a stamp covers, and why that is every way the hash can change:
//! - every path of the hashed tree (tracked and untracked, not ignored), by `lstat`: device,
//!   inode, mode, size, mtime and ctime to the nanosecond. A write, a `chmod`, a replacement
//!   or a `touch` back to the old mtime all move the ctime, which no program can set;
//! - every directory git descends into (all but `.git` and what the ignore rules exclude as a
//!   whole, which git lists with `ls-files --others --ignored --directory`): a file created,
//!   removed or renamed in one moves the directory's own mtime, so a new untracked file is seen;
//! - the ignore rules outside the tree (`info/exclude`, the user's global config and excludes
//!   file) and the variables that choose them; the rules inside it are files of the tree;
//! - the set of tracked paths in the real index (a path tracked or untracked while its file is
//!   ignored changes the tree), read in-process when the index file itself changed.
//!
//! Racily clean entries, as git's own: the stamp is refused when any entry's mtime or ctime is
//! not older than a marker file written before `git add` read the tree (a write in the same
//! clock tick as the stat could leave the stat data unchanged). Anything this module is not
//! sure of (another object format, hidden index bits, a path that is not UTF-8) gives no
//! stamp, and the hash is computed by git as before.
//!
//! What this is not: a trust anchor. Whoever can write the stamp can make it claim any tree;
//! the caller keeps it where the agent cannot write and checks its digest against a signed
//! record before use.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::oid::TreeHash;
use crate::repo::{Repo, nul_records};
use crate::tree::TempIndex;
use sha2::{Digest, Sha256};

/// Version 3: each record's path length and stat data as variable-length integers, and the
/// tracked set by its SHA-256 (version 2 kept every path twice and each number in 8 bytes: a
/// stamp of 10,000 files was 1 MB, and a Stop hashes the whole stamp it reads).
const MAGIC: &[u8] = b"pawl-tree-stamp 3\n";
/// Bytes of the SHA-256 of pawl's own index a stamp records.
const INDEX_DIGEST_LEN: usize = 32;
const SHA1_LEN: usize = 20;
/// The variables that choose which ignore rules git reads.
/// (pawl's git reads no system config: `GIT_CONFIG_NOSYSTEM` is always set.)
const RULE_VARS: &[&str] = &["HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"];

/// The stat data compared: device, inode, mode, size, mtime (s, ns), ctime (s, ns).
type Stat = [i64; 8];
/// An absent file (an ignore file that does not exist).
const ABSENT: Stat = [-1; 8];

fn stat_of(m: &fs::Metadata) -> Stat {
    [
        m.dev() as i64,
        m.ino() as i64,
        i64::from(m.mode()),
        m.size() as i64,
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ]
}

fn lstat(path: &Path) -> Option<Stat> {
    fs::symlink_metadata(path).ok().map(|m| stat_of(&m))
}

/// Records one thread compares ([`records_same`]): as git's index preload splits its `lstat`s
/// (a few hundred entries a thread), so that on a large tree the comparisons spread over every
/// core there is ([`compare_threads`]).
const RECORDS_PER_THREAD: usize = 1000;
/// At most this many threads compare records.
const MAX_THREADS: usize = 16;

/// How many threads may compare records: no more than there are cores to run them (at most
/// [`MAX_THREADS`]). More would not finish sooner — the `lstat`s are CPU work in the kernel — and
/// each costs its creation, its exit and its share of the cores the rest of the Stop (the
/// store's tamper check, on the main thread) is waiting for.
fn compare_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_THREADS))
}

/// One stamp record: kind (`d` directory, `f` file, `x` ignore file outside the tree), path,
/// stat data.
fn record<'a>(r: &mut Cursor<'a>) -> Option<(u8, &'a [u8], Stat)> {
    let kind = r.take(1)?[0];
    let path = r.short_field()?;
    let stat = r.short_stat()?;
    Some((kind, path, stat))
}

/// Whether every one of the stamp's `count` records from `bytes[at..]` still has its stat data
/// (see [`all_same`]), the records compared on up to [`MAX_THREADS`] threads, each its own run
/// of the records; all stop as soon as one finds a record that moved. `None` (or `false`) when
/// the records cannot be read or do not end where the stamp does.
fn records_same(root: &Path, bytes: &[u8], at: usize, count: usize) -> Option<bool> {
    // Where each thread's run starts: one pass over the records' lengths up to the last run's
    // start, nothing copied; the last run's thread reads the rest and checks that the records
    // end where the stamp does (a pass over all of them here read every record twice: a tenth
    // of the stamp's CPU on the bench's tree).
    let threads = count
        .div_ceil(RECORDS_PER_THREAD)
        .clamp(1, compare_threads());
    let per = count.div_ceil(threads).max(1);
    let mut runs: Vec<(usize, usize)> = Vec::with_capacity(threads);
    let mut r = Cursor { bytes, at };
    let mut i = 0;
    while i < count {
        if i % per == 0 {
            runs.push((r.at, per.min(count - i)));
            if i + per >= count {
                break;
            }
        }
        record(&mut r)?;
        i += 1;
    }
    if count == 0 && r.at != bytes.len() {
        return None;
    }
    let last = runs.last().map(|&(at, _)| at);
    let moved = std::sync::atomic::AtomicBool::new(false);
    let compare = |&(at, n): &(usize, usize)| {
        let end = (Some(at) == last).then_some(bytes.len());
        let same = all_same(root, Cursor { bytes, at }, n, end, &moved);
        if !same {
            moved.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        same
    };
    let Some((mine, others)) = runs.split_first() else {
        return Some(true);
    };
    Some(std::thread::scope(|s| {
        let others: Vec<_> = others
            .iter()
            .map(|run| {
                std::thread::Builder::new()
                    .spawn_scoped(s, || compare(run))
                    // No thread: this one compares that run too.
                    .map_err(|_| run)
            })
            .collect();
        let mut same = compare(mine);
        for other in others {
            same &= match other {
                Ok(handle) => handle.join().unwrap_or(false),
                Err(run) => compare(run),
            };
        }
        same
    }))
}

/// Whether each of the `n` records read from `r` still has the stat data it recorded (false
/// also when one cannot be read, when `end` is given and the records do not end there, or once
/// `moved` says another thread found one that moved). A
/// file or directory is looked up in its parent directory, opened once for the files that
/// follow in it (one path component per `lstat` instead of the whole path: the records come in
/// the index's order, grouped by directory), never through a symbolic link.
fn all_same(
    root: &Path,
    mut r: Cursor<'_>,
    n: usize,
    end: Option<usize>,
    moved: &std::sync::atomic::AtomicBool,
) -> bool {
    use rustix::fs::{AtFlags, Mode, OFlags};
    let mut open: Option<(&[u8], rustix::fd::OwnedFd)> = None;
    for _ in 0..n {
        if moved.load(std::sync::atomic::Ordering::Relaxed) {
            return false;
        }
        let Some((kind, path, stat)) = record(&mut r) else {
            return false;
        };
        let now = match kind {
            b'x' => lstat(Path::new(OsStr::from_bytes(path))).unwrap_or(ABSENT),
            b'd' if path.is_empty() => lstat(root).unwrap_or(ABSENT),
            b'd' | b'f' => {
                let (parent, name) = match path.iter().rposition(|&b| b == b'/') {
                    Some(i) => (&path[..i], &path[i + 1..]),
                    None => (&path[..0], path),
                };
                if open.as_ref().is_none_or(|(p, _)| *p != parent) {
                    let dir = if parent.is_empty() {
                        root.to_path_buf()
                    } else {
                        root.join(OsStr::from_bytes(parent))
                    };
                    let flags =
                        OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                    match rustix::fs::open(&dir, flags, Mode::empty()) {
                        Ok(fd) => open = Some((parent, fd)),
                        Err(_) => return false,
                    }
                }
                let Some((_, fd)) = &open else {
                    return false;
                };
                // The fields' types differ between rustix's backends and targets.
                #[allow(clippy::unnecessary_cast)]
                match rustix::fs::statat(fd, OsStr::from_bytes(name), AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) => [
                        st.st_dev as i64,
                        st.st_ino as i64,
                        st.st_mode as i64,
                        st.st_size as i64,
                        st.st_mtime as i64,
                        st.st_mtime_nsec as i64,
                        st.st_ctime as i64,
                        st.st_ctime_nsec as i64,
                    ],
                    Err(_) => ABSENT,
                }
            }
            _ => return false,
        };
        if now != stat {
            return false;
        }
    }
    end.is_none_or(|end| r.at == end)
}

/// Whether a file whose stat data is `s` was last changed more than a second before `now`
/// (taken before it was read): a change after the read gets a later time, so its stat data
/// cannot stay as recorded. A file with no time (absent) is settled.
fn settled(s: &Stat, now: std::time::SystemTime) -> bool {
    let Ok(now) = now.duration_since(std::time::UNIX_EPOCH) else {
        return false;
    };
    let limit = (
        i64::try_from(now.as_secs()).unwrap_or(i64::MAX) - 1,
        i64::from(now.subsec_nanos()),
    );
    *s == ABSENT || ((s[4], s[5]) < limit && (s[6], s[7]) < limit)
}

/// Not older than the marker `(s, ns)`: a racily clean entry.
fn racy(s: &Stat, marker: (i64, i64)) -> bool {
    (s[4], s[5]) >= marker || (s[6], s[7]) >= marker
}

impl Repo {
    /// [`Repo::tree_hash`], and the stamp of the tree it hashed when one can be made (see the
    /// module's notes): bytes for [`Repo::tree_hash_unchanged`]. Costs one more git process
    /// (the ignored directories) and a walk of the tree's directories.
    pub fn tree_hash_stamped(&self) -> Result<(TreeHash, Option<Vec<u8>>), Error> {
        let (tree, kept) = self.tree_hash_since(None)?;
        Ok((tree, kept.map(|k| k.stamp)))
    }

    /// [`Repo::tree_hash_stamped`], after `last` (what the last stamped hash of this working
    /// tree left, kept by the caller as a stamp is: where the agent cannot write, or with its
    /// digest signed). Without `last`, git starts from a copy of the real index in which it
    /// reads every file ([`crate::tree::copy_racy`]: git's own stat check compares whole
    /// seconds). With it, git starts from pawl's own index of the last tree (its SHA-256 is in
    /// the stamp) without the entries whose file moved since, to the nanosecond, by the stamp's
    /// stat data, nor those the real index does not track: git reads only what changed. A
    /// `last` that does not fit, or anything git refuses there, and the hash is taken the
    /// first way.
    pub fn tree_hash_since(
        &self,
        last: Option<&TreeStamp>,
    ) -> Result<(TreeHash, Option<TreeStamp>), Error> {
        let real = fs::read(self.index_path()).unwrap_or_default();
        let plain_index =
            real.is_empty() || crate::index::has_hidden_entries(&real, SHA1_LEN) == Some(false);
        if !self.sha1_ids() || !plain_index {
            return Ok((self.tree_hash_by_git()?, None));
        }
        if let Some(start) = last.and_then(|last| self.start_from(last, &real))
            && let Ok(done) = self.stamped_from(Some(&start), &real)
        {
            return Ok(done);
        }
        self.stamped_from(None, &real)
    }

    /// The hash and the stamp, git starting from `start` or (without) the real index's copy.
    fn stamped_from(
        &self,
        start: Option<&Start>,
        real: &[u8],
    ) -> Result<(TreeHash, Option<TreeStamp>), Error> {
        let temp = match start {
            Some(_) => TempIndex::empty(self)?,
            None => TempIndex::new(self)?,
        };
        // Written before git reads anything: an entry changed after it is at least as new.
        let marker = temp.path().with_file_name("marker");
        let marker = fs::write(&marker, b"")
            .ok()
            .and_then(|()| fs::symlink_metadata(&marker).ok())
            .map(|m| (m.mtime(), m.mtime_nsec()));
        if let Some(start) = start {
            fs::write(temp.path(), &start.index).map_err(|source| Error::TempIndex {
                dir: temp.path(),
                source,
            })?;
            temp.update(self, &["--force-remove"], &start.dropped)?;
            temp.update(self, &["--add", "--remove"], &start.again)?;
        }
        temp.add_all(self)?;
        let mut bytes = fs::read(temp.path()).unwrap_or_default();
        let tree = match crate::index::cached_root_tree(&bytes, SHA1_LEN) {
            Some(tree) => tree,
            None => {
                let tree = temp.write_tree(self)?;
                // `write-tree` records the cache tree in the index: a hash that starts from it
                // recomputes only the directories that changed.
                bytes = fs::read(temp.path()).unwrap_or_default();
                tree
            }
        };
        let stamp = match (marker, crate::index::paths(&bytes, SHA1_LEN)) {
            (Some(marker), Some(paths)) => self.stamp(&temp, &tree, &paths, real, &bytes, marker),
            _ => None,
        };
        Ok((
            tree,
            stamp.map(|stamp| TreeStamp {
                stamp,
                index: bytes,
            }),
        ))
    }

    /// Where git starts after `last` (see [`Repo::tree_hash_since`]): pawl's own index of the
    /// last tree when the stamp vouches for it (its digest, the same ignore-rule variables, no
    /// hidden entry), with the paths to drop from it (their file moved since the stamp, to the
    /// nanosecond, or the real index does not track them: git adds them again if they are
    /// there and not ignored) and the tracked paths git must read (dropped ones, and those it
    /// does not hold).
    fn start_from(&self, last: &TreeStamp, real: &[u8]) -> Option<Start> {
        let mut r = Cursor {
            bytes: &last.stamp,
            at: 0,
        };
        if r.take(MAGIC.len())? != MAGIC || r.take(41)?.last() != Some(&b'\n') {
            return None;
        }
        if r.take(INDEX_DIGEST_LEN)? != Sha256::digest(&last.index).as_slice() {
            return None;
        }
        if r.bytes_field()? != self.rule_vars().as_bytes() {
            return None;
        }
        r.stat()?;
        r.take(TRACKED_DIGEST_LEN)?;
        let count = usize::try_from(u64::from_le_bytes(r.take(8)?.try_into().ok()?)).ok()?;
        let mut was: HashMap<&[u8], Stat> = HashMap::with_capacity(count.min(1 << 22));
        for _ in 0..count {
            let (kind, path, stat) = record(&mut r)?;
            if kind == b'f' {
                was.insert(path, stat);
            }
        }
        if r.at != last.stamp.len()
            || crate::index::has_hidden_entries(&last.index, SHA1_LEN) != Some(false)
        {
            return None;
        }
        let kept = crate::index::paths(&last.index, SHA1_LEN)?;
        let tracked = if real.is_empty() {
            Vec::new()
        } else {
            crate::index::paths(real, SHA1_LEN)?
        };
        let tracked_set: HashSet<&str> = tracked.iter().map(String::as_str).collect();
        let kept_set: HashSet<&str> = kept.iter().map(String::as_str).collect();
        let mut start = Start {
            index: last.index.clone(),
            dropped: Vec::new(),
            again: Vec::new(),
        };
        let push = |list: &mut Vec<u8>, p: &str| {
            list.extend_from_slice(p.as_bytes());
            list.push(0);
        };
        for p in &kept {
            let is_tracked = tracked_set.contains(p.as_str());
            let same = was
                .get(p.as_bytes())
                .is_some_and(|s| lstat(&self.root().join(p)).as_ref() == Some(s));
            if same && is_tracked {
                continue;
            }
            push(&mut start.dropped, p);
            if is_tracked {
                push(&mut start.again, p);
            }
        }
        for p in tracked.iter().filter(|p| !kept_set.contains(p.as_str())) {
            push(&mut start.again, p);
        }
        Some(start)
    }

    fn stamp(
        &self,
        temp: &TempIndex,
        tree: &TreeHash,
        paths: &[String],
        real_index: &[u8],
        index: &[u8],
        marker: (i64, i64),
    ) -> Option<Vec<u8>> {
        let tracked = if real_index.is_empty() {
            Vec::new()
        } else {
            crate::index::paths(real_index, SHA1_LEN)?
        };
        let ignored = temp.ignored_dirs(self).ok()?;
        let mut records: Vec<(u8, Vec<u8>, Stat)> = Vec::with_capacity(paths.len() + 256);
        // Directories git descends into.
        let mut stack: Vec<String> = vec![String::new()];
        while let Some(rel) = stack.pop() {
            let dir = if rel.is_empty() {
                self.root().to_path_buf()
            } else {
                self.root().join(&rel)
            };
            let s = lstat(&dir)?;
            if racy(&s, marker) {
                return None;
            }
            records.push((b'd', rel.clone().into_bytes(), s));
            for entry in fs::read_dir(&dir).ok()? {
                let entry = entry.ok()?;
                if !entry.file_type().ok()?.is_dir() {
                    continue;
                }
                let name = entry.file_name();
                let name = name.to_str()?;
                if name == ".git" {
                    continue;
                }
                let sub = if rel.is_empty() {
                    name.to_owned()
                } else {
                    format!("{rel}/{name}")
                };
                if !ignored.contains(&sub) {
                    stack.push(sub);
                }
            }
        }
        for p in paths {
            let m = fs::symlink_metadata(self.root().join(p)).ok()?;
            // A directory among the tree's paths is a gitlink (a submodule, an embedded
            // repository): its commit is in the tree, and no stat of ours sees it move.
            if m.is_dir() {
                return None;
            }
            let s = stat_of(&m);
            if racy(&s, marker) {
                return None;
            }
            records.push((b'f', p.clone().into_bytes(), s));
        }
        for p in self.rule_files(temp.excludes_file(self)) {
            let s = lstat(&p).unwrap_or(ABSENT);
            if s != ABSENT && racy(&s, marker) {
                return None;
            }
            records.push((b'x', p.as_os_str().as_bytes().to_vec(), s));
        }
        let index_stat = lstat(self.index_path()).unwrap_or(ABSENT);
        let mut out = Vec::with_capacity(records.len() * 56 + 256);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(tree.as_str().as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&Sha256::digest(index));
        put_bytes(&mut out, self.rule_vars().as_bytes());
        put_stat(&mut out, &index_stat);
        out.extend_from_slice(&tracked_digest(&tracked));
        out.extend_from_slice(&(records.len() as u64).to_le_bytes());
        for (kind, path, stat) in &records {
            out.push(*kind);
            put_varint(&mut out, path.len() as u64);
            out.extend_from_slice(path);
            for v in stat {
                put_varint(&mut out, zigzag(*v));
            }
        }
        Some(out)
    }

    /// The tree hash `stamp` (from [`Repo::tree_hash_stamped`]) recorded, when every file,
    /// directory and ignore rule it covers is exactly as it was; `None` when anything differs
    /// or the stamp cannot be read (then compute the hash).
    pub fn tree_hash_unchanged(&self, stamp: &[u8]) -> Option<TreeHash> {
        self.tree_hash_unchanged_refreshed(stamp)
            .map(|(tree, _)| tree)
    }

    /// [`Repo::tree_hash_unchanged`], and a fresh stamp of the same tree when the real index
    /// was rewritten with nothing in it that matters moved (a `git status` refreshes the index's
    /// stat data after the stamp was taken): the stamp with the index's new stat data, so that
    /// the next check need not read the index again. Given only when the index file was not
    /// rewritten while it was read and is older than a second (a rewrite after this read, in
    /// the same clock tick, would otherwise leave its stat data as recorded).
    pub fn tree_hash_unchanged_refreshed(
        &self,
        stamp: &[u8],
    ) -> Option<(TreeHash, Option<Vec<u8>>)> {
        let mut r = Cursor {
            bytes: stamp,
            at: 0,
        };
        if r.take(MAGIC.len())? != MAGIC {
            return None;
        }
        let tree = TreeHash::new(std::str::from_utf8(r.take(40)?).ok()?)?;
        if r.take(1)? != b"\n" || !self.sha1_ids() {
            return None;
        }
        r.take(INDEX_DIGEST_LEN)?;
        if r.bytes_field()? != self.rule_vars().as_bytes() {
            return None;
        }
        let index_at = r.at;
        let index_stat = r.stat()?;
        let tracked = r.take(TRACKED_DIGEST_LEN)?;
        let mut refreshed = None;
        let now = lstat(self.index_path()).unwrap_or(ABSENT);
        if now != index_stat {
            // Rewritten (a `git status` refreshes it): the same tracked paths, and still no
            // hidden entry?
            let started = std::time::SystemTime::now();
            let real = fs::read(self.index_path()).unwrap_or_default();
            let now_tracked = if real.is_empty() {
                Vec::new()
            } else {
                if crate::index::has_hidden_entries(&real, SHA1_LEN) != Some(false) {
                    return None;
                }
                crate::index::paths(&real, SHA1_LEN)?
            };
            if tracked_digest(&now_tracked).as_slice() != tracked {
                return None;
            }
            let after = lstat(self.index_path()).unwrap_or(ABSENT);
            if after == now && settled(&now, started) {
                let mut fresh = stamp.to_vec();
                let mut at = Vec::with_capacity(64);
                put_stat(&mut at, &now);
                fresh.get_mut(index_at..index_at + 64)?.copy_from_slice(&at);
                refreshed = Some(fresh);
            }
        }
        let count = usize::try_from(u64::from_le_bytes(r.take(8)?.try_into().ok()?)).ok()?;
        // The `lstat`s are most of the cost: on several threads for a large tree.
        let all_same = records_same(self.root(), stamp, r.at, count)?;
        all_same.then_some((tree, refreshed))
    }

    /// The variables that choose the ignore rules, as git will see them.
    fn rule_vars(&self) -> String {
        let mut out = String::new();
        for name in RULE_VARS {
            let value = self.var(name);
            out.push_str(name);
            out.push('=');
            if let Some(v) = value {
                out.push_str(&v.to_string_lossy());
            }
            out.push('\0');
        }
        out
    }

    fn var(&self, name: &str) -> Option<std::ffi::OsString> {
        self.options()
            .env
            .iter()
            .find(|(k, _)| k == OsStr::new(name))
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var_os(name))
            .filter(|v| !v.is_empty())
    }

    /// The files outside the tree whose content decides what is ignored: the repository's
    /// `info/exclude`, the user's global config (which can name an excludes file) and the
    /// default global excludes file, and `excludes` (the one the config names, asked of git at
    /// stamp time: its name can change only through a config file, which is stamped).
    fn rule_files(&self, excludes: Option<PathBuf>) -> Vec<PathBuf> {
        let mut files = vec![self.exclude_path()];
        let home = self.var("HOME").map(PathBuf::from);
        let xdg = self
            .var("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".config")));
        if let Some(global) = self.var("GIT_CONFIG_GLOBAL") {
            files.push(PathBuf::from(global));
        } else if let Some(home) = &home {
            files.push(home.join(".gitconfig"));
        }
        if let Some(x) = &xdg {
            files.push(x.join("git").join("config"));
            files.push(x.join("git").join("ignore"));
        }
        files.extend(excludes);
        files
    }
}

/// What a stamped tree hash leaves for the next hash of the same working tree
/// ([`Repo::tree_hash_since`]): the stamp (see the module's notes), and pawl's own index of the
/// tree it hashed, whose SHA-256 the stamp records. Keep both where the agent cannot write, or
/// sign the stamp's digest: the stamp vouches for the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeStamp {
    pub stamp: Vec<u8>,
    pub index: Vec<u8>,
}

/// Where git starts a hash after a stamped one: pawl's own index of the last tree, the paths to
/// drop from it and the tracked paths git must read (each NUL-terminated).
struct Start {
    index: Vec<u8>,
    dropped: Vec<u8>,
    again: Vec<u8>,
}

impl TempIndex {
    /// `git update-index <options> -z --stdin` with `paths` (NUL-terminated) on this index,
    /// through the same private git directory as [`TempIndex::add_all`]; nothing without paths.
    fn update(&self, repo: &Repo, options: &[&str], paths: &[u8]) -> Result<(), Error> {
        if paths.is_empty() {
            return Ok(());
        }
        let (private, objects) = self.private_dir(repo)?;
        let mut git = repo.private_git(&private, &objects);
        git.env("GIT_INDEX_FILE", self.path())
            .env("GIT_ATTR_SOURCE", repo.empty_tree())
            .arg("update-index")
            .args(options)
            .args(["-z", "--stdin"])
            .stdin(paths.to_vec());
        git.run()?;
        Ok(())
    }

    /// The directories git ignores as a whole (and so never descends into), relative to the
    /// root without their trailing `/`: through the same private git directory as
    /// [`TempIndex::add_all`]. `ls-files --directory` also lists a directory whose files are
    /// each ignored (`build/` of `*.o` files) — with those files after it: such a directory is
    /// descended into by git, and kept.
    pub(crate) fn ignored_dirs(&self, repo: &Repo) -> Result<BTreeSet<String>, Error> {
        let (private, objects) = self.private_dir(repo)?;
        let mut git = repo.private_git(&private, &objects);
        git.env("GIT_INDEX_FILE", self.path()).args([
            "ls-files",
            "-z",
            "--others",
            "--ignored",
            "--exclude-standard",
            "--directory",
            "--",
            ":/",
        ]);
        let out = git.run()?;
        let listed: BTreeSet<&[u8]> = nul_records(&out).collect();
        Ok(listed
            .iter()
            .filter(|r| r.ends_with(b"/"))
            .filter(|r| {
                listed
                    .range::<&[u8], _>((std::ops::Bound::Excluded(**r), std::ops::Bound::Unbounded))
                    .next()
                    .is_none_or(|next| !next.starts_with(r))
            })
            .filter_map(|r| r.strip_suffix(b"/"))
            .map(|r| String::from_utf8_lossy(r).into_owned())
            .collect())
    }

    /// `core.excludesFile` as this private git directory's git reads it (the user's global
    /// config: the repository's own config is not read there), when set.
    fn excludes_file(&self, repo: &Repo) -> Option<PathBuf> {
        let (private, objects) = self.private_dir(repo).ok()?;
        let mut git = repo.private_git(&private, &objects);
        git.args(["config", "--path", "--get", "core.excludesFile"]);
        let (code, out) = git.run_allowing(&[0, 1]).ok()?;
        let line = crate::repo::first_line(&out);
        (code == 0 && !line.is_empty()).then(|| PathBuf::from(line))
    }
}

/// Bytes of the SHA-256 of the tracked set a stamp records.
const TRACKED_DIGEST_LEN: usize = 32;

/// The SHA-256 of the tracked paths, in the index's order, each ended by a NUL.
fn tracked_digest(paths: &[String]) -> [u8; TRACKED_DIGEST_LEN] {
    let mut h = Sha256::new();
    for p in paths {
        h.update(p.as_bytes());
        h.update([0]);
    }
    h.finalize().into()
}

/// `v` in 7-bit groups, low first, the high bit set on every byte but the last (LEB128).
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v & 0x7f) as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A signed number as an unsigned one with a small magnitude staying small (`-1` is 1).
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    out.extend_from_slice(bytes);
}

fn put_stat(out: &mut Vec<u8>, s: &Stat) {
    for v in s {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    fn bytes_field(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(u64::from_le_bytes(self.take(8)?.try_into().ok()?)).ok()?;
        self.take(n)
    }

    fn stat(&mut self) -> Option<Stat> {
        let mut s = [0i64; 8];
        for v in &mut s {
            *v = i64::from_le_bytes(self.take(8)?.try_into().ok()?);
        }
        Some(s)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            if shift > 63 {
                return None;
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
            shift += 7;
        }
    }

    /// A record's path: its length as a [`put_varint`], then its bytes.
    fn short_field(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.varint()?).ok()?;
        self.take(n)
    }

    /// A record's stat data: eight [`zigzag`]ged [`put_varint`]s.
    fn short_stat(&mut self) -> Option<Stat> {
        let mut s = [0i64; 8];
        for v in &mut s {
            *v = unzigzag(self.varint()?);
        }
        Some(s)
    }
}
