//! Parsed code: one parser layer for the verification of issues 32–34.
//!
//! Every function here is pure: it takes source text the caller read and returns plain data. The
//! grammars are tree-sitter's for Python, JavaScript, TypeScript (and TSX), Go, Rust and Bash (the
//! shell: POSIX `sh` scripts parse with it too). A source that does not parse cleanly still gives a
//! tree; its error sites are reported ([`Parsed::errors`]), never a panic.
//!
//! - [`inline`]: the test items that live inside source files (Rust `#[cfg(test)]` modules,
//!   `#[test]` functions and doc tests, Python doctests, vitest's in-source tests), and
//!   [`inline::restore_inline_tests`], which puts the baseline's items back into a final source
//!   item by item, by span.
//! - [`probe`]: the literal calls a test makes (`assert f(2, 3) == 5` and its kin in every
//!   language, table-driven cases included), and the tests that are not call-shaped, with why.
//! - [`screen`]: the screen on the syntax of a change (rules as data per language, in
//!   `syntax/rules/*.toml`).
//! - [`defs`]: the functions a source defines at its top level (what a probe can call).
//! - [`exports`]: the symbols a source exports (its public interface), and what changed between
//!   two versions.
//! - [`uses`]: the names one test uses (its unit and the same-file helpers it reaches): does a
//!   new test exercise what the goal names?
//! - [`literal`]: [`Literal`], the plain data that tests compare with (numbers, strings, booleans,
//!   null, lists and maps of these).

mod data;
pub mod defs;
pub mod exports;
pub mod inline;
pub mod literal;
pub mod probe;
pub mod screen;
pub mod uses;
mod walk;

use std::borrow::Cow;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser, Tree};

pub use defs::{top_level_classes, top_level_functions};
pub use inline::{InlineItem, InlineKind, RestoreError, inline_test_items, restore_inline_tests};
pub use literal::Literal;
pub use probe::{Chain, NotProbed, Probe, Probes, extract_probes, extract_probes_reading};
pub use screen::{SyntaxFinding, screen, screen_data, screen_with_chains};
pub use uses::{Used, names_used};

/// The languages pawl parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Python,
    JavaScript,
    /// `.ts`, `.mts`, `.cts`: the TypeScript grammar (type assertions `<T>x` parse).
    TypeScript,
    /// `.tsx`: the TSX grammar (JSX and types).
    Tsx,
    Go,
    Rust,
    /// POSIX sh and Bash scripts, through the Bash grammar.
    Shell,
}

impl Lang {
    /// The language of a file by its name: the extension, or the name of a shell script without
    /// one is not guessed (`None`). Declaration files (`.d.ts`) are TypeScript.
    pub fn of_path(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "py" | "pyi" => Lang::Python,
            "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "go" => Lang::Go,
            "rs" => Lang::Rust,
            "sh" | "bash" | "bats" => Lang::Shell,
            _ => return None,
        })
    }

    /// The language of a source: by its path's extension, else by a first line `#!` naming an
    /// interpreter (`#!/bin/sh`, `#!/usr/bin/env python3`, `#!/usr/bin/env -S node`): a script
    /// installed without an extension (`bin/semver-bump`) is code like any other.
    pub fn of_source(path: &Path, text: &str) -> Option<Lang> {
        if let Some(lang) = Lang::of_path(path) {
            return Some(lang);
        }
        let line = text.lines().next()?.strip_prefix("#!")?;
        let mut words = line.split_whitespace();
        let mut prog = words.next()?.rsplit('/').next()?;
        if prog == "env" {
            prog = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
        }
        let name = prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        Some(match name {
            "sh" | "bash" | "dash" | "ash" | "ksh" | "mksh" => Lang::Shell,
            "python" | "pypy" => Lang::Python,
            "node" | "nodejs" => Lang::JavaScript,
            _ => return None,
        })
    }

    /// A short lowercase name (`python`, `javascript`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Go => "go",
            Lang::Rust => "rust",
            Lang::Shell => "shell",
        }
    }

    /// JavaScript, TypeScript or TSX: one set of rules and extractors serves the three.
    pub fn is_js_family(self) -> bool {
        matches!(self, Lang::JavaScript | Lang::TypeScript | Lang::Tsx)
    }

    fn grammar(self) -> tree_sitter::Language {
        match self {
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Shell => tree_sitter_bash::LANGUAGE.into(),
        }
    }
}

/// A byte range of a source, with its 1-based first and last lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub line: usize,
    pub end_line: usize,
}

impl Span {
    pub(crate) fn of(node: Node<'_>) -> Span {
        Span {
            start: node.start_byte(),
            end: node.end_byte(),
            line: node.start_position().row + 1,
            end_line: node.end_position().row + 1,
        }
    }

    /// Whether `other` lies within this span.
    pub fn contains(&self, other: &Span) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// Why a source gave no syntax tree at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxError {
    #[error("the {lang} grammar could not be loaded: {detail}")]
    Grammar { lang: &'static str, detail: String },
    #[error("the {lang} source is {bytes} bytes, more than the {limit} pawl parses")]
    TooLarge {
        lang: &'static str,
        bytes: usize,
        limit: usize,
    },
    #[error(
        "the {lang} source ({bytes} bytes) took the parser more work than any real source does; pawl stopped parsing it"
    )]
    TooComplex { lang: &'static str, bytes: usize },
    #[error("the {lang} parser gave no tree")]
    NoTree { lang: &'static str },
}

/// Sources above this size are not parsed (generated or vendored files; a test or product file
/// of this size is reported, not guessed at).
pub const MAX_SOURCE_BYTES: usize = 8 * 1024 * 1024;

/// A parsed source: the tree and the text it was parsed from (borrowed, or owned when pawl
/// parsed a fragment it built, such as the arguments of a Rust macro).
pub struct Parsed<'s> {
    pub lang: Lang,
    pub src: Cow<'s, str>,
    pub tree: Tree,
}

impl std::fmt::Debug for Parsed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parsed")
            .field("lang", &self.lang)
            .field("bytes", &self.src.len())
            .field("errors", &self.errors().len())
            .finish()
    }
}

impl Parsed<'_> {
    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The text of a node of this tree.
    pub fn text(&self, node: Node<'_>) -> &str {
        self.src
            .get(node.start_byte()..node.end_byte())
            .unwrap_or("")
    }

    /// Where the source did not parse: error and missing nodes, outermost first.
    pub fn errors(&self) -> Vec<Span> {
        let mut out = Vec::new();
        if !self.root().has_error() {
            return out;
        }
        walk::preorder(self.root(), |node| {
            if node.is_error() || node.is_missing() {
                out.push(Span::of(node));
                return walk::Step::Skip;
            }
            if node.has_error() {
                walk::Step::Into
            } else {
                walk::Step::Skip
            }
        });
        out
    }
}

/// Parse a source. A source with syntax errors still parses (see [`Parsed::errors`]); an error
/// is returned only when there is no tree at all.
pub fn parse(lang: Lang, src: &str) -> Result<Parsed<'_>, SyntaxError> {
    parse_cow(lang, Cow::Borrowed(src))
}

pub(crate) fn parse_cow(lang: Lang, src: Cow<'_, str>) -> Result<Parsed<'_>, SyntaxError> {
    let budget = parse_budget(src.len());
    parse_counted(lang, src, budget).0
}

/// [`parse_cow`] within `budget` of tree-sitter's progress checks, with how many it took.
fn parse_counted(
    lang: Lang,
    src: Cow<'_, str>,
    budget: u64,
) -> (Result<Parsed<'_>, SyntaxError>, u64) {
    if src.len() > MAX_SOURCE_BYTES {
        let e = SyntaxError::TooLarge {
            lang: lang.name(),
            bytes: src.len(),
            limit: MAX_SOURCE_BYTES,
        };
        return (Err(e), 0);
    }
    let mut parser = Parser::new();
    if let Err(e) = parser.set_language(&lang.grammar()) {
        let e = SyntaxError::Grammar {
            lang: lang.name(),
            detail: e.to_string(),
        };
        return (Err(e), 0);
    }
    let text = lang.scanner_safe(&src);
    let bytes = text.as_bytes();
    let mut checks = 0u64;
    let mut within = |_: &tree_sitter::ParseState| {
        checks += 1;
        checks > budget
    };
    let options = tree_sitter::ParseOptions::new().progress_callback(&mut within);
    let tree = parser.parse_with_options(
        &mut |at: usize, _| bytes.get(at..).unwrap_or_default(),
        None,
        Some(options),
    );
    let out = match tree {
        Some(tree) => Ok(Parsed { lang, src, tree }),
        None if checks > budget => Err(SyntaxError::TooComplex {
            lang: lang.name(),
            bytes: src.len(),
        }),
        None => Err(SyntaxError::NoTree { lang: lang.name() }),
    };
    (out, checks)
}

/// How many of tree-sitter's progress checks (one per hundred parse operations) a source of
/// `bytes` may take before pawl stops parsing it, so that no input makes a grammar's error
/// recovery run on (or grow) without end; such a source is reported like one too large to
/// parse. One per byte: 3,827 real sources of the six languages (Python's and Go's standard
/// libraries, crates, npm packages, shell scripts) took at most 28 per kilobyte
/// (`parse_work_of_real_sources`, a tool).
fn parse_budget(bytes: usize) -> u64 {
    10_000 + bytes as u64
}

impl Lang {
    /// The text a grammar's parser is given: the source itself, or for a grammar whose
    /// external scanner passes a character to the C library's byte classifiers (`isdigit`
    /// indexes a table of 384 entries), a copy in which every character past U+00FF is the
    /// same number of bytes of `x`. tree-sitter-bash 0.25.1 reads `isdigit(lookahead)` after a
    /// `{`: `{` followed by such a character read past the table, and a SIGSEGV took pawl down
    /// when the page there was not mapped (tree-sitter-bash issue 337). Byte offsets do not
    /// move, every node's text is still read from the source, and such a character is a word
    /// character to the shell either way.
    fn scanner_safe<'a>(self, src: &'a str) -> Cow<'a, str> {
        if self != Lang::Shell || src.chars().all(|c| u32::from(c) <= 0xFF) {
            return Cow::Borrowed(src);
        }
        let mut out = String::with_capacity(src.len());
        for c in src.chars() {
            if u32::from(c) <= 0xFF {
                out.push(c);
            } else {
                out.extend(std::iter::repeat_n('x', c.len_utf8()));
            }
        }
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests;
