//! Reading facts out of a git index file without a process: the id of the root tree in its
//! cache-tree (`TREE`) extension when git has marked that root valid, whether an entry hides its
//! file from git (assume-unchanged, skip-worktree), and the tracked paths. One walk of the
//! format ([`walk`]) serves them all.
//!
//! The format is git's `Documentation/gitformat-index.txt`: a header (`DIRC`, version 2–4,
//! entry count), the entries (v2/v3 padded to 8 bytes, v4 with prefix-compressed paths), then
//! extensions (4-byte signature, 4-byte big-endian size, data) up to the trailing checksum.
//!
//! Not here: anything that decides whether a file changed. This module never looks at the
//! working tree; it only reads what git itself recorded after `git add -A`. Anything unexpected
//! (another version, a split or sparse index, a required extension we do not know, a truncated
//! file) answers `None`, and the caller asks `git write-tree`.

/// Size of an entry's fixed part before the object id: ctime, mtime (8 bytes each), dev, ino,
/// mode, uid, gid, size (4 bytes each).
const STAT_LEN: usize = 40;
/// Bit 14 of the flags word after the object id marks an extended (v3+) entry with 2 more bytes.
const EXTENDED: u16 = 0x4000;

/// The number of entries an index's header announces (`None` when it is not an index).
pub(crate) fn entry_count(index: &[u8]) -> Option<usize> {
    let mut r = Reader {
        bytes: index,
        at: 0,
    };
    if r.take(4)? != b"DIRC" {
        return None;
    }
    r.u32()?;
    usize::try_from(r.u32()?).ok()
}

/// Bit 15 of the flags word: the entry is "assume valid" (`git update-index --assume-unchanged`).
const ASSUME_VALID: u16 = 0x8000;
/// Bit 14 of the extended flags word: the entry is `--skip-worktree`.
const SKIP_WORKTREE: u16 = 0x4000;

/// One entry as the walk sees it: its flags, its extended flags (0 when it has none) and its
/// whole path (v4's prefix compression undone).
struct Entry<'p> {
    flags: u16,
    extended: u16,
    /// The entry's mode (`0o100644`, `0o160000` for a gitlink).
    mode: u32,
    path: &'p [u8],
}

/// The mode of a gitlink (a submodule's commit).
const GITLINK: u32 = 0o160000;

/// An index read once: every entry handed to `each` in order (which may end the walk early with
/// an answer), then the extensions up to the trailing checksum. `None` when this index cannot be
/// read here: another version, a truncated file, a split or sparse index, an unknown required
/// extension. The one place the format is walked.
fn walk<T>(
    index: &[u8],
    hash_len: usize,
    mut each: impl FnMut(&Entry<'_>) -> Option<std::ops::ControlFlow<T>>,
    mut extension: impl FnMut(&[u8], &[u8]) -> Option<std::ops::ControlFlow<T>>,
) -> Option<Option<T>> {
    use std::ops::ControlFlow;
    let mut r = Reader {
        bytes: index,
        at: 0,
    };
    if r.take(4)? != b"DIRC" {
        return None;
    }
    let version = r.u32()?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let entries = usize::try_from(r.u32()?).ok()?;
    // Each entry takes at least STAT_LEN + hash_len + 2 bytes: a count the file cannot hold is
    // not an index.
    if entries > index.len() / (STAT_LEN + hash_len + 2) {
        return None;
    }
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..entries {
        let start = r.at;
        let fixed = r.take(STAT_LEN + hash_len)?;
        // ctime, mtime (8 bytes each), dev, ino: the mode is the next 4 bytes.
        let mode = u32::from_be_bytes(fixed.get(24..28)?.try_into().ok()?);
        let flags = r.u16()?;
        let extended = if flags & EXTENDED != 0 {
            if version < 3 {
                return None;
            }
            r.u16()?
        } else {
            0
        };
        if version == 4 {
            // The path is the previous one without its last `strip` bytes, then these.
            let strip = r.offset_varint()?;
            let keep = previous.len().checked_sub(usize::try_from(strip).ok()?)?;
            previous.truncate(keep);
            previous.extend_from_slice(r.through_nul()?);
        } else {
            previous.clear();
            previous.extend_from_slice(r.through_nul()?);
            // 1 to 8 NULs in all, so that the entry's length is a multiple of 8.
            let len = r.at - start;
            let padded = (len + 7) & !7;
            r.take(padded - len)?;
        }
        let entry = Entry {
            flags,
            extended,
            mode,
            path: &previous,
        };
        if let ControlFlow::Break(t) = each(&entry)? {
            return Some(Some(t));
        }
    }
    // The extensions end where the trailing checksum begins.
    let end = index.len().checked_sub(hash_len)?;
    let mut r = Reader {
        bytes: index.get(..end)?,
        at: r.at,
    };
    while r.at < end {
        let signature = r.take(4)?;
        let size = usize::try_from(r.u32()?).ok()?;
        let data = r.take(size)?;
        match signature {
            // A split index keeps entries in another file, a sparse one lists directories: let
            // git answer.
            b"link" | b"sdir" => return None,
            // An upper-case first letter means optional; an unknown required one means we do
            // not understand this index.
            [first, ..] if !first.is_ascii_uppercase() => return None,
            _ => {}
        }
        if let ControlFlow::Break(t) = extension(signature, data)? {
            return Some(Some(t));
        }
    }
    Some(None)
}

/// Whether any entry of `index` carries a bit that makes git skip reading its file
/// (assume-unchanged or skip-worktree); `None` when the index cannot be read here.
pub(crate) fn has_hidden_entries(index: &[u8], hash_len: usize) -> Option<bool> {
    use std::ops::ControlFlow;
    let found = walk(
        index,
        hash_len,
        |e| {
            let hidden = e.flags & ASSUME_VALID != 0 || e.extended & SKIP_WORKTREE != 0;
            Some(if hidden {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            })
        },
        |_, _| Some(ControlFlow::Continue(())),
    )?;
    Some(found.is_some())
}

/// The paths an index lists, in its order, each once (an unmerged path has up to three
/// stages): what `git ls-files --full-name` prints from the top, read without a process.
/// `None` when this index cannot be read here (see [`walk`]) or holds a path that is empty or
/// not UTF-8: ask git then.
pub(crate) fn paths(index: &[u8], hash_len: usize) -> Option<Vec<String>> {
    paths_and_gitlinks(index, hash_len).map(|(paths, _)| paths)
}

/// [`paths`], and those of them that are gitlinks (submodules, mode 160000).
pub(crate) fn paths_and_gitlinks(
    index: &[u8],
    hash_len: usize,
) -> Option<(Vec<String>, Vec<String>)> {
    use std::ops::ControlFlow;
    let mut out: Vec<String> = Vec::with_capacity(entry_count(index).unwrap_or(0).min(1 << 20));
    let mut gitlinks: Vec<String> = Vec::new();
    walk::<()>(
        index,
        hash_len,
        |e| {
            if e.path.is_empty() {
                return None;
            }
            if out.last().map(String::as_bytes) != Some(e.path) {
                out.push(String::from_utf8(e.path.to_vec()).ok()?);
                if e.mode == GITLINK {
                    gitlinks.push(out.last()?.clone());
                }
            }
            Some(ControlFlow::Continue(()))
        },
        |_, _| Some(ControlFlow::Continue(())),
    )?;
    Some((out, gitlinks))
}

/// The root tree id of a valid cache tree in `index` (object ids of `hash_len` bytes), as hex.
pub(crate) fn cached_root_tree(index: &[u8], hash_len: usize) -> Option<crate::TreeHash> {
    use std::ops::ControlFlow;
    walk(
        index,
        hash_len,
        |_| Some(ControlFlow::Continue(())),
        |signature, data| {
            Some(if signature == b"TREE" {
                ControlFlow::Break(root_of_tree_extension(data, hash_len))
            } else {
                ControlFlow::Continue(())
            })
        },
    )?
    .flatten()
}

/// The first record of `TREE` is the root: `"" NUL <entry count> SP <subtrees> LF <oid>`, where
/// an entry count of -1 means invalid (and no oid follows).
fn root_of_tree_extension(data: &[u8], hash_len: usize) -> Option<crate::TreeHash> {
    let mut r = Reader { bytes: data, at: 0 };
    let path = r.through_nul()?;
    if !path.is_empty() {
        return None;
    }
    let counts = r.through(b'\n')?;
    let (count, _subtrees) = std::str::from_utf8(counts).ok()?.split_once(' ')?;
    let count: i64 = count.parse().ok()?;
    if count < 0 {
        return None;
    }
    let oid = r.take(hash_len)?;
    crate::TreeHash::new(hex(oid))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }

    fn u32(&mut self) -> Option<u32> {
        let b = self.take(4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u16(&mut self) -> Option<u16> {
        let b = self.take(2)?;
        Some(u16::from_be_bytes([b[0], b[1]]))
    }

    /// The bytes up to `stop`, which is consumed and not returned.
    fn through(&mut self, stop: u8) -> Option<&'a [u8]> {
        let rest = self.bytes.get(self.at..)?;
        let n = rest.iter().position(|&b| b == stop)?;
        self.at += n + 1;
        Some(&rest[..n])
    }

    fn through_nul(&mut self) -> Option<&'a [u8]> {
        self.through(0)
    }

    /// git's offset varint (v4 path prefix lengths): each continued byte adds one before the
    /// shift, so every value has exactly one encoding.
    fn offset_varint(&mut self) -> Option<u64> {
        let mut b = self.take(1)?[0];
        let mut value = u64::from(b & 0x7f);
        for _ in 0..9 {
            if b & 0x80 == 0 {
                return Some(value);
            }
            b = self.take(1)?[0];
            value = value.checked_add(1)?.checked_shl(7)? | u64::from(b & 0x7f);
        }
        (b & 0x80 == 0).then_some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, version: u32) -> Vec<u8> {
        let mut e = vec![0u8; STAT_LEN];
        e.extend_from_slice(&[0xab; 20]);
        let len = u16::try_from(path.len()).unwrap_or(0xfff).min(0xfff);
        e.extend_from_slice(&len.to_be_bytes());
        if version == 4 {
            e.push(0);
            e.extend_from_slice(path.as_bytes());
            e.push(0);
        } else {
            e.extend_from_slice(path.as_bytes());
            e.push(0);
            while !e.len().is_multiple_of(8) {
                e.push(0);
            }
        }
        e
    }

    fn index(version: u32, paths: &[&str], extensions: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut b = b"DIRC".to_vec();
        b.extend_from_slice(&version.to_be_bytes());
        b.extend_from_slice(&u32::try_from(paths.len()).unwrap_or(0).to_be_bytes());
        for p in paths {
            b.extend(entry(p, version));
        }
        for (sig, data) in extensions {
            b.extend_from_slice(*sig);
            b.extend_from_slice(&u32::try_from(data.len()).unwrap_or(0).to_be_bytes());
            b.extend_from_slice(data);
        }
        b.extend_from_slice(&[0u8; 20]);
        b
    }

    fn tree(count: &str, oid: Option<u8>) -> Vec<u8> {
        let mut t = format!("\0{count} 0\n").into_bytes();
        if let Some(o) = oid {
            t.extend_from_slice(&[o; 20]);
        }
        t
    }

    #[test]
    fn a_valid_root_is_read_in_every_version() {
        for version in [2, 3, 4] {
            let idx = index(
                version,
                &["a", "dir/bbbbbbb", "c"],
                &[(b"TREE", tree("3", Some(0x12)))],
            );
            let got = cached_root_tree(&idx, 20).map(|t| t.to_string());
            assert_eq!(got, Some("12".repeat(20)), "version {version}");
        }
    }

    #[test]
    fn an_invalidated_root_is_not_an_answer() {
        let idx = index(2, &["a"], &[(b"TREE", tree("-1", None))]);
        assert_eq!(cached_root_tree(&idx, 20), None);
    }

    #[test]
    fn no_cache_tree_split_index_or_unknown_required_extension_is_not_an_answer() {
        assert_eq!(cached_root_tree(&index(2, &["a"], &[]), 20), None);
        for sig in [b"link", b"sdir", b"zzzz"] {
            let idx = index(
                2,
                &["a"],
                &[(sig, vec![0; 8]), (b"TREE", tree("1", Some(1)))],
            );
            assert_eq!(cached_root_tree(&idx, 20), None, "{sig:?}");
        }
        // An optional extension we do not know is skipped.
        let idx = index(
            2,
            &["a"],
            &[(b"ZZZZ", vec![0; 8]), (b"TREE", tree("1", Some(1)))],
        );
        assert!(cached_root_tree(&idx, 20).is_some());
    }

    #[test]
    fn truncated_or_foreign_bytes_are_not_an_answer() {
        let idx = index(2, &["a", "b"], &[(b"TREE", tree("2", Some(7)))]);
        for cut in 0..idx.len() - 20 {
            assert_eq!(cached_root_tree(&idx[..cut], 20), None, "cut at {cut}");
        }
        let mut other = idx.clone();
        other[..4].copy_from_slice(b"JUNK");
        assert_eq!(cached_root_tree(&other, 20), None);
    }
}
