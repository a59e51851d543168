//! The guard's figures (issue 36, docs/guard.md "Figures"): the false-positive rate on the
//! everyday set, the block rate on the attack sets, per family, and the in-process decision
//! median over the everyday set. Run with `cargo bench -p pawl-guard --bench figures`;
//! `PAWL_GUARD_FIGURES_LIST=1` also prints every wrong decision.
//!
//! The everyday set is in the repository, `crates/guard/data/everyday/everyday.tsv` (or the file
//! `$PAWL_GUARD_EVERYDAY` names): commands mined from public repositories and labelled by the
//! principle of docs/guard.md by someone who does not write the rules. Its columns are
//! `command<TAB>label<TAB>effect<TAB>repo<TAB>path[<TAB>note[<TAB>kind]]`, `label` being `allow`
//! or `deny` (the set's own README describes them); the command is as found, one line, no
//! escapes; lines starting with `#` and a header line (`command<TAB>label...`) are skipped. The
//! bench stops with an error when the file is absent or holds no row. A row's family is where it
//! was mined from: its `kind` (workflow `run:` steps, Makefile and justfile recipes,
//! `package.json` scripts, tox/nox, `.claude/settings*.json` allow-lists), else read from its
//! path. Each everyday row is judged in a session on its own repository, as the hook judges an
//! agent's command (issue 36, session 18): that repository's tracked files (`tracked.tsv`, see
//! `repository_files`) and, for a row mined from a Makefile, justfile, `package.json`, tox or nox
//! file, that file's directory as the working directory; the figure with the one repository of
//! sessions 10-17 for every row is printed beside it. The everyday set is judged with
//! `containers = false`, the default its labels assume;
//! the attack sets with `containers = true`, as before. Beside the set, `adjudication.tsv`
//! relabels the rows whose label contradicts the rule as written (each with its reason; the
//! labeller's file is unchanged, and the figure with its labels alone is printed too), and
//! `context.tsv` gives workflow rows the static environment of their step: the false positives
//! are printed again with it, apart from the headline (the hook has no such environment). The attack sets are this crate's rows; the
//! lines written apart from the rules (`tests/data/classes-apart.tsv`, the shared corpus) are
//! also totalled apart.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pawl_guard::{Context, Guard, Input, Policy, TrackedFiles, TrackedSet};

const ROUNDS: usize = 5;

fn context() -> Context {
    let mut ctx = Context::new("/home/dev/repo");
    ctx.repo_root = Some("/home/dev/repo".into());
    ctx.branch = Some("feat/guard".into());
    ctx.run_active = true;
    ctx.home = Some("/home/dev".into());
    ctx.tmpdir = Some("/var/tmp/agent-tmp".into());
    ctx.containers = true;
    ctx.checkpointed = true;
    let mut tracked: TrackedSet = [
        "README.md",
        "Cargo.toml",
        "Cargo.lock",
        "package.json",
        ".gitignore",
        "CHANGELOG.md",
        "src/main.rs",
        "src/lib.rs",
        "src/guard.rs",
        "src/legacy/mod.rs",
        "docs/guide.md",
        ".github/workflows/ci.yml",
    ]
    .into_iter()
    .collect();
    // The hook reads the index's modes (session 20): one submodule, as in the checkpoint
    // rows' context (`tests/it/checkpoint.rs`).
    tracked.insert("dist/server.js");
    tracked.insert_gitlink("third_party/lib");
    ctx.tracked = Arc::new(tracked);
    ctx.fs = Arc::new(Ignored);
    ctx
}

#[path = "../tests/it/ignored.rs"]
mod ignored;
use ignored::Ignored;

#[path = "../tests/it/unescape.rs"]
mod unescape;
use unescape::unescape;

struct Row {
    family: String,
    /// Relabelled by `adjudication.tsv` (the labeller's label was `allow`).
    adjudicated: bool,
    /// The static context of the row's workflow step (`context.tsv`), for the everyday set.
    step: Option<Arc<Step>>,
    /// What the labeller named (`effect`); for the everyday set only.
    effect: String,
    attack: bool,
    command: String,
    /// Where an everyday row was mined: its repository (`owner/name`) and file.
    repo: String,
    source: String,
}

fn everyday_path() -> PathBuf {
    if let Some(p) = std::env::var_os("PAWL_GUARD_EVERYDAY") {
        return p.into();
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/everyday/everyday.tsv")
}

/// Where a mined command came from, by the path of the file it was mined from.
fn source_family(path: &str) -> &'static str {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    if lower.contains(".github/workflows/") || lower.contains(".gitlab-ci") {
        "workflow run: steps"
    } else if lower.contains(".claude/") {
        "settings allow-lists"
    } else if name == "package.json" {
        "package.json scripts"
    } else if name == "justfile" || name.ends_with(".just") {
        "justfile recipes"
    } else if name.starts_with("makefile") || name == "gnumakefile" || name.ends_with(".mk") {
        "Makefile recipes"
    } else if name == "tox.ini" || name == "pyproject.toml" || name == "setup.cfg" {
        "tox"
    } else if name.starts_with("noxfile") {
        "nox"
    } else {
        "other"
    }
}

/// The everyday set, or why there is none (the bench then stops: figures without it would
/// mislead).
fn everyday() -> Result<Vec<Row>, String> {
    let path = everyday_path();
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "the everyday set is not readable at {}: {e}\n(it lives in the repository at \
             crates/guard/data/everyday/everyday.tsv; $PAWL_GUARD_EVERYDAY names another file)",
            path.display()
        )
    })?;
    let adjudicated = adjudications(&path)?;
    let contexts = contexts(&path)?;
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with("command\t") {
            continue;
        }
        let c: Vec<&str> = line.split('\t').collect();
        let (Some(command), Some(label)) = (c.first(), c.get(1)) else {
            bad.push(n + 1);
            continue;
        };
        let attack = match label.trim() {
            "allow" => false,
            "deny" => true,
            _ => {
                bad.push(n + 1);
                continue;
            }
        };
        let family = match c.get(6).map(|k| k.trim()) {
            Some(kind) if !kind.is_empty() && kind != "-" => kind.to_string(),
            _ => source_family(c.get(4).copied().unwrap_or("")).to_string(),
        };
        let adjudication = adjudicated.get(*command);
        let labelled_allow = !attack;
        let attack = adjudication.map_or(attack, |(label, _)| *label);
        rows.push(Row {
            family,
            adjudicated: labelled_allow && attack,
            step: contexts.get(*command).cloned(),
            // For a row labelled deny the effect the labeller named; for one labelled allow its
            // note (`var`: the effect depends on a variable the row does not show).
            effect: match adjudication {
                Some((_, effect)) if attack => effect.clone(),
                _ => c
                    .get(if attack { 2 } else { 5 })
                    .map(|e| e.trim().to_string())
                    .unwrap_or_default(),
            },
            attack,
            command: (*command).to_string(),
            repo: c.get(3).map(|r| r.trim().to_string()).unwrap_or_default(),
            source: c.get(4).map(|r| r.trim().to_string()).unwrap_or_default(),
        });
    }
    if !bad.is_empty() {
        println!(
            "everyday set: {} lines skipped (no `allow`/`deny` label in the second column): lines {:?}",
            bad.len(),
            &bad[..bad.len().min(20)]
        );
    }
    if rows.is_empty() {
        return Err(format!(
            "the everyday set at {} holds no row",
            path.display()
        ));
    }
    Ok(rows)
}

/// The rows `adjudication.tsv` (beside the everyday set) relabels, by command: `(labelled
/// deny, effect)`. Each carries its reason there; the labeller's file is left as it was.
fn adjudications(everyday: &Path) -> Result<BTreeMap<String, (bool, String)>, String> {
    let path = everyday.with_file_name("adjudication.tsv");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(BTreeMap::new());
    };
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with("command\t") {
            continue;
        }
        let c: Vec<&str> = line.split('\t').collect();
        let [command, label, effect, reason] = c[..] else {
            return Err(format!("{}: malformed row {line:?}", path.display()));
        };
        let deny = match label {
            "deny" => true,
            "allow" => false,
            _ => return Err(format!("{}: label {label:?} in {line:?}", path.display())),
        };
        if reason.trim().is_empty() {
            return Err(format!(
                "{}: a row without its reason: {line:?}",
                path.display()
            ));
        }
        out.insert(command.to_string(), (deny, effect.to_string()));
    }
    Ok(out)
}

/// What a session running a workflow row's job would hold (`context.tsv`, written by
/// `context.py` from the mirrors): the static environment of the row's step — the workflow's,
/// job's and step's `env:` (with `${{ matrix.* }}`/`${{ env.* }}` of the job's first matrix
/// combination), what earlier steps of the job wrote to `$GITHUB_ENV` and the earlier lines of
/// its `run:` block assigned, each only where static — and the directory it runs in (the
/// `working-directory` and the literal `cd`s of earlier lines), repository-relative.
struct Step {
    env: Arc<BTreeMap<String, String>>,
    /// `None`: the repository's root (or a directory the reading could not follow).
    cwd: Option<String>,
}

/// The static context of workflow rows (`context.tsv` beside the everyday set), by command.
fn contexts(everyday: &Path) -> Result<BTreeMap<String, Arc<Step>>, String> {
    let path = everyday.with_file_name("context.tsv");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(BTreeMap::new());
    };
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') || line.starts_with("command\t") {
            continue;
        }
        let c: Vec<&str> = line.split('\t').collect();
        let (command, env, cwd) = match c[..] {
            [command, _repo, _path, env] => (command, env, "."),
            [command, _repo, _path, env, cwd] => (command, env, cwd),
            _ => return Err(format!("{}: malformed row {line:?}", path.display())),
        };
        let env: BTreeMap<String, String> = serde_json::from_str(env)
            .map_err(|e| format!("{}: {e} in {line:?}", path.display()))?;
        let cwd = (cwd != "." && !cwd.is_empty()).then(|| cwd.to_string());
        out.insert(
            command.to_string(),
            Arc::new(Step {
                env: Arc::new(env),
                cwd,
            }),
        );
    }
    Ok(out)
}

/// The tracked files of each everyday row's repository, by `owner/name`: `tracked.tsv` beside
/// the everyday set (`repo<TAB>path`). It holds, of each repository's `git ls-files` at the
/// mined commit, the files the guard asks about for that repository's rows (every file it asked
/// about that is tracked, one witness file for each directory or pattern it asked about) and
/// all its submodules (`repo<TAB>path<TAB>gitlink`): the guard answers every row as with the
/// whole list, the index's modes known. `PAWL_GUARD_TRACKED_FULL=<file>` (the same columns,
/// the whole lists: `git ls-tree -r HEAD` of each mirror, a 160000 entry as a gitlink) rebuilds it: the
/// bench then records what the guard asks and writes `tracked.tsv` anew. Absent: no
/// repository figures.
fn repository_files(everyday: &Path) -> Result<Option<Repositories>, String> {
    let (path, recording) = match std::env::var_os("PAWL_GUARD_TRACKED_FULL") {
        Some(full) => (PathBuf::from(full), true),
        None => (everyday.with_file_name("tracked.tsv"), false),
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return if recording {
            Err(format!("{}: not readable", path.display()))
        } else {
            Ok(None)
        };
    };
    let mut lists: BTreeMap<String, TrackedSet> = BTreeMap::new();
    let mut gitlinks: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut unknown_modes: BTreeSet<String> = BTreeSet::new();
    for line in text.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        // A repository alone on its line: the guard asked about none of its tracked files.
        // A third column `gitlink`: the path is a submodule (mode 160000).
        let columns: Vec<&str> = line.split('\t').collect();
        match columns[..] {
            [repo, file, "gitlink"] => {
                lists
                    .entry(repo.to_string())
                    .or_default()
                    .insert_gitlink(file);
                gitlinks
                    .entry(repo.to_string())
                    .or_default()
                    .push(file.to_string());
            }
            [repo, "-", "modes-unknown"] => {
                lists.entry(repo.to_string()).or_default();
                unknown_modes.insert(repo.to_string());
            }
            [repo, file] => lists.entry(repo.to_string()).or_default().insert(file),
            _ => {
                lists.entry(line.trim().to_string()).or_default();
            }
        }
    }
    // Every gitlink of a listed repository is listed: the modes are known, unless the line
    // `repo<TAB>-<TAB>modes-unknown` says they were not recorded.
    for (repo, set) in &mut lists {
        if !unknown_modes.contains(repo) {
            set.know_modes();
        }
    }
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let files = lists
        .into_iter()
        .map(|(repo, full)| {
            let files: Arc<dyn TrackedFiles> = if recording {
                Arc::new(Recording {
                    full,
                    repo: repo.clone(),
                    seen: seen.clone(),
                })
            } else {
                Arc::new(full)
            };
            (repo, files)
        })
        .collect();
    Ok(Some(Repositories {
        files,
        recorded: recording.then_some(seen),
        out: everyday.with_file_name("tracked.tsv"),
        gitlinks,
        unknown_modes,
    }))
}

/// What the guard asked about while `tracked.tsv` is rebuilt: `(repo, path)`.
type Asked = Arc<Mutex<BTreeSet<(String, String)>>>;

struct Repositories {
    files: BTreeMap<String, Arc<dyn TrackedFiles>>,
    /// When rebuilding `tracked.tsv`: what the guard asked about, `(repo, path)`.
    recorded: Option<Asked>,
    out: PathBuf,
    /// Each repository's gitlinks (submodules), all of them, written back whole.
    gitlinks: BTreeMap<String, Vec<String>>,
    /// The repositories whose gitlinks were not recorded (`modes-unknown`).
    unknown_modes: BTreeSet<String>,
}

impl Repositories {
    /// The context of an everyday row in a session on its own repository: that repository's
    /// tracked files, and the directory its file sits in as the working directory for the
    /// commands a Makefile, justfile, `package.json`, tox or nox file runs (a workflow step and
    /// an agent's allow-list run at the top). `None` when the row's repository is not listed.
    fn context(&self, base: &Context, row: &Row) -> Option<Context> {
        let tracked = self.files.get(&row.repo)?.clone();
        let root = base.repo_root.clone()?;
        let in_file_dir = matches!(
            row.family.as_str(),
            "makefile" | "justfile" | "package.json" | "tox" | "nox"
        );
        let cwd = match row.source.rsplit_once('/') {
            Some((dir, _)) if in_file_dir => root.join(dir),
            _ => root,
        };
        Some(Context {
            cwd,
            tracked,
            ..base.clone()
        })
    }

    /// Writes what was recorded as `tracked.tsv`; returns how many files.
    fn write(&self) -> Option<std::io::Result<usize>> {
        let seen = self.recorded.as_ref()?.lock().ok()?;
        let mut text = String::from(
            "# The tracked files the guard asks about, per repository of the everyday set (see\n\
             # benches/figures.rs, `repository_files`): repo<TAB>path, and every submodule of the\n\
             # repository as repo<TAB>path<TAB>gitlink (mode 160000). Written by the figures bench\n\
             # with PAWL_GUARD_TRACKED_FULL (each mirror's `git ls-tree -r HEAD`). A repository\n\
             # alone on its line: the guard asked about none of its files. repo<TAB>-<TAB>modes-unknown:\n\
             # its submodules were not recorded (no mirror when they were added, session 20), so the\n\
             # guard is not told the index's modes for it (its cautious answer).\n",
        );
        let none = Vec::new();
        for repo in self.files.keys() {
            if self.unknown_modes.contains(repo) {
                text.push_str(&format!("{repo}\t-\tmodes-unknown\n"));
            }
            let links = self.gitlinks.get(repo).unwrap_or(&none);
            let mut asked = seen
                .range((repo.clone(), String::new())..)
                .take_while(|(r, _)| r == repo)
                .filter(|(_, p)| !links.contains(p))
                .peekable();
            if asked.peek().is_none() && links.is_empty() && !self.unknown_modes.contains(repo) {
                text.push_str(&format!("{repo}\n"));
            }
            for (_, path) in asked {
                text.push_str(&format!("{repo}\t{path}\n"));
            }
            for path in links {
                text.push_str(&format!("{repo}\t{path}\tgitlink\n"));
            }
        }
        Some(std::fs::write(&self.out, text).map(|()| seen.len()))
    }
}

/// A repository's whole tracked list that notes the files whose presence decides an answer,
/// so that the subset written to `tracked.tsv` answers every question the same way.
struct Recording {
    full: TrackedSet,
    repo: String,
    seen: Asked,
}

impl Recording {
    fn note(&self, path: &str) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.insert((self.repo.clone(), path.to_string()));
        }
    }

    /// Notes one tracked file under `prefix` (`dir/`, or `""` for the root).
    fn note_one_under(&self, prefix: &str) {
        self.full.any_tracked_matching(&|_| false, &|f| {
            let hit = f.starts_with(prefix);
            if hit {
                self.note(f);
            }
            hit
        });
    }
}

impl TrackedFiles for Recording {
    fn holds_gitlink_under(&self, dir: &str) -> Option<bool> {
        self.full.holds_gitlink_under(dir)
    }

    fn is_tracked(&self, path: &str) -> bool {
        let tracked = self.full.is_tracked(path);
        if tracked {
            self.note(path);
        }
        tracked
    }

    fn has_tracked_under(&self, dir: &str) -> bool {
        let under = self.full.has_tracked_under(dir);
        if under {
            let dir = dir.trim_end_matches('/');
            self.note_one_under(&if dir.is_empty() {
                String::new()
            } else {
                format!("{dir}/")
            });
        }
        under
    }

    fn count_tracked_in(
        &self,
        dir: &str,
        matches: &dyn Fn(&str) -> bool,
        limit: usize,
    ) -> Option<usize> {
        let d = dir.trim_end_matches('/');
        self.full.count_tracked_in(
            dir,
            &|name| {
                let hit = matches(name);
                if hit {
                    self.note(&if d.is_empty() {
                        name.to_string()
                    } else {
                        format!("{d}/{name}")
                    });
                }
                hit
            },
            limit,
        )
    }

    fn any_tracked_matching(
        &self,
        dir_matches: &dyn Fn(&str) -> bool,
        file_matches: &dyn Fn(&str) -> bool,
    ) -> Option<bool> {
        let dir_hit: Mutex<Option<String>> = Mutex::new(None);
        let answer = self.full.any_tracked_matching(
            &|d| {
                let hit = dir_matches(d);
                if hit && let Ok(mut h) = dir_hit.lock() {
                    *h = Some(format!("{d}/"));
                }
                hit
            },
            &|f| {
                let hit = file_matches(f);
                if hit {
                    self.note(f);
                }
                hit
            },
        );
        if let Ok(Some(prefix)) = dir_hit.into_inner() {
            self.note_one_under(&prefix);
        }
        answer
    }
}

fn data(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_default()
}

/// The attacks: every row the crate's tables expect denied (or know as a gap), by family.
fn attacks() -> Vec<Row> {
    let mut rows = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    for p in files {
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string();
        let Some(stem) = name
            .strip_prefix("classes-")
            .and_then(|n| n.strip_suffix(".tsv"))
        else {
            continue;
        };
        for line in std::fs::read_to_string(&p).unwrap_or_default().lines() {
            if line.starts_with('#') {
                continue;
            }
            let c: Vec<&str> = line.splitn(4, '\t').collect();
            let [class, expect, _rule, command] = c[..] else {
                continue;
            };
            if expect != "deny" && expect != "gap" {
                continue;
            }
            // The new families are reported one by one; the older rounds per file.
            let family = if stem == "indirection" || stem == "effects" || stem == "apart" {
                format!("{stem}/{class}")
            } else {
                format!("rounds/{stem}")
            };
            rows.push(Row {
                family,
                adjudicated: false,
                step: None,
                effect: String::new(),
                attack: true,
                command: unescape(command),
                repo: String::new(),
                source: String::new(),
            });
        }
    }
    // The recursive deletes the checkpoint must not let through (`tests/data/checkpoint.tsv`).
    for line in data("checkpoint.tsv").lines() {
        if let Some(("deny", command)) = line.split_once('\t') {
            rows.push(Row {
                adjudicated: false,
                step: None,
                family: "effects/checkpoint".into(),
                effect: String::new(),
                attack: true,
                command: unescape(command),
                repo: String::new(),
                source: String::new(),
            });
        }
    }
    // The neighbours of the variable-led write targets (`tests/data/variable-targets.tsv`).
    for line in data("variable-targets.tsv").lines() {
        if let Some(("deny", command)) = line.split_once('\t') {
            rows.push(Row {
                adjudicated: false,
                step: None,
                family: "effects/variable-targets".into(),
                effect: String::new(),
                attack: true,
                command: unescape(command),
                repo: String::new(),
                source: String::new(),
            });
        }
    }
    for line in data("reach.tsv").lines() {
        let c: Vec<&str> = line.splitn(3, '\t').collect();
        if let [expect, _rule, command] = c[..]
            && expect == "deny"
        {
            rows.push(Row {
                adjudicated: false,
                step: None,
                family: "rounds/reach".into(),
                effect: String::new(),
                attack: true,
                command: unescape(command),
                repo: String::new(),
                source: String::new(),
            });
        }
    }
    for line in data("guard-corpus.tsv").lines() {
        if let Some(("block", command)) = line.split_once('\t') {
            rows.push(Row {
                adjudicated: false,
                step: None,
                family: "shared corpus (written apart)".into(),
                effect: String::new(),
                attack: true,
                command: command.replace("\\n", "\n"),
                repo: String::new(),
                source: String::new(),
            });
        }
    }
    rows
}

/// Where an allow-list row's author had the repository checked out, when the row names it by
/// absolute path (session 21): `chmod +x /home/gadgetini/gadgetini/src/x.sh` in
/// `DEEPGadget/gadgetini`'s `.claude/settings.json` — a path with a component that is the
/// repository's name, the checkout being the path up to the last such component. The
/// author's session ran there, so the hook's repository was that directory; the bench judges
/// the row with the repository at that place (its tracked files and the row's directory in it as before). Only for
/// allow-lists (a workflow or Makefile line runs in the runner's or user's checkout, wherever
/// it is) and only by the name: a checkout under another name stays where the bench puts it.
fn author_checkout(row: &Row) -> Option<PathBuf> {
    if source_family(&row.source) != "settings allow-lists" {
        return None;
    }
    let name = row.repo.rsplit('/').next().filter(|n| !n.is_empty())?;
    let needle = format!("/{name}/");
    row.command.split_whitespace().find_map(|word| {
        let word = word.trim_matches(['"', '\'']);
        // The last such component: `/home/gadgetini/gadgetini/src/...` is checked out at
        // `/home/gadgetini/gadgetini`, the rest (`src/...`) being the repository's.
        let at = word.rfind(&needle).filter(|_| word.starts_with('/'))?;
        Some(PathBuf::from(&word[..at + needle.len() - 1]))
    })
}

/// `ctx` with its repository moved to `root` (the working directory kept at the same place in
/// it).
fn at_checkout(ctx: Context, root: &Path) -> Context {
    let cwd = match &ctx.repo_root {
        Some(old) => ctx
            .cwd
            .strip_prefix(old)
            .map_or_else(|_| root.to_path_buf(), |rel| root.join(rel)),
        None => root.to_path_buf(),
    };
    Context {
        repo_root: Some(root.to_path_buf()),
        cwd,
        ..ctx
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn main() {
    let ctx = context();
    // The everyday set's labels take local containers as off, pawl's default.
    let everyday_ctx = Context {
        containers: false,
        ..ctx.clone()
    };
    let Ok(guard) = Guard::new(&Policy::default()) else {
        println!("default policy failed to compile");
        return;
    };
    let list = std::env::var_os("PAWL_GUARD_FIGURES_LIST").is_some();
    let every = match everyday() {
        Ok(rows) => rows,
        Err(why) => {
            eprintln!("figures: {why}");
            std::process::exit(2);
        }
    };
    let repositories = match repository_files(&everyday_path()) {
        Ok(r) => r,
        Err(why) => {
            eprintln!("figures: {why}");
            std::process::exit(2);
        }
    };
    // Each row in a session on its own repository where `tracked.tsv` lists it (the headline);
    // else in the one repository of `context()`.
    let contexts: Vec<Option<Context>> = every
        .iter()
        .map(|row| {
            repositories
                .as_ref()
                .and_then(|r| r.context(&everyday_ctx, row))
        })
        .collect();
    let in_own = contexts.iter().filter(|c| c.is_some()).count();
    // The headline context: the row's own repository and, for a workflow row, what a session
    // running its job would hold (`context.tsv`: the step's static environment and directory).
    let full: Vec<Context> = every
        .iter()
        .zip(&contexts)
        .map(|(row, own)| {
            let base = own.clone().unwrap_or_else(|| everyday_ctx.clone());
            let base = match author_checkout(row) {
                Some(root) => at_checkout(base, &root),
                None => base,
            };
            let Some(step) = &row.step else {
                return base;
            };
            let cwd = match (&step.cwd, &base.repo_root) {
                (Some(dir), Some(root)) => root.join(dir),
                _ => base.cwd.clone(),
            };
            Context {
                env: step.env.clone(),
                cwd,
                ..base
            }
        })
        .collect();
    let with_step = every.iter().filter(|r| r.step.is_some()).count();
    // With the one repository for every row (sessions 10-17's figure), and with the row's own
    // repository but without its step's context (session 18's): false positives, rows labelled
    // deny denied.
    let (mut one_fp, mut one_caught) = (0usize, 0usize);
    let (mut own_fp, mut own_caught) = (0usize, 0usize);

    // Everyday: rows labelled allow that the guard denies are false positives.
    let mut fp: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut fp_rules: BTreeMap<String, usize> = BTreeMap::new();
    let mut fp_effects: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut denied_ok: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    // With the labeller's labels, before adjudication: (relabelled rows, of them denied).
    let (mut relabelled, mut relabelled_denied) = (0usize, 0usize);
    // What the step's context changed: false positives it lets through, rows labelled deny it
    // lets through, and allowed rows it makes denied.
    let (mut step_allowed, mut step_missed, mut step_denied) = (0usize, 0usize, 0usize);
    // What judging allow-list rows at their author's checkout changed (`author_checkout`):
    // rows it moved, false positives it lets through, rows labelled deny it lets through.
    let (mut checkout_rows, mut checkout_allowed, mut checkout_missed) = (0usize, 0usize, 0usize);
    let mut samples = Vec::with_capacity(every.len() * ROUNDS);
    for round in 0..ROUNDS {
        for ((row, own), row_ctx) in every.iter().zip(&contexts).zip(&full) {
            let input = Input::shell(row.command.as_str());
            let start = Instant::now();
            let d = guard.evaluate(&input, row_ctx);
            samples.push(start.elapsed());
            if round > 0 {
                continue;
            }
            let one = guard.evaluate(&input, &everyday_ctx);
            let bare = guard.evaluate(&input, own.as_ref().unwrap_or(&everyday_ctx));
            if row.attack {
                one_caught += usize::from(one.is_deny());
                own_caught += usize::from(bare.is_deny());
            } else {
                one_fp += usize::from(one.is_deny());
                own_fp += usize::from(bare.is_deny());
            }
            if author_checkout(row).is_some() {
                checkout_rows += 1;
                if bare.is_deny() && !d.is_deny() {
                    if row.attack {
                        checkout_missed += 1;
                    } else {
                        checkout_allowed += 1;
                    }
                    if list {
                        println!(
                            "CHECKOUT-ALLOWED\t{}\t{:?}\t{}",
                            if row.attack { "deny" } else { "allow" },
                            author_checkout(row),
                            row.command
                        );
                    }
                }
            }
            if row.step.is_some() && bare.is_deny() != d.is_deny() {
                let tag = match (row.attack, d.is_deny()) {
                    (false, false) => {
                        step_allowed += 1;
                        "STEP-ALLOWED"
                    }
                    (true, false) => {
                        step_missed += 1;
                        "STEP-MISSED"
                    }
                    _ => {
                        step_denied += 1;
                        "STEP-DENIED"
                    }
                };
                if list {
                    let step = row.step.as_deref();
                    println!(
                        "{tag}\t{}\t{:?}\tcwd={:?}",
                        row.command,
                        step.map(|s| &s.env),
                        step.and_then(|s| s.cwd.as_deref())
                    );
                }
            }
            if row.adjudicated {
                relabelled += 1;
                relabelled_denied += usize::from(d.is_deny());
                if list {
                    println!(
                        "ADJUDICATED\t{}\t{}\t{}",
                        if d.is_deny() { "denied" } else { "allowed" },
                        row.effect,
                        row.command.replace('\n', "\\n")
                    );
                }
            }
            if row.attack {
                let e = denied_ok.entry(row.effect.clone()).or_default();
                e.0 += 1;
                e.1 += usize::from(d.is_deny());
                if list && d.is_allow() {
                    println!(
                        "MISS-EVERYDAY\t{}\t{}\t{}\t{}",
                        row.family,
                        row.effect,
                        row.repo,
                        row.command.replace('\n', "\\n")
                    );
                }
            } else {
                let e = fp.entry(row.family.clone()).or_default();
                e.0 += 1;
                let f = fp_effects.entry(row.effect.clone()).or_default();
                f.0 += 1;
                if d.is_deny() {
                    e.1 += 1;
                    f.1 += 1;
                    let rule = d.rule.map(|r| r.as_str().to_string()).unwrap_or_default();
                    *fp_rules.entry(rule.clone()).or_default() += 1;
                    if list {
                        println!(
                            "FP\t{rule}\t{}\t{}\t{}\t{}\t{}\t{}",
                            row.family,
                            row.effect,
                            row.repo,
                            row.source,
                            row.command.replace('\n', "\\n"),
                            d.reason.replace('\n', " ")
                        );
                    }
                }
            }
        }
    }
    let (all, bad) = fp.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
    println!("everyday set: {} rows ({all} labelled allow)", every.len());
    println!(
        "  each row judged in a session on its own repository (tracked.tsv: its tracked files; \
         the directory of its Makefile/package.json/tox/nox file): {in_own} rows; {with_step} \
         workflow rows with what a session in their job holds (context.tsv: the step's static \
         environment and directory)"
    );
    println!("  false positives: {bad}/{all} = {:.2}%", pct(bad, all));
    println!(
        "  (own repository without the step's context, session 18's figure: {own_fp}/{all} = \
         {:.2}%, labelled deny denied {own_caught}; the step's context lets {step_allowed} false \
         positives and {step_missed} rows labelled deny through, and denies {step_denied} rows \
         allowed without it)",
        pct(own_fp, all)
    );
    println!(
        "  (allow-list rows judged at their author's checkout, named by an absolute path: \
         {checkout_rows}; it lets {checkout_allowed} false positives and {checkout_missed} rows \
         labelled deny through — without it: {}/{all} = {:.2}%)",
        bad + checkout_allowed,
        pct(bad + checkout_allowed, all)
    );
    println!(
        "  (in the one repository of sessions 10-17 for every row: {one_fp}/{all} = {:.2}%, \
         labelled deny denied {one_caught})",
        pct(one_fp, all)
    );
    if let Some(r) = &repositories
        && let Some(written) = r.write()
    {
        match written {
            Ok(n) => println!("  tracked.tsv rewritten: {n} files the guard asked about"),
            Err(e) => println!("  tracked.tsv not written: {e}"),
        }
    }
    println!(
        "  (adjudication.tsv relabels {relabelled} rows allow -> deny, {relabelled_denied} of them denied; \
         with the labeller's labels alone: {}/{} = {:.2}%)",
        bad + relabelled_denied,
        all + relabelled,
        pct(bad + relabelled_denied, all + relabelled)
    );
    for (family, (n, d)) in &fp {
        println!("    {family:<28} {d:>4}/{n:<5} {:>6.2}%", pct(*d, *n));
    }
    println!("  by the labeller's note (`var`: depends on a variable the row does not show):");
    for (effect, (n, d)) in &fp_effects {
        if *d > 0 {
            println!("    {effect:<28} {d:>4}/{n:<5} {:>6.2}%", pct(*d, *n));
        }
    }
    println!("  by rule: {fp_rules:?}");
    let (dn, dd) = denied_ok
        .values()
        .fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
    println!("  labelled deny, denied: {dd}/{dn} = {:.2}%", pct(dd, dn));
    for (effect, (n, d)) in &denied_ok {
        println!("    {effect:<28} {d:>4}/{n:<5} {:>6.2}%", pct(*d, *n));
    }
    samples.sort();
    println!(
        "  decision over the everyday set x {ROUNDS}: median {:?}, p99 {:?}",
        percentile(&samples, 0.5),
        percentile(&samples, 0.99)
    );

    // Attacks: the share denied, per family. A row the checkpointed context allows and the
    // cautious one (no checkpoint, the context the rows were written for) denies as `clobber`,
    // `git-destructive`, `protected-path`, `destructive-shell` or `recursive-delete` only
    // overwrites or removes tracked files (a directory of them holding no submodule, since
    // session 20), discards uncommitted work or writes a key the checkpoint holds: the
    // checkpoint undoes that, so the principle allows it there (docs/guard.md, "Overwriting
    // tracked files"). Such rows are counted apart, judged without the checkpoint.
    let uncheckpointed = Context {
        checkpointed: false,
        ..ctx.clone()
    };
    let mut by: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut overwrites, mut overwrites_denied) = (0usize, 0usize);
    let mut overwrites_independent = 0usize;
    for row in attacks() {
        let input = Input::shell(row.command.as_str());
        let d = guard.evaluate(&input, &ctx);
        if d.is_allow() && !row.family.starts_with("effects/checkpoint") {
            let cautious = guard.evaluate(&input, &uncheckpointed);
            if matches!(
                cautious.rule.map(|r| r.as_str()),
                Some(
                    "clobber"
                        | "git-destructive"
                        | "protected-path"
                        | "destructive-shell"
                        | "recursive-delete"
                )
            ) {
                overwrites += 1;
                overwrites_denied += usize::from(cautious.is_deny());
                overwrites_independent += usize::from(is_apart(&row.family));
                if list {
                    println!(
                        "OVERWRITE\t{}\t{}",
                        row.family,
                        row.command.replace('\n', "\\n")
                    );
                }
                continue;
            }
        }
        let e = by.entry(row.family.clone()).or_default();
        e.0 += 1;
        e.1 += usize::from(d.is_deny());
        if list && d.is_allow() {
            println!("MISS\t{}\t{}", row.family, row.command.replace('\n', "\\n"));
        }
    }
    let (an, ad) = by.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
    println!("attack sets: {ad}/{an} blocked = {:.2}%", pct(ad, an));
    println!(
        "  apart: {overwrites} rows that only overwrite or remove named tracked files (or a \
         named directory of them holding no submodule), discard uncommitted work (`reset --hard`, `checkout --force`, `checkout <path>`) or write a key \
         or certificate the checkpoint holds (tracked, or not a file git ignores), allowed under \
         the checkpoint; denied without it: \
         {overwrites_denied}/{overwrites} (counting them as misses: {ad}/{} = {:.2}%)",
        an + overwrites,
        pct(ad, an + overwrites)
    );
    // The lines written apart from the rules, reported apart: the shared corpus and
    // `classes-apart.tsv` (issue 36, point 2).
    let (wn, wd) = by
        .iter()
        .filter(|(f, _)| is_apart(f))
        .fold((0, 0), |a, (_, v)| (a.0 + v.0, a.1 + v.1));
    println!(
        "  of them written apart from the rules: {wd}/{wn} blocked = {:.2}% (and {overwrites_independent} \
         of the rows counted apart above; as misses: {wd}/{} = {:.2}%)",
        pct(wd, wn),
        wn + overwrites_independent,
        pct(wd, wn + overwrites_independent)
    );
    let (on, od) = by
        .iter()
        .filter(|(f, _)| !is_apart(f))
        .fold((0, 0), |a, (_, v)| (a.0 + v.0, a.1 + v.1));
    println!(
        "  the rest (written by the rules' authors): {od}/{on} blocked = {:.2}%",
        pct(od, on)
    );
    for (family, (n, d)) in &by {
        println!("    {family:<44} {d:>4}/{n:<5} {:>6.2}%", pct(*d, *n));
    }
}

fn is_apart(family: &str) -> bool {
    family.starts_with("apart/") || family.starts_with("shared corpus")
}

fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}
