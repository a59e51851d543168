//! Publishers, deployers and infrastructure tools (`Family::Deployer` in `registry.rs`), as rows:
//! a row names a program and the subcommand words (first operands, options skipped) that publish,
//! deploy ([`PUBLISH`], rule `publish`) or destroy ([`DESTROY`], rule `infra-destroy`); `*` means
//! every subcommand but the read-only ones written `!word`. Cloud CLIs ([`CLOUD`]) are judged by
//! their verbs. Other families whose programs publish (package managers, container runtimes) judge
//! their rows here too, through [`Walker::deploy`].

use std::ops::ControlFlow::Continue;

use crate::decision::RuleId;
use crate::walk::{Frame, Judged, Walker};
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
    ("docker", &["push", "image push", "manifest push", "login", "buildx build --push", "build --push", "buildx bake --push", "buildx imagetools create"]),
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
    // `exec`, `cp`, `attach`: a command or files in a cluster's pod, beyond the repository.
    ("kubectl", &["apply", "create", "patch", "replace", "scale", "rollout restart", "rollout undo", "set", "edit", "label", "annotate", "cordon", "taint", "run", "expose", "autoscale", "exec", "cp", "attach"]),
    ("oc", &["apply", "create", "patch", "replace", "scale", "rollout", "set", "edit", "new-app", "start-build", "exec", "rsh", "cp", "attach"]),
    ("railway", &["up", "deploy", "variables set"]),
    ("surge", &["*", "!--version", "!--help", "!list", "!whoami"]),
    ("gh-pages", &["*"]),
    // Editor extension marketplaces, Apps Script, preview packages, hosted reports.
    ("vsce", &["publish", "unpublish"]),
    ("ovsx", &["publish"]),
    ("clasp", &["push", "deploy", "undeploy", "version"]),
    ("pkg-pr-new", &["publish"]),
    ("smokeshow", &["upload"]),
    // Documentation sites: mike commits to the site branch (a ref outside the run's branch) and
    // pushes it with `--push`; `mkdocs gh-deploy` pushes.
    ("mike", &["deploy", "delete", "alias", "retitle", "set-default"]),
    ("mkdocs", &["gh-deploy"]),
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
    // Redis reads its commands in any case (`ANY_CASE`): the deletes and wipes.
    ("redis-cli", REDIS_DELETES),
    ("valkey-cli", REDIS_DELETES),
    ("keydb-cli", REDIS_DELETES),
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
];

/// Redis commands that delete or wipe data (a local server's data is beyond the repository: no
/// checkpoint keeps it).
#[rustfmt::skip]
const REDIS_DELETES: &[&str] = &[
    "flushall", "flushdb", "del", "unlink", "getdel", "hdel", "srem", "zrem", "lrem", "ltrim",
    "xdel", "xtrim", "zremrangebyscore", "zremrangebyrank", "zremrangebylex", "swapdb", "shutdown",
];

/// Programs that read their subcommand words in any case (`redis-cli DEL k` is `del`).
const ANY_CASE: &[&str] = &["redis-cli", "valkey-cli", "keydb-cli"];

/// [`DESTROY`] rows that remove only local containers and images: with `[sandbox] containers =
/// true` (`Context::containers`) they are part of what pawl can undo (an image is pulled or
/// built again), so they are allowed; volumes (which hold data) and prunes stay denied.
const UNDONE_WITH_CONTAINERS: &[(&str, &str)] = &[
    ("docker", "rm -f"),
    ("docker", "rmi -f"),
    ("podman", "rm -f"),
    ("podman", "rmi -f"),
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

/// Whether `base` is a program of the rows (a publisher, deployer, infrastructure tool or cloud CLI).
pub(crate) fn is_deployer(base: &str) -> bool {
    PUBLISH.iter().chain(DESTROY).any(|(n, _)| *n == base) || CLOUD.contains(&base)
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
    None
}

impl Walker<'_> {
    /// Judges `base args` against the rows: what destroys, then what publishes (a dry run
    /// publishes nothing), then a cloud CLI's verbs. Help and version requests change nothing.
    pub(crate) fn deploy(&mut self, base: &str, args: &[Arg], frame: &Frame) -> Judged {
        if super::is_help(args) {
            return Continue(());
        }
        let lowered: Vec<Arg>;
        let args = if ANY_CASE.contains(&base) {
            lowered = args
                .iter()
                .map(|a| Arg {
                    text: a.text.to_ascii_lowercase(),
                    ..a.clone()
                })
                .collect();
            &lowered[..]
        } else {
            args
        };
        // `yarn workspace app npm publish`: the workspace command is yarn's own.
        if base == "yarn" && args.first().is_some_and(|a| a.text == "workspace") {
            self.deploy(base, args.get(2..).unwrap_or_default(), frame)?;
        }
        for (name, words) in DESTROY {
            if *name == base
                && let Some(what) = row_matches(words, args)
                && !(self.ctx.containers && UNDONE_WITH_CONTAINERS.contains(&(base, what.as_str())))
            {
                return self.deny(
                    frame,
                    RuleId::InfraDestroy,
                    format!("`{base} {what}` destroys infrastructure, a system or data beyond the repository; that is for a human to run"),
                );
            }
        }
        let dry_run = args.iter().any(|a| {
            matches!(
                a.text.as_str(),
                "--dry-run"
                    | "--dryrun"
                    | "--dry"
                    | "--dry-run=client"
                    | "--dry-run=server"
                    | "--dry-run=true"
            )
        });
        for (name, words) in PUBLISH {
            if *name == base
                && !dry_run
                && let Some(what) = row_matches(words, args)
            {
                return self.deny(
                    frame,
                    RuleId::Publish,
                    format!("`{base} {what}` publishes or deploys beyond the repository: what leaves the machine cannot be taken back; the run's work stays on its branch until a human ships it; {}", dry_run_form(base)),
                );
            }
        }
        if CLOUD.contains(&base) {
            self.cloud(base, args, frame)?;
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
}

/// The nearest allowed form of a publishing command: its dry run, where the tool has one.
fn dry_run_form(base: &str) -> &'static str {
    match base {
        "kubectl" | "oc" => {
            "the same command with `--dry-run=client` (or `kubectl diff`) is allowed"
        }
        "helm" => "the same command with `--dry-run`, or `helm template`, is allowed",
        "terraform" | "tofu" => "`terraform plan` is allowed",
        "pulumi" => "`pulumi preview` is allowed",
        "cdk" => "`cdk diff`/`cdk synth` is allowed",
        "npm" | "pnpm" | "yarn" | "bun" | "cargo" | "twine" | "poetry" | "uv" | "gem" => {
            "the same command with `--dry-run` (where the tool has it) or the package build alone is allowed"
        }
        "docker" | "podman" | "buildah" => "building the image without pushing it is allowed",
        _ => "the same command with `--dry-run`, where the tool has it, is allowed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
