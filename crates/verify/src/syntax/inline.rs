//! Inline test items: tests that live inside source files (issue 32 points 1 and 2).
//!
//! - Rust: `#[cfg(test)]` modules, `#[test]` functions outside them, doc tests (`///`, `//!` and
//!   `/** */` comments holding a fenced code block that rustdoc runs);
//! - Python: docstrings holding doctests (`>>>` lines) of the module, classes and functions;
//! - JavaScript/TypeScript: vitest's in-source tests (`if (import.meta.vitest) { ... }`).
//!
//! [`restore_inline_tests`] keeps a run's product changes while locking its inline tests: the
//! final source with every inline item replaced by the baseline's item of the same key, new
//! items removed and removed ones put back — by byte span, never by reprinting the file.

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::probe::{rust_attrs, rust_has_test_attr, rust_module_path};
use super::walk::{Step, named_children, preorder};
use super::{Lang, Parsed, Span, SyntaxError, parse};

/// What an inline test item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InlineKind {
    RustTestModule,
    RustTestFn,
    RustDocTest,
    PythonDoctest,
    JsInSourceTest,
}

/// One inline test item: its kind, its key (stable across edits: the module path and name) and
/// its span, extended to whole lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InlineItem {
    pub kind: InlineKind,
    /// `mod tests`, `mod a::tests`, `fn a::it_works`, `doc a::parse`, `doc a::parse#1` (a
    /// second block on the same item), `doc (crate)` for the file's `//!` docs,
    /// `doctest Calc.add`, `doctest (module)`, `vitest#0`.
    pub key: String,
    pub span: Span,
}

/// Why the inline tests could not be restored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
    #[error(
        "the baseline's inline test `{key}` has no place in the final source (its item is gone)"
    )]
    NoPlace { key: String },
    #[error("inline test items overlap near `{key}`")]
    Overlap { key: String },
    #[error("the restored source does not parse ({errors} error sites) where the final source did")]
    Broken { errors: usize },
}

/// The inline test items of a source, in source order (outermost items only: the `#[test]`
/// functions of a `#[cfg(test)]` module belong to the module's item).
pub fn inline_test_items(lang: Lang, src: &str) -> Result<Vec<InlineItem>, SyntaxError> {
    let p = parse(lang, src)?;
    Ok(items(&p))
}

fn items(p: &Parsed<'_>) -> Vec<InlineItem> {
    let mut out = match p.lang {
        Lang::Rust => rust_items(p),
        Lang::Python => python_items(p),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => js_items(p),
        Lang::Go | Lang::Shell => Vec::new(),
    };
    out.sort_by_key(|i| i.span.start);
    // number repeated keys so each is its own item
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for item in &mut out {
        let n = seen.entry(item.key.clone()).or_insert(0);
        if *n > 0 {
            item.key = format!("{}#{}", item.key, n);
        }
        *n += 1;
    }
    out
}

/// Extend a span to whole lines when only blanks stand between it and the line ends.
fn whole_lines(src: &str, start: usize, end: usize) -> (usize, usize) {
    let bytes = src.as_bytes();
    let mut s = start;
    while s > 0 && matches!(bytes[s - 1], b' ' | b'\t') {
        s -= 1;
    }
    let s = if s == 0 || bytes[s - 1] == b'\n' {
        s
    } else {
        start
    };
    let mut e = end;
    while e < bytes.len() && matches!(bytes[e], b' ' | b'\t' | b'\r') {
        e += 1;
    }
    let e = if e < bytes.len() && bytes[e] == b'\n' {
        e + 1
    } else if e == bytes.len() {
        e
    } else {
        end
    };
    (s, e)
}

fn item_span(p: &Parsed<'_>, start: Node<'_>, end: Node<'_>) -> Span {
    let (s, e) = whole_lines(&p.src, start.start_byte(), end.end_byte());
    Span {
        start: s,
        end: e,
        line: start.start_position().row + 1,
        end_line: end.end_position().row + 1,
    }
}

// ---------------------------------------------------------------- Rust

fn is_cfg_test(p: &Parsed<'_>, attr: Node<'_>) -> bool {
    let t: String = p
        .text(attr)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    t.starts_with("#[cfg(") && t.contains("test") && !t.contains("not(test")
}

fn rust_items(p: &Parsed<'_>) -> Vec<InlineItem> {
    let mut out = Vec::new();
    preorder(p.root(), |n| match n.kind() {
        "mod_item" => {
            let attrs = rust_attrs(n);
            if attrs.iter().any(|a| is_cfg_test(p, *a)) {
                let mut path = rust_module_path(p, n);
                if let Some(name) = n.child_by_field_name("name") {
                    path.push(p.text(name).to_string());
                }
                out.push(InlineItem {
                    kind: InlineKind::RustTestModule,
                    key: format!("mod {}", path.join("::")),
                    span: item_span(p, attrs.first().copied().unwrap_or(n), n),
                });
                return Step::Skip;
            }
            Step::Into
        }
        "function_item" => {
            if rust_has_test_attr(p, n) {
                let attrs = rust_attrs(n);
                let mut path = rust_module_path(p, n);
                if let Some(name) = n.child_by_field_name("name") {
                    path.push(p.text(name).to_string());
                }
                out.push(InlineItem {
                    kind: InlineKind::RustTestFn,
                    key: format!("fn {}", path.join("::")),
                    span: item_span(p, attrs.first().copied().unwrap_or(n), n),
                });
                return Step::Skip;
            }
            Step::Into
        }
        "source_file" | "declaration_list" => {
            rust_doc_blocks(p, n, &mut out);
            Step::Into
        }
        _ => Step::Into,
    });
    out
}

/// Doc comment blocks among the children of a file or module body.
fn rust_doc_blocks(p: &Parsed<'_>, container: Node<'_>, out: &mut Vec<InlineItem>) {
    let children = {
        let mut c = container.walk();
        container.children(&mut c).collect::<Vec<_>>()
    };
    let mut i = 0;
    while i < children.len() {
        let c = children[i];
        let Some(inner) = doc_style(p, c) else {
            i += 1;
            continue;
        };
        let first = i;
        let mut last = i;
        let mut j = i + 1;
        while j < children.len() && doc_style(p, children[j]) == Some(inner) {
            last = j;
            j += 1;
        }
        let text: String = children[first..=last]
            .iter()
            .map(|n| p.text(*n))
            .collect::<Vec<_>>()
            .join("\n");
        if has_doc_test(&text) {
            let mut path = rust_module_path(p, c);
            if container.kind() == "declaration_list"
                && let Some(m) = container.parent()
                && m.kind() == "mod_item"
                && let Some(name) = m.child_by_field_name("name")
            {
                path.push(p.text(name).to_string());
            }
            let target = if inner {
                None
            } else {
                children[last + 1..]
                    .iter()
                    .find(|n| {
                        n.is_named()
                            && !matches!(
                                n.kind(),
                                "attribute_item" | "line_comment" | "block_comment"
                            )
                    })
                    .and_then(|n| n.child_by_field_name("name").map(|x| p.text(x).to_string()))
            };
            if !inner && target.is_none() {
                i = j;
                continue;
            }
            if let Some(t) = target {
                path.push(t);
            }
            let key = if path.is_empty() {
                "doc (crate)".to_string()
            } else {
                format!("doc {}", path.join("::"))
            };
            out.push(InlineItem {
                kind: InlineKind::RustDocTest,
                key,
                span: item_span(p, children[first], children[last]),
            });
        }
        i = j;
    }
}

/// `Some(false)` for an outer doc comment (`///`, `/** */`), `Some(true)` for an inner one.
fn doc_style(p: &Parsed<'_>, n: Node<'_>) -> Option<bool> {
    let t = p.text(n);
    match n.kind() {
        "line_comment" if t.starts_with("///") && !t.starts_with("////") => Some(false),
        "line_comment" if t.starts_with("//!") => Some(true),
        "block_comment" if t.starts_with("/**") && !t.starts_with("/***") && t != "/**/" => {
            Some(false)
        }
        "block_comment" if t.starts_with("/*!") => Some(true),
        _ => None,
    }
}

/// Whether a doc comment holds a code block rustdoc runs as a test.
fn has_doc_test(doc: &str) -> bool {
    const RUST_TOKENS: &[&str] = &[
        "rust",
        "ignore",
        "should_panic",
        "no_run",
        "compile_fail",
        "test_harness",
        "standalone_crate",
        "edition2015",
        "edition2018",
        "edition2021",
        "edition2024",
    ];
    let mut in_fence = false;
    for line in doc.lines() {
        let l = line
            .trim_start()
            .trim_start_matches("///")
            .trim_start_matches("//!")
            .trim_start_matches("/**")
            .trim_start_matches("/*!")
            .trim_start_matches('*')
            .trim();
        let fence = if let Some(rest) = l.strip_prefix("```") {
            rest
        } else if let Some(rest) = l.strip_prefix("~~~") {
            rest
        } else {
            continue;
        };
        if in_fence {
            in_fence = false;
            continue;
        }
        in_fence = true;
        let tokens: Vec<&str> = fence
            .split([',', ' ', '\t'])
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        if tokens.iter().all(|t| RUST_TOKENS.contains(t)) {
            return true;
        }
    }
    false
}

// ---------------------------------------------------------------- Python

fn python_items(p: &Parsed<'_>) -> Vec<InlineItem> {
    let mut out = Vec::new();
    if let Some(item) = python_docstring(p, p.root(), "(module)") {
        out.push(item);
    }
    preorder(p.root(), |n| {
        if matches!(n.kind(), "function_definition" | "class_definition")
            && let Some(body) = n.child_by_field_name("body")
        {
            let qual = python_qualname(p, n);
            if let Some(item) = python_docstring(p, body, &qual) {
                out.push(item);
            }
        }
        Step::Into
    });
    out
}

fn python_qualname(p: &Parsed<'_>, def: Node<'_>) -> String {
    let mut parts = Vec::new();
    let mut cur = Some(def);
    while let Some(n) = cur {
        if matches!(n.kind(), "function_definition" | "class_definition")
            && let Some(name) = n.child_by_field_name("name")
        {
            parts.push(p.text(name).to_string());
        }
        cur = n.parent();
    }
    parts.reverse();
    parts.join(".")
}

fn python_docstring(p: &Parsed<'_>, body: Node<'_>, qual: &str) -> Option<InlineItem> {
    let first = named_children(body)
        .into_iter()
        .find(|c| c.kind() != "comment")?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let inner = named_children(first);
    if inner.len() != 1 || !matches!(inner[0].kind(), "string" | "concatenated_string") {
        return None;
    }
    let text = p.text(inner[0]);
    let doctest = text.lines().any(|l| {
        let t = l.trim_start();
        t == ">>>" || t.starts_with(">>> ")
    });
    doctest.then(|| InlineItem {
        kind: InlineKind::PythonDoctest,
        key: format!("doctest {qual}"),
        span: item_span(p, first, first),
    })
}

// ---------------------------------------------------------------- JavaScript / TypeScript

fn js_items(p: &Parsed<'_>) -> Vec<InlineItem> {
    let mut out = Vec::new();
    let mut n_seen = 0;
    preorder(p.root(), |n| {
        if n.kind() == "if_statement"
            && let Some(cond) = n.child_by_field_name("condition")
        {
            let t: String = p
                .text(cond)
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            if t == "(import.meta.vitest)" {
                out.push(InlineItem {
                    kind: InlineKind::JsInSourceTest,
                    key: format!("vitest#{n_seen}"),
                    span: item_span(p, n, n),
                });
                n_seen += 1;
                return Step::Skip;
            }
        }
        Step::Into
    });
    out
}

// ---------------------------------------------------------------- restore

/// The final source with its inline test items locked to the baseline's, item by item by span:
/// an item of the same key is replaced by the baseline's text, a new item is removed, a removed
/// item is put back (a test module or function at the end of its module, a doc test before its
/// item, a doctest as the first statement of its function or class). Everything else of the
/// final source is kept byte for byte.
pub fn restore_inline_tests(
    lang: Lang,
    baseline_src: &str,
    final_src: &str,
) -> Result<String, RestoreError> {
    let bp = parse(lang, baseline_src)?;
    let fp = parse(lang, final_src)?;
    let b_items = items(&bp);
    let f_items = items(&fp);
    // (start, end, text, key) on the final source
    let mut edits: Vec<(usize, usize, String, String)> = Vec::new();
    let mut used = vec![false; b_items.len()];
    for f in &f_items {
        match b_items.iter().position(|b| b.key == f.key) {
            Some(i) => {
                used[i] = true;
                let b = &b_items[i];
                let text = reindent(
                    &baseline_src[b.span.start..b.span.end],
                    indent_at(baseline_src, b.span.start),
                    indent_at(final_src, f.span.start),
                );
                edits.push((f.span.start, f.span.end, text, f.key.clone()));
            }
            None => edits.push((f.span.start, f.span.end, String::new(), f.key.clone())),
        }
    }
    for (i, b) in b_items.iter().enumerate() {
        if used[i] {
            continue;
        }
        // a test that lost its marks (`#[test]`, `#[cfg(test)]`) is still there: replace it
        if let Some(span) = unmarked(&fp, b) {
            // edits inside the item are superseded by the item's baseline text
            edits.retain(|e| !(span.start <= e.0 && e.1 <= span.end));
            if edits.iter().any(|e| e.0 < span.end && span.start < e.1) {
                return Err(RestoreError::Overlap { key: b.key.clone() });
            }
            let text = reindent(
                &baseline_src[b.span.start..b.span.end],
                indent_at(baseline_src, b.span.start),
                indent_at(final_src, span.start),
            );
            edits.push((span.start, span.end, text, b.key.clone()));
            continue;
        }
        let (at, indent) =
            place(&fp, b).ok_or_else(|| RestoreError::NoPlace { key: b.key.clone() })?;
        let mut text = reindent(
            &baseline_src[b.span.start..b.span.end],
            indent_at(baseline_src, b.span.start),
            &indent,
        );
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if at == final_src.len() && !final_src.is_empty() {
            let sep = if final_src.ends_with("\n\n") {
                ""
            } else if final_src.ends_with('\n') {
                "\n"
            } else {
                "\n\n"
            };
            text = format!("{sep}{text}");
        }
        edits.push((at, at, text, b.key.clone()));
    }
    edits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let mut out = final_src.to_string();
    let mut limit = usize::MAX;
    for (start, end, text, key) in edits {
        if end > limit {
            return Err(RestoreError::Overlap { key });
        }
        out.replace_range(start..end, &text);
        limit = start;
    }
    if fp.errors().is_empty() {
        let rp = parse(lang, &out)?;
        let errors = rp.errors().len();
        if errors > 0 {
            return Err(RestoreError::Broken { errors });
        }
    }
    Ok(out)
}

/// The blanks that start the line holding `at`.
fn indent_at(src: &str, at: usize) -> &str {
    let line_start = src[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let rest = &src[line_start..];
    let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..n]
}

fn reindent(text: &str, from: &str, to: &str) -> String {
    if from == to {
        return text.to_string();
    }
    text.split_inclusive('\n')
        .map(|l| match l.strip_prefix(from) {
            Some(rest) => format!("{to}{rest}"),
            None => l.to_string(),
        })
        .collect()
}

/// The final source's item of the same path as a Rust test function or module the run took
/// the test mark off (`fn adds` without `#[test]`), with its attributes.
fn unmarked(fp: &Parsed<'_>, b: &InlineItem) -> Option<Span> {
    let kind = match b.kind {
        InlineKind::RustTestFn => "function_item",
        InlineKind::RustTestModule => "mod_item",
        _ => return None,
    };
    let path = b.key.split_once(' ')?.1.split('#').next()?;
    let parts: Vec<&str> = path.split("::").collect();
    let item = find_rust_item(fp, &parts, kind)?;
    let attrs = rust_attrs(item);
    let first = attrs.first().copied().unwrap_or(item);
    let (s, e) = whole_lines(&fp.src, first.start_byte(), item.end_byte());
    Some(Span {
        start: s,
        end: e,
        line: first.start_position().row + 1,
        end_line: item.end_position().row + 1,
    })
}

/// Where a baseline item missing from the final source goes: `(byte offset, indentation)`.
fn place(fp: &Parsed<'_>, b: &InlineItem) -> Option<(usize, String)> {
    let src: &str = &fp.src;
    match b.kind {
        InlineKind::JsInSourceTest => Some((src.len(), String::new())),
        InlineKind::RustTestModule | InlineKind::RustTestFn => {
            let path = b.key.split_once(' ')?.1;
            let parent: Vec<&str> = path.split("::").collect();
            let parent = &parent[..parent.len().saturating_sub(1)];
            if parent.is_empty() {
                return Some((src.len(), String::new()));
            }
            let module = find_rust_item(fp, parent, "mod_item")?;
            let body = module.child_by_field_name("body")?;
            // before the closing brace, on its own line
            let close = body.end_byte().checked_sub(1)?;
            let line_start = src[..close].rfind('\n').map(|i| i + 1)?;
            if !src[line_start..close].trim().is_empty() {
                return None;
            }
            let indent = format!("{}    ", indent_at(src, body.start_byte()));
            Some((line_start, indent))
        }
        InlineKind::RustDocTest => {
            let path = b.key.split_once(' ')?.1;
            let path = path.split('#').next()?;
            if path == "(crate)" {
                return Some((0, String::new()));
            }
            let parts: Vec<&str> = path.split("::").collect();
            let item = find_rust_item(fp, &parts, "")?;
            let attrs = rust_attrs(item);
            let first = attrs.first().copied().unwrap_or(item);
            let (start, _) = whole_lines(src, first.start_byte(), first.end_byte());
            Some((start, indent_at(src, first.start_byte()).to_string()))
        }
        InlineKind::PythonDoctest => {
            let qual = b.key.split_once(' ')?.1;
            let qual = qual.split('#').next()?;
            if qual == "(module)" {
                return Some((0, String::new()));
            }
            let def = find_python_def(fp, qual)?;
            let body = def.child_by_field_name("body")?;
            if body.start_position().row == def.start_position().row {
                return None;
            }
            let (start, _) = whole_lines(src, body.start_byte(), body.end_byte());
            Some((start, indent_at(src, body.start_byte()).to_string()))
        }
    }
}

/// A Rust item by its module path and name (`kind` empty: any item with that name).
fn find_rust_item<'t>(fp: &'t Parsed<'_>, path: &[&str], kind: &str) -> Option<Node<'t>> {
    let mut found = None;
    preorder(fp.root(), |n| {
        if found.is_some() {
            return Step::Skip;
        }
        if (kind.is_empty() || n.kind() == kind)
            && n.kind() != "source_file"
            && let Some(name) = n.child_by_field_name("name")
            && Some(&fp.text(name)) == path.last()
        {
            let mp = rust_module_path(fp, n);
            if mp.len() + 1 == path.len() && mp.iter().zip(path).all(|(a, b)| a == b) {
                found = Some(n);
                return Step::Skip;
            }
        }
        Step::Into
    });
    found
}

fn find_python_def<'t>(fp: &'t Parsed<'_>, qual: &str) -> Option<Node<'t>> {
    let mut found = None;
    preorder(fp.root(), |n| {
        if found.is_none()
            && matches!(n.kind(), "function_definition" | "class_definition")
            && python_qualname(fp, n) == qual
        {
            found = Some(n);
        }
        Step::Into
    });
    found
}
