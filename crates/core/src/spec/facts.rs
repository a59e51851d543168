//! Anchors from facts: what a goal ties to among the facts of the run — the checks and tests
//! that fail at the baseline, the symbols and paths of the repository, issue references — and
//! which baseline failures it therefore targets (the locked run needs those to pass; the others
//! only must not get worse).
//!
//! A pure function over (goal text, baseline failures, repository lookups): the caller asks the
//! repository about the goal's [`candidates`] (`git grep`, a symbol index) and passes what it
//! found. Words are rules as data: [`FIX_INTENTS`] (a goal that asks for a fix is anchored on
//! what is broken), [`OTHER_AIMS`] (a goal that names another aim — "make it faster" — is not
//! anchored on a failing test just because there is one), [`LINT_WORDS`] (a fix aimed at
//! warnings targets the linters' checks). What this is not: the clarity score (`super`), the
//! gate's action (`super::gate`).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// Words that ask for a fix of what is broken.
pub const FIX_INTENTS: &[&str] = &[
    "fix",
    "fixes",
    "fixed",
    "fixing",
    "repair",
    "repairs",
    "broken",
    "breaks",
    "wrong",
    "wrongly",
    "incorrect",
    "incorrectly",
    "failing",
    "fails",
    "fail",
    "failure",
    "failures",
    "red",
    "green",
    "regression",
    "regressed",
    "bug",
    "bugs",
    "buggy",
    "crash",
    "crashes",
    "pass",
    "passes",
    "passing",
    "resolve",
    "resolves",
];

/// Words that name an aim other than making what fails pass.
pub const OTHER_AIMS: &[&str] = &[
    "faster",
    "slower",
    "speed",
    "performance",
    "perf",
    "optimize",
    "optimise",
    "memory",
    "refactor",
    "rename",
    "clean",
    "cleanup",
    "tidy",
    "document",
    "docs",
    "documentation",
    "readme",
    "reformat",
    "format",
    "style",
    "better",
    "nicer",
    "prettier",
    "improve",
];

/// Words that aim a fix at the linters' and type checkers' findings rather than at tests.
pub const LINT_WORDS: &[&str] = &[
    "lint",
    "linter",
    "lints",
    "warning",
    "warnings",
    "clippy",
    "eslint",
    "ruff",
    "mypy",
    "pyright",
    "tsc",
    "typecheck",
    "type-check",
    "flake8",
    "pylint",
];

/// Common words never looked up as symbols (they occur in every repository's comments).
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "when", "then", "than", "make",
    "makes", "made", "does", "doesn", "not", "but", "all", "any", "are", "was", "were", "has",
    "have", "had", "its", "it's", "should", "would", "could", "can", "cannot", "will", "test",
    "tests", "code", "issue", "error", "errors", "returns", "return", "value", "values", "instead",
    "again", "also", "only", "some", "one", "two", "work", "works", "working", "get", "gets",
    "set", "use", "uses", "used", "new", "add", "adds", "please", "there", "their", "what",
    "which", "where", "why", "how", "out", "off", "via", "per", "now", "give", "gives", "given",
    "like", "just", "still", "every", "each", "case", "cases", "number", "numbers", "string",
    "strings", "file", "files", "function", "method", "class", "module", "input", "output",
    "result", "results", "true", "false", "null", "none",
];

/// How the caller should look a candidate up in the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lookup {
    /// A tracked path, or a path's suffix (`src/parser.rs`, `calc.py`).
    Path,
    /// Shaped like code (`snake_case`, `camelCase`, `a::b`, a call): any whole-word occurrence.
    Word,
    /// A plain lowercase word (`parse`): only where the repository defines it (`def parse`,
    /// `fn parse`, `function parse`, …), so English words in comments do not count.
    Definition,
}

/// A term of the goal to look up in the repository.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Candidate {
    pub term: String,
    pub lookup: Lookup,
}

/// One check or test failing at the baseline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineFailure {
    /// The check's name (`test`, `lint`).
    pub check: String,
    /// The failing test's id; `None` for a check that failed without naming a test.
    pub test: Option<String>,
    /// The check runs tests (a test runner), as opposed to a linter or a build.
    pub runs_tests: bool,
    /// What its output said about it (first failure, messages): searched for the goal's terms.
    pub text: String,
}

/// The facts a goal can tie to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunFacts {
    pub failures: Vec<BaselineFailure>,
    /// The candidates the repository has ([`candidates`], looked up as each says).
    pub found: BTreeSet<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    /// The goal asks for a fix, and these fail at the baseline.
    BaselineFailures,
    /// The goal names something a baseline failure's id or output names.
    FailureReference,
    /// A symbol the repository has.
    Symbol,
    /// A path the repository has.
    Path,
    /// `#12`, `GH-12`, `PROJ-12`, an issue URL.
    IssueRef,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FactAnchor {
    pub kind: FactKind,
    pub text: String,
}

/// A baseline failure the goal targets: it must pass at the end.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Target {
    pub check: String,
    pub test: Option<String>,
}

/// What the goal ties to, and what it targets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anchoring {
    pub anchors: Vec<FactAnchor>,
    pub targets: Vec<Target>,
    /// The fix intent found (`fix`, `failing`, …).
    pub intent: Option<String>,
    /// The other aim named (`faster`, …): then a failure is targeted only when named.
    pub other_aim: Option<String>,
}

impl Anchoring {
    pub fn anchored(&self) -> bool {
        !self.anchors.is_empty()
    }

    /// Whether the goal targets `check` (any of its tests, or the check as a whole).
    pub fn targets_check(&self, check: &str) -> bool {
        self.targets.iter().any(|t| t.check == check)
    }

    /// Whether the goal targets test `test` of `check`, or `check` as a whole.
    pub fn targets_test(&self, check: &str, test: &str) -> bool {
        self.targets
            .iter()
            .any(|t| t.check == check && t.test.as_deref().is_none_or(|x| x == test))
    }

    /// Whether the goal targets this failure item of `check` (a targeted item must be gone;
    /// the others only must not get worse). A failing test (tool `tests`) is targeted when the
    /// goal targets it — and, when the goal targets nothing and names no other aim ("make add()
    /// add"), every failing test is: what fails is then what the run is for.
    pub fn targets_item(&self, check: &str, item: &crate::against::FailureItem) -> bool {
        if item.tool == "tests" {
            (self.targets.is_empty() && self.other_aim.is_none())
                || self.targets_test(check, &item.message)
        } else {
            self.targets
                .iter()
                .any(|t| t.check == check && t.test.is_none())
        }
    }

    /// `anchored on 1 failing test at the baseline (test: t::neg), symbol `parse``.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .anchors
            .iter()
            .take(4)
            .map(|a| match a.kind {
                FactKind::BaselineFailures => a.text.clone(),
                FactKind::FailureReference => format!("`{}` in a baseline failure", a.text),
                FactKind::Symbol => format!("symbol `{}`", a.text),
                FactKind::Path => format!("path `{}`", a.text),
                FactKind::IssueRef => format!("issue {}", a.text),
            })
            .collect();
        format!("anchored on {}", parts.join(", "))
    }
}

/// A goal's words with the punctuation around them removed; calls (`parse("{:d}", "-12")`)
/// give their callee; quoted text inside a call is not a word.
fn terms(goal: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_quote: Option<char> = None;
    let mut cur = String::new();
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        let t = cur
            .trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '#'))
            .to_string();
        if !t.is_empty() {
            out.push(t);
        }
        cur.clear();
    };
    for c in goal.chars() {
        if let Some(q) = in_quote {
            if c == q {
                in_quote = None;
            }
            continue;
        }
        match c {
            '"' => {
                flush(&mut cur, &mut out);
                in_quote = Some(c);
            }
            '(' | ')' | ',' | ';' | '`' | '[' | ']' | '{' | '}' | '=' | '<' | '>' | '!' | '?' => {
                flush(&mut cur, &mut out)
            }
            c if c.is_whitespace() => flush(&mut cur, &mut out),
            c => cur.push(c),
        }
    }
    flush(&mut cur, &mut out);
    out
}

fn lower_words(goal: &str) -> Vec<String> {
    goal.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .map(|w| w.trim_matches(|c| c == '-' || c == '\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

fn is_path(t: &str) -> bool {
    let ext = t.rsplit_once('.').is_some_and(|(stem, e)| {
        !stem.is_empty()
            && (1..=5).contains(&e.len())
            && e.chars().all(|c| c.is_ascii_alphanumeric())
            && e.chars().any(|c| c.is_ascii_alphabetic())
    });
    (t.contains('/') && t.len() > 2 && !t.contains("//")) || ext
}

fn is_code_shaped(t: &str) -> bool {
    let chars_ok = t
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '.');
    let snake = t.contains('_') && t.chars().any(|c| c.is_ascii_alphabetic());
    let inner_upper = t
        .chars()
        .zip(t.chars().skip(1))
        .any(|(a, b)| a.is_ascii_lowercase() && b.is_ascii_uppercase());
    chars_ok && (snake || inner_upper || t.contains("::"))
}

fn is_issue_ref(t: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    t.strip_prefix('#').is_some_and(digits)
        || t.strip_prefix("GH-").is_some_and(digits)
        || t.contains("/issues/")
        || t.contains("/pull/")
        || t.split_once('-').is_some_and(|(p, n)| {
            p.len() >= 2 && p.chars().all(|c| c.is_ascii_uppercase()) && digits(n)
        })
}

/// The goal's terms worth asking the repository about, and how. Code-shaped terms and paths
/// always; plain words when they are not common English ([`STOP_WORDS`], the fix and aim
/// tables) and at least three letters.
pub fn candidates(goal: &str) -> Vec<Candidate> {
    let mut out: BTreeSet<Candidate> = BTreeSet::new();
    for t in terms(goal) {
        if is_issue_ref(&t) || t.starts_with('#') {
            continue;
        }
        if t.contains("://") {
            continue;
        }
        if is_path(&t) && !t.contains("::") {
            out.insert(Candidate {
                term: t.clone(),
                lookup: Lookup::Path,
            });
            // `obj.method`: the method too.
            if let Some((_, last)) = t.rsplit_once('.')
                && last.len() >= 3
                && !t.contains('/')
            {
                out.insert(Candidate {
                    term: last.to_string(),
                    lookup: Lookup::Word,
                });
            }
            continue;
        }
        if is_code_shaped(&t) {
            out.insert(Candidate {
                term: t,
                lookup: Lookup::Word,
            });
            continue;
        }
        let lower = t.to_lowercase();
        let plain = t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if plain
            && t.len() >= 3
            && t.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && !STOP_WORDS.contains(&lower.as_str())
            && !FIX_INTENTS.contains(&lower.as_str())
            && !OTHER_AIMS.contains(&lower.as_str())
        {
            out.insert(Candidate {
                term: t,
                lookup: Lookup::Definition,
            });
        }
    }
    out.into_iter().collect()
}

/// Whether `word` occurs in `text` as a whole word (identifier characters around it end it).
pub fn has_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut start = 0;
    while let Some(i) = text[start..].find(word) {
        let at = start + i;
        let end = at + word.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(ident) && !after.is_some_and(ident) {
            return true;
        }
        start = at + word.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The words of a test id (`tests/test_calc.py::test_parse_negative` → `tests`, `test`,
/// `calc`, `py`, `parse`, `negative`).
fn id_words(id: &str) -> Vec<String> {
    id.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 3)
        .map(str::to_lowercase)
        .collect()
}

/// Ties a goal to the run's facts and says which baseline failures it targets.
pub fn anchor(goal: &str, facts: &RunFacts) -> Anchoring {
    let words = lower_words(goal);
    let intent = words
        .iter()
        .find(|w| FIX_INTENTS.contains(&w.as_str()))
        .cloned();
    let other_aim = words
        .iter()
        .find(|w| OTHER_AIMS.contains(&w.as_str()))
        .cloned();
    let lint_aim = words.iter().any(|w| LINT_WORDS.contains(&w.as_str()));
    let mut out = Anchoring {
        intent: intent.clone(),
        other_aim: other_aim.clone(),
        ..Anchoring::default()
    };
    let push = |out: &mut Anchoring, kind: FactKind, text: String| {
        if !out.anchors.iter().any(|a| a.kind == kind && a.text == text) {
            out.anchors.push(FactAnchor { kind, text });
        }
    };
    let mut targets: BTreeSet<Target> = BTreeSet::new();
    let target_of = |f: &BaselineFailure| Target {
        check: f.check.clone(),
        test: f.test.clone(),
    };

    for t in terms(goal) {
        if is_issue_ref(&t) {
            push(&mut out, FactKind::IssueRef, t);
        }
    }
    // Terms the repository has.
    let cands = candidates(goal);
    let found: Vec<&Candidate> = cands
        .iter()
        .filter(|c| facts.found.contains(&c.term))
        .collect();
    for c in &found {
        let kind = if c.lookup == Lookup::Path {
            FactKind::Path
        } else {
            FactKind::Symbol
        };
        push(&mut out, kind, c.term.clone());
    }
    // Terms a baseline failure names: its test id's words, or its output.
    for f in &facts.failures {
        let id = f.test.as_deref().unwrap_or(&f.check);
        let idw = id_words(id);
        let check_named = words.iter().any(|w| *w == f.check.to_lowercase());
        let named: Option<String> = cands
            .iter()
            .find(|c| {
                idw.contains(&c.term.to_lowercase())
                    || c.term == id
                    || ((c.lookup != Lookup::Definition || facts.found.contains(&c.term))
                        && has_word(&f.text, &c.term))
            })
            .map(|c| c.term.clone())
            .or_else(|| check_named.then(|| f.check.clone()));
        if let Some(term) = named {
            push(&mut out, FactKind::FailureReference, term);
            targets.insert(target_of(f));
        }
    }
    // A goal that asks for a fix and names no other aim is anchored on what fails: the failing
    // tests (or, aimed at warnings or with no failing test, the failing checks).
    if intent.is_some() && other_aim.is_none() && targets.is_empty() {
        let tests: Vec<&BaselineFailure> = facts.failures.iter().filter(|f| f.runs_tests).collect();
        let chosen: Vec<&BaselineFailure> = if lint_aim {
            facts.failures.iter().filter(|f| !f.runs_tests).collect()
        } else if tests.is_empty() {
            facts.failures.iter().collect()
        } else {
            tests
        };
        if !chosen.is_empty() {
            let ids: Vec<String> = chosen
                .iter()
                .take(3)
                .map(|f| match &f.test {
                    Some(t) => format!("{}: {t}", f.check),
                    None => f.check.clone(),
                })
                .collect();
            let more = if chosen.len() > 3 { ", …" } else { "" };
            push(
                &mut out,
                FactKind::BaselineFailures,
                format!(
                    "{} failing at the baseline ({}{more})",
                    chosen.len(),
                    ids.join(", ")
                ),
            );
            targets.extend(chosen.into_iter().map(target_of));
        }
    }
    // Anchored elsewhere (a symbol, an issue) with a fix asked for and none of the failures
    // named: what is broken is what fails — the failing tests.
    if intent.is_some() && other_aim.is_none() && targets.is_empty() && out.anchored() {
        targets.extend(
            facts
                .failures
                .iter()
                .filter(|f| f.runs_tests)
                .map(target_of),
        );
    }
    out.targets = targets.into_iter().collect();
    out
}

#[cfg(test)]
mod tests;
