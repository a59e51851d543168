//! The package **as its users get it** (issue 33 point 1, "Where"; docs/verification.md,
//! "Probes"): a directory of pawl's, outside the room, that the Python and Node probes start in
//! instead of the room's tree with the room's environment.
//!
//! - **Python**: a virtual environment (`pyvenv.cfg` without the system's site-packages, its
//!   `bin/python` the checks' base interpreter) whose site-packages holds the package's files
//!   laid out as an install lays them out (`pawl_verify::userenv::python_package_files`: no
//!   test file, no `conftest.py`, no `setup.py`), its installed metadata, and links to the
//!   files of its **runtime dependency closure** (`userenv::closure`, read offline from the
//!   distributions the checks' interpreter has: `METADATA`, `RECORD`). The test runner, the
//!   extras and the development dependencies are not there: `importlib.util.find_spec("pytest")`
//!   finds nothing, as for a user who installed the package.
//! - **Node**: `node_modules/<name>` holds the package's files (no test file, no
//!   `node_modules`) beside links to its `dependencies`, `optionalDependencies` and
//!   `peerDependencies` only: `require.resolve("jest")` of a devDependency fails, as after `npm
//!   install --omit=dev`.
//!
//! The directory is a fresh temporary one of the machine's (`/tmp/tmpXXXXXX`: no
//! `node_modules` above it to fall back on), seen at the same path by the probes (copy-on-write
//! in the check sandbox's private `/tmp`), and gone after the probes. When it cannot be laid
//! out (no interpreter answers its inspection), the probes run as before, in the room with the
//! room's environment, and the report says so.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pawl_verify::probes::{Place, Program, Runtime};
use pawl_verify::runner::RunnerConfig;
use pawl_verify::userenv::{self, Dist};

use super::Printed;

/// Where the probes find the package.
#[derive(Default)]
pub(super) struct Site {
    pub place: Place,
    /// The Python to run: the site's virtual environment's (`None`: the room's).
    pub python: Option<String>,
    /// Top-level modules (Python) and packages (Node) the room's environment has and the
    /// package's users do not, each with what provides it there.
    pub dev_only: HashMap<String, String>,
    /// What was laid out, or why not, in words.
    pub lines: Vec<String>,
    /// The directory, removed when the site is dropped.
    _dir: Option<tempfile::TempDir>,
}

/// What the checks' interpreter says of itself.
const INSPECT: &str = r#"import json, os, sys
_b = getattr(sys, "_base_executable", None) or sys.executable
print(json.dumps({"base": os.path.realpath(_b), "version": "%d.%d" % sys.version_info[:2], "full": "%d.%d.%d" % sys.version_info[:3], "path": [os.path.abspath(p) for p in sys.path if p]}))
"#;

/// Lays the site out for `calls` of the tree the room holds (`paths`: its files), with the
/// probes' configuration `cfg` (the site is made visible to them there). `spawn` runs a program
/// as a probe runs.
pub(super) fn lay_out(
    cfg: &mut RunnerConfig,
    host_root: &Path,
    paths: &[String],
    python: &str,
    runtimes: &[(Runtime, Vec<String>)],
    spawn: &dyn Fn(&RunnerConfig, &Program) -> Result<Printed, String>,
) -> Site {
    let mut site = Site::default();
    if runtimes.is_empty() {
        return site;
    }
    // Under the machine's `/tmp` when the probes' sandbox has a private one: the site is
    // bound at the same path there, so the path pawl resolves the interpreter at on the
    // machine is the one the probes run (a `TMPDIR` elsewhere left the probes with "command
    // not found": the bound path did not exist on the machine).
    let made = if private_tmp(cfg) {
        tempfile::Builder::new().prefix("tmp").tempdir_in("/tmp")
    } else {
        tempfile::Builder::new().prefix("tmp").tempdir()
    };
    let dir = match made {
        Ok(d) => d,
        Err(e) => {
            site.lines.push(format!(
                "probes: the package's own directory could not be made ({e}): the room's environment was used"
            ));
            return site;
        }
    };
    let host = dir.path().to_path_buf();
    let seen = place_site(cfg, &host);
    let view = cfg.root.clone();
    for (runtime, files) in runtimes {
        let done = match runtime {
            Runtime::Python => python_site(
                cfg, &host, &seen, &view, host_root, paths, files, python, spawn, &mut site,
            ),
            Runtime::Node => node_site(&host, &seen, &view, host_root, paths, &mut site),
            _ => Ok(()),
        };
        if let Err(why) = done {
            site.lines.push(format!(
                "probes: {} not laid out as its users get it ({why}): its probes ran in the room with the room's environment",
                if *runtime == Runtime::Python {
                    "the Python package"
                } else {
                    "the Node package"
                }
            ));
        }
    }
    site._dir = Some(dir);
    site
}

/// Where the probes see the site: at its own path — bound there copy-on-write into the check
/// sandbox's private `/tmp` (it lies in the machine's), else readable where it is.
fn place_site(cfg: &mut RunnerConfig, host: &Path) -> PathBuf {
    if private_tmp(cfg)
        && host.parent() == Some(Path::new("/tmp"))
        && let Some(sandbox) = cfg
            .containment
            .as_mut()
            .and_then(|c| c.spec.sandbox.as_mut())
    {
        let target = host.to_path_buf();
        sandbox.cow_binds.push(pawl_process::sandbox::Bind {
            source: host.to_path_buf(),
            target: target.clone(),
        });
        return target;
    }
    host.to_path_buf()
}

/// The probes run in a sandbox with a private `/tmp` of their own.
fn private_tmp(cfg: &RunnerConfig) -> bool {
    cfg.containment
        .as_ref()
        .filter(|c| c.spec.namespaces)
        .and_then(|c| c.spec.sandbox.as_ref())
        .is_some_and(|s| s.private_tmp.iter().any(|p| p == Path::new("/tmp")))
}

/// A path the probes see (`seen`), where pawl reads it: the room's tree is seen at `view`.
fn host_of(seen: &Path, view: &Path, host_root: &Path) -> PathBuf {
    match seen.strip_prefix(view) {
        Ok(rest) => host_root.join(rest),
        Err(_) => seen.to_path_buf(),
    }
}

fn link(target: &Path, at: &Path) -> Result<(), String> {
    if let Some(parent) = at.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::os::unix::fs::symlink(target, at).map_err(|e| format!("{}: {e}", at.display()))
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    match std::fs::symlink_metadata(from) {
        Ok(m) if m.file_type().is_symlink() => {
            let t = std::fs::read_link(from).map_err(|e| format!("{}: {e}", from.display()))?;
            link(&t, to)
        }
        Ok(m) if m.is_file() => std::fs::copy(from, to)
            .map(drop)
            .map_err(|e| format!("{}: {e}", from.display())),
        _ => Ok(()),
    }
}

#[allow(clippy::too_many_arguments)]
fn python_site(
    cfg: &RunnerConfig,
    host: &Path,
    seen: &Path,
    view: &Path,
    host_root: &Path,
    paths: &[String],
    probed: &[String],
    python: &str,
    spawn: &dyn Fn(&RunnerConfig, &Program) -> Result<Printed, String>,
    site: &mut Site,
) -> Result<(), String> {
    let asked = Program {
        program: python.to_owned(),
        args: vec!["-".into()],
        stdin: INSPECT.as_bytes().to_vec(),
        cwd: None,
    };
    let printed = spawn(cfg, &asked)?;
    let line = printed
        .stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .ok_or_else(|| format!("{python} did not say where its packages are"))?;
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let text = |k: &str| v.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
    let (base, version, full) = (text("base"), text("version"), text("full"));
    if base.is_empty() || version.is_empty() {
        return Err(format!("{python} did not say what it is"));
    }
    let sys_path: Vec<PathBuf> = v
        .get("path")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(serde_json::Value::as_str)
                .map(PathBuf::from)
                .collect()
        })
        .unwrap_or_default();
    // Every distribution the checks' interpreter has, in sys.path's order.
    let mut dists: Vec<Dist> = Vec::new();
    for p in &sys_path {
        for d in userenv::read_site(&host_of(p, view, host_root), p) {
            if !dists.iter().any(|o| o.name == d.name) {
                dists.push(d);
            }
        }
    }
    // The package's own runtime requirements.
    let read = |f: &str| std::fs::read_to_string(host_root.join(f)).ok();
    let (name, declared) = read("pyproject.toml")
        .map(|t| userenv::pyproject(&t))
        .unwrap_or((None, None));
    let own: Option<usize> = dists.iter().position(|d| {
        name.as_ref() == Some(&d.name) || d.editable.as_ref().is_some_and(|e| e.starts_with(view))
    });
    let (roots, from): (Option<Vec<String>>, &str) = match (declared, own) {
        (Some(d), _) => (Some(d), "pyproject.toml"),
        (None, Some(i)) => (Some(dists[i].requires.clone()), "its installed metadata"),
        (None, None) => match read("requirements.txt") {
            Some(t) => (Some(userenv::requirements_txt(&t)), "requirements.txt"),
            None => (None, ""),
        },
    };
    let mut chosen: Vec<usize> = match &roots {
        Some(r) => userenv::closure(&dists, r),
        None => userenv::without_test_tools(&dists),
    };
    chosen.retain(|i| Some(*i) != own);
    // The package's files, as an install lays them out.
    let sp_rel = format!("lib/python{version}/site-packages");
    let sp_host = host.join("py").join(&sp_rel);
    let sp_seen = seen.join("py").join(&sp_rel);
    std::fs::create_dir_all(&sp_host).map_err(|e| e.to_string())?;
    let mut roots_of: Vec<String> = Vec::new();
    for f in probed {
        if let Some((r, _)) = pawl_verify::probes::python_module(f)
            && !roots_of.contains(&r)
        {
            roots_of.push(r);
        }
    }
    let mut tops: Vec<String> = Vec::new();
    for r in &roots_of {
        let mut files = userenv::python_package_files(paths, r);
        // A probed module in a directory without `__init__.py` (a namespace package the tests
        // import by its path) is laid out too.
        if r == "." {
            for f in probed {
                if let Some((dir, _)) = f.split_once('/') {
                    for p in paths.iter().filter(|p| p.starts_with(&format!("{dir}/"))) {
                        if !userenv::is_test_path(p) && !files.iter().any(|(a, _)| a == p) {
                            files.push((p.clone(), p.clone()));
                        }
                    }
                }
            }
        }
        for (from, to) in files {
            copy(&host_root.join(&from), &sp_host.join(&to))?;
            let top = to.split('/').next().unwrap_or(&to).to_owned();
            if !tops.contains(&top) {
                tops.push(top);
            }
        }
    }
    let linked: Vec<&Dist> = chosen.iter().map(|i| &dists[*i]).collect();
    let mut entries = userenv::links(&linked);
    if let Some(i) = own {
        // The package's installed metadata (`importlib.metadata.version(…)` answers as for a
        // user), never its editable install's path hooks.
        let d = &dists[i];
        entries.push((d.meta.clone(), d.site.join(&d.meta)));
    }
    for (rel, target) in entries {
        let top = rel.split('/').next().unwrap_or(&rel);
        let stem = top.split('.').next().unwrap_or(top);
        if tops
            .iter()
            .any(|t| t == top || t.split('.').next() == Some(stem))
        {
            continue;
        }
        link(&target, &sp_host.join(&rel))?;
    }
    // The virtual environment: the base interpreter, none of the system's site-packages.
    let home = Path::new(base)
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    std::fs::write(
        host.join("py/pyvenv.cfg"),
        format!("home = {home}\ninclude-system-site-packages = false\nversion = {full}\n"),
    )
    .map_err(|e| e.to_string())?;
    link(Path::new(base), &host.join("py/bin/python"))?;
    // What the environment has and the package's users do not.
    let provided: std::collections::HashSet<String> =
        chosen.iter().flat_map(|c| dists[*c].modules()).collect();
    let chosen_set: std::collections::HashSet<usize> = chosen.iter().copied().collect();
    for (i, d) in dists.iter().enumerate() {
        if chosen_set.contains(&i) || Some(i) == own {
            continue;
        }
        for m in d.modules() {
            if !provided.contains(&m) {
                site.dev_only.entry(m).or_insert_with(|| d.name.clone());
            }
        }
    }
    site.python = Some(seen.join("py/bin/python").display().to_string());
    site.place.python_root = Some(sp_seen.display().to_string());
    site.place.python_dir = Some(seen.join("py").display().to_string());
    site.lines.push(match &roots {
        Some(r) => format!(
            "probes: Python ran as the package's users get it: the package installed without its tests, and its runtime dependencies from {from} ({}; {} distributions with what they require), not its test runner or development dependencies",
            if r.is_empty() {
                "none".to_string()
            } else {
                r.join(", ")
            },
            chosen.len()
        ),
        None => format!(
            "probes: Python ran as the package's users get it: the package installed without its tests; it declares no runtime dependency (no pyproject.toml, installed metadata or requirements.txt), so every installed distribution but the test tools and what only they require ({} of {})",
            chosen.len(),
            dists.len()
        ),
    });
    Ok(())
}

fn node_site(
    host: &Path,
    seen: &Path,
    view: &Path,
    host_root: &Path,
    paths: &[String],
    site: &mut Site,
) -> Result<(), String> {
    let text = std::fs::read_to_string(host_root.join("package.json"))
        .map_err(|_| "no package.json at the root".to_string())?;
    let (name, deps) =
        userenv::node_dependencies(&text).ok_or("its package.json is not JSON".to_string())?;
    let name = name
        .filter(|n| {
            !n.is_empty()
                && !n.contains("..")
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "@/-_.".contains(c))
                && n.matches('/').count() <= usize::from(n.starts_with('@'))
        })
        .unwrap_or_else(|| "package".into());
    let modules = host.join("node/node_modules");
    let pkg = modules.join(&name);
    for f in userenv::node_package_files(paths) {
        copy(&host_root.join(&f), &pkg.join(&f))?;
    }
    let mut linked = 0;
    for d in &deps {
        if d.contains("..")
            || std::fs::symlink_metadata(host_root.join("node_modules").join(d)).is_err()
        {
            continue;
        }
        link(&view.join("node_modules").join(d), &modules.join(d))?;
        linked += 1;
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
        && let Some(dev) = v
            .get("devDependencies")
            .and_then(serde_json::Value::as_object)
    {
        for k in dev.keys().filter(|k| !deps.contains(k)) {
            site.dev_only
                .insert(k.clone(), format!("{k} (a devDependency)"));
        }
    }
    site.place.node_dir = Some(seen.join("node").display().to_string());
    site.place.node_prefix = Some(format!("node_modules/{name}"));
    site.place.node_tools = Some(view.display().to_string());
    site.lines.push(format!(
        "probes: Node ran as the package's users get it: `{name}` installed without its tests beside its {} runtime dependencies ({linked} installed), none of its devDependencies",
        deps.len()
    ));
    Ok(())
}
