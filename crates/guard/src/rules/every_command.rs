//! The pass every command goes through after its family's judge (`walk/commands.rs`
//! `command_by_name`), for what does not depend on which program it is:
//!
//! - environment injection (rule `env-inject`): variables given to the command that make it load
//!   code the guard has not judged ([`PRELOAD_VARS`], [`CODE_PATH_VARS`]);
//! - secrets flowing into the network (rule `secret-exfil`, `rules/network.rs`): a secret read or
//!   the environment printed marks the line; a network client is judged for what it is given;
//! - code that tools load by themselves (rule `tool-config`): a [`TOOL_FILES`] file written
//!   earlier in the line, then a [`TOOL_RUNNERS`] program run.

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::walk::{Cmd, Frame, Judged, Shell, Stdin, Walker};

/// Files that a tool loads and runs by itself: `(file name or suffix, what loads it)`. A name
/// starting with `*` is a suffix; one containing `/` a path suffix.
#[rustfmt::skip]
pub(crate) const TOOL_FILES: &[&str] = &[
    "conftest.py", "setup.py", "sitecustomize.py", "usercustomize.py", "noxfile.py",
    "*.pth", "pytest.ini", "tox.ini", "setup.cfg", "jest.config.js", "jest.config.ts",
    "jest.config.mjs", "jest.config.cjs", "vitest.config.ts", "vitest.config.js",
    "vite.config.ts", "vite.config.js", "webpack.config.js", "babel.config.js", ".babelrc.js",
    "eslint.config.js", "eslint.config.mjs", ".eslintrc.js", ".eslintrc.cjs",
    "prettier.config.js", ".prettierrc.js", "rollup.config.js", "rollup.config.mjs",
    "next.config.js", "next.config.mjs", ".mocharc.js", "karma.conf.js", "playwright.config.ts",
    "playwright.config.js", "gulpfile.js", "Gruntfile.js", "Rakefile", "build.rs",
    ".cargo/config.toml", ".cargo/config", ".yarnrc.yml", ".yarnrc", ".pnpmfile.cjs",
    "Makefile", "makefile", "GNUmakefile", "*.mk", "CMakeLists.txt", "meson.build", "justfile",
    "Justfile", "Taskfile.yml", ".pre-commit-config.yaml", "build.gradle", "build.gradle.kts",
    "settings.gradle", "settings.gradle.kts", "pom.xml", "Makefile.PL", "Build.PL",
    "docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml", ".npmrc",
    "lefthook.yml", ".lintstagedrc.js", "lint-staged.config.js", "tsconfig.json",
    "package.json", "pyproject.toml", "Cargo.toml", "go.mod", ".bazelrc", "BUILD", "BUILD.bazel",
    "WORKSPACE", "deno.json", "bunfig.toml", ".swcrc", "svelte.config.js", "astro.config.mjs",
    "nuxt.config.ts", "tailwind.config.js", "postcss.config.js", "stylelint.config.js",
    "Gemfile", ".rspec", "spec_helper.rb", ".irbrc", ".pryrc", ".gdbinit", ".lldbinit",
    "Vagrantfile", "Tiltfile", "Earthfile", "flake.nix", "default.nix", "shell.nix",
];

/// Programs that load [`TOOL_FILES`] (the package managers, test runners and build tools).
#[rustfmt::skip]
pub(crate) const TOOL_RUNNERS: &[&str] = &[
    "pytest", "py.test", "python", "python3", "pip", "pip3", "tox", "nox", "uv", "poetry",
    "pdm", "hatch", "jest", "vitest", "vite", "webpack", "eslint", "prettier", "rollup", "next",
    "mocha", "karma", "playwright", "gulp", "grunt", "npx", "npm", "yarn", "pnpm", "bun",
    "node", "deno", "cargo", "rustc", "make", "gmake", "cmake", "meson", "ninja", "just",
    "task", "rake", "bundle", "rspec", "ruby", "irb", "gradle", "gradlew", "mvn", "mvnw",
    "perl", "pre-commit", "lefthook", "docker", "docker-compose", "podman", "podman-compose",
    "bazel", "bazelisk", "go", "tsc", "swc", "svelte-kit", "astro", "nuxt", "tailwindcss",
    "postcss", "stylelint", "gdb", "lldb", "vagrant", "tilt", "earthly", "nix", "nix-shell",
    "nix-build", "direnv", "lint-staged", "turbo", "nx",
];

/// Variables that make a program load a library or code before its own: any value.
#[rustfmt::skip]
const PRELOAD_VARS: &[&str] = &[
    "LD_PRELOAD", "LD_AUDIT", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH",
    "DYLD_FRAMEWORK_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
    "PYTHONSTARTUP", "PYTHONINSPECT", "PERL5DB", "RUBYOPT", "PERL5OPT", "NODE_OPTIONS",
    "GCONV_PATH", "GIT_EXEC_PATH", "MAKESHELL", "SHELLOPTS",
    "BASHOPTS", "PYTHONWARNINGS", "NODE_REPL_EXTERNAL_MODULE", "ELECTRON_RUN_AS_NODE",
    "npm_config_script_shell", "NPM_CONFIG_SCRIPT_SHELL", "YARN_YARN_PATH", "npm_config_node_options",
];

/// Values of [`PRELOAD_VARS`] that are harmless (`RUBYOPT=-W0`, `NODE_OPTIONS=--max-old-space-size=4096`,
/// `CC=gcc`): a value is allowed when every word of it starts with one of these.
#[rustfmt::skip]
const PRELOAD_SAFE: &[&str] = &[
    "--max-old-space-size", "--max-semi-space-size", "--enable-source-maps", "--no-warnings",
    "--no-deprecation", "--trace-warnings", "--stack-size", "--experimental-vm-modules",
    "--openssl-legacy-provider", "--unhandled-rejections", "--heapsnapshot", "--trace-deprecation",
    "--dns-result-order", "--no-experimental-", "-W", "-Xmx", "-Xms",
    // Node's experimental switches of language features; not `--experimental-loader`,
    // `--experimental-network-imports` or any other that loads code from somewhere.
    "--experimental-specifier-resolution", "--experimental-json-modules",
    "--experimental-default-type", "--experimental-detect-module", "--experimental-require-module",
    "--experimental-strip-types", "--experimental-transform-types", "--experimental-fetch",
    "--experimental-global-webcrypto", "--experimental-wasm-modules", "--experimental-modules",
    "--experimental-top-level-await", "--experimental-repl-await", "--experimental-abortcontroller",
    "--experimental-worker", "--experimental-report", "--experimental-global-customevent",
    "-Dfile.encoding", "-Djava.awt.headless", "-Duser.timezone", "gcc", "g++", "clang", "clang++",
    "cc", "c++", "ld", "ar", "sccache", "ccache", "-j", "--jobs", "-s", "--silent", "-k", "ignore",
    "default", "error", "-Eutf-8", "--disable-gems", "-rbundler/setup", "--no-opt",
];

/// Variables that add directories to where a program looks for code: a temporary directory or
/// one this command line wrote into makes its code the guard never saw load first.
#[rustfmt::skip]
const CODE_PATH_VARS: &[&str] = &[
    "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB",
    "GEM_PATH", "GEM_HOME", "LD_LIBRARY_PATH", "CLASSPATH", "GOPATH", "GOFLAGS", "LUA_PATH",
    "LUA_CPATH", "R_LIBS", "R_LIBS_USER", "JULIA_LOAD_PATH", "BUNDLE_GEMFILE", "PATH",
];

/// What an environment variable assignment would make a program do, or `None` when harmless.
pub(crate) fn env_inject(
    name: &str,
    value: Option<&str>,
    temp_or_written: &dyn Fn(&str) -> bool,
) -> Option<String> {
    if PRELOAD_VARS.contains(&name) {
        let Some(value) = value else {
            return Some(format!(
                "`{name}` is set to a value that is not statically known: programs would load code from it"
            ));
        };
        if value.is_empty() {
            return None;
        }
        let safe = value.split_whitespace().all(|w| {
            // Node and V8 read `--max_old_space_size` as `--max-old-space-size`: the option's
            // name is compared with dashes.
            let normal;
            let w = match w.strip_prefix("--") {
                Some(rest) => {
                    let (opt, arg) = rest
                        .split_once('=')
                        .map_or((rest, None), |(o, a)| (o, Some(a)));
                    normal = match arg {
                        Some(a) => format!("--{}={a}", opt.replace('_', "-")),
                        None => format!("--{}", opt.replace('_', "-")),
                    };
                    normal.as_str()
                }
                None => w,
            };
            PRELOAD_SAFE.iter().any(|s| {
                w == *s
                    || w.strip_prefix(s).is_some_and(|rest| {
                        s.starts_with("--")
                            || rest
                                .starts_with(|c: char| c.is_ascii_digit() || c == '=' || c == ':')
                    })
            })
        });
        if safe {
            return None;
        }
        return Some(format!(
            "`{name}={value}` makes programs load code the guard has not judged"
        ));
    }
    if CODE_PATH_VARS.contains(&name) {
        let Some(value) = value else {
            return (name != "PATH").then(|| format!("`{name}` is set to a value that is not statically known: programs would load code from it"));
        };
        for (i, dir) in value.split(':').enumerate() {
            // PATH: only what comes before the system's own directories matters; `.` or an
            // empty entry is the current directory.
            let risky = (dir.is_empty() || dir == ".") && name == "PATH"
                || dir.is_empty() && i == 0 && name == "PATH"
                || temp_or_written(dir);
            if risky {
                return Some(format!(
                    "`{name}` puts `{}` where programs look for code first: what was written there is run unjudged",
                    if dir.is_empty() { "." } else { dir }
                ));
            }
        }
    }
    None
}

impl Walker<'_> {
    /// The every-command pass (see the module).
    pub(crate) fn every_command(
        &mut self,
        cmd: &Cmd,
        base: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let args = cmd.argv.get(1..).unwrap_or_default();
        self.env_rule(base, shell, frame)?;
        self.effects(base, args, frame)?;
        self.outputs(base, args, shell, frame)?;
        self.secret_reads(cmd, base, shell);
        if super::network::is_network_client(base, args) {
            self.network(base, args, &cmd.stdin, shell, frame)?;
        }
        // Package tools fetch from the index URLs they are given (`--index-url`).
        if super::exec::PACKAGE_TOOLS.contains(&base)
            || base.starts_with("pip")
            || base.starts_with("python")
        {
            self.credentials_in_urls(base, args, frame)?;
        }
        if !super::is_help(args) && (TOOL_RUNNERS.contains(&base) || base.starts_with("python")) {
            self.tool_files(base, shell, frame)?;
        }
        Continue(())
    }

    /// Environment given to this command (`VAR=x cmd`, `export VAR=x; cmd`).
    fn env_rule(&mut self, base: &str, shell: &Shell, frame: &Frame) -> Judged {
        if matches!(
            base,
            "export"
                | "unset"
                | "declare"
                | "typeset"
                | "local"
                | "readonly"
                | "echo"
                | "printf"
                | "true"
                | ":"
        ) {
            return Continue(());
        }
        let mut seen: Vec<&str> = Vec::new();
        let vars = shell
            .env
            .iter()
            .rev()
            .map(|(n, v)| (n.as_str(), v.clone()))
            .chain(shell.vars.iter().map(|(n, v)| (n.as_str(), v.clone())));
        let mut found: Option<String> = None;
        for (name, value) in vars {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            if !PRELOAD_VARS.contains(&name) && !CODE_PATH_VARS.contains(&name) {
                continue;
            }
            let temp_or_written = |dir: &str| {
                let Some(abs) = self.resolve(shell, dir) else {
                    return true;
                };
                self.is_temp(&abs)
                    || self
                        .written
                        .iter()
                        .any(|(w, _)| w == &abs || w.starts_with(&format!("{abs}/")))
            };
            if name == "PATH" && value.is_none() {
                continue;
            }
            if let Some(why) = env_inject(name, value.as_deref(), &temp_or_written) {
                found = Some(why);
                break;
            }
        }
        if let Some(why) = found {
            self.deny(frame, RuleId::EnvInject, why)?;
        }
        Continue(())
    }

    /// Whether `abs` is in a temporary directory.
    pub(crate) fn is_temp(&self, abs: &str) -> bool {
        let tmp = |root: &str| abs == root || abs.starts_with(&format!("{root}/"));
        tmp("/tmp")
            || tmp("/var/tmp")
            || tmp("/dev/shm")
            || self
                .ctx
                .tmpdir
                .as_ref()
                .and_then(|t| t.to_str())
                .is_some_and(|t| tmp(t.trim_end_matches('/')))
    }

    pub(crate) fn home(&self) -> Option<String> {
        self.ctx
            .home
            .as_ref()
            .and_then(|h| h.to_str())
            .map(|h| h.trim_end_matches('/').to_owned())
    }

    /// A file a tool loads by itself, written earlier in this command line, then the tool run.
    fn tool_files(&mut self, base: &str, shell: &mut Shell, frame: &Frame) -> Judged {
        let hit = self
            .written
            .iter()
            .rev()
            .find(|(path, _)| is_tool_file(path))
            .cloned();
        let Some((path, content)) = hit else {
            return Continue(());
        };
        let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
        if let Some(text) = content {
            let text = &text;
            // Python the guard can read: judged as the code it is.
            if name.ends_with(".py") {
                let inner = frame.nested(&format!("{name} loaded by {base}"));
                let mut sub = shell.clone();
                if self.interpreter("python3", &[], &Stdin::Text(text.clone()), &mut sub, &inner)? {
                    return Continue(());
                }
            }
            if name.ends_with(".js") || name.ends_with(".cjs") || name.ends_with(".mjs") {
                let inner = frame.nested(&format!("{name} loaded by {base}"));
                let mut sub = shell.clone();
                if self.interpreter("node", &[], &Stdin::Text(text.clone()), &mut sub, &inner)? {
                    return Continue(());
                }
            }
        }
        self.deny(
            frame,
            RuleId::ToolConfig,
            format!("`{path}` is written earlier in this command line and `{base}` loads and runs it by itself; the guard cannot see what it would do (write it in one command, run the tool in the next)"),
        )
    }
}

/// Whether `path` is a file some tool loads and runs by itself ([`TOOL_FILES`]).
pub(crate) fn is_tool_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    TOOL_FILES.iter().any(|f| {
        if let Some(suffix) = f.strip_prefix('*') {
            name.ends_with(suffix)
        } else if f.contains('/') {
            path.ends_with(&format!("/{f}")) || path == *f
        } else {
            name == *f
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_injection_values() {
        let none = |_: &str| false;
        let tmp = |d: &str| d.starts_with("/tmp");
        assert!(env_inject("LD_PRELOAD", Some("/tmp/x.so"), &none).is_some());
        assert!(env_inject("NODE_OPTIONS", Some("--require ./x.js"), &none).is_some());
        assert!(env_inject("NODE_OPTIONS", Some("--max-old-space-size=4096"), &none).is_none());
        assert!(env_inject("PYTHONPATH", Some("/tmp/evil"), &tmp).is_some());
        assert!(env_inject("PYTHONPATH", Some("src"), &tmp).is_none());
        assert!(env_inject("PATH", Some(".:/usr/bin"), &none).is_some());
        assert!(env_inject("PATH", Some("/usr/local/bin:/usr/bin"), &none).is_none());
        assert!(env_inject("HOME", Some("/tmp"), &tmp).is_none());
    }

    #[test]
    fn tool_files() {
        assert!(is_tool_file("/r/tests/conftest.py"));
        assert!(is_tool_file("/r/.cargo/config.toml"));
        assert!(is_tool_file("/usr/lib/python3/site-packages/x.pth"));
        assert!(!is_tool_file("/r/src/app.py"));
    }
}
