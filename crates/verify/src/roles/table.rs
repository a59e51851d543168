//! The name rules of every platform (`roles/*.toml`): glob → role, first matching row wins.
//!
//! Each row carries examples that must be classified by that very row (not shadowed by an
//! earlier one) and optional `not` paths it must not match; both are checked when the tables
//! load, so a table that says one thing and does another does not load at all.

use std::sync::LazyLock;

use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;

use super::Role;

/// The tables in the order their rows are tried: the platforms' own, then the shared rows.
const TABLES: &[(&str, &str)] = &[
    ("roles/python.toml", include_str!("python.toml")),
    ("roles/node.toml", include_str!("node.toml")),
    ("roles/rust.toml", include_str!("rust.toml")),
    ("roles/go.toml", include_str!("go.toml")),
    ("roles/common.toml", include_str!("common.toml")),
];

#[derive(Debug)]
pub(crate) struct Row {
    pub(crate) glob: String,
    matcher: GlobMatcher,
    pub(crate) role: Role,
    pub(crate) why: String,
    pub(crate) examples: Vec<String>,
}

#[derive(Debug)]
pub(crate) struct Table {
    pub(crate) rows: Vec<Row>,
    /// Every row's glob at once: one pass over a path finds all rows that match it.
    set: globset::GlobSet,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRows {
    row: Vec<RawRow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRow {
    glob: String,
    role: String,
    why: String,
    examples: Vec<String>,
    #[serde(default)]
    not: Vec<String>,
}

static TABLE: LazyLock<Result<Table, String>> = LazyLock::new(|| Table::load(TABLES));

/// The loaded tables, or why they do not load (a defect of the data, caught by the tests).
pub(crate) fn table() -> Result<&'static Table, &'static str> {
    TABLE.as_ref().map_err(String::as_str)
}

impl Table {
    pub(crate) fn load(sources: &[(&str, &str)]) -> Result<Table, String> {
        let mut rows = Vec::new();
        let mut nots = Vec::new();
        for (origin, text) in sources {
            let file: FileRows = toml::from_str(text).map_err(|e| format!("{origin}: {e}"))?;
            for raw in file.row {
                let role = match raw.role.as_str() {
                    "test" => Role::Test,
                    "declaration" => Role::Declaration,
                    "other" => Role::Other,
                    other => {
                        return Err(format!(
                            "{origin}: row {:?}: role {other:?} is not test, declaration or other \
                             (product source comes from the layout, never from a name)",
                            raw.glob
                        ));
                    }
                };
                let matcher = GlobBuilder::new(&raw.glob)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| format!("{origin}: glob {:?}: {e}", raw.glob))?
                    .compile_matcher();
                if raw.examples.is_empty() {
                    return Err(format!("{origin}: row {:?} has no example", raw.glob));
                }
                nots.push((origin.to_string(), rows.len(), raw.not));
                rows.push(Row {
                    glob: raw.glob,
                    matcher,
                    role,
                    why: raw.why,
                    examples: raw.examples,
                });
            }
        }
        let mut set = globset::GlobSetBuilder::new();
        for row in &rows {
            set.add(
                GlobBuilder::new(&row.glob)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| format!("glob {:?}: {e}", row.glob))?,
            );
        }
        let set = set.build().map_err(|e| e.to_string())?;
        let table = Table { rows, set };
        for (index, row) in table.rows.iter().enumerate() {
            for example in &row.examples {
                match table.first(example) {
                    Some(j) if j == index => {}
                    Some(j) => {
                        return Err(format!(
                            "row {:?}: example {example:?} is taken by the earlier row {:?}",
                            row.glob, table.rows[j].glob
                        ));
                    }
                    None => {
                        return Err(format!(
                            "row {:?}: example {example:?} does not match it",
                            row.glob
                        ));
                    }
                }
            }
        }
        for (origin, index, not) in nots {
            let row = &table.rows[index];
            if let Some(path) = not.iter().find(|p| row.matcher.is_match(p.as_str())) {
                return Err(format!(
                    "{origin}: row {:?} matches {path:?}, listed as not matching",
                    row.glob
                ));
            }
        }
        Ok(table)
    }

    /// The index of the first row matching a normalized relative path.
    pub(crate) fn first(&self, path: &str) -> Option<usize> {
        self.set.matches(path).into_iter().min()
    }

    pub(crate) fn row(&self, path: &str) -> Option<&Row> {
        self.first(path).map(|i| &self.rows[i])
    }
}

impl Row {
    pub(crate) fn matches(&self, path: &str) -> bool {
        self.matcher.is_match(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_load_and_every_example_classifies_as_its_row_says() {
        let table = match table() {
            Ok(t) => t,
            Err(e) => panic!("roles tables do not load: {e}"),
        };
        assert!(table.rows.len() > 20);
        for row in &table.rows {
            for example in &row.examples {
                let got = table.row(example).map(|r| (r.role, r.glob.as_str()));
                assert_eq!(got, Some((row.role, row.glob.as_str())), "{example}");
            }
        }
    }

    #[test]
    fn a_shadowed_example_or_a_product_row_does_not_load() {
        let shadowed = "[[row]]\nglob = \"**/*.py\"\nrole = \"other\"\nwhy = \"x\"\nexamples = [\"a.py\"]\n\
                        [[row]]\nglob = \"**/test_*.py\"\nrole = \"test\"\nwhy = \"y\"\nexamples = [\"test_a.py\"]\n";
        let err = Table::load(&[("t", shadowed)]).err().unwrap_or_default();
        assert!(err.contains("taken by the earlier row"), "{err}");
        let product = "[[row]]\nglob = \"src/**\"\nrole = \"product\"\nwhy = \"x\"\nexamples = [\"src/a.py\"]\n";
        let err = Table::load(&[("t", product)]).err().unwrap_or_default();
        assert!(err.contains("never from a name"), "{err}");
        let not = "[[row]]\nglob = \"**/test*.py\"\nrole = \"test\"\nwhy = \"x\"\nexamples = [\"test_a.py\"]\nnot = [\"testing.py\"]\n";
        let err = Table::load(&[("t", not)]).err().unwrap_or_default();
        assert!(err.contains("listed as not matching"), "{err}");
    }
}
