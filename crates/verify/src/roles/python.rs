//! Python packaging: what a project ships, as pyproject.toml, setup.cfg or setup.py list it, and
//! the test patterns its pytest configuration adds (read from the baseline only).
//!
//! Backends differ in how they find packages; this follows their documented rules closely
//! enough to name the same folders: an explicit list when the manifest has one (setuptools
//! `packages`/`package-dir`/`py-modules`/`packages.find`, hatch `packages`/`only-include`/
//! `sources`, poetry `packages`, flit `module`, pdm `package-dir`, uv `module-root`/
//! `module-name`, maturin `python-source`), else the package named after the project, else
//! setuptools' automatic discovery (src layout, or the flat layout without its excluded names).

use toml::{Table, Value};

use super::{Filter, Lang, Layout, Never, Trees, is_identifier, join, parent, python_module_name};

/// Top-level folders setuptools' flat-layout discovery leaves out (`FlatLayoutPackageFinder`).
const FLAT_EXCLUDED_PACKAGES: &[&str] = &[
    "ci",
    "bin",
    "debian",
    "doc",
    "docs",
    "documentation",
    "manpages",
    "news",
    "newsfragments",
    "changelog",
    "test",
    "tests",
    "unit_test",
    "unit_tests",
    "example",
    "examples",
    "scripts",
    "tools",
    "util",
    "utils",
    "python",
    "build",
    "dist",
    "venv",
    "env",
    "requirements",
    "tasks",
    "fabfile",
    "site_scons",
    "benchmark",
    "benchmarks",
    "exercise",
    "exercises",
    "htmlcov",
];

/// Top-level modules setuptools' flat-layout discovery leaves out (`FlatLayoutModuleFinder`).
const FLAT_EXCLUDED_MODULES: &[&str] = &[
    "setup",
    "conftest",
    "test",
    "tests",
    "example",
    "examples",
    "build",
    "toxfile",
    "noxfile",
    "pavement",
    "dodo",
    "tasks",
    "fabfile",
    "SConstruct",
    "sconstruct",
    "conanfile",
    "manage",
    "benchmark",
    "benchmarks",
    "exercise",
    "exercises",
];

/// What one manifest says about the packages it ships.
#[derive(Default)]
struct Listing {
    /// Package folders (relative to the project folder), with the key that lists them.
    packages: Vec<(String, &'static str)>,
    /// Module files (relative to the project folder), with the key that lists them.
    modules: Vec<(String, &'static str)>,
    /// Folders whose top-level packages and modules are discovered, with the key.
    discover: Vec<(String, &'static str)>,
    /// The manifest decides what ships (even when it names nothing that exists).
    explicit: bool,
    /// Project name (for name-based defaults).
    name: Option<String>,
    /// The backend finds the package by the project's name (hatch, poetry, flit, uv, maturin);
    /// setuptools and pdm discover it.
    name_based: bool,
    /// Local path dependencies (as written).
    local_deps: Vec<String>,
}

pub(crate) fn read(trees: &Trees<'_>, never: &Never, layout: &mut Layout) {
    let mut manifests: Vec<(String, &'static str)> = Vec::new();
    for file in ["pyproject.toml", "setup.cfg", "setup.py"] {
        for p in trees.named(file) {
            if layout_ignored(p) {
                continue;
            }
            manifests.push((p.clone(), file));
        }
    }
    let mut projects: Vec<String> = manifests
        .iter()
        .map(|(p, _)| parent(p).to_string())
        .collect();
    projects.sort();
    projects.dedup();
    for dir in &projects {
        let mut listing = Listing::default();
        let mut packaging = false;
        for (path, kind) in manifests.iter().filter(|(p, _)| parent(p) == dir) {
            for text in trees.read_both(path) {
                packaging |= match *kind {
                    "pyproject.toml" => from_pyproject(&text, &mut listing),
                    "setup.cfg" => from_setup_cfg(&text, &mut listing),
                    _ => from_setup_py(&text, &mut listing),
                };
            }
        }
        if !packaging {
            continue;
        }
        layout.listed.insert(Lang::Python);
        let manifest = manifests
            .iter()
            .filter(|(p, _)| parent(p) == dir)
            .map(|(p, _)| p.as_str())
            .collect::<Vec<_>>()
            .join(" + ");
        ship(trees, never, dir, &manifest, &listing, layout);
        for dep in &listing.local_deps {
            local_dep(trees, dir, &manifest, dep, layout);
        }
    }
    for path in trees.all.iter().filter(|p| {
        let name = p.rsplit('/').next().unwrap_or(p);
        (name.starts_with("requirements") && name.ends_with(".txt"))
            || (parent(p).ends_with("requirements") && name.ends_with(".txt"))
    }) {
        for text in trees.read_both(path) {
            for dep in requirement_paths(&text) {
                local_dep(trees, parent(path), path, &dep, layout);
            }
        }
    }
    read_test_config(trees, layout);
}

/// Local paths a pip requirements file installs (`-e ./lib`, `./pkg`, `name @ file:///…`).
fn requirement_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split(" #").next().unwrap_or("").trim();
        let line = line
            .strip_prefix("-e ")
            .or_else(|| line.strip_prefix("--editable "))
            .unwrap_or(line)
            .trim();
        if let Some((_, url)) = line.split_once(" @ ") {
            if let Some(p) = url.trim().strip_prefix("file://") {
                out.push(p.to_string());
            }
        } else if line.starts_with("./") || line.starts_with("../") || line.starts_with('/') {
            out.push(
                line.split(['[', ';'])
                    .next()
                    .unwrap_or(line)
                    .trim()
                    .to_string(),
            );
        } else if let Some(p) = line.strip_prefix("file:") {
            out.push(p.to_string());
        }
    }
    out
}

/// Manifests inside tests folders or dot folders are fixtures, not the project's.
fn layout_ignored(path: &str) -> bool {
    path.split('/').any(|d| {
        matches!(
            d,
            "tests" | "test" | "testdata" | "fixtures" | "node_modules"
        ) || (d.starts_with('.') && d.len() > 1)
    })
}

/// Product roots and files of one project folder; `manifest` names its manifests in reasons.
fn ship(
    trees: &Trees<'_>,
    never: &Never,
    dir: &str,
    manifest: &str,
    listing: &Listing,
    layout: &mut Layout,
) {
    let mut found = false;
    for (pkg, how) in &listing.packages {
        let Some(path) = join(dir, pkg) else { continue };
        let name = pkg.rsplit('/').next().unwrap_or(pkg);
        if let Some(why) = never.packaged(name, listing.name.as_deref()) {
            layout.finding(format!(
                "{path}: listed as a package by {manifest} {how}, not taken as product source: {why}"
            ));
            continue;
        }
        if trees.has_dir(&path) {
            found = true;
            layout.root(path, Filter::Any, format!("listed by {manifest} {how}"));
        }
    }
    for (module, how) in &listing.modules {
        let Some(path) = join(dir, module) else {
            continue;
        };
        let file = path.rsplit('/').next().unwrap_or(&path);
        if let Some(name) = python_module_name(file)
            && let Some(why) = never.packaged(name, listing.name.as_deref())
        {
            layout.finding(format!(
                "{path}: listed as a module by {manifest} {how}, not taken as product source: {why}"
            ));
            continue;
        }
        if trees.exists(&path) {
            found = true;
            layout.file(path, format!("listed by {manifest} {how}"));
        }
    }
    let mut discover = listing.discover.clone();
    if !found && !listing.explicit {
        // The package named after the project (hatch, poetry, flit, uv), else discovery.
        if let Some(name) = listing.name.as_ref().filter(|_| listing.name_based) {
            let n = name.to_lowercase().replace(['-', '.'], "_");
            let why = format!("named after the project `{name}` of {manifest}");
            for cand in [format!("src/{n}"), n.clone()] {
                if let Some(p) = join(dir, &cand)
                    && trees.has_dir(&p)
                    && never.packaged(&n, Some(name)).is_none()
                {
                    found = true;
                    layout.root(p, Filter::Any, why.clone());
                }
            }
            for cand in [format!("src/{n}.py"), format!("{n}.py")] {
                if let Some(p) = join(dir, &cand)
                    && trees.exists(&p)
                    && never.packaged(&n, Some(name)).is_none()
                {
                    found = true;
                    layout.file(p, why.clone());
                }
            }
        }
        if !found && discover.is_empty() {
            let src = join(dir, "src").unwrap_or_default();
            let at = if trees.has_dir(&src) { "src" } else { "" };
            discover.push((at.to_string(), "(setuptools' automatic discovery)"));
        }
    }
    for (d, how) in discover {
        let Some(base) = join(dir, &d) else { continue };
        let flat = base == dir && d != "src";
        let layout_name = if flat { "flat layout" } else { "src layout" };
        let why = format!("found by {manifest} {how} ({layout_name})");
        discover_in(
            trees,
            never,
            &base,
            flat,
            listing.name.as_deref(),
            &why,
            layout,
        );
    }
}

/// setuptools' automatic discovery under `base`: top-level packages (folders holding Python
/// files) and modules, minus names that shadow and, in the flat layout, its excluded names.
fn discover_in(
    trees: &Trees<'_>,
    never: &Never,
    base: &str,
    flat: bool,
    project: Option<&str>,
    why: &str,
    layout: &mut Layout,
) {
    let mut tops: Vec<String> = Vec::new();
    for p in &trees.all {
        let Some(rel) = super::under(p, base) else {
            continue;
        };
        let Some((top, _)) = rel.split_once('/') else {
            if let Some(name) = python_module_name(rel)
                && rel.ends_with(".py")
                && !(flat
                    && (FLAT_EXCLUDED_MODULES.contains(&name) || name.starts_with(['.', '_'])))
                && never.packaged(name, project).is_none()
            {
                layout.broad_file(p.clone(), why);
            }
            continue;
        };
        if rel.ends_with(".py") && !tops.iter().any(|t| t == top) {
            tops.push(top.to_string());
        }
    }
    for top in tops {
        if flat && (FLAT_EXCLUDED_PACKAGES.contains(&top.as_str()) || top.starts_with(['.', '_'])) {
            continue;
        }
        if never.packaged(&top, project).is_some() || !is_identifier(&top) {
            continue;
        }
        let path = join(base, &top).unwrap_or_default();
        if flat && !trees.exists(&format!("{path}/__init__.py")) {
            // The flat layout ships regular packages; a folder of loose scripts is not one.
            continue;
        }
        // A discovered package is one for sure (doctests in it leave it product); a loose
        // module at the top is a guess a runner's report overrides.
        layout.root(path, Filter::Any, why);
    }
}

fn local_dep(trees: &Trees<'_>, dir: &str, manifest: &str, dep: &str, layout: &mut Layout) {
    let rel = dep
        .trim_start_matches("file://")
        .trim_start_matches("file:");
    match join(dir, rel) {
        Some(path) if !rel.starts_with('/') => {
            if trees.has_dir(&path)
                && !trees.all.iter().any(|p| {
                    parent(p) == path
                        && matches!(
                            p.rsplit('/').next(),
                            Some("pyproject.toml" | "setup.py" | "setup.cfg")
                        )
                })
            {
                layout.root(
                    path,
                    Filter::Exts(&["py", "pyi"]),
                    format!("a local path dependency of {manifest}"),
                );
            }
        }
        _ => layout.finding(format!(
            "{manifest}: depends on `{dep}`, a local path outside the repository: the locked run \
             cannot take it"
        )),
    }
}

fn strs(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

fn get<'t>(t: &'t Table, keys: &[&str]) -> Option<&'t Value> {
    let (first, rest) = keys.split_first()?;
    let v = t.get(*first)?;
    if rest.is_empty() {
        Some(v)
    } else {
        get(v.as_table()?, rest)
    }
}

/// Reads a pyproject.toml; true when it declares a package at all.
fn from_pyproject(text: &str, l: &mut Listing) -> bool {
    let Ok(doc) = text.parse::<Table>() else {
        return false;
    };
    let project = doc.get("project").and_then(Value::as_table);
    let poetry = get(&doc, &["tool", "poetry"]).and_then(Value::as_table);
    let backend = get(&doc, &["build-system", "build-backend"])
        .and_then(Value::as_str)
        .unwrap_or("");
    if project.is_none() && poetry.is_none() && backend.is_empty() {
        return false;
    }
    l.name_based |= poetry.is_some()
        || ["hatchling", "poetry", "flit", "uv_build", "maturin"]
            .iter()
            .any(|b| backend.contains(b));
    if let Some(n) = project
        .and_then(|p| p.get("name"))
        .or_else(|| poetry.and_then(|p| p.get("name")))
        .and_then(Value::as_str)
    {
        l.name = Some(n.to_string());
    }
    // setuptools
    if let Some(st) = get(&doc, &["tool", "setuptools"]).and_then(Value::as_table) {
        let package_dir = st.get("package-dir").and_then(Value::as_table);
        let root_dir = package_dir
            .and_then(|t| t.get(""))
            .and_then(Value::as_str)
            .map(str::to_string);
        match st.get("packages") {
            Some(Value::Array(pkgs)) => {
                l.explicit = true;
                for p in pkgs.iter().filter_map(Value::as_str) {
                    let mapped = package_dir
                        .and_then(|t| t.get(p))
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let path = mapped.unwrap_or_else(|| {
                        let rel = p.replace('.', "/");
                        match &root_dir {
                            Some(r) => format!("{r}/{rel}"),
                            None => rel,
                        }
                    });
                    l.packages.push((path, "`[tool.setuptools] packages`"));
                }
            }
            Some(Value::Table(t)) => {
                let find = t.get("find").and_then(Value::as_table);
                let wheres = find.map(|f| strs(f.get("where"))).unwrap_or_default();
                l.explicit = true;
                let how = "`[tool.setuptools.packages.find]`";
                if wheres.is_empty() {
                    l.discover.push((root_dir.clone().unwrap_or_default(), how));
                } else {
                    l.discover.extend(wheres.into_iter().map(|w| (w, how)));
                }
            }
            _ => {
                if let Some(r) = &root_dir {
                    l.discover
                        .push((r.clone(), "`[tool.setuptools] package-dir`"));
                }
            }
        }
        let mods = strs(st.get("py-modules"));
        if !mods.is_empty() {
            l.explicit = true;
        }
        for m in mods {
            let f = format!("{}.py", m.replace('.', "/"));
            let path = match &root_dir {
                Some(r) => format!("{r}/{f}"),
                None => f,
            };
            l.modules.push((path, "`[tool.setuptools] py-modules`"));
        }
    }
    // hatch
    if let Some(w) =
        get(&doc, &["tool", "hatch", "build", "targets", "wheel"]).and_then(Value::as_table)
    {
        for (key, how) in [
            ("packages", "`[tool.hatch.build.targets.wheel] packages`"),
            (
                "only-include",
                "`[tool.hatch.build.targets.wheel] only-include`",
            ),
        ] {
            for p in strs(w.get(key)) {
                l.explicit = true;
                if p.ends_with(".py") {
                    l.modules.push((p, how));
                } else {
                    l.packages.push((p, how));
                }
            }
        }
        if let Some(Value::Array(src)) = w.get("sources") {
            for s in src.iter().filter_map(Value::as_str) {
                l.discover
                    .push((s.to_string(), "`[tool.hatch.build.targets.wheel] sources`"));
            }
        }
    }
    // poetry
    if let Some(p) = poetry {
        if let Some(Value::Array(pkgs)) = p.get("packages") {
            for pkg in pkgs.iter().filter_map(Value::as_table) {
                let Some(inc) = pkg.get("include").and_then(Value::as_str) else {
                    continue;
                };
                l.explicit = true;
                let from = pkg.get("from").and_then(Value::as_str).unwrap_or("");
                let path = if from.is_empty() {
                    inc.to_string()
                } else {
                    format!("{from}/{inc}")
                };
                let how = "`[tool.poetry] packages`";
                if path.ends_with(".py") {
                    l.modules.push((path, how));
                } else {
                    let dir = path.trim_end_matches("/**/*.py").trim_end_matches("/*");
                    l.packages.push((dir.to_string(), how));
                }
            }
        }
        for table in ["dependencies", "dev-dependencies"] {
            if let Some(deps) = p.get(table).and_then(Value::as_table) {
                path_deps(deps, l);
            }
        }
        if let Some(groups) = p.get("group").and_then(Value::as_table) {
            for g in groups.values() {
                if let Some(deps) = g.get("dependencies").and_then(Value::as_table) {
                    path_deps(deps, l);
                }
            }
        }
    }
    // flit
    if let Some(name) = get(&doc, &["tool", "flit", "module", "name"]).and_then(Value::as_str) {
        l.name = Some(name.to_string());
    }
    // pdm
    if let Some(d) = get(&doc, &["tool", "pdm", "build", "package-dir"]).and_then(Value::as_str) {
        l.discover
            .push((d.to_string(), "`[tool.pdm.build] package-dir`"));
    }
    // uv's build backend
    if let Some(b) = get(&doc, &["tool", "uv", "build-backend"]).and_then(Value::as_table) {
        let root = b
            .get("module-root")
            .and_then(Value::as_str)
            .unwrap_or("src");
        for name in strs(b.get("module-name")) {
            l.explicit = true;
            let rel = name.replace('.', "/");
            let how = "`[tool.uv.build-backend] module-name`";
            l.packages.push((format!("{root}/{rel}"), how));
            l.modules.push((format!("{root}/{rel}.py"), how));
        }
    }
    if let Some(sources) = get(&doc, &["tool", "uv", "sources"]).and_then(Value::as_table) {
        path_deps(sources, l);
    }
    // maturin: the Python part of a mixed project.
    if let Some(src) = get(&doc, &["tool", "maturin", "python-source"]).and_then(Value::as_str) {
        l.discover
            .push((src.to_string(), "`[tool.maturin] python-source`"));
    }
    // PEP 508 direct references to local files.
    let mut reqs = project
        .map(|p| strs(p.get("dependencies")))
        .unwrap_or_default();
    if let Some(opt) = project
        .and_then(|p| p.get("optional-dependencies"))
        .and_then(Value::as_table)
    {
        for v in opt.values() {
            reqs.extend(strs(Some(v)));
        }
    }
    for r in reqs {
        if let Some((_, url)) = r.split_once('@') {
            let url = url.trim();
            if let Some(path) = url.strip_prefix("file://") {
                l.local_deps.push(path.to_string());
            }
        }
    }
    true
}

fn path_deps(deps: &Table, l: &mut Listing) {
    for v in deps.values() {
        if let Some(p) = v
            .as_table()
            .and_then(|t| t.get("path"))
            .and_then(Value::as_str)
        {
            l.local_deps.push(p.to_string());
        }
    }
}

/// A small INI reader: `(section, key, value)` with continuation lines joined by newlines.
pub(crate) fn ini(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    let mut section = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut() {
                last.2.push('\n');
                last.2.push_str(trimmed);
            }
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = name.trim().to_string();
            continue;
        }
        if let Some((k, v)) = trimmed.split_once(['=', ':']) {
            out.push((section.clone(), k.trim().to_string(), v.trim().to_string()));
        }
    }
    out
}

fn ini_list(v: &str) -> Vec<String> {
    v.split([',', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Reads a setup.cfg; true when it declares a package.
fn from_setup_cfg(text: &str, l: &mut Listing) -> bool {
    let entries = ini(text);
    let get = |sec: &str, key: &str| {
        entries
            .iter()
            .find(|(s, k, _)| s == sec && k.replace('-', "_") == key)
            .map(|(_, _, v)| v.as_str())
    };
    let has_meta = get("metadata", "name").is_some();
    let has_options = entries.iter().any(|(s, _, _)| s == "options");
    if !has_meta && !has_options {
        return false;
    }
    if let Some(n) = get("metadata", "name") {
        l.name = Some(n.to_string());
    }
    let mut root_dir: Option<String> = None;
    if let Some(pd) = get("options", "package_dir") {
        for item in ini_list(pd) {
            if let Some((k, v)) = item.split_once('=')
                && k.trim().is_empty()
            {
                root_dir = Some(v.trim().to_string());
            }
        }
    }
    match get("options", "packages") {
        Some(v) if v.starts_with("find") => {
            l.explicit = true;
            let wheres = get("options.packages.find", "where")
                .map(ini_list)
                .unwrap_or_default();
            let how = "`[options] packages = find:`";
            if wheres.is_empty() {
                l.discover.push((root_dir.clone().unwrap_or_default(), how));
            } else {
                l.discover.extend(wheres.into_iter().map(|w| (w, how)));
            }
        }
        Some(v) => {
            l.explicit = true;
            for p in ini_list(v) {
                let rel = p.replace('.', "/");
                let path = match &root_dir {
                    Some(r) => format!("{r}/{rel}"),
                    None => rel,
                };
                l.packages.push((path, "`[options] packages`"));
            }
        }
        None => {}
    }
    if let Some(v) = get("options", "py_modules") {
        l.explicit = true;
        for m in ini_list(v) {
            let f = format!("{}.py", m.replace('.', "/"));
            let path = match &root_dir {
                Some(r) => format!("{r}/{f}"),
                None => f,
            };
            l.modules.push((path, "`[options] py_modules`"));
        }
    }
    true
}

/// Reads a setup.py without running it: the literal `packages=[...]`, `py_modules=[...]`,
/// `package_dir={"": "src"}` and `find_packages(...)` it passes to `setup()`.
fn from_setup_py(text: &str, l: &mut Listing) -> bool {
    if !text.contains("setup(") {
        return false;
    }
    let root_dir = python_kwarg(text, "package_dir")
        .map(|v| resolve_constant(text, v))
        .and_then(|v| {
            let strings = literal_strings(&v);
            let mut it = strings.chunks(2);
            it.find(|c| c.len() == 2 && c[0].is_empty())
                .map(|c| c[1].clone())
        });
    let prefix = |rel: String| match &root_dir {
        Some(r) => format!("{r}/{rel}"),
        None => rel,
    };
    // A keyword's value may be a module-level constant (`py_modules=MODULES`, `name=PACKAGE`):
    // its assigned value stands for it.
    let kwarg = |name: &str| python_kwarg(text, name).map(|v| resolve_constant(text, v));
    if let Some(v) = kwarg("packages") {
        l.explicit = true;
        if v.contains("find_packages") || v.contains("find_namespace_packages") {
            // `find_packages("src")` or `find_packages(where="src")`.
            let inner = v.split_once('(').map_or("", |(_, rest)| rest).trim_start();
            let where_ = python_kwarg(inner, "where")
                .and_then(|w| literal_strings(&w).into_iter().next())
                .or_else(|| {
                    inner
                        .starts_with(['"', '\''])
                        .then(|| literal_strings(inner).into_iter().next())
                        .flatten()
                });
            l.discover.push((
                where_.or(root_dir.clone()).unwrap_or_default(),
                "`find_packages()` in setup.py",
            ));
        } else {
            for p in literal_strings(&v) {
                l.packages
                    .push((prefix(p.replace('.', "/")), "`packages=` of setup.py"));
            }
        }
    }
    if let Some(v) = kwarg("py_modules") {
        l.explicit = true;
        for m in literal_strings(&v) {
            l.modules.push((
                prefix(format!("{}.py", m.replace('.', "/"))),
                "`py_modules=` of setup.py",
            ));
        }
    }
    if let Some(n) = kwarg("name").and_then(|v| literal_strings(&v).into_iter().next()) {
        l.name = Some(n);
    }
    true
}

/// The modules of `-p NAME` options in a pytest command line (`-p no:x` disables, skipped).
fn p_options(addopts: &str) -> Vec<String> {
    let words: Vec<&str> = addopts.split_whitespace().collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let name = if *w == "-p" {
            words.get(i + 1).copied()
        } else {
            w.strip_prefix("-p")
                .map(|r| r.trim_start_matches('='))
                .filter(|r| !r.is_empty() && !w.starts_with("--"))
        };
        if let Some(n) = name
            && !n.starts_with("no:")
        {
            out.push(n.trim_matches(['"', '\'']).to_string());
        }
    }
    out
}

/// The source text of a keyword argument `name=...` up to the matching close of its brackets.
fn python_kwarg(text: &str, name: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find(name) {
        let start = from + i;
        from = start + name.len();
        let before_ok =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        let rest = text[from..].trim_start();
        if !before_ok || !rest.starts_with('=') || rest.starts_with("==") {
            continue;
        }
        let value = rest[1..].trim_start();
        let mut depth = 0i32;
        let mut end = value.len();
        for (j, c) in value.char_indices() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => {
                    depth -= 1;
                    if depth < 0 {
                        end = j;
                        break;
                    }
                }
                ',' if depth == 0 => {
                    end = j;
                    break;
                }
                _ => {}
            }
        }
        return Some(value[..end].to_string());
    }
    None
}

/// A keyword's value as written, or, when it is a bare name, the value a module-level
/// assignment `NAME = ...` (at the start of a line, the last one) gives it; a name with no such
/// assignment stays as it is (it names nothing this reader can know).
fn resolve_constant(text: &str, value: String) -> String {
    let name = value.trim();
    if !is_identifier(name) {
        return value;
    }
    let mut found = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let Some(rest) = line.strip_prefix(name) else {
            continue;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        if !rest.starts_with('=') || rest.starts_with("==") {
            continue;
        }
        let at = start + (line.len() - rest.len()) + 1;
        found = Some(assigned_value(&text[at..]));
    }
    found.unwrap_or(value)
}

/// The expression at the start of `src` up to the end of its logical line (brackets may span
/// lines).
fn assigned_value(src: &str) -> String {
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut comment = false;
    for (j, c) in src.char_indices() {
        match (quote, c) {
            (_, '\n') if comment => comment = false,
            _ if comment => {}
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\n' | '#') if depth <= 0 => return src[..j].trim().to_string(),
            (None, '#') => comment = true,
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            _ => {}
        }
    }
    src.trim().to_string()
}

/// The string literals of a piece of Python source, in order.
fn literal_strings(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = src.chars();
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            let mut s = String::new();
            for d in chars.by_ref() {
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

/// pytest's configured test file patterns, from the baseline's configuration only.
fn read_test_config(trees: &Trees<'_>, layout: &mut Layout) {
    // (file, python_files, testpaths); plugins named by `-p` in addopts: (file, module)
    let mut configs: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
    let mut plugins: Vec<(String, String)> = Vec::new();
    for name in ["pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg"] {
        for p in trees.named(name).filter(|p| trees.in_base(p)) {
            let Some(text) = trees.read_base(p) else {
                continue;
            };
            let section = match name {
                "setup.cfg" => "tool:pytest",
                _ => "pytest",
            };
            let entries = ini(&text);
            let files: Vec<String> = entries
                .iter()
                .filter(|(s, k, _)| s == section && k == "python_files")
                .flat_map(|(_, _, v)| v.split_whitespace().map(str::to_string).collect::<Vec<_>>())
                .collect();
            let paths: Vec<String> = entries
                .iter()
                .filter(|(s, k, _)| s == section && k == "testpaths")
                .flat_map(|(_, _, v)| v.split_whitespace().map(str::to_string).collect::<Vec<_>>())
                .collect();
            for (_, _, v) in entries
                .iter()
                .filter(|(s, k, _)| s == section && k == "addopts")
            {
                plugins.extend(p_options(v).into_iter().map(|m| (p.clone(), m)));
            }
            configs.push((p.clone(), files, paths));
        }
    }
    for name in ["pyproject.toml", "pytest.toml", ".pytest.toml"] {
        for p in trees.named(name).filter(|p| trees.in_base(p)) {
            let Some(doc) = trees.read_base(p).and_then(|t| t.parse::<Table>().ok()) else {
                continue;
            };
            for keys in [
                &["tool", "pytest", "ini_options"][..],
                &["tool", "pytest"],
                &["pytest"],
            ] {
                if let Some(t) = get(&doc, keys).and_then(Value::as_table) {
                    let split = |v: Option<&Value>| -> Vec<String> {
                        strs(v)
                            .iter()
                            .flat_map(|s| {
                                s.split_whitespace().map(str::to_string).collect::<Vec<_>>()
                            })
                            .collect()
                    };
                    configs.push((
                        p.clone(),
                        split(t.get("python_files")),
                        split(t.get("testpaths")),
                    ));
                }
            }
        }
    }
    // `pytest_plugins = [...]` of the baseline's conftest files.
    for p in trees.named("conftest.py").filter(|p| trees.in_base(p)) {
        let Some(text) = trees.read_base(p) else {
            continue;
        };
        if let Some(v) = python_kwarg(&text, "pytest_plugins") {
            plugins.extend(literal_strings(&v).into_iter().map(|m| (p.clone(), m)));
        }
    }
    for (file, module) in plugins {
        let rel = module.replace('.', "/");
        let dir = parent(&file).to_string();
        for base in [dir.as_str(), "", "src"] {
            for cand in [format!("{rel}.py"), format!("{rel}/__init__.py")] {
                if let Some(path) = join(base, &cand)
                    && trees.exists(&path)
                {
                    layout.runner_loaded.insert(
                        path,
                        format!("a pytest plugin the baseline's {file} loads (`{module}`)"),
                    );
                }
            }
        }
    }
    for (file, files, paths) in configs {
        let dir = parent(&file).to_string();
        let unders: Vec<String> = if paths.is_empty() {
            vec![dir.clone()]
        } else {
            paths.iter().filter_map(|t| join(&dir, t)).collect()
        };
        if !paths.is_empty() {
            for u in &unders {
                layout.testpaths.push((u.clone(), file.clone()));
            }
        }
        for u in &unders {
            for pattern in &files {
                layout.test_patterns.push((
                    u.clone(),
                    format!("**/{}", pattern.trim_start_matches("**/")),
                    format!("matches `python_files = {pattern}` of the baseline's {file}"),
                ));
            }
        }
    }
}
