//! The path table (`protect/paths.tsv`): glob → class and the test-relevant scope of the file.
//!
//! Rows are tried in order and the first match wins, so specific rows (`**/conftest.py`,
//! snapshots) come before broad ones (`**/tests/**`). Each row carries an example path that must
//! classify to that very row, which catches a row shadowed by an earlier one at load.

use globset::{GlobBuilder, GlobMatcher};

use super::scope::Scope;
use super::{PathClass, TableError};

#[derive(Debug)]
struct PathRule {
    glob: GlobMatcher,
    class: PathClass,
    scope: Scope,
}

#[derive(Debug)]
pub(crate) struct PathTable {
    rules: Vec<PathRule>,
}

/// The scope of a path no row matches.
static OTHER: Scope = Scope::Whole;

impl PathTable {
    pub(crate) fn parse(origin: &str, text: &str) -> Result<PathTable, TableError> {
        let err = |line: usize, message: String| TableError {
            origin: origin.to_string(),
            line,
            message,
        };
        let mut rules = Vec::new();
        let mut examples = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let n = i + 1;
            if raw.trim().is_empty() || raw.starts_with('#') {
                continue;
            }
            let cols: Vec<&str> = raw.split('\t').collect();
            let [glob, class, scope, example, _why] = cols[..] else {
                return Err(err(
                    n,
                    format!("want 5 tab-separated columns, got {}", cols.len()),
                ));
            };
            let glob = GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map_err(|e| err(n, format!("glob {glob:?}: {e}")))?
                .compile_matcher();
            let class = PathClass::parse(class)
                .ok_or_else(|| err(n, format!("unknown class {class:?}")))?;
            let scope = Scope::parse(scope).map_err(|e| err(n, e))?;
            let wants_scope = matches!(class, PathClass::RunnerConfig | PathClass::CollectionHook);
            if wants_scope == matches!(scope, Scope::NotApplicable) {
                return Err(err(
                    n,
                    "runner-config and collection-hook rows need a scope, other rows `-`".into(),
                ));
            }
            examples.push((n, rules.len(), example.to_string()));
            rules.push(PathRule { glob, class, scope });
        }
        let table = PathTable { rules };
        for (n, index, example) in examples {
            let first = table.rules.iter().position(|r| r.glob.is_match(&example));
            if first != Some(index) {
                let msg = match first {
                    None => format!("example {example:?} does not match the row's glob"),
                    Some(j) => format!("example {example:?} is taken by an earlier row (#{j})"),
                };
                return Err(err(n, msg));
            }
        }
        Ok(table)
    }

    /// The class and scope of a normalized path (first matching row).
    pub(crate) fn classify(&self, path: &str) -> (PathClass, &Scope) {
        self.rules
            .iter()
            .find(|r| r.glob.is_match(path))
            .map_or((PathClass::Other, &OTHER), |r| (r.class, &r.scope))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shadowed_row_fails_to_load() {
        let t = "**/tests/**\ttest-file\t-\ttests/a.py\tx\n**/conftest.py\tcollection-hook\twhole\ttests/conftest.py\tx\n";
        let e = PathTable::parse("t.tsv", t).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("earlier row"), "{e}");
    }

    #[test]
    fn malformed_rows_fail_to_load() {
        for bad in [
            "a\tb",
            "**/x\tnope\t-\tx\tw",
            "**/x\ttest-file\twhole\tx\tw",
            "**/x\trunner-config\t-\tx\tw",
            "**/x\trunner-config\ttoml:\tx\tw",
            "**/x\ttest-file\t-\ty\tw",
            "[\ttest-file\t-\tx\tw",
        ] {
            assert!(PathTable::parse("t", bad).is_err(), "{bad:?}");
        }
    }
}
