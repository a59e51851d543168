//! JavaScript and TypeScript packaging: what `npm pack` ships as package.json lists it (`files`,
//! `main`, `module`, `browser`, `types`, `bin`, `exports`), the sources tsconfig.json builds from
//! (`include`, `files`, `rootDir`), local path dependencies; and the test patterns and loaded
//! files of the baseline's jest, vitest and mocha configuration.

use serde_json::Value;

use super::{Filter, Lang, Layout, Trees, join, parent};

/// Extensions of JavaScript and TypeScript sources.
pub(crate) const JS_EXTS: &[&str] = &[
    "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "json", "node", "wasm",
];
const TS_EXTS: &[&str] = &["ts", "mts", "cts", "tsx", "js", "mjs", "cjs", "jsx", "json"];

pub(crate) fn read(trees: &Trees<'_>, layout: &mut Layout) {
    let manifests: Vec<String> = trees
        .named("package.json")
        .filter(|p| !ignored(p))
        .cloned()
        .collect();
    for path in &manifests {
        let dir = parent(path).to_string();
        for text in trees.read_both(path) {
            let Ok(Value::Object(pkg)) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            package(trees, &dir, path, &pkg, layout);
        }
        if let Some(text) = trees.read_base(path)
            && let Ok(Value::Object(pkg)) = serde_json::from_str::<Value>(&text)
        {
            if let Some(Value::Object(jest)) = pkg.get("jest") {
                jest_config(&dir, path, &Value::Object(jest.clone()), layout);
            }
            if let Some(mocha) = pkg.get("mocha") {
                mocha_config(&dir, path, mocha, layout);
            }
            if let Some(Value::Object(scripts)) = pkg.get("scripts") {
                for (name, cmd) in scripts {
                    if let Some(cmd) = cmd.as_str()
                        && (name.contains("test") || name == "check")
                    {
                        preloads(&dir, path, &format!("scripts.{name}"), cmd, layout);
                    }
                }
            }
        }
    }
    for path in trees.all.iter().filter(|p| !ignored(p)) {
        let file = path.rsplit('/').next().unwrap_or(path);
        if (file == "tsconfig.json" || file == "jsconfig.json")
            && let Some(text) = trees.read(path)
            && let Ok(Value::Object(cfg)) = serde_json::from_str::<Value>(&strip_jsonc(&text))
        {
            tsconfig(trees, parent(path), path, &Value::Object(cfg), layout);
        }
        if !trees.in_base(path) {
            continue;
        }
        let dir = parent(path);
        if file.starts_with("jest.config.") {
            if let Some(text) = trees.read_base(path) {
                let cfg = script_config(&text);
                jest_config(dir, path, &cfg, layout);
            }
        } else if file.starts_with("vitest.config.") || file.starts_with("vite.config.") {
            if let Some(text) = trees.read_base(path) {
                vitest_config(dir, path, &script_config(&text), layout);
            }
        } else if file == ".npmrc" {
            if let Some(text) = trees.read_base(path) {
                for line in text.lines() {
                    if let Some((k, v)) = line.split_once('=')
                        && k.trim() == "node-options"
                    {
                        preloads(dir, path, "node-options", v, layout);
                    }
                }
            }
        } else if file.starts_with(".mocharc")
            && let Some(text) = trees.read_base(path)
        {
            let cfg = match serde_json::from_str::<Value>(&strip_jsonc(&text)) {
                Ok(v) => v,
                Err(_) => script_config(&text),
            };
            mocha_config(dir, path, &cfg, layout);
        }
    }
}

fn ignored(path: &str) -> bool {
    path.split('/').any(|d| {
        matches!(
            d,
            "node_modules" | "tests" | "test" | "__tests__" | "fixtures" | "testdata"
        ) || (d.starts_with('.') && d.len() > 1)
    })
}

fn package(
    trees: &Trees<'_>,
    dir: &str,
    manifest: &str,
    pkg: &serde_json::Map<String, Value>,
    layout: &mut Layout,
) {
    let files = pkg.get("files").and_then(Value::as_array);
    if files.is_none() {
        // No `files`: `npm pack` ships every file of the package's folder; its JavaScript and
        // TypeScript sources and JSON data are the product (configuration by name is taken out
        // first by the tables, tests by the runners' patterns).
        layout.broad_root(
            dir.to_string(),
            Filter::Exts(JS_EXTS),
            format!("shipped by `npm pack` of {manifest} (no `files`: every file of its folder)"),
        );
    }
    if let Some(files) = files {
        layout.listed.insert(Lang::Js);
        for f in files.iter().filter_map(Value::as_str) {
            let f = f.trim().trim_start_matches("./").trim_end_matches('/');
            if f.is_empty() || f.starts_with('!') || f.contains("..") {
                continue;
            }
            let glob = format!("{{{f},{f}/**}}");
            if let Ok(g) = globset::GlobBuilder::new(&glob)
                .literal_separator(true)
                .build()
            {
                layout.root(
                    dir.to_string(),
                    Filter::Glob(g.compile_matcher(), None),
                    format!("listed by `files` of {manifest} (`{f}`)"),
                );
            }
        }
    }
    let mut entries: Vec<(String, String)> = Vec::new();
    for key in ["main", "module", "browser", "types", "typings"] {
        if let Some(Value::String(s)) = pkg.get(key) {
            entries.push((key.to_string(), s.clone()));
        }
    }
    match pkg.get("bin") {
        Some(Value::String(s)) => entries.push(("bin".into(), s.clone())),
        Some(Value::Object(m)) => {
            for (k, v) in m {
                if let Some(s) = v.as_str() {
                    entries.push((format!("bin.{k}"), s.to_string()));
                }
            }
        }
        _ => {}
    }
    if let Some(exports) = pkg.get("exports") {
        let mut found = Vec::new();
        strings_in(exports, &mut found);
        for s in found {
            entries.push(("exports".into(), s));
        }
    }
    for (key, target) in entries {
        if target.contains('*') {
            let rel = target.trim_start_matches("./");
            if let Ok(g) = globset::GlobBuilder::new(rel)
                .literal_separator(false)
                .build()
            {
                layout.root(
                    dir.to_string(),
                    Filter::Glob(g.compile_matcher(), None),
                    format!("`{key}` of {manifest}"),
                );
            }
            continue;
        }
        let Some(p) = join(dir, &target) else {
            continue;
        };
        for cand in super::imports::js_candidates(&p) {
            if trees.exists(&cand) {
                layout.file(cand, format!("the entry point `{key}` of {manifest}"));
                break;
            }
        }
    }
    for key in [
        "dependencies",
        "devDependencies",
        "optionalDependencies",
        "peerDependencies",
    ] {
        let Some(Value::Object(deps)) = pkg.get(key) else {
            continue;
        };
        for (name, spec) in deps {
            let Some(spec) = spec.as_str() else { continue };
            let Some(path) = spec
                .strip_prefix("file:")
                .or_else(|| spec.strip_prefix("link:"))
                .or_else(|| spec.strip_prefix("portal:"))
            else {
                continue;
            };
            match join(dir, path) {
                Some(p) if !path.starts_with('/') => {
                    if !trees.exists(&format!("{p}/package.json")) && !p.is_empty() {
                        layout.root(
                            p,
                            Filter::Exts(JS_EXTS),
                            format!("the local path dependency `{name}` of {manifest}"),
                        );
                    }
                }
                _ => layout.finding(format!(
                    "{manifest}: `{key}.{name}` is a local path outside the repository \
                     (`{spec}`): the locked run cannot take it"
                )),
            }
        }
    }
}

fn strings_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings_in(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings_in(x, out)),
        _ => {}
    }
}

fn tsconfig(trees: &Trees<'_>, dir: &str, file: &str, cfg: &Value, layout: &mut Layout) {
    let mut any = false;
    if let Some(root) = cfg
        .pointer("/compilerOptions/rootDir")
        .and_then(Value::as_str)
        .and_then(|r| join(dir, r))
        // Only a folder inside the config's own (`"rootDir": ".."` widens the output layout,
        // it does not add sources).
        && super::under(&root, dir).is_some_and(|rel| !rel.is_empty())
    {
        any = true;
        layout.root(
            root,
            Filter::Exts(TS_EXTS),
            format!("under `compilerOptions.rootDir` of {file}"),
        );
    }
    if let Some(Value::Array(files)) = cfg.get("files") {
        for f in files.iter().filter_map(Value::as_str) {
            if let Some(p) = join(dir, f) {
                any = true;
                layout.file(p, format!("listed by `files` of {file}"));
            }
        }
    }
    if let Some(Value::Array(include)) = cfg.get("include") {
        for inc in include.iter().filter_map(Value::as_str) {
            let inc = inc.trim_start_matches("./").trim_end_matches('/');
            let Some(rel) = join("", inc) else { continue };
            let glob = if rel.contains('*') || rel.contains('.') {
                rel.clone()
            } else {
                format!("{rel}/**")
            };
            if let Ok(g) = globset::GlobBuilder::new(&glob)
                .literal_separator(true)
                .build()
            {
                any = true;
                layout.root(
                    dir.to_string(),
                    Filter::Glob(g.compile_matcher(), Some(TS_EXTS)),
                    format!("matches `include` of {file} (`{inc}`)"),
                );
            }
        }
    }
    // No include, no files: the compiler takes every source under the config's folder (its
    // TypeScript, and its JavaScript with `allowJs`).
    if !any && trees.has_dir(dir) {
        let allow_js = cfg
            .pointer("/compilerOptions/allowJs")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let exts: &'static [&'static str] = if allow_js {
            &["ts", "mts", "cts", "tsx", "js", "mjs", "cjs", "jsx"]
        } else {
            &["ts", "mts", "cts", "tsx"]
        };
        layout.broad_root(
            dir.to_string(),
            Filter::Exts(exts),
            format!("TypeScript sources of {file} (no `include`: all of its folder)"),
        );
    }
}

fn jest_config(dir: &str, file: &str, cfg: &Value, layout: &mut Layout) {
    let strings = |key: &str| -> Vec<String> {
        let mut out = Vec::new();
        if let Some(v) = cfg.get(key) {
            strings_in(v, &mut out);
        }
        out
    };
    for m in strings("testMatch") {
        let m = m.replace("<rootDir>/", "");
        if let Some(re) = extglob_regex(&m) {
            layout.test_regexes.push((
                dir.to_string(),
                re,
                format!("matches jest `testMatch` `{m}` of the baseline's {file}"),
                false,
            ));
        }
    }
    for r in strings("testRegex") {
        layout.test_regexes.push((
            dir.to_string(),
            format!("(?:{})", r.replace("\\/", "/")),
            format!("matches jest `testRegex` `{r}` of the baseline's {file}"),
            true,
        ));
    }
    for key in [
        "setupFiles",
        "setupFilesAfterEach",
        "setupFilesAfterEnv",
        "globalSetup",
        "globalTeardown",
        "testEnvironment",
        "testSequencer",
        "snapshotResolver",
        "resolver",
        "moduleNameMapper",
        "transform",
        "reporters",
        "testResultsProcessor",
        "testRunner",
        "runner",
        "watchPlugins",
        "snapshotSerializers",
    ] {
        for s in strings(key) {
            loaded(dir, file, &format!("jest `{key}`"), &s, layout);
        }
    }
}

fn vitest_config(dir: &str, file: &str, cfg: &Value, layout: &mut Layout) {
    let test = cfg.get("test").unwrap_or(cfg);
    let mut include = Vec::new();
    if let Some(v) = test.get("include") {
        strings_in(v, &mut include);
    }
    for m in include {
        if let Some(re) = extglob_regex(m.trim_start_matches("./")) {
            layout.test_regexes.push((
                dir.to_string(),
                re,
                format!("matches vitest `include` `{m}` of the baseline's {file}"),
                false,
            ));
        }
    }
    for key in [
        "setupFiles",
        "globalSetup",
        "environment",
        "alias",
        "reporters",
    ] {
        let mut out = Vec::new();
        if let Some(v) = test.get(key).or_else(|| cfg.get(key)) {
            strings_in(v, &mut out);
        }
        for s in out {
            loaded(dir, file, &format!("vitest `{key}`"), &s, layout);
        }
    }
}

fn mocha_config(dir: &str, file: &str, cfg: &Value, layout: &mut Layout) {
    let mut spec = Vec::new();
    if let Some(v) = cfg.get("spec") {
        strings_in(v, &mut spec);
    }
    for m in spec {
        let m = m.trim_start_matches("./").to_string();
        let m = if m.contains('*') || m.contains('.') {
            m
        } else {
            format!("{m}/**")
        };
        if let Some(re) = extglob_regex(&m) {
            layout.test_regexes.push((
                dir.to_string(),
                re,
                format!("matches mocha `spec` `{m}` of the baseline's {file}"),
                false,
            ));
        }
    }
    for key in ["require", "file", "ignore"] {
        let mut out = Vec::new();
        if let Some(v) = cfg.get(key) {
            strings_in(v, &mut out);
        }
        for s in out {
            loaded(dir, file, &format!("mocha `{key}`"), &s, layout);
        }
    }
}

/// Modules a test command preloads (`--require x`, `-r x`, `--import x`, `--loader x`).
fn preloads(dir: &str, file: &str, key: &str, cmd: &str, layout: &mut Layout) {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        let (flag, inline) = match w.split_once('=') {
            Some((f, v)) => (f, Some(v)),
            None => (*w, None),
        };
        if !matches!(
            flag,
            "--require"
                | "-r"
                | "--import"
                | "--loader"
                | "--experimental-loader"
                | "--setup-files"
        ) {
            continue;
        }
        if let Some(target) = inline.or_else(|| words.get(i + 1).copied()) {
            loaded(
                dir,
                file,
                &format!("`{flag}` in {key}"),
                target.trim_matches(['"', '\'']),
                layout,
            );
        }
    }
}

/// A file a runner configuration loads around the tests: a test support file.
fn loaded(dir: &str, file: &str, key: &str, target: &str, layout: &mut Layout) {
    let t = target.replace("<rootDir>/", "");
    if !(t.starts_with("./") || t.starts_with("../") || t.contains('/')) || t.contains('*') {
        return;
    }
    let Some(p) = join(dir, &t) else { return };
    for cand in super::imports::js_candidates(&p) {
        layout.runner_loaded.insert(
            cand,
            format!("loaded around the tests by {key} of the baseline's {file}"),
        );
    }
}

/// Strips `//` and `/* */` comments and trailing commas from JSON with comments (tsconfig).
pub(crate) fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut in_str = false;
    while i < chars.len() {
        let c = chars[i];
        if in_str {
            out.push(c);
            if c == '\\' && i + 1 < chars.len() {
                out.push(chars[i + 1]);
                i += 1;
            } else if c == '"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        match (c, chars.get(i + 1)) {
            ('"', _) => {
                in_str = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            ('/', Some('*')) => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            (',', _) => {
                let next = chars[i + 1..].iter().find(|c| !c.is_whitespace());
                if !matches!(next, Some(']' | '}')) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

static CONFIG_KEY: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r#"(?m)["']?([A-Za-z_$][\w$]*)["']?\s*:\s*(\[[^\]]*\]|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`|/(?:[^/\\\n]|\\.)+/[a-z]*)"#,
    )
    .ok()
});

/// The string-valued and string-array-valued keys of a JavaScript configuration module, read
/// without running it (`key: "x"`, `key: ["a", "b"]`, `key: /re/`), as a flat JSON object; the
/// keys of a `test: {…}` block are also kept under `test`.
pub(crate) fn script_config(text: &str) -> Value {
    let mut map = serde_json::Map::new();
    let Some(re) = CONFIG_KEY.as_ref() else {
        return Value::Object(map);
    };
    for cap in re.captures_iter(text) {
        let key = cap[1].to_string();
        let raw = &cap[2];
        let value = if raw.starts_with('[') {
            Value::Array(js_strings(raw).into_iter().map(Value::String).collect())
        } else if let Some(body) = raw.strip_prefix('/') {
            let end = body.rfind('/').unwrap_or(body.len());
            Value::String(body[..end].to_string())
        } else {
            js_strings(raw)
                .into_iter()
                .next()
                .map(Value::String)
                .unwrap_or(Value::Null)
        };
        map.entry(key).or_insert(value);
    }
    let flat = Value::Object(map.clone());
    map.insert("test".into(), flat);
    Value::Object(map)
}

fn js_strings(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = src.chars();
    while let Some(c) = chars.next() {
        if matches!(c, '"' | '\'' | '`') {
            let mut s = String::new();
            while let Some(d) = chars.next() {
                if d == '\\' {
                    if let Some(e) = chars.next() {
                        s.push(e);
                    }
                    continue;
                }
                if d == c {
                    break;
                }
                s.push(d);
            }
            out.push(s);
        }
    }
    out
}

/// A micromatch glob (jest `testMatch`, vitest `include`: `**`, `*`, `?`, `{a,b}`, `[…]`, and the
/// extglobs `?(…)`, `+(…)`, `*(…)`, `@(…)`) as an anchored regex over a relative path.
pub(crate) fn extglob_regex(glob: &str) -> Option<String> {
    let chars: Vec<char> = glob.chars().collect();
    let mut out = String::from("^");
    // Each open group: ')' suffix to emit at its close, and whether it is a brace group.
    let mut stack: Vec<(String, bool)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '?' | '+' | '*' | '@' | '!' if next == Some('(') => {
                let suffix = match c {
                    '?' => ")?",
                    '+' => ")+",
                    '*' => ")*",
                    _ => ")",
                };
                if c == '!' {
                    return None;
                }
                out.push_str("(?:");
                stack.push((suffix.to_string(), false));
                i += 2;
                continue;
            }
            '*' if next == Some('*') => {
                if chars.get(i + 2) == Some(&'/') {
                    out.push_str("(?:[^/]*/)*");
                    i += 3;
                } else {
                    out.push_str(".*");
                    i += 2;
                }
                continue;
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '{' => {
                out.push_str("(?:");
                stack.push((")".into(), true));
            }
            '(' => {
                out.push_str("(?:");
                stack.push((")".into(), false));
            }
            ')' | '}' => {
                let (suffix, _) = stack.pop()?;
                out.push_str(&suffix);
            }
            ',' if stack.last().is_some_and(|(_, brace)| *brace) => out.push('|'),
            '|' if !stack.is_empty() => out.push('|'),
            '[' => {
                let end = chars[i..].iter().position(|&x| x == ']')? + i;
                let class: String = chars[i + 1..end].iter().collect();
                let class = class.replacen('!', "^", usize::from(class.starts_with('!')));
                out.push('[');
                out.push_str(&class.replace('\\', "\\\\"));
                out.push(']');
                i = end + 1;
                continue;
            }
            c => out.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    if !stack.is_empty() {
        return None;
    }
    out.push('$');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(glob: &str, path: &str) -> bool {
        let re = extglob_regex(glob).unwrap_or_default();
        regex::Regex::new(&re).is_ok_and(|r| r.is_match(path))
    }

    #[test]
    fn jest_default_test_match_reads_as_jest_means_it() {
        let g = "**/?(*.)+(spec|test).[jt]s?(x)";
        assert!(matches(g, "src/calc.test.js"));
        assert!(matches(g, "calc.spec.tsx"));
        assert!(matches(g, "test.js"));
        assert!(!matches(g, "src/calc.js"));
        assert!(!matches(g, "src/contest.js"));
        let g = "**/__tests__/**/*.[jt]s?(x)";
        assert!(matches(g, "src/__tests__/a/b.ts"));
        assert!(!matches(g, "src/tests/b.ts"));
        assert!(matches("**/*.{test,spec}.?(c|m)[jt]s?(x)", "a/b.test.mts"));
        assert!(matches("checks/**/*.js", "checks/a.js"));
        assert!(!matches("checks/**/*.js", "src/a.js"));
    }

    #[test]
    fn jsonc_comments_and_trailing_commas_are_stripped() {
        let text = "{\n // c\n \"a\": [\"x//y\", /* z */ \"w\",],\n}";
        let v: Value = serde_json::from_str(&strip_jsonc(text)).unwrap_or(Value::Null);
        assert_eq!(v["a"][0], "x//y");
        assert_eq!(v["a"][1], "w");
    }

    #[test]
    fn script_config_reads_string_keys_of_a_config_module() {
        let v = script_config(
            "module.exports = {\n  testMatch: ['**/checks/*.js', \"**/*.check.js\"],\n  testRegex: /spec\\.js$/,\n  setupFiles: ['./setup/env.js'],\n};",
        );
        assert_eq!(v["testMatch"][1], "**/*.check.js");
        assert_eq!(v["testRegex"], "spec\\.js$");
        assert_eq!(v["setupFiles"][0], "./setup/env.js");
    }
}
