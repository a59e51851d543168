//! The directories the checks run a tool in, read from their commands (`cd packages/a && npx
//! jest`, `cd svc; go test ./...`, `npm --prefix web test`, `go -C svc test ./...`): where
//! pawl's own passes over a tree ([`super::jestcache`], [`super::gocache`]) run, so that a
//! package or module in a sub-folder of a monorepo is warmed as its checks use it.
//!
//! The command is read with the project's shell parser ([`pawl_verify::shell::part_where`]):
//! the `cd` steps before the first command that is not a `cd` (or an `export`), and the
//! directory options of that command. A directory pawl cannot read as a plain relative path
//! inside the tree (a variable, `~`, an absolute path, `..` above the tree, a glob) is not
//! followed: that check runs cold, as before.

use std::cell::Cell;
use std::path::{Component, Path, PathBuf};

/// At most this many directories are warmed for one tree.
pub const MAX_DIRS: usize = 8;

/// Steps that only set up the shell before the command that runs the tool.
const SETUP: &[&str] = &["cd", "pushd", "export", "set", "unset", ":", "true"];

/// The program of a simple command's words (assignments `A=b` skipped, `env` looked through).
fn program(words: &[String]) -> Option<&str> {
    let mut rest = words.iter().skip_while(|w| is_assignment(w));
    let mut first = rest.next()?;
    if pawl_verify::shell::program_is(first, "env") {
        first = rest.find(|w| !w.starts_with('-') && !is_assignment(w))?;
    }
    first.rsplit('/').next()
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A directory word, from the directory `base` (relative to the tree), as a relative path
/// inside the tree, normalised (`./a/../b` → `b`, `.` → the tree itself, an empty path);
/// `None` when it is not plainly one.
fn relative(base: &Path, word: &str) -> Option<PathBuf> {
    let word = word
        .strip_prefix('\'')
        .and_then(|w| w.strip_suffix('\''))
        .or_else(|| word.strip_prefix('"').and_then(|w| w.strip_suffix('"')))
        .unwrap_or(word);
    if word.is_empty()
        || word.starts_with('-')
        || word
            .chars()
            .any(|c| matches!(c, '$' | '`' | '~' | '*' | '?' | '[' | '\'' | '"' | '\\'))
    {
        return None;
    }
    let mut out = base.to_path_buf();
    for c in Path::new(word).components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// The directory (relative to the tree, empty for the tree itself) in which `command` runs
/// its first command that is not a shell set-up step, with that command's program; `None`
/// when the command cannot be read or a directory is not plainly one inside the tree.
pub fn dir_of(command: &str) -> Option<(PathBuf, String)> {
    let found = Cell::new(false);
    let is_runner = |text: &str| {
        if found.get() {
            return false;
        }
        let first = text.split_whitespace().find(|w| !is_assignment(w));
        let runner = first.is_some_and(|w| !SETUP.contains(&w));
        found.set(runner);
        runner
    };
    let part = pawl_verify::shell::part_where(command, &is_runner)?;
    let mut dir = PathBuf::new();
    for step in &part.before {
        let words: Vec<&str> = step.split_whitespace().collect();
        match words.as_slice() {
            ["cd" | "pushd", to] => dir = relative(&dir, to)?,
            ["cd" | "pushd", ..] => return None,
            _ => {}
        }
    }
    let program = program(&part.words)?.to_owned();
    // The tool's own directory options: `npm --prefix web test`, `pnpm -C web test`,
    // `yarn --cwd web test`, `go -C svc test ./...`.
    let options: &[&str] = match program.as_str() {
        "npm" => &["--prefix"],
        "pnpm" => &["-C", "--dir"],
        "yarn" => &["--cwd"],
        "go" => &["-C"],
        _ => &[],
    };
    let words = &part.words;
    for (i, w) in words.iter().enumerate() {
        for o in options {
            let to = if w == o {
                words.get(i + 1).map(String::as_str)
            } else {
                w.strip_prefix(o).and_then(|r| r.strip_prefix('='))
            };
            if let Some(to) = to {
                dir = relative(&dir, to)?;
            }
        }
    }
    Some((dir, program))
}

/// The directories of `tree` the checks whose commands are `commands` run a tool `is_tool`
/// names in (by its program), each once, kept when `holds` says the directory has what the
/// pass needs; the tree itself first when a command runs something else (a script, `make`:
/// what it runs is not known) or cannot be read, and `holds` accepts it. At most
/// [`MAX_DIRS`].
pub fn dirs(
    tree: &Path,
    commands: &[&str],
    is_tool: &dyn Fn(&str) -> bool,
    holds: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut push = |dir: PathBuf| {
        if out.len() < MAX_DIRS && !out.contains(&dir) && holds(&tree.join(&dir)) {
            out.push(dir);
        }
    };
    let mut unknown = commands.is_empty();
    for command in commands {
        match dir_of(command) {
            Some((dir, program)) if is_tool(&program) => push(dir),
            Some((_, program)) if KNOWN.contains(&program.as_str()) => {}
            Some(_) | None => unknown = true,
        }
    }
    if unknown {
        push(PathBuf::new());
    }
    // The tree itself first: the order a log reads best in.
    out.sort_by_key(|d| !d.as_os_str().is_empty());
    out
}

/// Programs known to run one ecosystem's tools: a check that runs one of them and is not the
/// tool looked for runs nothing of it. Any other program (`make`, a script) may run anything.
const KNOWN: &[&str] = &[
    "go",
    "gofmt",
    "golangci-lint",
    "staticcheck",
    "cargo",
    "rustc",
    "python",
    "python3",
    "pytest",
    "uv",
    "ruff",
    "mypy",
    "black",
    "flake8",
    "pylint",
    "jest",
    "npx",
    "npm",
    "yarn",
    "pnpm",
    "node",
    "bunx",
    "vitest",
    "tsc",
    "eslint",
    "prettier",
    "mocha",
    "git",
    "echo",
    "true",
    "test",
];

/// `dir` or a directory above it, up to `tree`, holding `rel` (a tool's installation or a
/// module file found upward from where it runs).
pub fn upward_has(tree: &Path, dir: &Path, rel: &str) -> bool {
    let mut at = Some(dir);
    while let Some(d) = at {
        if d.join(rel).exists() {
            return true;
        }
        if d == tree {
            break;
        }
        at = d.parent().filter(|p| p.starts_with(tree));
    }
    false
}

/// `command` run in `dir` (relative to where the checks start), in a subshell: `dir` is
/// quoted (a directory [`dir_of`] read holds no quote); the tree itself runs it as it is.
pub fn in_dir(dir: &Path, command: &str) -> String {
    if dir.as_os_str().is_empty() {
        command.to_owned()
    } else {
        format!("( cd '{}' && {command} )", dir.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_a_check_runs_its_tool_in() {
        let rows: &[(&str, Option<(&str, &str)>)] = &[
            ("npx jest --ci", Some(("", "npx"))),
            ("cd packages/a && npx jest", Some(("packages/a", "npx"))),
            ("cd packages; cd a && npm test", Some(("packages/a", "npm"))),
            ("cd 'packages/a' && CI=1 jest", Some(("packages/a", "jest"))),
            ("cd ./web/../svc && go test ./...", Some(("svc", "go"))),
            (
                "export CI=1 && cd svc && go vet ./... && go test ./...",
                Some(("svc", "go")),
            ),
            ("npm --prefix web test", Some(("web", "npm"))),
            ("npm --prefix=web run test", Some(("web", "npm"))),
            ("pnpm -C web test", Some(("web", "pnpm"))),
            ("yarn --cwd web test", Some(("web", "yarn"))),
            ("go -C svc test ./...", Some(("svc", "go"))),
            (
                "env NODE_OPTIONS=--experimental-vm-modules npx jest",
                Some(("", "npx")),
            ),
            ("cd web && npx jest | tee log", Some(("web", "npx"))),
            // Not plainly a directory inside the tree: not followed.
            ("cd $PKG && npx jest", None),
            ("cd ~/x && npx jest", None),
            ("cd /abs && npx jest", None),
            ("cd .. && npx jest", None),
            ("cd a || exit 1; npx jest", None),
            ("cd && npx jest", None),
        ];
        for (command, want) in rows {
            let got = dir_of(command);
            let want = want.map(|(d, p)| (PathBuf::from(d), p.to_owned()));
            assert_eq!(got, want, "{command}");
        }
    }

    #[test]
    fn the_directories_to_warm_are_those_the_checks_run_in() {
        let tree = tempfile::tempdir().unwrap();
        for d in ["packages/a", "packages/b", "svc"] {
            std::fs::create_dir_all(tree.path().join(d)).unwrap();
        }
        let node = |p: &str| ["npx", "npm", "jest"].contains(&p);
        let all = |_: &Path| true;
        let got = dirs(
            tree.path(),
            &[
                "cd packages/b && npx jest",
                "cd packages/a && npx jest --coverage",
                "cd packages/a && npx jest",
                "cd svc && go test ./...",
            ],
            &node,
            &all,
        );
        assert_eq!(
            got,
            vec![PathBuf::from("packages/b"), PathBuf::from("packages/a")]
        );
        // A script: the tree itself too.
        let got = dirs(
            tree.path(),
            &["make test", "cd packages/a && npx jest"],
            &node,
            &all,
        );
        assert_eq!(got, vec![PathBuf::new(), PathBuf::from("packages/a")]);
        // Only those that hold what the pass needs.
        let only_a = |d: &Path| d.ends_with("packages/a");
        let got = dirs(
            tree.path(),
            &["make test", "cd packages/a && npx jest"],
            &node,
            &only_a,
        );
        assert_eq!(got, vec![PathBuf::from("packages/a")]);
        assert_eq!(in_dir(Path::new(""), "go build"), "go build");
        assert_eq!(
            in_dir(Path::new("svc"), "go build"),
            "( cd 'svc' && go build )"
        );
        std::fs::create_dir_all(tree.path().join("node_modules/jest")).unwrap();
        let a = tree.path().join("packages/a");
        assert!(upward_has(tree.path(), &a, "node_modules/jest"));
        assert!(!upward_has(&a, &a, "node_modules/jest"));
    }
}
