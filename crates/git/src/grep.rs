//! Which words and paths a repository has: the lookups behind a goal's anchors
//! (`pawl_core::spec::facts`). Tracked files only, binary files skipped, no text conversion.

use std::collections::BTreeSet;

use crate::error::Error;
use crate::repo::{Repo, nul_records};

/// The keywords a definition starts with, across the languages pawl checks.
const DEFINITION_KEYWORDS: &str = "def|fn|function|func|class|struct|enum|trait|interface|type|const|let|var|mod|module|macro_rules!|sub|impl";

/// Words that may come before the keyword at the start of a definition (visibility, `async`,
/// `export default`, …). A definition starts a statement: the keyword after anything else (a
/// comment, a sentence — "this type must be…") defines nothing.
const DEFINITION_MODIFIERS: &str = "pub(\\([^)]*\\))?|export|default|declare|async|static|unsafe|extern|const|abstract|final|sealed|private|public|protected|internal|inline|local|my|our|data|open|override";

impl Repo {
    /// The `words` that occur as whole words in a tracked text file — of `tree` (a tree or
    /// commit id) when given, else of the working tree.
    pub fn words_used(
        &self,
        words: &[&str],
        tree: Option<&str>,
    ) -> Result<BTreeSet<String>, Error> {
        let words: Vec<&str> = words.iter().copied().filter(|w| !w.is_empty()).collect();
        if words.is_empty() {
            return Ok(BTreeSet::new());
        }
        let mut git = self.git();
        git.args(["grep", "--no-textconv", "-I", "-h", "-o", "-w", "-F"]);
        for w in &words {
            git.arg("-e").arg(w);
        }
        git.args(tree);
        git.args(["--", ":/"]);
        let (_, out) = git.run_allowing(&[0, 1])?;
        let text = String::from_utf8_lossy(&out);
        Ok(text
            .lines()
            .map(str::trim)
            .filter(|l| words.contains(l))
            .map(str::to_owned)
            .collect())
    }

    /// The `names` (identifier characters only; others are ignored) that a tracked file
    /// defines: `def parse`, `fn parse`, `function parse`, `class Parser`, `parse() {`, …
    pub fn names_defined(
        &self,
        names: &[&str],
        tree: Option<&str>,
    ) -> Result<BTreeSet<String>, Error> {
        let names: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .collect();
        if names.is_empty() {
            return Ok(BTreeSet::new());
        }
        let pattern = format!(
            "^[[:space:]]*(({DEFINITION_MODIFIERS})[[:space:]]+)*({DEFINITION_KEYWORDS})[[:space:]]+({})([^[:alnum:]_]|$)",
            names.join("|")
        );
        // A shell function: `name() {`.
        let shell = format!(
            "(^|[^[:alnum:]_])({})[[:space:]]*\\(\\)[[:space:]]*\\{{",
            names.join("|")
        );
        let mut git = self.git();
        git.args(["grep", "--no-textconv", "-I", "-h", "-o", "-E", "-e"])
            .arg(&pattern)
            .arg("-e")
            .arg(&shell)
            .args(tree)
            .args(["--", ":/"]);
        let (_, out) = git.run_allowing(&[0, 1])?;
        let text = String::from_utf8_lossy(&out);
        let mut found = BTreeSet::new();
        let keywords: Vec<&str> = DEFINITION_KEYWORDS
            .split('|')
            .map(|k| k.trim_end_matches('!'))
            .collect();
        for m in text.lines() {
            // The name is the word right after a keyword (`pub const fn depth` → `depth`).
            let words: Vec<&str> = m
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            for pair in words.windows(2) {
                if keywords.contains(&pair[0]) && names.contains(&pair[1]) {
                    found.insert(pair[1].to_owned());
                }
            }
            // A shell function's match (`add() {`): the name is the word right before `()`.
            if let Some(open) = m.find("()") {
                let before = m[..open].trim_end();
                let name = before
                    .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("");
                if names.contains(&name) {
                    found.insert(name.to_owned());
                }
            }
        }
        Ok(found)
    }

    /// The `paths` that name a tracked file or directory, whole or as a trailing part
    /// (`calc.py` names `src/calc.py`).
    pub fn paths_tracked(
        &self,
        paths: &[&str],
        tree: Option<&str>,
    ) -> Result<BTreeSet<String>, Error> {
        if paths.is_empty() {
            return Ok(BTreeSet::new());
        }
        let mut git = self.git();
        match tree {
            Some(t) => git.args(["ls-tree", "-r", "-z", "--name-only", "--full-tree", t]),
            None => git.args(["ls-files", "-z", "--full-name", "--", ":/"]),
        };
        let out = git.run()?;
        let mut found = BTreeSet::new();
        for rec in nul_records(&out) {
            let file = String::from_utf8_lossy(rec);
            for orig in paths {
                let p = orig.trim_start_matches("./").trim_end_matches('/');
                if p.is_empty() {
                    continue;
                }
                let whole = file == p || file.ends_with(&format!("/{p}"));
                let dir = file.starts_with(&format!("{p}/")) || file.contains(&format!("/{p}/"));
                if whole || dir {
                    found.insert((*orig).to_owned());
                }
            }
        }
        Ok(found)
    }
}
