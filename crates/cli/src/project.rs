//! What pawl knows about the project it runs in, shared by the commands that need it: the
//! platform detection (`pawl detect`, the gates `pawl init` writes) and the facts the spec
//! analysis reads (`pawl analyze`, the mode of a headless run, the expected scope of a session
//! run).
//!
//! Descriptors are the embedded ones plus `.pawl/platforms/*.toml` (a file whose `name` matches a
//! built-in one replaces it). A tool condition is true when the program is on `PATH`.
//!
//! Not here: the detection rules and descriptors (pawl-verify's `platform`), the spec analysis
//! itself (pawl-core's `spec`), and how either is shown (the commands).

use std::path::{Path, PathBuf};

use pawl_verify::platform::Descriptors;
use pawl_verify::{Detection, ProjectFacts, detect};

use crate::ctx::Ctx;
use crate::error::{CliError, CliResult};

/// Reads `.pawl/platforms/*.toml` (sorted by file name) as `(origin, text)` pairs.
fn user_descriptors(root: &Path) -> CliResult<Vec<(String, String)>> {
    let dir = root.join(".pawl").join("platforms");
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(CliError::Io {
                context: format!("cannot read {}", dir.display()),
                source: e,
            });
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p)
                .map_err(CliError::io(format!("cannot read {}", p.display())))?;
            Ok((
                format!(
                    ".pawl/platforms/{}",
                    p.file_name()
                        .map(|n| n.to_string_lossy())
                        .unwrap_or_default()
                ),
                text,
            ))
        })
        .collect()
}

/// Whether `tool` is an executable file in one of `PATH`'s directories.
pub fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| which(tool, &path).is_some())
}

/// The first absolute directory of `path` (a `PATH` value) where `program` is an executable
/// file: the one lookup of a program the CLI makes (detection, preflight, hooks, doctor).
pub fn which(program: &str, path: &std::ffi::OsStr) -> Option<std::path::PathBuf> {
    pawl_process::which(program, path)
}

/// Detects the project's platform at the repository root.
pub fn detection(ctx: &Ctx) -> CliResult<Detection> {
    let extra = user_descriptors(&ctx.root)?;
    let descriptors = Descriptors::with_overrides(&extra)?;
    let facts = ProjectFacts::gather(&ctx.root, &descriptors, on_path)?;
    for w in &facts.warnings {
        ctx.warn(w);
    }
    let mut d = detect(&facts, &descriptors);
    d.subprojects = pawl_verify::platform::subprojects(&ctx.root, &descriptors);
    Ok(d)
}

/// The coverage minimums per story size of the project's platform (`[quality.coverage_min]` of
/// its descriptor), when it has a platform with minimums. Quiet: a detection problem is
/// reported by `pawl detect`, not by every verification.
pub fn coverage_minimums(root: &Path) -> Option<pawl_core::coverage::Minimums> {
    let extra = user_descriptors(root).ok()?;
    let descriptors = Descriptors::with_overrides(&extra).ok()?;
    let facts = ProjectFacts::gather(root, &descriptors, on_path).ok()?;
    let t = detect(&facts, &descriptors).quality.coverage_min?;
    Some(pawl_core::coverage::Minimums {
        s: t.s,
        m: t.m,
        l: t.l,
        xl: t.xl,
    })
}

/// What the spec analysis needs to know about the project: whether it has tests (a configured
/// gate that runs them).
pub fn spec_facts(ctx: &Ctx) -> CliResult<pawl_core::spec::ProjectFacts> {
    let eff = ctx.config(&[])?;
    let has_tests = eff
        .config
        .gates
        .iter()
        .any(|(name, cmd)| name.contains("test") || cmd.contains("test"));
    Ok(pawl_core::spec::ProjectFacts {
        has_tests,
        plain_agent: eff.config.agent.kind == pawl_core::config::AgentKind::Command,
    })
}

/// Build outputs each platform writes into the tree, by a marker file of the platform: each must
/// be git-ignored, or it changes the tree hash evidence is bound to (and moves during checks).
pub const OUTPUTS: &[(&str, &[&str])] = &[
    ("Cargo.toml", &["target/"]),
    (
        "package.json",
        &["node_modules/", "coverage/", ".nyc_output/"],
    ),
    (
        "pyproject.toml",
        &["__pycache__/", ".pytest_cache/", ".venv/"],
    ),
    ("setup.py", &["__pycache__/", ".pytest_cache/", ".venv/"]),
    (
        "requirements.txt",
        &["__pycache__/", ".pytest_cache/", ".venv/"],
    ),
    ("pom.xml", &["target/"]),
    ("build.gradle", &["build/", ".gradle/"]),
    ("build.gradle.kts", &["build/", ".gradle/"]),
];

/// The usual build outputs of the platforms whose marker files are at `root` (each once, in
/// table order).
pub fn expected_outputs(root: &std::path::Path) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for (marker, outputs) in OUTPUTS {
        if root.join(marker).is_file() {
            for o in *outputs {
                if !out.contains(o) {
                    out.push(o);
                }
            }
        }
    }
    out
}

/// Of the platform's usual outputs, those git does not ignore at `root`.
pub fn unignored_outputs(root: &std::path::Path) -> Result<Vec<&'static str>, pawl_git::Error> {
    let expected = expected_outputs(root);
    let ignored = pawl_git::Repo::open(root)?.ignored(&expected)?;
    Ok(expected
        .into_iter()
        .filter(|p| !ignored.iter().any(|i| i == p))
        .collect())
}

/// Gates whose program is not on `path`: (gate name, program). Shell builtins and paths are not
/// programs to look for.
pub fn missing_gate_tools(
    gates: &[pawl_verify::gate::Check],
    path: &std::ffi::OsStr,
) -> Vec<(String, String)> {
    gates
        .iter()
        .filter_map(|g| {
            let p = pawl_core::seal::program_of(&g.command)?;
            if SHELL_WORDS.contains(&p) || which(p, path).is_some() {
                return None;
            }
            Some((g.name.clone(), p.to_owned()))
        })
        .collect()
}

/// Shell words a gate may start with that are not programs on PATH.
pub const SHELL_WORDS: &[&str] = &[
    "cd", "export", "set", "unset", "source", ".", "exec", "eval", "true", "false", ":", "test",
    "[", "echo", "printf", "if", "for", "while", "case", "!", "{", "(",
];

/// The `PATH` the checks will have in the room: the project's environment bin directories
/// (`.venv/bin`, `node_modules/.bin`, as the platform descriptors' `[environment]` name them,
/// when the repository has them), then the `PATH` pawl runs with, less every entry inside the
/// repository — the seal's rule (`pawl_core::seal::clean_path`).
pub fn checks_path(root: &std::path::Path) -> std::ffi::OsString {
    let env = Descriptors::builtin()
        .map(|d| d.environment())
        .unwrap_or_default();
    let mut dirs: Vec<String> = env
        .bin
        .iter()
        .map(|b| root.join(b))
        .filter(|p| p.is_dir())
        .map(|p| p.display().to_string())
        .collect();
    let path = std::env::var("PATH").unwrap_or_default();
    let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_owned());
    let sealed = pawl_core::seal::clean_path(&pawl_core::seal::clean_path(&path, root), &real);
    dirs.extend(
        sealed
            .split(':')
            .filter(|d| !d.is_empty())
            .map(str::to_owned),
    );
    dirs.join(":").into()
}

/// The command a project-environment runner runs (`uv run --no-sync ruff check .` → `ruff check
/// .`), its own options skipped (with their values, for the options that take one).
fn env_runner_inner(program: &str, rest: &[&str]) -> Option<String> {
    const TAKES_VALUE: &[&str] = &[
        "--with",
        "-w",
        "--with-editable",
        "--with-requirements",
        "--python",
        "-p",
        "--extra",
        "--group",
        "--only-group",
        "--package",
        "--env-file",
        "--directory",
        "--project",
        "--index",
        "--index-url",
        "--default-index",
        "--extra-index-url",
        "--find-links",
        "-f",
        "--no-extra",
        "--no-group",
    ];
    if !matches!((program, rest.first()), ("uv" | "poetry", Some(&"run"))) {
        return None;
    }
    let mut i = 1;
    while let Some(w) = rest.get(i) {
        if *w == "--" {
            i += 1;
            break;
        }
        if !w.starts_with('-') {
            break;
        }
        i += if TAKES_VALUE.contains(w) { 2 } else { 1 };
    }
    let inner = rest.get(i..).filter(|r| !r.is_empty())?;
    Some(inner.join(" "))
}

/// Why a gate's command would not start in the checks' environment (`path`, from
/// [`checks_path`]), or `None` when it resolves: its program is not on `path`; for
/// `python -m MOD`, the interpreter found there cannot import `MOD`; for `npm run X` (pnpm,
/// yarn), the program of the script `X` in `package.json` is neither in
/// `node_modules/.bin` nor on `path`. `pawl init` writes only gates that resolve; `pawl
/// doctor` can say the same of the gates a user wrote.
pub fn gate_unresolved(
    root: &std::path::Path,
    command: &str,
    path: &std::ffi::OsStr,
) -> Option<String> {
    let program = pawl_core::seal::program_of(command)?;
    if SHELL_WORDS.contains(&program) {
        return None;
    }
    let Some(found) = which(program, path) else {
        return Some(format!("`{program}` is not on the checks' PATH"));
    };
    let words: Vec<&str> = command.split_whitespace().collect();
    let at = words.iter().position(|w| *w == program).unwrap_or(0);
    let rest = words.get(at + 1..).unwrap_or_default();
    // `uv run X …`, `poetry run X …`: what must resolve is `X`, in the project's environment
    // (its `bin` is first on `path`); the runner being there says nothing about it.
    if let Some(inner) = env_runner_inner(program, rest) {
        return gate_unresolved(root, &inner, path);
    }
    if program.starts_with("python") && rest.first() == Some(&"-m") {
        let module = rest.get(1)?;
        let script = "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(sys.argv[1]) else 1)";
        let outcome = pawl_process::Command::new(&found)
            .args(["-c", script, module])
            .current_dir(root)
            .timeout(std::time::Duration::from_secs(20))
            .run()
            .ok()?;
        return (!outcome.success()).then(|| {
            format!(
                "`{}` cannot import `{module}` (install it into the project's environment, e.g. `.venv`)",
                found.display()
            )
        });
    }
    let script = match (program, rest) {
        ("npm" | "pnpm", ["run", name, ..]) | ("yarn", ["run", name, ..]) => Some(*name),
        ("npm" | "pnpm", [name, ..]) if matches!(*name, "test" | "t") => Some("test"),
        ("yarn", [name, ..]) if !name.starts_with('-') => Some(*name),
        _ => None,
    }?;
    let text = std::fs::read_to_string(root.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let line = json.get("scripts")?.get(script)?.as_str()?;
    let inner = pawl_core::seal::program_of(line)?;
    if SHELL_WORDS.contains(&inner) || which(inner, path).is_some() {
        return None;
    }
    Some(format!(
        "the script `{script}` runs `{inner}`, which is neither in node_modules/.bin nor on the checks' PATH (install the dependencies: `npm ci`)"
    ))
}
