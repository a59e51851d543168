//! The test runner behind a package manager's test script: a gate that is `npm test` (`npm t`,
//! `npm run test`, `pnpm test`, `yarn test`, …) runs whatever `scripts.test` of the project's
//! `package.json` says, so its command names no runner. pawl reads the script (the caller
//! gives the file: the sealed copy where it decides, the room's where it parses what ran) with
//! the shell parser and, when it is one runner's simple command, judges the check as that
//! command: its output parsed as that runner's, its collection pass, its narrowed repeats and
//! new-tests runs derived from it (`jest --ci` → `node_modules/.bin/jest --ci --json …`). The
//! sealed command itself still runs unchanged.
//!
//! Resolved only when nothing else runs around the script: no `pretest`/`posttest` script, no
//! step before the runner in the script (`tsc && jest`), no arguments to the package manager
//! but its quiet flags, and a program of the project's `node_modules/.bin` (or `node` itself,
//! `node --test`). Anything else gives `None`: the check is judged as before (by its output's
//! runner when it can be told, else by counts or exit).

use std::path::{Path, PathBuf};

use crate::parse::Runner;

/// The words that run the project's `test` script, per package manager.
const RUNS_TEST: &[&[&str]] = &[
    &["npm", "test"],
    &["npm", "t"],
    &["npm", "tst"],
    &["npm", "run", "test"],
    &["npm", "run-script", "test"],
    &["pnpm", "test"],
    &["pnpm", "t"],
    &["pnpm", "run", "test"],
    &["yarn", "test"],
    &["yarn", "run", "test"],
];

/// Package-manager flags after the script's name that change nothing the runner sees.
const QUIET_FLAGS: &[&str] = &["--silent", "-s", "--quiet", "-q"];

/// The directory the package manager runs in, relative to the check's (`cd web && npm test`),
/// when `command` runs the test script; `None` otherwise.
fn script_dir(before: &[String]) -> Option<PathBuf> {
    let mut dir = PathBuf::new();
    for step in before {
        let words: Vec<&str> = step.split_whitespace().collect();
        match words.as_slice() {
            ["cd", d] if !d.contains(['$', '`', '\'', '"', '~', '*']) && !d.starts_with('/') => {
                dir.push(d);
            }
            _ => return None,
        }
    }
    Some(dir)
}

/// Whether `text` (one simple command, as the shell parser wrote it) runs the test script.
fn runs_test_script(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    RUNS_TEST.iter().any(|run| {
        words.len() >= run.len()
            && words[..run.len()] == **run
            && words[run.len()..].iter().all(|w| QUIET_FLAGS.contains(w))
    })
}

/// The runner's command behind `command` when it runs the project's test script (see the
/// module docs): `read` gives a file's text by its path relative to the check's directory
/// (`package.json`, `web/package.json`), `has_bin` whether such a path exists in the project's
/// environment (`node_modules/.bin/jest`). The result runs from the check's directory too:
/// `cd web && node_modules/.bin/jest --ci`.
pub fn resolve(
    command: &str,
    read: &dyn Fn(&Path) -> Option<String>,
    has_bin: &dyn Fn(&Path) -> bool,
) -> Option<String> {
    let part = crate::shell::part_where(command, &runs_test_script)?;
    let dir = script_dir(&part.before)?;
    let manifest: serde_json::Value =
        serde_json::from_str(&read(&dir.join("package.json"))?).ok()?;
    let scripts = manifest.get("scripts")?;
    if ["pretest", "posttest"]
        .iter()
        .any(|s| scripts.get(s).is_some())
    {
        return None;
    }
    let script = scripts.get("test")?.as_str()?;
    let inner = crate::shell::runner_part(script)?;
    if !inner.before.is_empty() {
        return None;
    }
    Runner::from_command(&inner.command)?;
    // The program: the first word that is no assignment, from the project's `.bin` (as the
    // package manager puts it first on PATH) or `node` itself.
    // The parser's words, each as written (a quoted `'a  b'` keeps its spaces).
    let words: Vec<&str> = inner.words.iter().map(String::as_str).collect();
    let assignment = |w: &str| {
        w.split_once('=').is_some_and(|(n, _)| {
            !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let at = words.iter().position(|w| !assignment(w))?;
    let program = words[at];
    let resolved = if program.contains('/') || program == "node" {
        program.to_owned()
    } else {
        let bin = Path::new("node_modules").join(".bin").join(program);
        if !has_bin(&dir.join(&bin)) {
            return None;
        }
        bin.display().to_string()
    };
    let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    out[at] = resolved;
    Some(part.with_before(&out.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(command: &str, package: &str, bins: &[&str]) -> Option<String> {
        let package = package.to_owned();
        let read = move |p: &Path| {
            (p.file_name().is_some_and(|n| n == "package.json")).then(|| package.clone())
        };
        let bins: Vec<PathBuf> = bins.iter().map(PathBuf::from).collect();
        let has = move |p: &Path| bins.iter().any(|b| b == p);
        resolve(command, &read, &has)
    }

    #[test]
    fn a_test_script_that_is_one_runner_is_judged_as_that_runner() {
        let jest = r#"{"scripts": {"test": "jest --ci"}}"#;
        let bins = ["node_modules/.bin/jest", "web/node_modules/.bin/jest"];
        for (command, out) in [
            ("npm test", "node_modules/.bin/jest --ci"),
            ("npm t", "node_modules/.bin/jest --ci"),
            ("npm run test", "node_modules/.bin/jest --ci"),
            ("npm test --silent", "node_modules/.bin/jest --ci"),
            ("pnpm test", "node_modules/.bin/jest --ci"),
            ("yarn test", "node_modules/.bin/jest --ci"),
            ("npm test 2>&1 | tee log", "node_modules/.bin/jest --ci"),
            (
                "cd web && npm test",
                "cd web && node_modules/.bin/jest --ci",
            ),
        ] {
            assert_eq!(
                resolved(command, jest, &bins).as_deref(),
                Some(out),
                "{command}"
            );
        }
        assert_eq!(
            resolved(
                "npm test",
                r#"{"scripts": {"test": "vitest run"}}"#,
                &["node_modules/.bin/vitest"]
            )
            .as_deref(),
            Some("node_modules/.bin/vitest run")
        );
        assert_eq!(
            resolved(
                "npm test",
                r#"{"scripts": {"test": "NODE_ENV=test mocha"}}"#,
                &["node_modules/.bin/mocha"]
            )
            .as_deref(),
            Some("NODE_ENV=test node_modules/.bin/mocha")
        );
        assert_eq!(
            resolved("npm test", r#"{"scripts": {"test": "node --test"}}"#, &[]).as_deref(),
            Some("node --test")
        );
        // A quoted argument keeps its spaces (the script's words are the parser's).
        assert_eq!(
            resolved(
                "npm test",
                r#"{"scripts": {"test": "jest -t 'a  b' --ci"}}"#,
                &bins
            )
            .as_deref(),
            Some("node_modules/.bin/jest -t 'a  b' --ci")
        );
        // The runner's output read after it in the script (`&& eslint .`) is left out, as
        // for a direct command.
        assert_eq!(
            resolved(
                "npm test",
                r#"{"scripts": {"test": "jest --ci && eslint ."}}"#,
                &bins
            )
            .as_deref(),
            Some("node_modules/.bin/jest --ci")
        );
    }

    #[test]
    fn anything_around_the_runner_leaves_the_command_as_it_is() {
        let bins = ["node_modules/.bin/jest"];
        for (command, package) in [
            // Not the test script, or arguments the runner would see.
            ("npm run lint", r#"{"scripts": {"test": "jest"}}"#),
            ("npm test -- --ci", r#"{"scripts": {"test": "jest"}}"#),
            ("npm test || true", r#"{"scripts": {"test": "jest"}}"#),
            ("cd $DIR && npm test", r#"{"scripts": {"test": "jest"}}"#),
            // A script around the runner.
            (
                "npm test",
                r#"{"scripts": {"pretest": "tsc", "test": "jest"}}"#,
            ),
            ("npm test", r#"{"scripts": {"test": "tsc && jest"}}"#),
            ("npm test", r#"{"scripts": {"test": "make test"}}"#),
            ("npm test", r#"{"scripts": {"lint": "eslint ."}}"#),
            ("npm test", "not json"),
            // A program that is not the project's.
            ("npm test", r#"{"scripts": {"test": "mocha"}}"#),
        ] {
            assert_eq!(
                resolved(command, package, &bins),
                None,
                "{command} {package}"
            );
        }
    }
}
