//! The run's changes to a manifest's declaration keys, and only those, applied to the baseline's
//! text: what the locked tree takes of a changed `package.json`, `pyproject.toml`, `Cargo.toml`,
//! `setup.cfg`, `Pipfile` or `go.mod` (a lockfile is wholly a declaration).
//!
//! TOML is edited with toml_edit and JSON with serde_json's order-preserving map, so untouched
//! keys keep their place (and, in TOML, their formatting and comments). The declaration keys are
//! data below: dependencies, workspace members, targets, the package's own entry points;
//! entry-point groups that plug into a test runner or build tool (`pytest11`, …) and target
//! switches that change how tests run (`test`, `harness`, `doctest`) stay as at the baseline.

use std::path::Path;

use toml_edit::{DocumentMut, Item, Table, TableLike};

use super::RolesError;
use super::golang::directives;

/// Wholly declarations: the run's version is taken.
const LOCKFILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "bun.lockb",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "Pipfile.lock",
    "pylock.toml",
    "go.sum",
    "go.work.sum",
];

/// package.json's declaration keys (top level).
const PACKAGE_JSON: &[&str] = &[
    "name",
    "version",
    "type",
    "main",
    "module",
    "browser",
    "types",
    "typings",
    "exports",
    "imports",
    "bin",
    "files",
    "workspaces",
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "peerDependenciesMeta",
    "optionalDependencies",
    "bundleDependencies",
    "bundledDependencies",
    "overrides",
    "resolutions",
];

/// pyproject.toml's declaration keys (`*`: every key at that level).
const PYPROJECT: &[&str] = &[
    "build-system",
    "project.name",
    "project.version",
    "project.dynamic",
    "project.requires-python",
    "project.dependencies",
    "project.optional-dependencies",
    "project.scripts",
    "project.gui-scripts",
    "project.entry-points.*",
    "dependency-groups",
    "tool.poetry.name",
    "tool.poetry.version",
    "tool.poetry.packages",
    "tool.poetry.dependencies",
    "tool.poetry.dev-dependencies",
    "tool.poetry.group",
    "tool.poetry.extras",
    "tool.poetry.scripts",
    "tool.poetry.plugins.*",
    "tool.setuptools.packages",
    "tool.setuptools.package-dir",
    "tool.setuptools.py-modules",
    "tool.setuptools.package-data",
    "tool.setuptools.dynamic",
    "tool.hatch.build.targets.wheel.packages",
    "tool.hatch.build.targets.wheel.only-include",
    "tool.hatch.build.targets.wheel.sources",
    "tool.hatch.metadata",
    "tool.flit.module",
    "tool.pdm.dev-dependencies",
    "tool.pdm.build.package-dir",
    "tool.uv.sources",
    "tool.uv.dev-dependencies",
    "tool.uv.workspace",
    "tool.uv.build-backend",
    "tool.maturin.python-source",
    "tool.maturin.module-name",
];

/// Entry-point groups that plug into a test runner or a build tool: configuration.
const TOOL_ENTRY_POINTS: &[&str] = &[
    "pytest",
    "nose",
    "hypothesis",
    "coverage",
    "setuptools",
    "distutils",
    "egg_info",
    "flake8",
    "pylint",
    "mypy",
    "tox",
    "hatch",
    "pdm",
    "poetry",
    "sphinx",
];

/// Whether an entry-point group plugs into a runner or tool (`pytest11`, `flake8.extension`).
fn tool_group(group: &str) -> bool {
    TOOL_ENTRY_POINTS.iter().any(|t| {
        group
            .strip_prefix(t)
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphabetic()))
    })
}

/// Cargo.toml's declaration keys.
const CARGO: &[&str] = &[
    "package.name",
    "package.version",
    "package.edition",
    "package.rust-version",
    "package.build",
    "package.links",
    "package.autobins",
    "package.autoexamples",
    "package.autolib",
    "dependencies",
    "dev-dependencies",
    "build-dependencies",
    "target.*.dependencies",
    "target.*.dev-dependencies",
    "target.*.build-dependencies",
    "features",
    "workspace.members",
    "workspace.dependencies",
    "workspace.resolver",
    "lib",
    "bin",
    "example",
    "patch",
    "replace",
];

/// Target keys that switch how tests run: kept as at the baseline.
const CARGO_TARGET_TEST_KEYS: &[&str] = &["test", "doctest", "harness", "bench"];

/// Pipfile's declaration keys.
const PIPFILE: &[&str] = &["packages", "dev-packages", "requires"];

/// For a manifest or lockfile changed by the run: the baseline text with the run's changes to
/// the dependency/structural declaration keys applied, every other key left as at the baseline
/// (`None` when `path` is not a manifest this knows; a lockfile is wholly a declaration: the
/// final text). An empty side stands for a file absent there: for a manifest the run **added**
/// pass `base = ""` (the result holds its declarations only, none of its tool settings), for one
/// it **deleted** `fin = ""` (the result keeps the baseline's other keys); an empty result means
/// the file has no place in the locked tree.
pub fn merge_declarations(
    path: &Path,
    base: &str,
    fin: &str,
) -> Result<Option<String>, RolesError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let shown = path.display().to_string();
    let is_requirements = (name.starts_with("requirements") || name.starts_with("constraints"))
        && name.ends_with(".txt")
        || (name.ends_with(".txt")
            && path
                .parent()
                .and_then(Path::file_name)
                .and_then(|d| d.to_str())
                == Some("requirements"));
    // Vendored Go dependencies (the caller asks only for paths classified as declarations).
    let vendored = path.components().any(|c| c.as_os_str() == "vendor")
        && !matches!(
            name,
            "package.json" | "pyproject.toml" | "Cargo.toml" | "go.mod" | "setup.cfg" | "Pipfile"
        );
    if is_requirements {
        return Ok(Some(requirements(base, fin)));
    }
    if vendored
        || LOCKFILES.contains(&name)
        || (name.starts_with("pylock.") && name.ends_with(".toml"))
    {
        return Ok(Some(fin.to_string()));
    }
    if !matches!(
        name,
        "package.json"
            | "pyproject.toml"
            | "Pipfile"
            | "Cargo.toml"
            | "go.mod"
            | "go.work"
            | "setup.cfg"
    ) {
        return Ok(None);
    }
    if base == fin {
        return Ok(Some(base.to_string()));
    }
    // An empty side is a file that does not exist there: a manifest the run added gives only
    // its declarations, one it deleted keeps the baseline's other keys.
    let (base, fin) = match name {
        "package.json" => (
            if base.trim().is_empty() { "{}" } else { base },
            if fin.trim().is_empty() { "{}" } else { fin },
        ),
        _ => (base, fin),
    };
    let merged = match name {
        "package.json" => json(&shown, base, fin, PACKAGE_JSON)?,
        "pyproject.toml" => toml(&shown, base, fin, PYPROJECT, |_, _| {})?,
        "Pipfile" => toml(&shown, base, fin, PIPFILE, |_, _| {})?,
        "Cargo.toml" => toml(&shown, base, fin, CARGO, cargo_targets)?,
        "go.mod" | "go.work" => go_mod(base, fin),
        "setup.cfg" => setup_cfg(base, fin),
        _ => return Ok(None),
    };
    Ok(Some(merged))
}

/// Whether a manifest's text has any declaration key (`None`: not a manifest whose content
/// decides; a pyproject.toml or setup.cfg of tool settings only is configuration).
pub(crate) fn declares(name: &str, text: &str) -> Option<bool> {
    match name {
        "pyproject.toml" => {
            let Ok(doc) = text.parse::<DocumentMut>() else {
                return Some(false);
            };
            Some(PYPROJECT.iter().any(|pattern| {
                let segs: Vec<&str> = pattern.split('.').collect();
                let mut found = Vec::new();
                expand(doc.as_item(), doc.as_item(), &segs, Vec::new(), &mut found);
                !found.is_empty()
            }))
        }
        "setup.cfg" => Some(parse_ini(text).sections.iter().any(|(s, _, entries)| {
            entries
                .iter()
                .any(|(k, _)| !k.is_empty() && setup_cfg_key(s, k))
        })),
        _ => None,
    }
}

/// pip's options that say where and how to install, not what: configuration, kept as at the
/// baseline (a run must not point the room's install at another index).
const PIP_OPTIONS: &[&str] = &[
    "-i",
    "--index-url",
    "--extra-index-url",
    "--no-index",
    "-f",
    "--find-links",
    "--trusted-host",
    "--pre",
    "--prefer-binary",
    "--no-binary",
    "--only-binary",
    "--require-hashes",
    "--use-feature",
    "--config-settings",
    "--global-option",
];

/// A requirements file: the run's requirement lines, the baseline's pip options.
fn requirements(base: &str, fin: &str) -> String {
    let is_option = |line: &str| {
        let word = line.trim_start().split([' ', '=']).next().unwrap_or("");
        PIP_OPTIONS.contains(&word)
    };
    let mut out = String::new();
    for line in base.lines().filter(|l| is_option(l)) {
        out.push_str(line);
        out.push('\n');
    }
    for line in fin.lines().filter(|l| !is_option(l)) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn parse_err(path: &str, which: &'static str, e: impl std::fmt::Display) -> RolesError {
    RolesError::Parse {
        path: path.to_string(),
        which,
        message: e.to_string(),
    }
}

fn json(path: &str, base: &str, fin_text: &str, keys: &[&str]) -> Result<String, RolesError> {
    let fin = fin_text;
    let mut out: serde_json::Value =
        serde_json::from_str(base).map_err(|e| parse_err(path, "baseline", e))?;
    let fin: serde_json::Value =
        serde_json::from_str(fin).map_err(|e| parse_err(path, "final", e))?;
    let (Some(map), Some(fin)) = (out.as_object_mut(), fin.as_object()) else {
        return Err(parse_err(path, "baseline", "not a JSON object"));
    };
    for key in keys {
        match fin.get(*key) {
            Some(v) => {
                map.insert((*key).to_string(), v.clone());
            }
            None => {
                map.shift_remove(*key);
            }
        }
    }
    // The same edit made on the text itself keeps every untouched byte; the value merged above
    // checks it.
    if let Some(text) = splice_json(base, fin_text, keys)
        && serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| v == out)
    {
        return Ok(text);
    }
    let indent = detect_indent(base);
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    serde::Serialize::serialize(&out, &mut ser).map_err(|e| parse_err(path, "final", e))?;
    let mut text = String::from_utf8(buf).map_err(|e| parse_err(path, "final", e))?;
    if base.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// One member of a JSON object's text: key, and the byte spans of the member and its value.
struct Member {
    key: String,
    start: usize,
    value: (usize, usize),
}

/// The members of the top-level object of a JSON text, with the offset just after its `{` and
/// that of its `}`; `None` when it is not an object this scanner reads.
fn members(text: &str) -> Option<(usize, usize, Vec<Member>)> {
    let b = text.as_bytes();
    let ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let string_end = |i: usize| -> Option<usize> {
        // b[i] == '"'
        let mut j = i + 1;
        while j < b.len() {
            match b[j] {
                b'\\' => j += 2,
                b'"' => return Some(j + 1),
                _ => j += 1,
            }
        }
        None
    };
    let mut i = ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let open = i + 1;
    i = ws(open);
    let mut out = Vec::new();
    if b.get(i) == Some(&b'}') {
        return Some((open, i, out));
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let start = i;
        let kend = string_end(i)?;
        let key: String = serde_json::from_str(text.get(start..kend)?).ok()?;
        i = ws(kend);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let vstart = ws(i + 1);
        let mut j = vstart;
        let mut depth = 0i32;
        while j < b.len() {
            match b[j] {
                b'"' => {
                    j = string_end(j)?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => depth -= 1,
                b',' | b'}' if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        let mut vend = j;
        while vend > vstart && b[vend - 1].is_ascii_whitespace() {
            vend -= 1;
        }
        out.push(Member {
            key,
            start,
            value: (vstart, vend),
        });
        i = ws(j);
        match b.get(i) {
            Some(b',') => i = ws(i + 1),
            Some(b'}') => return Some((open, i, out)),
            _ => return None,
        }
    }
}

/// The run's changes to `keys` made on the baseline's text: changed values replaced, removed
/// members cut with their comma, new members appended after the last one.
fn splice_json(base: &str, fin: &str, keys: &[&str]) -> Option<String> {
    let (open, close, have) = members(base)?;
    let (_, _, want) = members(fin)?;
    let indent = detect_indent(base);
    // (start, end, replacement), applied from the end.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut appended = String::new();
    for key in keys {
        let h = have.iter().position(|m| m.key == *key);
        let w = want.iter().find(|m| m.key == *key);
        match (h, w) {
            (Some(i), Some(w)) => {
                let (vs, ve) = have[i].value;
                let new = fin.get(w.value.0..w.value.1)?;
                if base.get(vs..ve)? != new {
                    edits.push((vs, ve, new.to_string()));
                }
            }
            (Some(i), None) => {
                let end = have[i].value.1;
                let start = if i > 0 {
                    have[i - 1].value.1
                } else if let Some(next) = have.get(1) {
                    edits.push((have[i].start, next.start, String::new()));
                    continue;
                } else {
                    open
                };
                edits.push((start, end, String::new()));
            }
            (None, Some(w)) => {
                let value = fin.get(w.value.0..w.value.1)?;
                let key = serde_json::to_string(key).ok()?;
                appended.push_str(&format!(",\n{indent}{key}: {value}"));
            }
            (None, None) => {}
        }
    }
    if !appended.is_empty() {
        match have.last() {
            Some(last) => edits.push((last.value.1, last.value.1, appended)),
            None => {
                let body = appended.trim_start_matches(',').to_string();
                edits.push((open, close, format!("{body}\n")));
            }
        }
    }
    // Overlapping edits (a removal next to an append) fall back to the value merge.
    edits.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
    let mut text = base.to_string();
    let mut floor = usize::MAX;
    for (start, end, new) in edits {
        if end > floor {
            return None;
        }
        text.replace_range(start..end, &new);
        floor = start;
    }
    Some(text)
}

fn detect_indent(text: &str) -> String {
    text.lines()
        .skip(1)
        .find(|l| l.starts_with([' ', '\t']))
        .map(|l| l.chars().take_while(|c| *c == ' ' || *c == '\t').collect())
        .unwrap_or_else(|| "  ".to_string())
}

fn toml(
    path: &str,
    base: &str,
    fin: &str,
    keys: &[&str],
    after: fn(&mut DocumentMut, &DocumentMut),
) -> Result<String, RolesError> {
    let mut out: DocumentMut = base.parse().map_err(|e| parse_err(path, "baseline", e))?;
    let base_doc = out.clone();
    let fin: DocumentMut = fin.parse().map_err(|e| parse_err(path, "final", e))?;
    let mut next = max_position(out.as_table()) + 1;
    for pattern in keys {
        let segs: Vec<&str> = pattern.split('.').collect();
        let mut concrete = Vec::new();
        expand(
            base_doc.as_item(),
            fin.as_item(),
            &segs,
            Vec::new(),
            &mut concrete,
        );
        for p in concrete {
            if pattern.starts_with("project.entry-points")
                || pattern.starts_with("tool.poetry.plugins")
            {
                let group = p.last().map(String::as_str).unwrap_or("");
                if tool_group(group) {
                    continue;
                }
            }
            let refs: Vec<&str> = p.iter().map(String::as_str).collect();
            match get(fin.as_item(), &refs) {
                Some(v) => set(out.as_table_mut(), &refs, v, &mut next),
                None => remove(out.as_table_mut(), &refs),
            }
        }
    }
    after(&mut out, &base_doc);
    Ok(out.to_string())
}

/// Concrete key paths of a pattern with `*` segments, over both documents.
fn expand(base: &Item, fin: &Item, segs: &[&str], prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let Some((first, rest)) = segs.split_first() else {
        out.push(prefix);
        return;
    };
    let keys: Vec<String> = if *first == "*" {
        let mut k: Vec<String> = Vec::new();
        for item in [base, fin] {
            if let Some(t) = item.as_table_like() {
                for (key, _) in t.iter() {
                    if !k.iter().any(|x| x == key) {
                        k.push(key.to_string());
                    }
                }
            }
        }
        k
    } else {
        vec![(*first).to_string()]
    };
    for k in keys {
        let b = base.as_table_like().and_then(|t| t.get(&k));
        let f = fin.as_table_like().and_then(|t| t.get(&k));
        if b.is_none() && f.is_none() {
            continue;
        }
        let mut p = prefix.clone();
        p.push(k);
        let none = Item::None;
        expand(b.unwrap_or(&none), f.unwrap_or(&none), rest, p, out);
    }
}

fn get<'a>(item: &'a Item, path: &[&str]) -> Option<&'a Item> {
    let mut cur = item;
    for k in path {
        cur = cur.as_table_like()?.get(k)?;
    }
    Some(cur)
}

fn max_position(t: &Table) -> isize {
    let mut max = t.position().unwrap_or(0);
    for (_, item) in t.iter() {
        match item {
            Item::Table(sub) => max = max.max(max_position(sub)),
            Item::ArrayOfTables(a) => {
                for sub in a.iter() {
                    max = max.max(max_position(sub));
                }
            }
            _ => {}
        }
    }
    max
}

/// Gives every table of an item taken from the other document a place after the baseline's own.
fn renumber(item: &mut Item, next: &mut isize) {
    match item {
        Item::Table(t) => {
            t.set_position(*next);
            *next += 1;
            for (_, sub) in t.iter_mut() {
                renumber(sub, next);
            }
        }
        Item::ArrayOfTables(a) => {
            for t in a.iter_mut() {
                t.set_position(*next);
                *next += 1;
                for (_, sub) in t.iter_mut() {
                    renumber(sub, next);
                }
            }
        }
        _ => {}
    }
}

/// Sets `path` to the final document's item, keeping the baseline's tables (and their place)
/// where both have one.
fn set(root: &mut dyn TableLike, path: &[&str], value: &Item, next: &mut isize) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = root;
    for k in parents {
        if cur.get(k).is_none() {
            let mut t = Table::new();
            t.set_implicit(true);
            cur.insert(k, Item::Table(t));
        }
        // A plain value on the way (not a table): nothing to set inside it.
        let Some(t) = cur.get_mut(k).and_then(Item::as_table_like_mut) else {
            return;
        };
        cur = t;
    }
    match (cur.get_mut(last), value) {
        (Some(Item::Table(have)), Item::Table(want)) => sync_table(have, want, next),
        (Some(have), want) => {
            if have.to_string() != want.to_string() {
                let mut v = want.clone();
                renumber(&mut v, next);
                *have = v;
            }
        }
        (None, want) => {
            let mut v = want.clone();
            renumber(&mut v, next);
            cur.insert(last, v);
        }
    }
}

fn sync_table(have: &mut Table, want: &Table, next: &mut isize) {
    let gone: Vec<String> = have
        .iter()
        .map(|(k, _)| k.to_string())
        .filter(|k| !want.contains_key(k))
        .collect();
    for k in gone {
        have.remove(&k);
    }
    for (k, v) in want.iter() {
        set(have, &[k], v, next);
    }
}

fn remove(root: &mut dyn TableLike, path: &[&str]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = root;
    for k in parents {
        let Some(t) = cur.get_mut(k).and_then(Item::as_table_like_mut) else {
            return;
        };
        cur = t;
    }
    cur.remove(last);
}

/// Cargo targets: the test switches of `[lib]`, `[[bin]]` and `[[example]]` stay as at the
/// baseline (a new target gets none).
fn cargo_targets(out: &mut DocumentMut, base: &DocumentMut) {
    if let Some(lib) = out.get_mut("lib").and_then(Item::as_table_like_mut) {
        let base_lib = base.get("lib").and_then(Item::as_table_like);
        for k in CARGO_TARGET_TEST_KEYS {
            match base_lib.and_then(|b| b.get(k)) {
                Some(v) => {
                    lib.insert(k, v.clone());
                }
                None => {
                    lib.remove(k);
                }
            }
        }
    }
    for key in ["bin", "example"] {
        let base_targets: Vec<Table> = base
            .get(key)
            .and_then(Item::as_array_of_tables)
            .map(|a| a.iter().cloned().collect())
            .unwrap_or_default();
        let Some(targets) = out.get_mut(key).and_then(Item::as_array_of_tables_mut) else {
            continue;
        };
        for t in targets.iter_mut() {
            let name = t.get("name").and_then(Item::as_str).map(str::to_string);
            let before = base_targets
                .iter()
                .find(|b| b.get("name").and_then(Item::as_str).map(str::to_string) == name);
            for k in CARGO_TARGET_TEST_KEYS {
                match before.and_then(|b| b.get(k)) {
                    Some(v) => {
                        t.insert(k, v.clone());
                    }
                    None => {
                        t.remove(k);
                    }
                }
            }
        }
    }
}

/// go.mod: every directive is a declaration except `godebug` (runtime settings of the tests'
/// processes), which stays as at the baseline.
fn go_mod(base: &str, fin: &str) -> String {
    if fin.trim().is_empty() {
        // The run deleted the module file: nothing of it is left to keep.
        return String::new();
    }
    let is_godebug = |l: &str| l.trim_start().starts_with("godebug");
    let mut out = String::new();
    let mut in_block = false;
    for line in fin.lines() {
        if in_block {
            if line.trim() == ")" {
                in_block = false;
            }
            continue;
        }
        if is_godebug(line) {
            in_block = line.trim_end().ends_with('(');
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    let kept: Vec<String> = directives(base)
        .into_iter()
        .filter(|d| is_godebug(d))
        .collect();
    for d in kept {
        out.push_str(&d);
        out.push('\n');
    }
    if !fin.ends_with('\n') && out.ends_with('\n') && base.is_empty() {
        out.pop();
    }
    out
}

/// setup.cfg's declaration keys: `[metadata] name/version`, `[options]` packaging and
/// requirement keys, `[options.*]` requirement, package and entry-point sections (tool entry
/// points excepted).
fn setup_cfg_key(section: &str, key: &str) -> bool {
    let key = key.replace('-', "_");
    match section {
        "metadata" => matches!(key.as_str(), "name" | "version"),
        "options" => matches!(
            key.as_str(),
            "install_requires"
                | "setup_requires"
                | "python_requires"
                | "packages"
                | "package_dir"
                | "py_modules"
                | "include_package_data"
                | "zip_safe"
        ),
        "options.extras_require" | "options.packages.find" | "options.package_data" => true,
        "options.entry_points" => !tool_group(&key),
        _ => false,
    }
}

/// One key of an INI section with its raw lines (continuations and comments after it).
type Entry = (String, Vec<String>);
/// A section: its name, its header line (empty for the preamble) and its entries.
type Section = (String, String, Vec<Entry>);

/// An INI file as sections of entries.
struct Ini {
    sections: Vec<Section>,
}

fn parse_ini(text: &str) -> Ini {
    let mut sections: Vec<Section> = vec![(String::new(), String::new(), Vec::new())];
    for line in text.lines() {
        let trimmed = line.trim();
        let sec = sections.len() - 1;
        if let Some(name) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']'))
            && !line.starts_with([' ', '\t'])
        {
            sections.push((name.trim().to_string(), line.to_string(), Vec::new()));
            continue;
        }
        let entries = &mut sections[sec].2;
        let continuation = line.starts_with([' ', '\t']) && !trimmed.is_empty();
        if continuation || trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            match entries.last_mut() {
                Some(e) => e.1.push(line.to_string()),
                None => entries.push((String::new(), vec![line.to_string()])),
            }
            continue;
        }
        let key = trimmed
            .split_once(['=', ':'])
            .map_or(trimmed, |(k, _)| k)
            .trim()
            .to_string();
        entries.push((key, vec![line.to_string()]));
    }
    Ini { sections }
}

fn setup_cfg(base: &str, fin: &str) -> String {
    let mut out = parse_ini(base);
    let fin = parse_ini(fin);
    let find = |ini: &Ini, s: &str, k: &str| -> Option<Vec<String>> {
        ini.sections
            .iter()
            .find(|(n, _, _)| n == s)
            .and_then(|(_, _, e)| e.iter().find(|(key, _)| key == k))
            .map(|(_, l)| l.clone())
    };
    // Changed or removed keys of the baseline.
    for (name, _, entries) in out.sections.iter_mut() {
        let name = name.clone();
        entries.retain_mut(|(key, lines)| {
            if key.is_empty() || !setup_cfg_key(&name, key) {
                return true;
            }
            match find(&fin, &name, key) {
                Some(l) => {
                    *lines = l;
                    true
                }
                None => false,
            }
        });
    }
    // New keys (and sections) of the run.
    for (name, header, entries) in &fin.sections {
        for (key, lines) in entries {
            if key.is_empty() || !setup_cfg_key(name, key) || find(&out, name, key).is_some() {
                continue;
            }
            match out.sections.iter_mut().find(|(n, _, _)| n == name) {
                Some((_, _, e)) => e.push((key.clone(), lines.clone())),
                None => out.sections.push((
                    name.clone(),
                    header.clone(),
                    vec![(key.clone(), lines.clone())],
                )),
            }
        }
    }
    let mut text = String::new();
    for (_, header, entries) in &out.sections {
        if !header.is_empty() {
            text.push_str(header);
            text.push('\n');
        }
        for (_, lines) in entries {
            for l in lines {
                text.push_str(l);
                text.push('\n');
            }
        }
    }
    text
}
