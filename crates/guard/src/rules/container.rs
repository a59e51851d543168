//! Container runtimes (`Family::Container` in `registry.rs`; rule `container-mount`): a container
//! run with `/`, HOME, the repository read-write, a system or secret path or the Docker socket
//! mounted, `--privileged`, the host's namespaces, `SYS_ADMIN`, devices. Image pushes and prunes
//! are rows of `rules/deploy.rs`.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::rules::network::is_secret_path;
use crate::walk::{Frame, Judged, Shell, Walker};
use crate::words::Arg;

/// Container runtimes: `run`/`create` with mounts, `--privileged`, the host's namespaces.
#[rustfmt::skip]
pub(crate) const CONTAINERS: &[&str] = &["docker", "podman", "nerdctl", "finch", "lima", "colima", "ctr", "crictl", "apptainer", "singularity", "udocker", "toolbox", "distrobox"];

impl Walker<'_> {
    pub(crate) fn container(
        &mut self,
        base: &str,
        args: &[Arg],
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        let ops: Vec<&str> = args
            .iter()
            .map(|a| a.text.as_str())
            .filter(|t| !t.starts_with('-'))
            .take(2)
            .collect();
        let runs = matches!(ops.first(), Some(&("run" | "create" | "exec")))
            || matches!(ops.as_slice(), ["container", "run" | "create", ..])
            || matches!(ops.as_slice(), ["compose", "run", ..])
            || base == "distrobox"
            || base == "toolbox";
        if !runs {
            return Continue(());
        }
        let home = self.home();
        let root = self
            .ctx
            .repo_root
            .as_ref()
            .and_then(|r| r.to_str())
            .map(str::to_owned);
        for (i, arg) in args.iter().enumerate() {
            let t = arg.text.as_str();
            let all_caps = |v: &str| v.contains("SYS_ADMIN") || v.ends_with("ALL");
            if matches!(
                t,
                "--privileged"
                    | "--pid=host"
                    | "--userns=host"
                    | "--ipc=host"
                    | "--uts=host"
                    | "--device"
            ) || t.starts_with("--device=")
                || t == "--cap-add" && args.get(i + 1).is_some_and(|v| all_caps(&v.text))
                || t.starts_with("--cap-add=") && all_caps(t)
            {
                return self.deny(
                    frame,
                    RuleId::ContainerMount,
                    format!("`{base} {t}` gives the container the host"),
                );
            }
        }
        let tests_only = self.ctx.containers && runs_only_tests(args);
        for spec in super::option_values(args, &["-v", "--volume", "--mount", "--bind"]) {
            if self.bad_mount(
                base,
                &spec,
                shell,
                home.as_deref(),
                root.as_deref(),
                tests_only,
                frame,
            )? {
                return Continue(());
            }
        }
        Continue(())
    }

    /// Judges one mount specification; true when it denied.
    #[allow(clippy::too_many_arguments)] // the mount, its command's facts and the frame
    fn bad_mount(
        &mut self,
        base: &str,
        spec: &Arg,
        shell: &Shell,
        home: Option<&str>,
        root: Option<&str>,
        tests_only: bool,
        frame: &Frame,
    ) -> Judged<bool> {
        let text = spec.text.as_str();
        let (source, read_only) =
            if text.contains("type=") || text.contains("source=") || text.contains("src=") {
                let source = text
                    .split(',')
                    .find_map(|kv| {
                        kv.strip_prefix("source=")
                            .or_else(|| kv.strip_prefix("src="))
                    })
                    .unwrap_or("");
                (
                    source.to_owned(),
                    text.split(',')
                        .any(|kv| kv == "readonly" || kv == "ro" || kv == "readonly=true"),
                )
            } else {
                let mut parts = text.split(':');
                let source = parts.next().unwrap_or("").to_owned();
                let opts = parts.nth(1).unwrap_or("");
                (source, opts.split(',').any(|o| o == "ro"))
            };
        if source.is_empty() {
            return Continue(false);
        }
        if !spec.known {
            self.deny(
                frame,
                RuleId::ContainerMount,
                format!("`{base}` mounts `{text}`, which is not statically known"),
            )?;
            return Continue(true);
        }
        if !source.starts_with('/') && !source.starts_with('.') && !source.starts_with('~') {
            // A named volume.
            return Continue(false);
        }
        let expanded = match (source.strip_prefix('~'), home) {
            (Some(rest), Some(h)) => format!("{h}{rest}"),
            _ => source.clone(),
        };
        let Some(abs) = self.resolve(shell, &expanded) else {
            return Continue(false);
        };
        let holds = |dir: &str| {
            abs == dir || dir.starts_with(&format!("{}/", abs.trim_end_matches('/'))) || abs == "/"
        };
        let within = |dir: &str| abs.starts_with(&format!("{dir}/"));
        let why = if abs == "/"
            || abs.ends_with("docker.sock")
            || abs.ends_with("podman.sock")
            || abs.starts_with("/var/run")
            || abs.starts_with("/run")
        {
            Some("the host itself")
        } else if home.is_some_and(&holds) {
            Some("HOME")
        } else if root.is_some_and(|r| abs == r) && !read_only && tests_only {
            // `[sandbox] containers = true` and the container runs a test or build tool: the
            // working tree mounted for the tests, as the agent would run them itself.
            None
        } else if root.is_some_and(|r| abs == r) && !read_only {
            let why = if self.ctx.containers {
                "with a command other than a test or build tool (a shell, a deleter, git, inline code): it could reach `.git` and `.pawl`, which pawl could not undo"
            } else {
                "which pawl undoes only with `[sandbox] containers = true` in pawl.toml"
            };
            self.deny(
                frame,
                RuleId::ContainerMount,
                format!("`{base}` mounts the repository (`{source}`) read-write into a container {why}; the same run with a read-only mount (`{source}:/src:ro`) is allowed"),
            )?;
            return Continue(true);
        } else if root.is_some_and(&holds) && !read_only {
            Some("the repository")
        } else if home.is_some_and(&within)
            && !root.is_some_and(|r| abs == r || within(r))
            && !self.is_temp(&abs)
        {
            Some("a directory of HOME outside the repository")
        } else if is_secret_path(&abs, home)
            || ["/etc", "/root", "/boot", "/proc", "/sys", "/dev"]
                .iter()
                .any(|d| abs == *d || within(d))
        {
            Some("a system or secret path")
        } else {
            None
        };
        if let Some(what) = why {
            self.deny(
                frame,
                RuleId::ContainerMount,
                format!("`{base}` mounts `{source}` ({what}) into a container, where nothing the guard judges reaches: what it changes there pawl could not undo"),
            )?;
            return Continue(true);
        }
        Continue(false)
    }
}

/// Test and build tools a container may run on the mounted working tree (`[sandbox]
/// containers = true`).
#[rustfmt::skip]
const TEST_TOOLS: &[&str] = &[
    "npm", "pnpm", "yarn", "npx", "bun", "pytest", "python", "python3", "cargo", "go", "make",
    "tox", "nox", "uv", "poetry", "mvn", "gradle", "./gradlew", "bundle", "rspec", "jest",
    "vitest", "dotnet", "mix", "deno", "ctest", "ninja", "cmake", "composer", "phpunit",
];

/// Whether a container run's words name a test or build tool and nothing that could reach the
/// repository's history or pawl's files: no shell, deleter, git, inline code or their names.
fn runs_only_tests(args: &[Arg]) -> bool {
    let risky = |t: &str| {
        let base = t.rsplit('/').next().unwrap_or(t);
        matches!(
            base,
            "sh" | "bash"
                | "ash"
                | "dash"
                | "zsh"
                | "fish"
                | "busybox"
                | "rm"
                | "rmdir"
                | "find"
                | "git"
                | "shred"
                | "truncate"
                | "dd"
                | "mv"
                | "cp"
                | "rsync"
                | "tar"
                | "chmod"
                | "chown"
                | "ln"
                | "perl"
                | "ruby"
                | "node"
                | "php"
                | "-c"
                | "-e"
                | "--eval"
                | "--entrypoint"
                | "eval"
                | "xargs"
        ) || t.starts_with("--entrypoint")
            || t.contains(".git")
            || t.contains(".pawl")
    };
    args.iter().all(|a| a.known && !risky(&a.text))
        && args.iter().any(|a| TEST_TOOLS.contains(&a.text.as_str()))
}
