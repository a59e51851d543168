//! Go modules: what `go list` builds, the non-test source files of the packages under each
//! go.mod (not `testdata`, `vendor`, `_*` or `.*` folders), and `replace` directives to local
//! paths (inside the repository: product; outside: a finding).

use super::{Filter, Layout, Trees, join, parent};

pub(crate) fn read(trees: &Trees<'_>, layout: &mut Layout) {
    let manifests: Vec<String> = trees
        .named("go.mod")
        .filter(|p| {
            !p.split('/').any(|d| {
                matches!(d, "vendor" | "testdata" | "node_modules")
                    || (d.starts_with(['.', '_']) && d.len() > 1)
            })
        })
        .cloned()
        .collect();
    for path in manifests {
        let dir = parent(&path).to_string();
        let mut module = String::from("?");
        for text in trees.read_both(&path) {
            for line in directives(&text) {
                let words: Vec<&str> = line.split_whitespace().collect();
                match words.as_slice() {
                    ["module", m, ..] => module = m.trim_matches('"').to_string(),
                    ["replace", rest @ ..] => replace(trees, &dir, &path, rest, layout),
                    _ => {}
                }
            }
        }
        let vendor = join(&dir, "vendor").unwrap_or_default();
        if trees.exists(&format!("{vendor}/modules.txt")) {
            layout.declaration_roots.push((
                vendor,
                format!("vendored dependencies of the Go module `{module}` (`go mod vendor`): wholly a dependency declaration"),
            ));
        }
        embeds(trees, &dir, &module, layout);
        layout.root(
            dir,
            Filter::Go,
            format!("a package of the Go module `{module}` ({path})"),
        );
    }
}

/// Files a package embeds (`//go:embed templates/*.html`): shipped in the binary, product.
fn embeds(trees: &Trees<'_>, dir: &str, module: &str, layout: &mut Layout) {
    let sources: Vec<String> = trees
        .all
        .iter()
        .filter(|p| p.ends_with(".go") && !p.ends_with("_test.go"))
        .filter(|p| super::under(p, dir).is_some())
        .cloned()
        .collect();
    for file in sources {
        for text in trees.read_both(&file) {
            if !text.contains("//go:embed") {
                continue;
            }
            for line in text.lines() {
                let Some(rest) = line.trim().strip_prefix("//go:embed") else {
                    continue;
                };
                for pattern in rest.split_whitespace() {
                    let pattern = pattern.trim_matches(['"', '`']).trim_start_matches("all:");
                    if pattern.contains("..") || pattern.starts_with('/') {
                        continue;
                    }
                    let glob = format!("{{{pattern},{pattern}/**}}");
                    if let Ok(g) = globset::GlobBuilder::new(&glob)
                        .literal_separator(true)
                        .build()
                    {
                        layout.root(
                            parent(&file).to_string(),
                            Filter::Glob(g.compile_matcher(), None),
                            format!(
                                "embedded by `//go:embed {pattern}` in {file} (module `{module}`)"
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// go.mod's directives one per line, blocks (`require ( … )`) expanded to `verb args`.
pub(crate) fn directives(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for raw in text.lines() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(verb) = &block {
            if line == ")" {
                block = None;
            } else {
                out.push(format!("{verb} {line}"));
            }
            continue;
        }
        if let Some(verb) = line.strip_suffix('(') {
            block = Some(verb.trim().to_string());
            continue;
        }
        out.push(line.to_string());
    }
    out
}

fn replace(trees: &Trees<'_>, dir: &str, manifest: &str, rest: &[&str], layout: &mut Layout) {
    let Some(arrow) = rest.iter().position(|w| *w == "=>") else {
        return;
    };
    let Some(target) = rest.get(arrow + 1) else {
        return;
    };
    let target = target.trim_matches('"');
    if !(target.starts_with("./") || target.starts_with("../") || target.starts_with('/')) {
        return;
    }
    match join(dir, target) {
        Some(p) if !target.starts_with('/') => {
            if !trees.exists(&format!("{p}/go.mod")) && trees.has_dir(&p) {
                layout.root(
                    p,
                    Filter::Go,
                    format!("the local replacement `{}` of {manifest}", rest.join(" ")),
                );
            }
        }
        _ => layout.finding(format!(
            "{manifest}: `replace {}` points at a local path outside the repository: the \
             locked run cannot take it",
            rest.join(" ")
        )),
    }
}
