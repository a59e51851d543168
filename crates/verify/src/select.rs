//! Running only some of a check's tests: the sealed command narrowed to test files or test ids
//! through each runner's documented selection (pytest's node ids, unittest's `-k`, `go test
//! -run`, libtest's and nextest's name filters, jest's and vitest's file filters and `-t`).
//!
//! The locked run uses it for the repeats of the tests that decide and for the run's new tests
//! (docs/verification.md, "Locked evaluation"). A command it cannot read word by word (quotes,
//! pipes, `&&`, substitutions) or whose runner has no selection gets `None`: the caller runs the
//! whole check instead. A narrowed command is only trusted when its run names the tests it
//! asked for; the caller checks that ([`named_all`]).

use crate::parse::{Runner, TestOutcome};

/// What to run of a check.
#[derive(Debug, Clone, Copy)]
pub enum Pick<'a> {
    /// Test files, as paths relative to the check's directory.
    Files(&'a [String]),
    /// Test ids, as the runner's parser names them.
    Ids(&'a [String]),
}

/// Characters that make a command more than words: then nothing is narrowed.
const NOT_WORDS: &[char] = &[
    ';', '|', '&', '<', '>', '$', '`', '(', ')', '{', '}', '\'', '"', '\\', '\n', '*', '?', '[',
];

/// pytest options whose value is the next word (a value is never a test path).
const PYTEST_VALUED: &[&str] = &[
    "-k",
    "-m",
    "-c",
    "-p",
    "-o",
    "-W",
    "-n",
    "-r",
    "--rootdir",
    "--confcutdir",
    "--basetemp",
    "--deselect",
    "--ignore",
    "--ignore-glob",
    "--junitxml",
    "--junit-xml",
    "--log-file",
    "--maxfail",
    "--durations",
    "--tb",
    "--cov",
    "--cov-report",
    "--cov-config",
    "--import-mode",
    "--override-ini",
    "--color",
    "--capture",
    "--log-level",
    "--timeout",
    "--dist",
    "--numprocesses",
    "--config-file",
    "--pyargs",
];

/// jest and vitest options whose value is the next word.
const JS_VALUED: &[&str] = &[
    "-c",
    "--config",
    "-t",
    "--testNamePattern",
    "--testPathPattern",
    "--testPathIgnorePatterns",
    "-w",
    "--maxWorkers",
    "--reporters",
    "--reporter",
    "--outputFile",
    "--testTimeout",
    "--coverageReporters",
    "--root",
    "--dir",
    "--project",
    "--environment",
    "--pool",
    "--shard",
    "--selectProjects",
];

/// A word quoted for `sh`.
pub fn quote(word: &str) -> String {
    if !word.is_empty()
        && word.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | ',')
        })
    {
        return word.to_owned();
    }
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// The sealed `command` narrowed to `pick`, or `None` when it cannot be.
pub fn narrow(command: &str, pick: Pick<'_>) -> Option<String> {
    // The runner's own simple command, read with the shell parser (`cd sub && pytest -q` is
    // narrowed as `cd sub && pytest -q <ids>`; `| tee log` after it is left out).
    let part = crate::shell::runner_part(command)?;
    narrow_words(&part.command, pick).map(|c| part.with_before(&c))
}

fn narrow_words(command: &str, pick: Pick<'_>) -> Option<String> {
    let picked = match pick {
        Pick::Files(f) | Pick::Ids(f) => f,
    };
    if picked.is_empty() || command.contains(NOT_WORDS) {
        return None;
    }
    let words: Vec<&str> = command.split_whitespace().collect();
    match Runner::from_command(command)? {
        Runner::Pytest => pytest(&words, pick),
        Runner::Unittest => unittest(&words, pick),
        Runner::GoTest => go(&words, pick),
        Runner::CargoTest | Runner::Nextest => cargo(&words, pick),
        Runner::Jest | Runner::Vitest => js(&words, pick),
        _ => None,
    }
}

/// The index of the word that names the runner's program: `pytest`, `python -m pytest`.
fn program_at(words: &[&str], names: &[&str]) -> Option<usize> {
    words
        .iter()
        .position(|w| names.iter().any(|n| crate::shell::program_is(w, n)))
}

/// The words after `at` with their positional words (not options, not an option's value)
/// dropped.
fn options_only<'a>(words: &[&'a str], at: usize, valued: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut take_value = false;
    for w in &words[at..] {
        if take_value {
            out.push(*w);
            take_value = false;
        } else if w.starts_with('-') {
            out.push(*w);
            take_value = !w.contains('=') && valued.contains(w);
        }
    }
    out
}

fn pytest(words: &[&str], pick: Pick<'_>) -> Option<String> {
    let at = program_at(words, &["pytest", "py.test"])?;
    if words[at + 1..].contains(&"--pyargs") {
        return None;
    }
    let mut out: Vec<String> = words[..=at].iter().map(|w| (*w).to_owned()).collect();
    out.extend(
        options_only(words, at + 1, PYTEST_VALUED)
            .into_iter()
            .map(str::to_owned),
    );
    match pick {
        Pick::Files(f) | Pick::Ids(f) => out.extend(f.iter().map(|p| quote(p))),
    }
    Some(out.join(" "))
}

fn unittest(words: &[&str], pick: Pick<'_>) -> Option<String> {
    program_at(words, &["unittest"])?;
    let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    if !words.iter().any(|w| matches!(*w, "-v" | "--verbose")) {
        out.push("-v".into());
    }
    // `-k` with a wildcard matches the whole name (`test_calc.Calc.test_add`) by fnmatch.
    match pick {
        Pick::Ids(ids) => {
            for id in ids {
                out.push("-k".into());
                out.push(quote(&format!("*{id}")));
            }
        }
        Pick::Files(files) => {
            for f in files {
                let stem = std::path::Path::new(f).file_stem()?.to_str()?;
                for pattern in [format!("{stem}.*"), format!("*.{stem}.*")] {
                    out.push("-k".into());
                    out.push(quote(&pattern));
                }
            }
        }
    }
    Some(out.join(" "))
}

/// `go test` runs the top-level tests whose names match `-run`; an id is `package/TestName`,
/// a subtest's `package/TestName/case`.
fn go(words: &[&str], pick: Pick<'_>) -> Option<String> {
    let Pick::Ids(ids) = pick else {
        return None;
    };
    if words.contains(&"-args") {
        return None;
    }
    let mut names: Vec<&str> = Vec::new();
    for id in ids {
        let name = id
            .split('/')
            .find(|p| ["Test", "Example", "Fuzz"].iter().any(|k| p.starts_with(k)))?;
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    out.push("-run".into());
    out.push(quote(&format!("^({})$", names.join("|"))));
    Some(out.join(" "))
}

/// libtest and nextest take name filters after `--` (a name is matched as a substring: a
/// filter runs the test and those whose names contain it).
fn cargo(words: &[&str], pick: Pick<'_>) -> Option<String> {
    let Pick::Ids(ids) = pick else {
        return None;
    };
    let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    if !words.contains(&"--") {
        out.push("--".into());
    }
    for id in ids {
        // nextest names a test `binary test::path`: the filter is the test's path.
        let name = id.rsplit(' ').next().unwrap_or(id);
        if id.contains(" - ") || name.is_empty() {
            // A doc-test (`src/lib.rs - f`): no filter names it alone.
            return None;
        }
        out.push(quote(name));
    }
    Some(out.join(" "))
}

/// jest and vitest: test files as positional filters, test names with `-t` (a regex over the
/// `describe` blocks and the test's title joined by spaces). An id is `file > describe > name`.
fn js(words: &[&str], pick: Pick<'_>) -> Option<String> {
    let at = program_at(words, &["jest", "vitest"])?;
    let mut out: Vec<String> = words[..=at].iter().map(|w| (*w).to_owned()).collect();
    // `vitest run`, `vitest related`: the subcommand stays.
    let mut from = at + 1;
    if let Some(sub) = words
        .get(from)
        .filter(|w| matches!(**w, "run" | "watch" | "dev"))
    {
        out.push((*sub).to_owned());
        from += 1;
    }
    out.extend(
        options_only(words, from, JS_VALUED)
            .into_iter()
            .map(str::to_owned),
    );
    match pick {
        Pick::Files(files) => out.extend(files.iter().map(|f| quote(f))),
        Pick::Ids(ids) => {
            let mut files: Vec<&str> = Vec::new();
            let mut names: Vec<String> = Vec::new();
            for id in ids {
                let mut parts = id.split(" > ");
                let file = parts.next()?;
                let rest: Vec<&str> = parts.collect();
                if rest.is_empty() {
                    return None;
                }
                if !files.contains(&file) {
                    files.push(file);
                }
                names.push(regex_escape(&rest.join(" ")));
            }
            out.extend(files.iter().map(|f| quote(f)));
            out.push("-t".into());
            out.push(quote(&format!("^({})$", names.join("|"))));
        }
    }
    // A narrowed run must name its tests to be trusted (`named_all`): vitest's default reporter
    // and jest over several files name only failures. The reporter changes what is printed,
    // not what runs; a command that chose its own keeps it.
    let vitest = crate::shell::program_is(words[at], "vitest");
    let chose = |o: &str| {
        words
            .iter()
            .any(|w| *w == o || w.starts_with(&format!("{o}=")))
    };
    if vitest && !chose("--reporter") {
        out.push("--reporter=verbose".into());
    } else if !vitest && !chose("--verbose") && !chose("--reporters") && !chose("--json") {
        out.push("--verbose".into());
    }
    Some(out.join(" "))
}

fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether a run names every one of `ids` (any status): a narrowed command is trusted only
/// then.
pub fn named_all(outcomes: &[TestOutcome], ids: &[String]) -> bool {
    !ids.is_empty() && ids.iter().all(|id| outcomes.iter().any(|o| o.id == *id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn each_runner_narrows_by_its_own_selection() {
        let rows: &[(&str, Pick<'_>, Option<&str>)] = &[
            (
                "python -m pytest -q tests/",
                Pick::Ids(&ids(&["tests/test_a.py::test_x[1-2]"])),
                Some("python -m pytest -q 'tests/test_a.py::test_x[1-2]'"),
            ),
            (
                "pytest -k slow --tb short tests",
                Pick::Files(&ids(&["tests/test_new.py"])),
                Some("pytest -k slow --tb short tests/test_new.py"),
            ),
            (
                "python3 -m unittest discover -s tests",
                Pick::Ids(&ids(&["test_calc.Calc.test_add"])),
                Some("python3 -m unittest discover -s tests -v -k '*test_calc.Calc.test_add'"),
            ),
            (
                "python3 -m unittest discover -v",
                Pick::Files(&ids(&["tests/test_sub.py"])),
                Some("python3 -m unittest discover -v -k 'test_sub.*' -k '*.test_sub.*'"),
            ),
            (
                "go test ./...",
                Pick::Ids(&ids(&[
                    "example.com/calc/TestAdd/neg",
                    "example.com/calc/TestMul",
                ])),
                Some("go test ./... -run '^(TestAdd|TestMul)$'"),
            ),
            ("go test ./...", Pick::Files(&ids(&["calc_test.go"])), None),
            (
                "cargo test -q",
                Pick::Ids(&ids(&["tests::adds"])),
                Some("cargo test -q -- tests::adds"),
            ),
            (
                "cargo test -- --test-threads 1",
                Pick::Ids(&ids(&["src/lib.rs - add"])),
                None,
            ),
            (
                "npx jest --ci",
                Pick::Ids(&ids(&["src/calc.test.js > calc > adds 1.5"])),
                Some("npx jest --ci src/calc.test.js -t '^(calc adds 1\\.5)$' --verbose"),
            ),
            (
                "npx vitest run src",
                Pick::Files(&ids(&["src/new.test.ts"])),
                Some("npx vitest run src/new.test.ts --reporter=verbose"),
            ),
            (
                "npx vitest run --reporter=dot",
                Pick::Ids(&ids(&["src/a.test.ts > adds"])),
                Some("npx vitest run --reporter=dot src/a.test.ts -t '^(adds)$'"),
            ),
            (
                "pytest && echo ok",
                Pick::Ids(&ids(&["t.py::a"])),
                Some("pytest t.py::a"),
            ),
            (
                "cd sub && pytest -q | tee log",
                Pick::Ids(&ids(&["t.py::a"])),
                Some("cd sub && pytest -q t.py::a"),
            ),
            ("pytest || echo ok", Pick::Ids(&ids(&["t.py::a"])), None),
            ("pytest -k 'not slow'", Pick::Ids(&ids(&["t.py::a"])), None),
            ("node --test", Pick::Ids(&ids(&["t"])), None),
            ("pytest", Pick::Ids(&[]), None),
        ];
        for (command, pick, want) in rows {
            assert_eq!(
                narrow(command, *pick).as_deref(),
                *want,
                "{command} {pick:?}"
            );
        }
    }

    #[test]
    fn a_word_is_quoted_for_the_shell() {
        assert_eq!(quote("tests/a.py::t"), "tests/a.py::t");
        assert_eq!(quote("a b'c"), "'a b'\\''c'");
        assert_eq!(quote(""), "''");
    }
}
