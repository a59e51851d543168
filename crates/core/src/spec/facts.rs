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
    "bugged",
    "bugfix",
    // Phrases: matched as consecutive words of the goal, hyphens and punctuation as spaces.
    "off by one",
    "does not work",
    "doesn't work",
    "not working",
    // A result reported as not what it should be ("the sum is off", "totals look off").
    "is off",
    "are off",
    "looks off",
    "look off",
    "seems off",
    "seem off",
    "is not right",
];

/// Phrases that name the test tooling rather than a defect of the code ("regression test",
/// "regression detection"): taken out of the goal before its fix intent is looked for, so
/// "What is regression test?" or "Regression detection" does not ask for a fix, while "Fixes to
/// regression tests" still does (its intent is "fixes").
pub const TOOLING_TERMS: &[&str] = &[
    "regression test",
    "regression tests",
    "regression testing",
    "regression detection",
    "test case",
    "test cases",
];

/// Words that ask for a failure rather than against one, when they come within
/// [`ASKS_FOR_FAILURE_SPAN`] words before `fail` with no [`NEGATIONS`] there ("let the tests
/// fail on any mismatch"; not "add should not fail on negatives").
pub const ASKS_FOR_FAILURE: &[&str] = &["let", "should", "must", "make"];
pub const ASKS_FOR_FAILURE_SPAN: usize = 3;
pub const NEGATIONS: &[&str] = &[
    "not",
    "never",
    "no",
    "don't",
    "doesn't",
    "shouldn't",
    "mustn't",
];

/// Words a question starts with: a goal asking a question ("What is regression test?") asks
/// for an answer, not for the failing tests to pass.
pub const QUESTION_WORDS: &[&str] = &["what", "why", "how", "who", "which", "where"];

/// Words after a plain word at the start of a clause that make it a verb ("add a flag",
/// "update the docs", "make it faster"), not a name to look up.
pub const DETERMINERS: &[&str] = &[
    "a",
    "an",
    "the",
    "some",
    "more",
    "new",
    "another",
    "additional",
    "support",
    "it",
    "them",
    "this",
    "that",
    "these",
    "those",
    "all",
    "every",
    "each",
    "any",
    "my",
    "our",
    "your",
    "its",
    "their",
];

/// Check names too common to name a check ("test" is a word of "Test case regressions
/// missing", not a reference to the check called `test`).
pub const GENERIC_CHECK_NAMES: &[&str] = &["test", "tests", "check", "checks", "build"];

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
    // An explanation or a description asked for, not a change of the code.
    "understanding",
    "understand",
    "explain",
    "explanation",
    "elaborate",
    "description",
    "describe",
    // The test tooling and its reports.
    "ci",
    "reported as",
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

/// Common words never looked up as symbols (they occur in every repository's comments) —
/// unless written as code (`value()`, `` `test` ``).
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "when", "then", "than", "make",
    "makes", "made", "does", "doesn", "not", "but", "all", "any", "are", "was", "were", "has",
    "have", "had", "its", "it's", "should", "would", "could", "can", "cannot", "will", "test",
    "tests", "code", "issue", "error", "errors", "returns", "return", "value", "values", "instead",
    "again", "also", "only", "some", "one", "two", "work", "works", "working", "gets", "use",
    "uses", "used", "new", "adds", "please", "there", "their", "what", "which", "where", "why",
    "how", "out", "off", "via", "per", "now", "give", "gives", "given", "like", "just", "still",
    "every", "each", "case", "cases", "number", "numbers", "string", "strings", "file", "files",
    "function", "method", "class", "module", "input", "output", "result", "results", "true",
    "false", "null", "none",
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
    /// The goal's terms the repository has ([`RunFacts::found`]) that this failing test
    /// exercises at the baseline — names it uses, names of the modules its imports reach
    /// (transitively, within the repository), files it reaches — read by the caller from parsed
    /// code; `None` when that could not be read (its file not found, no import resolved), and
    /// then the failure's text decides as for any term.
    #[serde(default)]
    pub exercises: Option<BTreeSet<String>>,
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
    /// How the baseline's failing tests were tied to the goal's terms (issue 35 point 3).
    #[serde(default)]
    pub read: ExercisesRead,
}

/// How the baseline's failing tests were tied to the goal's terms the repository has: by what
/// each test exercises (read from its parsed imports: per-test coverage is not read on any
/// platform yet), or — where that could not be read (its file not found, no import resolved to a
/// file of the repository, a test id that names no file) — by the check's output. Counted over
/// the failing tests only when the goal has a term the repository holds (else nothing is read:
/// no term to tie); the report shows it as the targeting's evidence.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExercisesRead {
    /// Failing tests whose exercised names and files were read from their imports.
    pub imports: usize,
    /// Failing tests whose output decided instead (imports not readable).
    pub output: usize,
}

impl ExercisesRead {
    /// How `facts`' failing tests were read ([`BaselineFailure::exercises`]).
    pub fn of(facts: &RunFacts) -> Self {
        let mut out = Self::default();
        if facts.found.is_empty() {
            return out;
        }
        for f in facts
            .failures
            .iter()
            .filter(|f| f.runs_tests && f.test.is_some())
        {
            if f.exercises.is_some() {
                out.imports += 1;
            } else {
                out.output += 1;
            }
        }
        out
    }

    /// `2 failing test(s) tied by what they exercise (their imports), 1 by the check's output`;
    /// `None` when nothing was read.
    pub fn line(&self) -> Option<String> {
        (self.imports + self.output > 0).then(|| {
            format!(
                "{} failing test(s) tied to the goal's terms by what they exercise (their imports; per-test coverage is not read), {} by the check's output",
                self.imports, self.output
            )
        })
    }
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

/// A term of the goal: a word with the punctuation around it removed, and how it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    text: String,
    /// Written as code: a call (`add(2, 3)`, `add()`) or in backticks.
    code: bool,
    /// The first term of the goal or of a clause (after `.`, `:`, `;`, `!`, `?`).
    clause_start: bool,
}

/// A goal's terms; calls (`parse("{:d}", "-12")`) give their callee; quoted text inside a call
/// is not a term.
fn terms(goal: &str) -> Vec<String> {
    terms_of(goal).into_iter().map(|t| t.text).collect()
}

fn terms_of(goal: &str) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    let mut in_quote: Option<char> = None;
    let mut in_backticks = false;
    let mut cur = String::new();
    let mut clause_start = true;
    // Ends the current word; `call`: an opening parenthesis follows it directly.
    let flush = |cur: &mut String, out: &mut Vec<Term>, code: bool, clause_start: &mut bool| {
        let ends_clause = cur.ends_with(['.', ':', ';', '!', '?']);
        let t = cur
            .trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '#'))
            .to_string();
        if !t.is_empty() {
            out.push(Term {
                text: t,
                code,
                clause_start: *clause_start,
            });
            *clause_start = false;
        }
        if ends_clause {
            *clause_start = true;
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
                flush(&mut cur, &mut out, in_backticks, &mut clause_start);
                in_quote = Some(c);
            }
            '(' => {
                let call = cur
                    .chars()
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_');
                flush(&mut cur, &mut out, call || in_backticks, &mut clause_start);
            }
            '`' => {
                flush(&mut cur, &mut out, in_backticks, &mut clause_start);
                in_backticks = !in_backticks;
            }
            ')' | ',' | '[' | ']' | '{' | '}' | '=' | '<' | '>' => {
                flush(&mut cur, &mut out, in_backticks, &mut clause_start)
            }
            '!' | '?' | ';' => {
                cur.push(c);
                flush(&mut cur, &mut out, in_backticks, &mut clause_start);
            }
            c if c.is_whitespace() => flush(&mut cur, &mut out, in_backticks, &mut clause_start),
            c => cur.push(c),
        }
    }
    flush(&mut cur, &mut out, in_backticks, &mut clause_start);
    out
}

/// The goal in lowercase words, hyphens and punctuation as spaces (`Off-By-One` → `off by one`),
/// for matching the tables' words and phrases.
fn phrase_words(goal: &str) -> Vec<String> {
    goal.split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Where `phrase` (words separated by spaces) occurs in `words`.
fn phrase_at(words: &[String], phrase: &str) -> Vec<usize> {
    let p: Vec<&str> = phrase.split(' ').collect();
    if p.is_empty() || words.len() < p.len() {
        return Vec::new();
    }
    (0..=words.len() - p.len())
        .filter(|&i| p.iter().enumerate().all(|(j, w)| words[i + j] == *w))
        .collect()
}

/// The first entry of `table` the goal's words hold, words and phrases alike.
fn find_in(words: &[String], table: &[&str]) -> Option<String> {
    let mut best: Option<(usize, &str)> = None;
    for t in table {
        if let Some(&i) = phrase_at(words, t).first()
            && best.is_none_or(|(b, _)| i < b)
        {
            best = Some((i, t));
        }
    }
    best.map(|(_, t)| t.to_string())
}

/// The fix intent of a goal ([`FIX_INTENTS`]), once the test tooling's terms
/// ([`TOOLING_TERMS`]) are taken out and a `fail` asked for ([`ASKS_FOR_FAILURE`]) is not one.
pub fn fix_intent(goal: &str) -> Option<String> {
    let mut words = phrase_words(goal);
    let mut tooling: Vec<&str> = TOOLING_TERMS.to_vec();
    // Longest first, so "regression tests" goes whole rather than leaving "s".
    tooling.sort_by_key(|t| std::cmp::Reverse(t.len()));
    for t in tooling {
        let n = t.split(' ').count();
        while let Some(&i) = phrase_at(&words, t).first() {
            words.drain(i..i + n);
        }
    }
    let asked_for = |i: usize| {
        let before = &words[i.saturating_sub(ASKS_FOR_FAILURE_SPAN)..i];
        words[i] == "fail"
            && before
                .iter()
                .any(|w| ASKS_FOR_FAILURE.contains(&w.as_str()))
            && !before.iter().any(|w| NEGATIONS.contains(&w.as_str()))
    };
    let mut best: Option<(usize, &str)> = None;
    for t in FIX_INTENTS {
        if let Some(i) = phrase_at(&words, t).into_iter().find(|&i| !asked_for(i))
            && best.is_none_or(|(b, _)| i < b)
        {
            best = Some((i, t));
        }
    }
    best.map(|(_, t)| t.to_string())
}

/// The other aim a goal names ([`OTHER_AIMS`]), or a question ([`QUESTION_WORDS`] first, or a
/// question mark at the end with no fix intent).
pub fn other_aim(goal: &str) -> Option<String> {
    let words = phrase_words(goal);
    if let Some(a) = find_in(&words, OTHER_AIMS) {
        return Some(a);
    }
    let first = words.first().map(String::as_str).unwrap_or("");
    if QUESTION_WORDS.contains(&first) {
        return Some(format!("a question ({first} …)"));
    }
    None
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
/// always; calls and backticked names (`add(2, 3)`, `` `add` ``) as definitions, whatever the
/// word; plain words when they are not common English ([`STOP_WORDS`], the fix and aim tables),
/// at least three letters, and not a verb at the start of a clause ("add a flag": the word
/// after it is one of [`DETERMINERS`]).
pub fn candidates(goal: &str) -> Vec<Candidate> {
    let mut out: BTreeSet<Candidate> = BTreeSet::new();
    let all = terms_of(goal);
    for (i, term) in all.iter().enumerate() {
        let t = term.text.clone();
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
        let plain = t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && t.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        if plain && term.code {
            out.insert(Candidate {
                term: t,
                lookup: Lookup::Definition,
            });
            continue;
        }
        let verb = term.clause_start
            && all
                .get(i + 1)
                .is_some_and(|n| DETERMINERS.contains(&n.text.to_lowercase().as_str()));
        if plain
            && t.len() >= 3
            && !verb
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
    let intent = fix_intent(goal);
    let other_aim = other_aim(goal);
    let lint_aim = words.iter().any(|w| LINT_WORDS.contains(&w.as_str()));
    let mut out = Anchoring {
        intent: intent.clone(),
        other_aim: other_aim.clone(),
        read: ExercisesRead::of(facts),
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
    // A capitalised word inside a clause is a name ("implement Morse encoding" names
    // `test_morse`), not a verb at a sentence's start ("Add …").
    let names: BTreeSet<String> = terms_of(goal)
        .into_iter()
        .filter(|t| !t.clause_start && t.text.chars().next().is_some_and(char::is_uppercase))
        .map(|t| t.text)
        .collect();
    // Terms a baseline failure names: its test id's words, what its test exercises (when that
    // was read), or its output.
    for f in &facts.failures {
        let id = f.test.as_deref().unwrap_or(&f.check);
        let idw = id_words(id);
        let check = f.check.to_lowercase();
        let check_named = !GENERIC_CHECK_NAMES.contains(&check.as_str()) && words.contains(&check);
        let named: Option<String> = cands
            .iter()
            .find(|c| {
                // A plain word names a test id's word as written ("the test for add"; the
                // verb "Add" at a sentence's start does not), a name inside a clause in any
                // case; code and paths in any case.
                (if c.lookup == Lookup::Definition && !names.contains(&c.term) {
                    idw.contains(&c.term)
                } else {
                    idw.contains(&c.term.to_lowercase())
                }) || c.term == id
                    || match &f.exercises {
                        // A term of the repository: a reference to this failure when its test
                        // exercises it — not when the output names it (the output is the
                        // whole check's, naming other tests' code too).
                        Some(ex) if facts.found.contains(&c.term) => ex.contains(&c.term),
                        _ => {
                            (c.lookup != Lookup::Definition || facts.found.contains(&c.term))
                                && has_word(&f.text, &c.term)
                        }
                    }
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
