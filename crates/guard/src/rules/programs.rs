//! The program registry of guard v2: programs by family, as rows, and one judge per family.
//! Each family has its own rule id, on by default, that `[guard.rules]` may switch off:
//!
//! | family | rule | rows |
//! |---|---|---|
//! | publishers and deployers | `publish` | [`PUBLISH`] |
//! | infrastructure, disks, systems, databases | `infra-destroy` | [`DESTROY`], [`SYSTEM`], [`DB_CLIENTS`] |
//! | network clients | `secret-exfil` | [`NETWORK`] (and secret paths: [`is_secret_path`]) |
//! | container runtimes | `container-mount` | [`CONTAINERS`] |
//! | interpreters with a shell escape and no model | `shell-escape` | [`ESCAPES`] |
//! | tools that load code by themselves | `tool-config` | [`TOOL_FILES`], [`TOOL_RUNNERS`] |
//! | environment read by programs | `env-inject` | [`env_inject`] |
//!
//! A row names a program and the subcommand words (first operands, options skipped) that do the
//! dangerous thing; `*` means every subcommand but the read-only ones listed with `!`.
//!
//! Not here: git itself (`rules/git.rs`), gh/glab/hub/hg/svn (`rules/git.rs`, `forge`), files
//! (`rules/fs.rs`), interpreters the guard models (`rules/interp.rs`), pawl's own paths
//! (`rules/reach.rs`).

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::paths::normalize;
use crate::walk::Judged;
use crate::walk::{Cmd, Frame, Shell, Stdin, Walker};
use crate::words::Arg;

/// `(program, subcommand words)`: the program publishes or deploys when its first operands
/// start with one of the words (space-separated for two levels). `*`: any subcommand, except
/// those written `!word` in the same row (read-only ones).
#[rustfmt::skip]
pub(crate) const PUBLISH: &[(&str, &[&str])] = &[
    ("npm", &["publish", "unpublish", "deprecate", "dist-tag add", "dist-tag rm", "owner add", "owner rm", "access"]),
    ("yarn", &["publish", "npm publish", "npm tag"]),
    ("pnpm", &["publish"]),
    ("bun", &["publish"]),
    ("lerna", &["publish", "version"]),
    ("changeset", &["publish"]),
    ("semantic-release", &["*"]),
    ("release-it", &["*"]),
    ("np", &["*"]),
    ("cargo", &["publish", "yank", "owner"]),
    ("twine", &["upload", "register"]),
    ("poetry", &["publish"]),
    ("flit", &["publish"]),
    ("hatch", &["publish"]),
    ("uv", &["publish"]),
    ("pdm", &["publish"]),
    ("gem", &["push", "yank", "owner"]),
    ("mvn", &["deploy", "release:perform", "release:prepare"]),
    ("mvnw", &["deploy", "release:perform"]),
    ("dotnet", &["nuget push", "nuget delete"]),
    ("nuget", &["push", "delete"]),
    ("pod", &["trunk push"]),
    ("mix", &["hex.publish"]),
    ("rebar3", &["hex publish"]),
    ("docker", &["push", "image push", "manifest push", "login", "buildx build --push", "build --push", "buildx bake --push"]),
    ("podman", &["push", "image push", "manifest push", "login", "build --push"]),
    ("nerdctl", &["push", "image push", "login"]),
    ("buildah", &["push", "manifest push", "login"]),
    ("skopeo", &["copy", "sync", "delete", "login"]),
    ("crane", &["push", "copy", "cp", "append", "mutate", "tag", "delete", "rebase"]),
    ("ko", &["publish", "build", "apply", "resolve"]),
    ("helm", &["push", "install", "upgrade", "rollback", "repo add"]),
    ("vercel", &["*", "!ls", "!list", "!logs", "!whoami", "!inspect", "!help", "!env ls", "!dev", "!build", "!pull", "!link"]),
    ("netlify", &["deploy", "sites:create", "env:set", "api"]),
    ("flyctl", &["deploy", "launch", "secrets set", "scale", "apps create"]),
    ("fly", &["deploy", "launch", "secrets set", "scale", "apps create"]),
    ("heroku", &["*", "!logs", "!ps", "!apps", "!apps:info", "!config", "!config:get", "!releases", "!whoami", "!help", "!status", "!local"]),
    ("firebase", &["deploy", "hosting:channel:deploy", "functions:config:set", "database:set", "firestore:delete"]),
    ("wrangler", &["deploy", "publish", "pages deploy", "pages publish", "secret put", "kv:key put", "r2 object put", "versions deploy"]),
    ("serverless", &["deploy"]),
    ("sls", &["deploy"]),
    ("amplify", &["publish", "push"]),
    ("eb", &["deploy", "create"]),
    ("cdk", &["deploy", "bootstrap"]),
    ("sam", &["deploy", "publish", "sync"]),
    ("pulumi", &["up", "update", "import", "refresh", "stack rm"]),
    ("terraform", &["apply", "import", "taint", "untaint", "force-unlock", "state push", "state mv", "workspace new"]),
    ("tofu", &["apply", "import", "taint", "untaint", "force-unlock", "state push", "state mv"]),
    ("terragrunt", &["apply", "run-all", "import"]),
    ("kubectl", &["apply", "create", "patch", "replace", "scale", "rollout restart", "rollout undo", "set", "edit", "label", "annotate", "cordon", "taint", "run", "expose", "autoscale"]),
    ("oc", &["apply", "create", "patch", "replace", "scale", "rollout", "set", "edit", "new-app", "start-build"]),
    ("railway", &["up", "deploy", "variables set"]),
    ("surge", &["*", "!--version", "!--help", "!list", "!whoami"]),
    ("gh-pages", &["*"]),
    ("render", &["deploy"]),
    ("gcloud", &["app deploy", "run deploy", "functions deploy", "builds submit", "deploy"]),
    ("az", &["webapp up", "webapp deploy", "functionapp deploy", "deployment create", "acr push"]),
    ("jj", &["git push"]),
    ("sl", &["push", "pr submit", "ghstack"]),
    ("bzr", &["push", "send", "upload"]),
    ("brz", &["push", "send"]),
    ("fossil", &["push", "sync", "uv sync"]),
    ("darcs", &["push", "send"]),
    ("pijul", &["push"]),
    ("p4", &["submit", "shelve"]),
    ("cvs", &["commit", "ci", "import", "tag"]),
    ("git-tfs", &["checkin", "rcheckin"]),
    ("rclone", &["copy", "sync", "move", "copyto", "moveto"]),
    ("gsutil", &["cp", "rsync", "mv"]),
];

/// `(program, subcommand words)` that destroy infrastructure or data (same syntax as [`PUBLISH`]).
#[rustfmt::skip]
pub(crate) const DESTROY: &[(&str, &[&str])] = &[
    ("terraform", &["destroy", "apply -destroy", "state rm", "workspace delete"]),
    ("tofu", &["destroy", "apply -destroy", "state rm"]),
    ("terragrunt", &["destroy", "run-all destroy"]),
    ("pulumi", &["destroy", "stack rm"]),
    ("cdk", &["destroy"]),
    ("sam", &["delete"]),
    ("serverless", &["remove"]),
    ("sls", &["remove"]),
    ("kubectl", &["delete", "drain", "replace --force"]),
    ("oc", &["delete", "adm drain"]),
    ("helm", &["uninstall", "delete"]),
    ("heroku", &["apps:destroy", "pg:reset", "destroy"]),
    ("flyctl", &["destroy", "apps destroy", "volumes destroy"]),
    ("fly", &["destroy", "apps destroy", "volumes destroy"]),
    ("dropdb", &["*"]),
    ("dropuser", &["*"]),
    ("mysqladmin", &["drop"]),
    ("redis-cli", &["flushall", "flushdb"]),
    ("docker", &["system prune", "volume rm", "volume prune", "rm -f", "rmi -f"]),
    ("podman", &["system prune", "system reset", "volume rm", "volume prune"]),
    ("firebase", &["firestore:delete", "database:remove", "hosting:disable"]),
    ("wrangler", &["delete", "kv:namespace delete", "r2 bucket delete", "d1 delete"]),
    ("gsutil", &["rm", "rb"]),
    ("rclone", &["delete", "purge", "rmdir", "rmdirs", "dedupe"]),
    ("zpool", &["destroy", "labelclear"]),
    ("zfs", &["destroy", "rollback"]),
    ("lvremove", &["*"]),
    ("vgremove", &["*"]),
    ("pvremove", &["*"]),
    ("btrfs", &["subvolume delete", "device delete"]),
    ("virsh", &["destroy", "undefine"]),
    ("vagrant", &["destroy"]),
    ("systemctl", &["poweroff", "reboot", "halt", "kexec", "isolate", "rescue", "emergency", "mask", "disable --now"]),
    ("crontab", &["-r"]),
];

/// Cloud CLIs whose verbs are named like `delete-stack`, `terminate-instances`, `delete`:
/// any operand that is such a verb destroys.
#[rustfmt::skip]
pub(crate) const CLOUD: &[&str] = &["aws", "gcloud", "az", "doctl", "linode-cli", "hcloud", "scw", "ibmcloud", "oci", "exo", "vultr-cli", "awslocal"];

/// Verbs of [`CLOUD`] CLIs that destroy (whole operands, or operand prefixes ending in `-`).
#[rustfmt::skip]
const CLOUD_DESTROY: &[&str] = &["delete", "destroy", "terminate", "remove", "purge", "rb", "rm", "delete-", "terminate-", "remove-", "deregister-", "purge-", "drop-"];

/// Verbs of [`CLOUD`] CLIs that deploy or write (whole operands, or prefixes ending in `-`).
#[rustfmt::skip]
const CLOUD_WRITE: &[&str] = &["deploy", "create", "update", "put-", "create-", "update-", "deploy", "cp", "sync", "mv", "run-instances", "publish", "invoke", "start-", "stop-", "set-", "modify-", "attach-", "detach-", "upload-", "import-", "up"];

/// Programs that only destroy a system or disk when they run at all.
#[rustfmt::skip]
pub(crate) const SYSTEM: &[&str] = &[
    "mkfs", "mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "parted", "gdisk",
    "sgdisk", "blkdiscard", "shutdown", "reboot", "halt", "poweroff", "telinit", "killall5",
    "cryptsetup", "mdadm", "swapoff", "userdel", "groupdel", "deluser", "hdparm", "nvme",
];

/// Database clients: the SQL they are given (`-c`, `-e`, stdin) is read for destruction and
/// for their own shell escapes. `(program, options whose value is SQL)`.
#[rustfmt::skip]
pub(crate) const DB_CLIENTS: &[(&str, &[&str])] = &[
    ("psql", &["-c", "--command"]),
    ("mysql", &["-e", "--execute"]),
    ("mariadb", &["-e", "--execute"]),
    ("sqlcmd", &["-Q", "-q"]),
    ("cockroach", &["-e", "--execute"]),
    ("clickhouse-client", &["-q", "--query"]),
    ("clickhouse", &["-q", "--query"]),
    ("mongosh", &["--eval"]),
    ("mongo", &["--eval"]),
    ("cqlsh", &["-e", "--execute"]),
    ("duckdb", &["-c", "-cmd"]),
    ("usql", &["-c", "--command"]),
    ("pgcli", &["-e"]),
    ("mycli", &["-e", "--execute"]),
];

/// SQL (upper-cased, spaces squeezed) that destroys a database or its data.
#[rustfmt::skip]
const SQL_DESTROY: &[&str] = &[
    "DROP DATABASE", "DROP SCHEMA", "DROP TABLE", "DROP OWNED", "TRUNCATE", "DROP USER",
    "DROP ROLE", "DROP KEYSPACE", "DROP COLLECTION", "DROPDATABASE()", ".DROP()", "DELETEMANY({})", "FLUSHALL",
];

/// Text that is a shell escape in a database client or a calculator.
#[rustfmt::skip]
const SQL_ESCAPES: &[&str] = &["\\!", "\\o |", "\\o|", "\\g |", "\\g|", "PROGRAM", ".SHELL", ".SYSTEM", ".SH ", "SYSTEM ", "\\SETENV"];

/// Network clients: what they are given may leave the machine.
#[rustfmt::skip]
pub(crate) const NETWORK: &[&str] = &[
    "curl", "wget", "http", "https", "xh", "httpie", "nc", "ncat", "netcat", "socat", "telnet",
    "scp", "sftp", "ftp", "lftp", "rsync", "rclone", "ssh", "openssl", "mail", "mailx",
    "sendmail", "mutt", "aws", "gsutil", "gcloud", "az", "s3cmd", "mc", "smbclient", "tftp",
    "curlie", "aria2c", "grpcurl", "websocat", "wscat", "transfer", "croc", "magic-wormhole",
    "wormhole", "nslookup", "dig", "host", "ping",
];

/// Programs that print the whole environment (every secret variable in it).
#[rustfmt::skip]
const ENV_DUMPERS: &[&str] = &["env", "printenv", "export", "declare", "set", "compgen"];

/// Container runtimes: `run`/`create` with mounts, `--privileged`, the host's namespaces.
#[rustfmt::skip]
pub(crate) const CONTAINERS: &[&str] = &["docker", "podman", "nerdctl", "finch", "lima", "colima", "ctr", "crictl", "apptainer", "singularity", "udocker", "toolbox", "distrobox"];

/// Interpreters and programs with a shell escape the guard has no model of:
/// `(program, options whose value is code, stdin is code)`.
#[rustfmt::skip]
pub(crate) const ESCAPES: &[(&str, &[&str], bool)] = &[
    ("elixir", &["-e", "--eval", "-r", "--rpc-eval"], false),
    ("iex", &["-e", "--eval"], true),
    ("erl", &["-eval", "-s", "-run", "-noshell"], true),
    ("escript", &["-e"], false),
    ("guile", &["-c", "-e", "-l", "-x"], true),
    ("racket", &["-e", "--eval", "-r", "-l", "-i", "--require", "-t", "-u"], true),
    ("ghc", &["-e"], false),
    ("ghci", &["-e"], true),
    ("runghc", &["-e"], false),
    ("runhaskell", &["-e"], false),
    ("stack", &["eval", "exec", "ghci", "runghc", "script"], false),
    ("sbcl", &["--eval", "--script"], true),
    ("clisp", &["-x"], true),
    ("ecl", &["-eval"], true),
    ("ocaml", &["-e"], true),
    ("scala", &["-e"], false),
    ("groovy", &["-e"], false),
    ("jshell", &["-R", "-J"], true),
    ("kotlinc", &["-e", "-script"], false),
    ("octave", &["--eval"], true),
    ("matlab", &["-batch", "-r"], false),
    ("maxima", &["--batch-string", "-r"], true),
    ("sage", &["-c"], false),
    ("swift", &["-e"], true),
    ("crystal", &["eval"], true),
    ("nim", &["e", "secret"], false),
    ("dc", &["-e", "--expression"], true),
    ("m4", &[], true),
    ("gnuplot", &["-e"], true),
    ("lldb", &["-o", "--one-line", "-O", "--one-line-before-file", "-s", "-S"], true),
    ("nu", &["-c", "--commands"], true),
    ("xonsh", &["-c"], true),
    ("elvish", &["-c"], true),
    ("ion", &["-c"], true),
    ("oil", &["-c"], true),
    ("osh", &["-c"], true),
    ("ysh", &["-c"], true),
    ("rc", &["-c"], true),
    ("es", &["-c"], true),
    ("scsh", &["-c", "-e"], true),
    ("pike", &["-e"], true),
    ("gforth", &["-e", "--evaluate"], true),
    ("bqn", &["-e"], true),
    ("janet", &["-e"], true),
    ("fennel", &["-e", "--eval"], true),
    ("hy", &["-c"], true),
    ("clojure", &["-e", "-M", "-X"], false),
    ("clj", &["-e", "-M", "-X"], false),
    ("bb", &["-e", "--eval"], true),
    ("nbb", &["-e"], true),
    ("zx", &["--eval", "-e"], true),
    ("tsx", &["-e", "--eval"], true),
    ("ts-node", &["-e", "--eval", "-p", "--print"], true),
    ("qjs", &["-e", "--eval"], true),
    ("rhino", &["-e"], true),
    ("jjs", &["-e"], true),
    ("d8", &["-e"], true),
    ("gjs", &["-c", "--command"], true),
    ("vala", &[], true),
    ("chezscheme", &["--script"], true),
    ("scheme", &["--eval"], true),
    ("chicken", &["-e"], true),
    ("csi", &["-e", "-p", "-P"], true),
    ("gawk", &[], false),
];

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
    "--dns-result-order", "--experimental-", "--no-experimental-", "-W", "-Xmx", "-Xms",
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

/// Names of variables that hold secrets (upper-cased substrings).
#[rustfmt::skip]
const SECRET_VAR_PARTS: &[&str] = &[
    "TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "ACCESS_KEY",
    "CREDENTIAL", "AUTH", "SESSION_KEY", "_PAT", "DATABASE_URL", "DSN", "WEBHOOK",
];

/// Whether `path` (absolute, normalised) names a secret: keys, `.env` files, cloud and tool
/// credentials. Not examples (`.env.example`), not public keys.
pub(crate) fn is_secret_path(path: &str, home: Option<&str>) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".pub")
        || [
            ".example",
            ".sample",
            ".template",
            ".dist",
            ".schema",
            ".md",
        ]
        .iter()
        .any(|s| lower.contains(s))
    {
        return false;
    }
    let by_name = lower == ".env"
        || lower.starts_with(".env.")
        || lower.ends_with(".env")
        || lower.starts_with("id_rsa")
        || lower.starts_with("id_ed25519")
        || lower.starts_with("id_ecdsa")
        || lower.starts_with("id_dsa")
        || [
            ".pem",
            ".key",
            ".p12",
            ".pfx",
            ".jks",
            ".keystore",
            ".kdbx",
            ".ppk",
            ".gpg",
            ".asc",
            ".tfstate",
            ".tfvars",
        ]
        .iter()
        .any(|s| lower.ends_with(s))
        || [
            ".netrc",
            "_netrc",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            "credentials",
            "credentials.json",
            "credentials.yml",
            "credentials.yaml",
            "secrets.yml",
            "secrets.yaml",
            "secrets.json",
            "secrets.toml",
            "secrets.env",
            ".htpasswd",
            "shadow",
            "gshadow",
            "master.key",
            "service-account.json",
            ".pgpass",
            ".my.cnf",
            "hosts.yml",
            "config.json",
            "kubeconfig",
            "token",
            ".token",
            "auth.json",
        ]
        .contains(&lower.as_str())
            && !matches!(lower.as_str(), "config.json" | "hosts.yml")
        || lower.starts_with("service-account") && lower.ends_with(".json");
    if by_name {
        return true;
    }
    let in_dir =
        |dir: &str| path.contains(&format!("/{dir}/")) || path.ends_with(&format!("/{dir}"));
    if [
        "secrets",
        ".ssh",
        ".gnupg",
        ".aws",
        ".kube",
        ".azure",
        ".password-store",
    ]
    .iter()
    .any(|d| in_dir(d))
    {
        return true;
    }
    if let Some(home) = home {
        for rel in [
            ".docker/config.json",
            ".config/gh/hosts.yml",
            ".config/gcloud",
            ".config/hub",
            ".terraform.d/credentials.tfrc.json",
            ".cargo/credentials",
            ".cargo/credentials.toml",
            ".gem/credentials",
            ".config/op",
            ".vault-token",
        ] {
            let full = format!("{home}/{rel}");
            if path == full || path.starts_with(&format!("{full}/")) {
                return true;
            }
        }
    }
    path.starts_with("/etc/ssh/ssh_host_") && !lower.ends_with(".pub")
}

/// Whether the variable name `name` holds a secret by its name.
fn is_secret_var(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_VAR_PARTS.iter().any(|p| upper.contains(p))
}

/// The names of variables that the word `text` (as written) expands: `$X`, `${X...}`.
fn expanded_vars(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' {
            let mut start = i + 1;
            if bytes.get(start) == Some(&b'{') {
                start += 1;
            }
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            if end > start {
                out.push(&text[start..end]);
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// Whether `url` carries a password (`scheme://user:pass@host`, `https://x-access-token:$T@...`).
fn url_has_password(url: &str) -> bool {
    let Some((_, rest)) = url.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    match authority.rsplit_once('@') {
        Some((userinfo, _)) => userinfo
            .split_once(':')
            .is_some_and(|(_, pass)| !pass.is_empty()),
        None => false,
    }
}

/// The words of `args` that are not options, with the options that take a value skipped when
/// their value is attached; at most `n`.
fn first_operands(args: &[Arg], n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        if out.len() >= n {
            break;
        }
        let t = a.text.as_str();
        if t == "--" {
            continue;
        }
        if t.starts_with('-') && !out.is_empty() {
            // Options between subcommand words (`helm --debug install`) are skipped; an option
            // right at the start is kept as a word only when a row names it (`crontab -r`).
            continue;
        }
        out.push(t.to_owned());
    }
    out
}

/// Whether the row's `words` match the command: a word `a b` matches operands `a` then `b`;
/// a word starting with `-` matches when that option is anywhere in `args`.
fn row_matches(words: &[&str], args: &[Arg]) -> Option<String> {
    let mut operands: Vec<String> = Vec::new();
    let mut skip_next = false;
    let mut after_long = false;
    for a in args {
        let t = a.text.as_str();
        if skip_next {
            skip_next = false;
            continue;
        }
        if t.starts_with('-') {
            skip_next = VALUE_OPTIONS.contains(&t);
            // `--registry https://r.example publish`: an unknown long option's value looks
            // like one (a URL, a path, a host, a file).
            after_long = t.starts_with("--") && !t.contains('=');
            continue;
        }
        // A toolchain (`cargo +nightly publish`), or what is surely an option's value.
        if t.starts_with('+') || after_long && (t.contains(['/', ':', '.', '@'])) {
            after_long = false;
            continue;
        }
        after_long = false;
        operands.push(a.text.clone());
        if operands.len() == 3 {
            break;
        }
    }
    let has_opt = |o: &str| {
        args.iter()
            .any(|a| a.text == o || a.text.starts_with(&format!("{o}=")))
    };
    let excluded = words.iter().filter_map(|w| w.strip_prefix('!')).any(|w| {
        let parts: Vec<&str> = w.split(' ').collect();
        if parts[0].starts_with('-') {
            return has_opt(parts[0]);
        }
        operands.len() >= parts.len() && parts.iter().zip(&operands).all(|(p, o)| p == o)
    });
    for w in words {
        if w.starts_with('!') {
            continue;
        }
        if *w == "*" {
            if excluded {
                return None;
            }
            return Some(operands.first().cloned().unwrap_or_default());
        }
        let parts: Vec<&str> = w.split(' ').collect();
        let (subs, opts): (Vec<&str>, Vec<&str>) = parts.iter().partition(|p| !p.starts_with('-'));
        if subs.is_empty() {
            if opts.iter().all(|o| has_opt(o)) {
                return Some((*w).to_owned());
            }
            continue;
        }
        if operands.len() >= subs.len()
            && subs.iter().zip(&operands).all(|(p, o)| p == o)
            && opts.iter().all(|o| has_opt(o))
        {
            return Some((*w).to_owned());
        }
    }
    let _ = first_operands;
    None
}

/// Options that take a value in the programs of the rows (`kubectl -n prod delete`, `psql -h db`,
/// `redis-cli -n 2 flushdb`): their value is not a subcommand word.
#[rustfmt::skip]
const VALUE_OPTIONS: &[&str] = &[
    "-n", "--namespace", "--context", "--kubeconfig", "-h", "--host", "-U", "--username", "-p",
    "--port", "--profile", "--region", "-d", "--dbname", "--project", "-s", "--stage", "--config",
    "--cwd", "-a", "--app", "-u", "--user", "-H", "-P", "--org", "--account", "-t", "--target",
    "-w", "--workspace", "--registry", "--kube-context", "--otp", "-C", "--chdir", "--prefix",
    "--filter", "-F", "--manifest-path", "--package", "--repository", "--repository-url",
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
    /// Judges one simple command against the v2 program registry.
    pub(crate) fn programs(
        &mut self,
        cmd: &Cmd,
        base: &str,
        shell: &mut Shell,
        frame: &Frame,
    ) -> Judged {
        let args: Vec<Arg> = cmd.argv.iter().skip(1).cloned().collect();
        // `python3 -m twine upload`, `yarn workspace app npm publish`, `pnpm -r publish`: the
        // module or workspace command is judged as the program it is.
        let inner: Option<Vec<Arg>> = match base {
            b if b.starts_with("python") => args
                .iter()
                .position(|a| a.text == "-m")
                .and_then(|at| args.get(at + 1..))
                .filter(|rest| !rest.is_empty())
                .map(<[Arg]>::to_vec),
            "yarn" if args.first().is_some_and(|a| a.text == "workspace") => {
                args.get(2..).map(|rest| {
                    std::iter::once(Arg::lit("yarn"))
                        .chain(rest.iter().cloned())
                        .collect()
                })
            }
            _ => None,
        };
        if let Some(rest) = inner
            && let Some(name) = rest.first().and_then(Arg::exact).map(str::to_owned)
            && (name != base || base == "yarn")
        {
            let sub = Cmd {
                argv: rest,
                stdin: cmd.stdin.clone(),
            };
            self.programs(&sub, &name, shell, frame)?;
        }
        let help = args
            .first()
            .is_some_and(|a| matches!(a.text.as_str(), "--help" | "--version" | "help"))
            || (args.len() == 1 && args[0].text == "-h")
            || args.iter().any(|a| a.text == "--help");
        // A dry run publishes nothing.
        let dry_run = args
            .iter()
            .any(|a| matches!(a.text.as_str(), "--dry-run" | "--dryrun" | "--dry"));
        self.env_rule(base, shell, frame)?;
        self.secret_reads(cmd, base, shell);
        if NETWORK.contains(&base)
            && (base != "openssl" || args.iter().any(|a| a.text == "s_client"))
        {
            self.network(base, &args, &cmd.stdin, shell, frame)?;
        }
        if base == "git" {
            self.git_secrets(&args, shell, frame)?;
        }
        if help {
            return Continue(());
        }
        for (name, words) in DESTROY {
            if *name == base
                && let Some(what) = row_matches(words, &args)
            {
                return self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!("`{base} {what}` destroys infrastructure, a system or data beyond the repository; that is for a human to run"),
                );
            }
        }
        for (name, words) in PUBLISH {
            if *name == base
                && !dry_run
                && let Some(what) = row_matches(words, &args)
            {
                return self.deny(
                    frame,
                    RuleId::Publish,
                    format!("`{base} {what}` publishes or deploys beyond the repository; the run's work stays on its branch until a human ships it"),
                );
            }
        }
        if CLOUD.contains(&base) {
            self.cloud(base, &args, frame)?;
        }
        // Listing and inspecting change nothing (`fdisk -l`, `cryptsetup status`).
        let inspects = args.iter().any(|a| {
            matches!(
                a.text.as_str(),
                "-l" | "--list"
                    | "-p"
                    | "--print"
                    | "print"
                    | "list"
                    | "status"
                    | "luksDump"
                    | "--detail"
                    | "--examine"
                    | "-I"
                    | "-i"
                    | "--query"
                    | "-V"
                    | "--version"
                    | "-c"
            )
        });
        if (SYSTEM.contains(&base) || base.starts_with("mkfs.")) && !inspects {
            return self.deny(
                frame,
                RuleId::InfraDestroy,
                format!("`{base}` changes disks or the system itself"),
            );
        }
        match base {
            "dd" => self.dd(&args, frame)?,
            "chmod" | "chown" | "chgrp" | "setfacl" | "chattr" => {
                self.perm(base, &args, shell, frame)?
            }
            "kill" if args.last().is_some_and(|a| a.text == "-1" || a.text == "1") => self.deny(
                frame,
                RuleId::InfraDestroy,
                "`kill` of every process (-1) or of init (1)",
            )?,
            "init"
                if args
                    .iter()
                    .any(|a| matches!(a.text.as_str(), "0" | "6" | "1" | "s" | "S")) =>
            {
                self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    "`init` changes the system's runlevel",
                )?;
            }
            "iptables" | "ip6tables" | "nft" | "ufw"
                if args.iter().any(|a| {
                    matches!(
                        a.text.as_str(),
                        "-F" | "--flush" | "flush" | "disable" | "reset" | "-X"
                    )
                }) =>
            {
                self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!("`{base}` flushes or disables the firewall"),
                )?;
            }
            "cmake" => self.cmake_script(&args, shell, frame)?,
            "deno" => self.deno(&args, &cmd.stdin, frame)?,
            _ => {}
        }
        if CONTAINERS.contains(&base) {
            self.container(base, &args, shell, frame)?;
        }
        if let Some((_, opts)) = DB_CLIENTS.iter().find(|(n, _)| *n == base) {
            self.db_client(base, opts, &args, &cmd.stdin, frame)?;
        }
        if let Some((_, opts, stdin_code)) = ESCAPES.iter().find(|(n, _, _)| *n == base) {
            self.escape(base, opts, *stdin_code, &args, &cmd.stdin, frame)?;
        }
        if TOOL_RUNNERS.contains(&base) || base.starts_with("python") {
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

    fn home(&self) -> Option<String> {
        self.ctx
            .home
            .as_ref()
            .and_then(|h| h.to_str())
            .map(|h| h.trim_end_matches('/').to_owned())
    }

    /// Whether the word `arg` names a secret file (`@path`, `name=@path`, `--opt=path` forms too).
    fn names_secret(&self, arg: &Arg, shell: &Shell) -> Option<String> {
        if !arg.known {
            return None;
        }
        let home = self.home();
        let mut candidates = vec![arg.text.as_str()];
        if let Some((_, v)) = arg.text.split_once('=') {
            candidates.push(v);
        }
        let more: Vec<&str> = candidates
            .iter()
            .filter_map(|c| c.strip_prefix('@').or_else(|| c.strip_prefix('<')))
            .collect();
        candidates.extend(more);
        for c in candidates {
            if c.is_empty() || c.contains("://") {
                continue;
            }
            let c = c.split_once(';').map_or(c, |(p, _)| p);
            let expanded = match (c.strip_prefix("~/"), &home) {
                (Some(rest), Some(h)) => format!("{h}/{rest}"),
                _ => c.to_owned(),
            };
            if let Some(abs) = self.resolve(shell, &expanded)
                && is_secret_path(&abs, home.as_deref())
            {
                return Some(c.to_owned());
            }
        }
        None
    }

    /// A command that reads a secret (or dumps the environment) marks the line: a network
    /// client later in it may be sending it.
    fn secret_reads(&mut self, cmd: &Cmd, base: &str, shell: &Shell) {
        if self.secret_read.is_some() {
            return;
        }
        if ENV_DUMPERS.contains(&base) && cmd.argv.len() == 1 && base != "set" && base != "export" {
            self.secret_read = Some(format!("`{base}` prints every variable, secrets included"));
            return;
        }
        if let Some(file) = self.cmd_stdin_file.clone()
            && is_secret_path(&file, self.home().as_deref())
        {
            self.secret_read = Some(format!("`{file}` is a secret"));
            return;
        }
        if NETWORK.contains(&base)
            || matches!(
                base,
                "echo" | "printf" | "ls" | "test" | "[" | "stat" | "touch" | "mkdir" | "git"
            )
        {
            return;
        }
        for a in cmd.argv.iter().skip(1) {
            if let Some(p) = self.names_secret(a, shell) {
                self.secret_read = Some(format!("`{p}` is a secret"));
                return;
            }
        }
    }

    fn network(
        &mut self,
        base: &str,
        args: &[Arg],
        stdin: &Stdin,
        shell: &Shell,
        frame: &Frame,
    ) -> Judged {
        // The key an ssh-family client authenticates with is used, not sent.
        let identity = |i: usize| {
            matches!(base, "ssh" | "scp" | "sftp" | "rsync")
                && (i > 0 && matches!(args[i - 1].text.as_str(), "-i" | "-F" | "-o" | "-e")
                    || args[i].text.starts_with("-i")
                    || args[i].text.starts_with("IdentityFile"))
        };
        for (i, a) in args.iter().enumerate() {
            if identity(i) {
                continue;
            }
            if let Some(p) = self.names_secret(a, shell) {
                return self.deny(
                    frame,
                    RuleId::SecretExfil,
                    format!("`{base}` is given the secret `{p}`: it would leave the machine"),
                );
            }
            if !a.known
                && let Some(var) = expanded_vars(&a.text)
                    .into_iter()
                    .find(|v| is_secret_var(v))
            {
                return self.deny(
                    frame,
                    RuleId::SecretExfil,
                    format!(
                        "`{base}` is given the secret variable `${var}`: it would leave the machine"
                    ),
                );
            }
            if url_has_password(&a.text) {
                return self.deny(
                    frame,
                    RuleId::SecretExfil,
                    format!("`{base}` is given a URL with a password in it"),
                );
            }
        }
        if let Some(why) = self.secret_read.clone() {
            let _ = stdin;
            self.deny(
                frame,
                RuleId::SecretExfil,
                format!("{why}, and `{base}` in the same command line can send it off the machine; run them separately if the network call needs no secret"),
            )?;
        }
        Continue(())
    }

    /// `git add`/`commit` of a secret, credentials in a remote URL.
    fn git_secrets(&mut self, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let mut i = 0;
        while i < args.len() {
            let t = args[i].text.as_str();
            if matches!(t, "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace") {
                i += 2;
                continue;
            }
            if t.starts_with('-') {
                i += 1;
                continue;
            }
            break;
        }
        let Some(sub) = args.get(i).map(|a| a.text.clone()) else {
            return Continue(());
        };
        let rest = &args[i + 1..];
        if rest.iter().any(|a| url_has_password(&a.text)) {
            return self.deny(
                frame,
                RuleId::SecretExfil,
                "a git remote URL with a password in it: the credential would be stored and sent",
            );
        }
        if matches!(sub.as_str(), "add" | "stage" | "commit" | "update-index") {
            for a in rest.iter().filter(|a| !a.text.starts_with('-')) {
                if let Some(p) = self.names_secret(a, shell) {
                    return self.deny(
                        frame,
                        RuleId::SecretCommit,
                        format!("`git {sub}` of the secret `{p}`: once committed it is in the history for good"),
                    );
                }
            }
        }
        Continue(())
    }

    fn cloud(&mut self, base: &str, args: &[Arg], frame: &Frame) -> Judged {
        let ops: Vec<&str> = args
            .iter()
            .map(|a| a.text.as_str())
            .filter(|t| !t.starts_with('-'))
            .take(4)
            .collect();
        let verb_is = |list: &[&str], op: &str| {
            list.iter().any(|v| match v.strip_suffix('-') {
                Some(prefix) => op.starts_with(&format!("{prefix}-")),
                None => op == *v,
            })
        };
        // `aws s3 rm`, `aws ec2 terminate-instances`, `gcloud compute instances delete`.
        if let Some(op) = ops.iter().skip(1).find(|o| verb_is(CLOUD_DESTROY, o)) {
            return self.deny(
                frame,
                RuleId::InfraDestroy,
                format!("`{base} ... {op}` deletes cloud resources"),
            );
        }
        if let Some(op) = ops.iter().skip(1).find(|o| verb_is(CLOUD_WRITE, o)) {
            self.deny(
                frame,
                RuleId::Publish,
                format!("`{base} ... {op}` deploys or changes cloud resources"),
            )?;
        }
        Continue(())
    }

    fn dd(&mut self, args: &[Arg], frame: &Frame) -> Judged {
        for a in args {
            if let Some(dev) = a.text.strip_prefix("of=")
                && is_block_device(dev)
            {
                return self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!("`dd` onto the device `{dev}` destroys a disk"),
                );
            }
        }
        Continue(())
    }

    fn perm(&mut self, base: &str, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        let recursive = args.iter().any(|a| {
            a.text == "--recursive"
                || (a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains('R'))
        });
        let home = self.home();
        // The first operand of chmod/chown/chgrp is the mode or owner.
        let skip = usize::from(matches!(base, "chmod" | "chown" | "chgrp"));
        for a in args.iter().filter(|a| !a.text.starts_with('-')).skip(skip) {
            let text = match (a.text.strip_prefix('~'), home.as_deref()) {
                (Some(rest), Some(h)) => format!("{h}{rest}"),
                _ => a.text.clone(),
            };
            let Some(abs) = self.resolve(shell, &text) else {
                continue;
            };
            let system = abs == "/"
                || matches!(
                    abs.as_str(),
                    "/var" | "/home" | "/opt" | "/srv" | "/mnt" | "/media"
                )
                || [
                    "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/sys", "/proc",
                    "/dev", "/root",
                ]
                .iter()
                .any(|d| abs == *d || abs.starts_with(&format!("{d}/")));
            let home_itself = home
                .as_deref()
                .is_some_and(|h| abs == h || h.starts_with(&format!("{abs}/")));
            if system && (recursive || abs.matches('/').count() <= 2)
                || recursive && home_itself
                || a.glob && abs.starts_with('/') && abs.matches('/').count() <= 1
            {
                return self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!(
                        "`{base}` of `{}` changes the system's or HOME's permissions",
                        a.text
                    ),
                );
            }
        }
        Continue(())
    }

    fn cmake_script(&mut self, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
        if let Some(at) = args.iter().position(|a| a.text == "-P") {
            let script = args.get(at + 1);
            let unseen = script.is_none_or(|s| {
                !s.known
                    || matches!(s.text.as_str(), "-" | "/dev/stdin")
                    || s.text.starts_with("/dev/fd/")
                    || self.is_written(shell, s)
            });
            if unseen {
                self.deny(frame, RuleId::ShellEscape, "`cmake -P` runs a script the guard cannot read (`execute_process` runs any program)")?;
            }
        }
        Continue(())
    }

    fn deno(&mut self, args: &[Arg], stdin: &Stdin, frame: &Frame) -> Judged {
        let ops: Vec<&str> = args
            .iter()
            .map(|a| a.text.as_str())
            .filter(|t| *t == "-" || !t.starts_with('-'))
            .collect();
        let why = match ops.as_slice() {
            ["run", "-", ..] => Some("`deno run -` runs code from standard input"),
            ["run", url, ..]
                if url.starts_with("http://")
                    || url.starts_with("https://")
                    || url.starts_with("npm:")
                    || url.starts_with("jsr:") =>
            {
                Some("`deno run` of remote code the guard cannot read")
            }
            ["repl", ..] if args.iter().any(|a| a.text.starts_with("--eval")) => {
                Some("`deno repl --eval` runs code")
            }
            _ => None,
        };
        let _ = stdin;
        if let Some(why) = why {
            self.deny(frame, RuleId::ShellEscape, why)?;
        }
        Continue(())
    }

    fn container(&mut self, base: &str, args: &[Arg], shell: &Shell, frame: &Frame) -> Judged {
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
        let mut i = 0;
        while i < args.len() {
            let t = args[i].text.clone();
            let value = |i: usize, name: &str| -> Option<(Arg, usize)> {
                if t == name {
                    args.get(i + 1).cloned().map(|v| (v, i + 2))
                } else {
                    t.strip_prefix(&format!("{name}=")).map(|v| {
                        (
                            Arg {
                                text: v.to_owned(),
                                ..args[i].clone()
                            },
                            i + 1,
                        )
                    })
                }
            };
            if matches!(
                t.as_str(),
                "--privileged" | "--pid=host" | "--userns=host" | "--ipc=host" | "--uts=host"
            ) || t.starts_with("--cap-add")
                && args
                    .get(i + 1)
                    .is_some_and(|v| v.text.contains("SYS_ADMIN") || v.text == "ALL")
                || t.starts_with("--cap-add=") && (t.contains("SYS_ADMIN") || t.ends_with("=ALL"))
                || t == "--device"
                || t.starts_with("--device=")
            {
                return self.deny(
                    frame,
                    RuleId::ContainerMount,
                    format!("`{base} {t}` gives the container the host"),
                );
            }
            let mount = value(i, "-v")
                .or_else(|| value(i, "--volume"))
                .or_else(|| value(i, "--mount"))
                .or_else(|| value(i, "--bind"));
            let Some((spec, next)) = mount else {
                if t.starts_with("-v") && t.len() > 2 && !t.starts_with("--") {
                    let spec = Arg {
                        text: t[2..].to_owned(),
                        ..args[i].clone()
                    };
                    if self.bad_mount(
                        base,
                        &spec,
                        shell,
                        home.as_deref(),
                        root.as_deref(),
                        frame,
                    )? {
                        return Continue(());
                    }
                }
                i += 1;
                continue;
            };
            if self.bad_mount(base, &spec, shell, home.as_deref(), root.as_deref(), frame)? {
                return Continue(());
            }
            i = next;
        }
        Continue(())
    }

    /// Judges one mount specification; true when it denied.
    fn bad_mount(
        &mut self,
        base: &str,
        spec: &Arg,
        shell: &Shell,
        home: Option<&str>,
        root: Option<&str>,
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
                format!("`{base}` mounts `{source}` ({what}) into a container, where nothing the guard judges reaches"),
            )?;
            return Continue(true);
        }
        Continue(false)
    }

    fn db_client(
        &mut self,
        base: &str,
        opts: &[&str],
        args: &[Arg],
        stdin: &Stdin,
        frame: &Frame,
    ) -> Judged {
        let mut texts: Vec<String> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            for o in opts {
                if a.text == *o {
                    if let Some(v) = args.get(i + 1) {
                        texts.push(v.text.clone());
                    }
                } else if let Some(v) = a.text.strip_prefix(&format!("{o}=")) {
                    texts.push(v.to_owned());
                } else if o.len() == 2
                    && a.text.starts_with(o)
                    && !o.starts_with("--")
                    && a.text.len() > 2
                    && !a.text.starts_with("--")
                {
                    texts.push(a.text[2..].to_owned());
                }
            }
        }
        if let Stdin::Text(t) = stdin {
            texts.push(t.clone());
        }
        if base == "redis-cli" {
            return Continue(());
        }
        for text in texts {
            let squeezed: String = text
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_ascii_uppercase();
            if let Some(esc) = SQL_ESCAPES
                .iter()
                .find(|e| squeezed.contains(*e) || squeezed.starts_with(e.trim()))
            {
                return self.deny(
                    frame,
                    RuleId::ShellEscape,
                    format!(
                        "`{base}` is given `{}`, which runs a shell command",
                        esc.trim()
                    ),
                );
            }
            let nospace = squeezed.replace(' ', "");
            if let Some(what) = SQL_DESTROY
                .iter()
                .find(|d| squeezed.contains(*d) || nospace.contains(&d.replace(' ', "")))
            {
                return self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!("`{base}` is given `{what}`: it destroys a database or its data"),
                );
            }
            if let Some(at) = squeezed.find("DELETE FROM") {
                let stmt = squeezed[at..].split(';').next().unwrap_or("");
                if !stmt.contains(" WHERE ") {
                    return self.deny(
                        frame,
                        RuleId::InfraDestroy,
                        format!(
                            "`{base}` is given a `DELETE FROM` without `WHERE`: it empties a table"
                        ),
                    );
                }
            }
        }
        Continue(())
    }

    fn escape(
        &mut self,
        base: &str,
        opts: &[&str],
        stdin_code: bool,
        args: &[Arg],
        stdin: &Stdin,
        frame: &Frame,
    ) -> Judged {
        if base == "gawk" {
            return Continue(());
        }
        let code_opt = args.iter().find(|a| {
            opts.iter().any(|o| {
                a.text == *o || (o.starts_with("--") && a.text.starts_with(&format!("{o}=")))
            }) || (base == "stack" || base == "crystal" || base == "nim")
                && opts.contains(&a.text.as_str())
        });
        if let Some(o) = code_opt {
            // Calculators and text tools: only their escapes matter.
            if matches!(base, "dc" | "gnuplot") {
                let code: String = args
                    .iter()
                    .map(|a| a.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                if !code.contains('!') && !code.contains("system") {
                    return Continue(());
                }
            }
            return self.deny(
                frame,
                RuleId::ShellEscape,
                format!("`{base} {}` runs code in a language the guard has no model of; it can run any shell command", o.text),
            );
        }
        let stdin_text = match stdin {
            Stdin::Text(t) => Some(Some(t.as_str())),
            Stdin::Pipe | Stdin::Unknown => Some(None),
            Stdin::Inherited | Stdin::File => None,
        };
        if stdin_code && let Some(text) = stdin_text {
            if let Some(t) = text
                && matches!(base, "dc" | "m4" | "gnuplot")
                && !t.contains('!')
                && !t.contains("syscmd")
                && !t.contains("esyscmd")
                && !t.contains("system")
            {
                return Continue(());
            }
            self.deny(
                frame,
                RuleId::ShellEscape,
                format!("`{base}` reads code from standard input in a language the guard has no model of; it can run any shell command"),
            )?;
        }
        Continue(())
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

/// Whether `dev` names a block device (a whole disk or a partition).
pub(crate) fn is_block_device(dev: &str) -> bool {
    let dev = normalize("/", dev);
    let Some(name) = dev.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop", "disk", "mapper/", "disk/",
        "sr", "nbd", "zd", "rbd",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_paths_by_name_and_place() {
        let home = Some("/home/u");
        for p in [
            "/r/.env",
            "/r/.env.local",
            "/home/u/.ssh/id_rsa",
            "/r/server.pem",
            "/home/u/.aws/credentials",
            "/home/u/.docker/config.json",
            "/r/secrets/db.txt",
            "/home/u/.netrc",
            "/r/prod.tfvars",
        ] {
            assert!(is_secret_path(p, home), "{p}");
        }
        for p in [
            "/r/.env.example",
            "/home/u/.ssh/id_rsa.pub",
            "/r/src/main.rs",
            "/r/config.json",
            "/r/README.md",
            "/r/environment.ts",
        ] {
            assert!(!is_secret_path(p, home), "{p}");
        }
    }

    #[test]
    fn urls_with_passwords() {
        assert!(url_has_password("https://user:hunter2@example.com/x"));
        assert!(url_has_password(
            "https://x-access-token:$T@github.com/o/r.git"
        ));
        assert!(!url_has_password("https://github.com/o/r.git"));
        assert!(!url_has_password("git@github.com:o/r.git"));
        assert!(!url_has_password("https://user@example.com"));
    }

    #[test]
    fn rows_match_subcommands_and_exceptions() {
        let a = |v: &[&str]| v.iter().map(|s| Arg::lit(*s)).collect::<Vec<_>>();
        assert!(row_matches(&["publish"], &a(&["publish", "--access", "public"])).is_some());
        assert!(
            row_matches(&["dist-tag add"], &a(&["dist-tag", "add", "x@1", "latest"])).is_some()
        );
        assert!(row_matches(&["publish"], &a(&["test"])).is_none());
        assert!(row_matches(&["*", "!ls"], &a(&["ls"])).is_none());
        assert!(row_matches(&["*", "!ls"], &a(&["--prod"])).is_some());
        assert!(
            row_matches(
                &["apply -destroy"],
                &a(&["apply", "-destroy", "-auto-approve"])
            )
            .is_some()
        );
        assert!(row_matches(&["apply -destroy"], &a(&["apply"])).is_none());
        assert!(row_matches(&["-r"], &a(&["-r"])).is_some());
    }

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
    fn tool_files_and_devices() {
        assert!(is_tool_file("/r/tests/conftest.py"));
        assert!(is_tool_file("/r/.cargo/config.toml"));
        assert!(is_tool_file("/usr/lib/python3/site-packages/x.pth"));
        assert!(!is_tool_file("/r/src/app.py"));
        assert!(is_block_device("/dev/sda"));
        assert!(is_block_device("/dev/nvme0n1p1"));
        assert!(!is_block_device("/dev/null"));
        assert!(!is_block_device("/tmp/sda"));
    }
}
