//! Rust packaging: what a crate ships (`cargo package --list`): `src/**`, the `[lib]`, `[[bin]]`
//! and `[[example]]` paths, the build script, examples; every crate of the tree is read, so
//! workspace members and path dependencies inside the repository are covered by their own
//! manifests. A path dependency outside the repository, or a dependency of a crate on itself
//! (features turned on only for its tests), is a finding.

use std::sync::LazyLock;

use regex::Regex;
use toml::{Table, Value};

use super::{Filter, Layout, Trees, join, parent};

pub(crate) fn read(trees: &Trees<'_>, layout: &mut Layout) {
    let manifests: Vec<String> = trees
        .named("Cargo.toml")
        .filter(|p| !ignored(p))
        .cloned()
        .collect();
    for path in manifests {
        let dir = parent(&path).to_string();
        for text in trees.read_both(&path) {
            let Ok(doc) = text.parse::<Table>() else {
                continue;
            };
            crate_layout(trees, &dir, &path, &doc, layout);
            dependencies(&dir, &path, &doc, layout);
        }
        // Test and bench targets are the tests' own wherever their path points (read at the
        // baseline: how tests are built is configuration).
        if let Some(doc) = trees.read_base(&path).and_then(|t| t.parse::<Table>().ok()) {
            for key in ["test", "bench"] {
                let Some(Value::Array(targets)) = doc.get(key) else {
                    continue;
                };
                for t in targets.iter().filter_map(Value::as_table) {
                    if let Some(p) = t
                        .get("path")
                        .and_then(Value::as_str)
                        .and_then(|p| join(&dir, p))
                    {
                        layout.runner_loaded.insert(
                            p,
                            format!("the `[[{key}]]` target of the baseline's {path}"),
                        );
                    }
                }
            }
        }
    }
    test_modules(trees, layout);
}

static CFG_TEST_MOD: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"#\[cfg\(test\)\]\s*(?:#\[path\s*=\s*"([^"]+)"\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;"#,
    )
    .ok()
});

/// Out-of-line test modules (`#[cfg(test)] mod helpers;` in a crate's source, read at the
/// baseline): their files are compiled only for the tests, so they are the tests' own.
fn test_modules(trees: &Trees<'_>, layout: &mut Layout) {
    let Some(re) = CFG_TEST_MOD.as_ref() else {
        return;
    };
    let sources: Vec<String> = trees
        .all
        .iter()
        .filter(|p| p.ends_with(".rs") && trees.in_base(p) && !ignored(p))
        .filter(|p| p.split('/').any(|d| d == "src"))
        // Only a file that can declare a module file that exists: a crate or `mod.rs` root
        // (its modules sit beside it) or `x.rs` with a folder `x/` (each read is a blob read).
        .filter(|p| {
            let stem = p.trim_end_matches(".rs");
            matches!(p.rsplit('/').next(), Some("lib.rs" | "main.rs" | "mod.rs"))
                || trees.has_dir(stem)
        })
        .cloned()
        .collect();
    for file in sources {
        let Some(text) = trees.read_base(&file) else {
            continue;
        };
        if !text.contains("cfg(test)") {
            continue;
        }
        let dir = parent(&file);
        let stem = file
            .rsplit('/')
            .next()
            .unwrap_or(&file)
            .trim_end_matches(".rs");
        // `mod x;` in `lib.rs`, `main.rs` or `mod.rs` is beside it; elsewhere in a folder named
        // after the file.
        let base = if matches!(stem, "lib" | "main" | "mod") {
            dir.to_string()
        } else {
            join(dir, stem).unwrap_or_default()
        };
        for c in re.captures_iter(&text) {
            let candidates: Vec<String> = match c.get(1) {
                Some(p) => join(dir, p.as_str()).into_iter().collect(),
                None => {
                    let name = &c[2];
                    [format!("{name}.rs"), format!("{name}/mod.rs")]
                        .iter()
                        .filter_map(|f| join(&base, f))
                        .collect()
                }
            };
            for cand in candidates {
                layout.runner_loaded.insert(
                    cand,
                    format!(
                        "a test-only module (`#[cfg(test)] mod {};` in the baseline's {file})",
                        &c[2]
                    ),
                );
            }
            // Its own submodules too.
            let name = &c[2];
            if let Some(folder) = join(&base, name) {
                layout.test_dirs.push((
                    folder,
                    format!("inside the test-only module `{name}` of the baseline's {file}"),
                ));
            }
        }
    }
}

/// Manifests inside tests, fixtures, dot folders or `target/` are not the project's crates.
fn ignored(path: &str) -> bool {
    path.split('/').any(|d| {
        matches!(
            d,
            "tests" | "testdata" | "fixtures" | "target" | "vendor" | "node_modules"
        ) || (d.starts_with('.') && d.len() > 1)
    })
}

fn crate_layout(trees: &Trees<'_>, dir: &str, manifest: &str, doc: &Table, layout: &mut Layout) {
    let Some(package) = doc.get("package").and_then(Value::as_table) else {
        return;
    };
    let name = package.get("name").and_then(Value::as_str).unwrap_or("?");
    // `cargo package --list`: every file of the crate's folder, narrowed by `include` or
    // `exclude`; tests, benches and configuration are taken out by the name rules first.
    let include = package_globs(package.get("include"));
    let exclude = package_globs(package.get("exclude"));
    let narrowed = if include.is_some() {
        " (`package.include`)"
    } else if exclude.is_some() {
        " (less `package.exclude`)"
    } else {
        ""
    };
    let src = join(dir, "src").unwrap_or_default();
    layout.root(
        src,
        Filter::Any,
        format!("`src/` of the crate `{name}` ({manifest})"),
    );
    layout.broad_root(
        dir.to_string(),
        Filter::Package { include, exclude },
        format!("shipped by the crate `{name}`: `cargo package --list`{narrowed} ({manifest})"),
    );
    match package.get("build") {
        Some(Value::String(b)) => {
            if let Some(p) = join(dir, b) {
                layout.file(
                    p,
                    format!("the build script of the crate `{name}` ({manifest})"),
                );
            }
        }
        Some(Value::Boolean(false)) => {}
        _ => {
            if let Some(p) = join(dir, "build.rs") {
                layout.file(
                    p,
                    format!("the build script of the crate `{name}` ({manifest})"),
                );
            }
        }
    }
    let examples = join(dir, "examples").unwrap_or_default();
    if trees.has_dir(&examples) {
        layout.root(
            examples,
            Filter::Exts(&["rs"]),
            format!(
                "examples of the crate `{name}`: shipped and built by `cargo test` ({manifest})"
            ),
        );
    }
    let mut targets: Vec<(&str, &Table)> = Vec::new();
    if let Some(lib) = doc.get("lib").and_then(Value::as_table) {
        targets.push(("[lib]", lib));
    }
    for key in ["bin", "example"] {
        if let Some(Value::Array(items)) = doc.get(key) {
            for t in items.iter().filter_map(Value::as_table) {
                targets.push((
                    if key == "bin" {
                        "[[bin]]"
                    } else {
                        "[[example]]"
                    },
                    t,
                ));
            }
        }
    }
    for (what, t) in targets {
        let Some(p) = t
            .get("path")
            .and_then(Value::as_str)
            .and_then(|p| join(dir, p))
        else {
            continue;
        };
        // The target's own folder holds its modules (`mod x;` next to the root file).
        let folder = parent(&p).to_string();
        if !folder.is_empty() && folder != dir {
            layout.root(
                folder,
                Filter::Exts(&["rs"]),
                format!("the modules beside `{what} path` of the crate `{name}` ({manifest})"),
            );
        }
        layout.file(
            p,
            format!("`{what} path` of the crate `{name}` ({manifest})"),
        );
    }
}

/// Cargo's `include`/`exclude` patterns (gitignore-like) as one glob set over paths relative to
/// the crate: a pattern without `/` matches at any depth, a folder pattern its contents.
fn package_globs(v: Option<&Value>) -> Option<globset::GlobSet> {
    let patterns: Vec<&str> = v?.as_array()?.iter().filter_map(Value::as_str).collect();
    if patterns.is_empty() {
        return None;
    }
    let mut set = globset::GlobSetBuilder::new();
    for p in patterns {
        let anchored = p.starts_with('/') || p.trim_end_matches('/').contains('/');
        let p = p.trim_start_matches('/').trim_end_matches('/');
        let base = if anchored {
            p.to_string()
        } else {
            format!("**/{p}")
        };
        for g in [base.clone(), format!("{base}/**")] {
            if let Ok(glob) = globset::GlobBuilder::new(&g)
                .literal_separator(true)
                .build()
            {
                set.add(glob);
            }
        }
    }
    set.build().ok()
}

/// Path dependencies: inside the repository their crate is read by its own manifest; outside,
/// or the crate itself, a finding.
fn dependencies(dir: &str, manifest: &str, doc: &Table, layout: &mut Layout) {
    let mut tables: Vec<(String, &Table)> = Vec::new();
    for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(t) = doc.get(key).and_then(Value::as_table) {
            tables.push((key.to_string(), t));
        }
    }
    if let Some(target) = doc.get("target").and_then(Value::as_table) {
        for (cfg, t) in target {
            for key in ["dependencies", "dev-dependencies", "build-dependencies"] {
                if let Some(d) = t.get(key).and_then(Value::as_table) {
                    tables.push((format!("target.{cfg}.{key}"), d));
                }
            }
        }
    }
    if let Some(d) = doc
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(Value::as_table)
    {
        tables.push(("workspace.dependencies".into(), d));
    }
    if let Some(patch) = doc.get("patch").and_then(Value::as_table) {
        for (source, t) in patch {
            if let Some(t) = t.as_table() {
                tables.push((format!("patch.{source}"), t));
            }
        }
    }
    for (key, deps) in tables {
        for (dep, spec) in deps {
            let Some(path) = spec.get("path").and_then(Value::as_str) else {
                continue;
            };
            match join(dir, path) {
                Some(p) if !path.starts_with('/') => {
                    if p == dir && key.contains("dev-dependencies") {
                        layout.finding(format!(
                            "{manifest}: `{key}.{dep}` is the crate itself: features turned on \
                             only for its tests are not what its users build"
                        ));
                    } else if p != dir && ignored(&format!("{p}/Cargo.toml")) {
                        // A crate the readers above skip (under `vendor/`, say): its folder.
                        layout.root(
                            p,
                            Filter::Any,
                            format!("the path dependency `{dep}` of {manifest} (`{key}`)"),
                        );
                    }
                }
                _ => layout.finding(format!(
                    "{manifest}: `{key}.{dep}` is a local path outside the repository \
                     (`{path}`): the locked run cannot take it"
                )),
            }
        }
    }
}
