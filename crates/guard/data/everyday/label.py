#!/usr/bin/env python3
"""Label mined everyday commands `allow` / `deny` by the rule in BRIEF.md.

Usage:
    python3 label.py [--in mined.tsv] [--overrides overrides.tsv] [--out everyday.tsv]

The rule (see BRIEF.md): judge by effect and reversibility. What pawl can undo
(files of the run's repository, regenerable ignored files, temp files, scratch
databases) is allowed; what cannot be undone (anything leaving the machine,
history destruction, persistence outside the repository, switching pawl off;
containers while they are off, which is the default) is denied.

This script was written from that rule only, without reading the guard.
Every row is split into simple commands (quote-aware split on `;` `&&` `||` `|`
`&`, with `$( )` and backtick bodies examined too); a row is denied when any of
its simple commands, redirections or pipelines is denied. Rows the rules cannot
decide are fixed in overrides.tsv (command, label, effect, note, reason).

Output columns: command label effect repo path note
  effect: `-` for allow; for deny one of publish, remote-change, remote-read,
          persistence, history, system, container, secrets, pawl-off.
  note:   `var`    the effect depends on a variable or environment the row
                   does not show; labelled by the most plausible value.
          `name`   the effect depends on the body of a script/target the row
                   only names (npm run deploy, make release); labelled by name.
          `-`      otherwise.
"""

import argparse
import os
import re
import shlex
import sys

# ------------------------------------------------------------------ splitting

WRAPPERS = {
    "time", "nohup", "exec", "command", "builtin", "nice", "stdbuf", "caffeinate",
    "unbuffer", "chronic", "ionice", "setsid", "xvfb-run", "dbus-run-session",
}
# wrappers that take options/arguments before the wrapped command
RUNNERS = {
    # program: number of leading words that are the runner itself
    ("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"),
    ("hatch", "run"), ("bundle", "exec"), ("pnpm", "exec"), ("npm", "exec"),
    ("yarn", "exec"), ("rye", "run"), ("pixi", "run"), ("conda", "run"),
    ("mise", "exec"), ("dotenvx", "run"), ("op", "run"), ("doppler", "run"),
    ("nix", "develop"), ("cargo", "run"), ("direnv", "exec"),
}
SIMPLE_RUNNERS = {"npx", "bunx", "pnpx", "dlx", "cross-env", "env", "timeout",
                  "xargs", "sh", "bash", "zsh", "retry", "watch", "sudo", "doas",
                  "catchsegv", "valgrind", "gdb", "lldb", "coverage", "nyc", "c8",
                  "dotenv", "env-cmd", "with-contenv", "pkgx"}


def split_top(cmd):
    """Split a command line into simple-command strings on ; && || | & and
    newlines, outside quotes; also return the bodies of $( ) and backticks."""
    parts = []
    subs = []
    cur = []
    q = None
    i = 0
    n = len(cmd)
    while i < n:
        c = cmd[i]
        if q == "'":
            cur.append(c)
            if c == "'":
                q = None
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            cur.append(cmd[i : i + 2])
            i += 2
            continue
        if q == '"':
            if c == '"':
                q = None
                cur.append(c)
                i += 1
                continue
        if c == "$" and i + 1 < n and cmd[i + 1] == "(" and not cmd.startswith("$((", i):
            depth = 0
            j = i + 1
            while j < n:
                if cmd[j] == "(":
                    depth += 1
                elif cmd[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            subs.append(cmd[i + 2 : j])
            cur.append(cmd[i : j + 1])
            i = j + 1
            continue
        if c == "`":
            j = cmd.find("`", i + 1)
            if j < 0:
                j = n
            subs.append(cmd[i + 1 : j])
            cur.append(cmd[i : j + 1])
            i = j + 1
            continue
        if q == '"':
            cur.append(c)
            i += 1
            continue
        if c in "'\"":
            q = c
            cur.append(c)
            i += 1
            continue
        if c in ";\n" or c == "&" or c == "|":
            # keep >& and &> and |& as redirections/pipes
            if c == "&" and (cur and cur[-1] in (">", "<")):
                cur.append(c)
                i += 1
                continue
            if c == "&" and i + 1 < n and cmd[i + 1] == ">":
                cur.append(c)
                i += 1
                continue
            parts.append(("".join(cur), c))
            cur = []
            if i + 1 < n and cmd[i + 1] in "&|" and c in "&|":
                i += 2
            else:
                i += 1
            continue
        if c in "(){}" and not "".join(cur).strip():
            i += 1
            continue
        cur.append(c)
        i += 1
    parts.append(("".join(cur), ""))
    out = []
    for p, sep in parts:
        p = p.strip()
        p = re.sub(r"^[(){}!\s]+", "", p)
        p = re.sub(r"[)}\s]+$", "", p) if not re.search(r"\$\([^)]*\)$", p) else p
        if p:
            out.append(p)
    for s in subs:
        out.extend(split_top(s)[0])
    return out, [sep for _, sep in parts]


def words(seg):
    try:
        return shlex.split(seg, comments=True)
    except ValueError:
        return seg.split()


KEYWORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "fi", "done"}


def strip_prefix(ws):
    """Drop shell keywords, env assignments and transparent wrappers."""
    while ws:
        w = ws[0]
        if w in KEYWORDS:
            ws = ws[1:]
            continue
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w):
            ws = ws[1:]
            continue
        if w in WRAPPERS:
            ws = ws[1:]
            continue
        break
    return ws


# ------------------------------------------------------------------ paths

HOME_SAFE = re.compile(
    r"^(~|\$HOME|\$\{HOME\})/(\.cache|\.npm|\.cargo/registry|\.cargo/git|\.m2/repository|"
    r"\.gradle/caches|\.pnpm-store|\.yarn/cache|go/pkg|\.rustup/tmp|\.local/share/pnpm/store|Library/Caches|\.sonar/cache|"
    r"\.ccache|\.cache/[\w.-]+)(/|$)"
)
SYSTEM_PATH = re.compile(
    r"^(/etc|/usr|/opt|/bin|/sbin|/lib|/lib64|/var(?!/tmp)|/boot|/Library|/Applications|/System|/proc|/sys|/root|/srv|/snap)(/|$)"
)
PERSIST_PATH = re.compile(
    r"^(~|\$HOME|\$\{HOME\}|/home/[^/]+|/Users/[^/]+)(/|$)"
)
TEMP_PATH = re.compile(r"^(/tmp|/var/tmp|\$TMPDIR|\$\{TMPDIR\}|\$RUNNER_TEMP|/dev/null|/dev/std(out|err)|/dev/fd)(/|$)")


# name of the repository the row comes from; an absolute path through a directory of that
# name (/home/u/<name>/src/x) is taken to be inside the run's repository
CURRENT_REPO = {"name": None}


def path_effect(p):
    """Classify a written/deleted path: None (allowed), 'system', 'persistence', or 'var'."""
    p = p.strip("'\"")
    if not p or p == "-":
        return None
    name = CURRENT_REPO["name"]
    if name and re.match(r"^(/home/[^/]+|/Users/[^/]+|~|\$HOME)/", p) and ("/" + name.lower() + "/") in (p.lower() + "/"):
        return None
    if TEMP_PATH.match(p):
        return None
    if HOME_SAFE.match(p):
        return None
    if re.search(r"(^|/)\.(bashrc|bash_profile|profile|zshrc|zprofile|zshenv|config/fish)", p):
        return "persistence"
    if SYSTEM_PATH.match(p):
        return "system"
    if p == "/" or p.startswith("/*"):
        return "system"
    if PERSIST_PATH.match(p):
        return "persistence"
    if re.match(r"^\$\{?(ANDROID_HOME|ANDROID_SDK_ROOT|JAVA_HOME|GOROOT|GOPATH|CARGO_HOME|RUSTUP_HOME|PNPM_HOME|NVM_DIR|PYENV_ROOT|HOMEBREW_PREFIX|XDG_CONFIG_HOME|XDG_DATA_HOME)\b", p) and not HOME_SAFE.match(p.replace("$CARGO_HOME", "~/.cargo")):
        return "persistence"
    if p.startswith("$") and not p.startswith(("$PWD", "${PWD", "$(pwd", "$GITHUB_WORKSPACE")):
        return "var"
    return None


def redirects(seg):
    out = []
    for m in re.finditer(r"(?<![<&0-9])(?:[12&]?>>?|>\|)\s*([^\s;&|<>]+)", seg):
        t = m.group(1)
        if t.startswith("&"):
            continue
        out.append(t)
    return out


# ------------------------------------------------------------------ rules

DENY = "deny"
ALLOW = "allow"

REMOTE_HOST = re.compile(r"^[\w.-]+@[\w.-]+:|^[\w-]+(\.[\w-]+)+:(?!//)|^s3://|^gs://|^az://|^rsync://")
LOCALHOST = re.compile(r"(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\]|host\.docker\.internal)")

PUBLISH_TASK = re.compile(
    r"^(deploy|release|publish|upload|ship|push|gh-pages|dist-upload|semantic-release|"
    r"release:(publish|push|upload|ci|do|run)|deploy:.*|publish:.*|.*:deploy|.*:publish|.*-deploy|deploy-.*|.*-publish|publish-.*|"
    r"release-(publish|push|upload|it|please)|upload-.*|docker-push|push-.*)$"
)
CONTAINER_TASK = re.compile(r"^(docker.*|.*docker|.*:docker|compose.*|container.*|podman.*|.*-image|image.*)$")

GH_READ = {
    ("pr", "view"), ("pr", "list"), ("pr", "checks"), ("pr", "diff"), ("pr", "status"),
    ("issue", "view"), ("issue", "list"), ("issue", "status"), ("run", "view"), ("run", "list"),
    ("run", "watch"), ("repo", "view"), ("release", "list"), ("release", "view"),
    ("workflow", "list"), ("workflow", "view"), ("search", "*"), ("api", "GET"), ("auth", "status"),
    ("label", "list"), ("cache", "list"), ("secret", "list"), ("variable", "list"), ("browse", "*"),
    ("status", "*"), ("gist", "view"), ("gist", "list"), ("project", "list"), ("project", "view"),
    ("ruleset", "list"), ("ruleset", "view"), ("attestation", "verify"), ("run", "download"),
    ("release", "download"), ("repo", "clone"), ("pr", "checkout"), ("extension", "list"),
}


def has(ws, *opts):
    return any(w in opts or any(w.startswith(o + "=") for o in opts if o.startswith("--")) for w in ws)


def git_rule(ws):
    args = [w for w in ws[1:]]
    # skip global options
    while args and args[0].startswith("-"):
        if args[0] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") and len(args) > 1:
            args = args[2:]
        else:
            args = args[1:]
    if not args:
        return None
    sub, rest = args[0], args[1:]
    if sub == "push":
        return DENY, "publish"
    if sub == "config":
        if has(rest, "--global", "--system"):
            if has(rest, "--get", "--list", "-l", "--get-all", "--get-regexp", "--show-origin") :
                return None
            return DENY, "persistence"
        keys = [w for w in rest if not w.startswith("-")]
        if keys and re.match(r"(?i)^(core\.hookspath|core\.fsmonitor|core\.sshcommand|core\.pager|core\.editor|alias\.|credential\.|include\.|includeif\.|filter\.|diff\..*\.textconv|url\..*\.insteadof|http\..*extraheader)", keys[0]):
            if len(keys) >= 2 or has(rest, "--add", "--replace-all"):
                return DENY, "persistence"
        return None
    if sub == "reflog" and rest and rest[0] in ("expire", "delete"):
        return DENY, "history"
    if sub == "gc" and any(w.startswith("--prune") for w in rest):
        return DENY, "history"
    if sub == "prune":
        return DENY, "history"
    if sub == "update-ref":
        return DENY, "history"
    if sub in ("filter-branch", "filter-repo", "replace"):
        return DENY, "history"
    if sub == "branch":
        if has(rest, "-d", "-D", "--delete", "-f", "--force", "-m", "-M", "--move", "-c", "-C") or any(re.match(r"^-[a-zA-Z]*[dDfmM]", w) for w in rest):
            return DENY, "history"
        return None
    if sub == "tag":
        if has(rest, "-d", "--delete", "-f", "--force"):
            return DENY, "history"
        return None
    if sub == "stash" and rest and rest[0] in ("drop", "clear"):
        return DENY, "history"
    if sub == "clean" and any(re.match(r"^-[a-zA-Z]*x", w) or w == "-X" for w in rest) and any(re.match(r"^-[a-zA-Z]*f", w) or w == "--force" for w in rest):
        return DENY, "history"
    if sub == "remote" and rest and rest[0] in ("remove", "rm"):
        return DENY, "history"
    if sub == "lfs" and rest and rest[0] in ("install", "uninstall") and not has(rest, "--local", "--worktree"):
        return DENY, "persistence"
    if sub == "credential" or sub == "credential-store":
        return DENY, "secrets"
    if sub == "send-email" or sub == "request-pull" and False:
        return DENY, "publish"
    if sub == "send-email":
        return DENY, "publish"
    return None


def gh_rule(ws):
    args = [w for w in ws[1:]]
    while args and args[0].startswith("-"):
        if args[0] in ("-R", "--repo") and len(args) > 1:
            args = args[2:]
        else:
            args = args[1:]
    if not args or args[0] in ("--version", "help", "--help", "version", "completion"):
        return None
    if has(args, "--help", "-h"):
        return None
    sub = args[0]
    op = args[1] if len(args) > 1 else "*"
    if sub == "api":
        method = "GET"
        for i, w in enumerate(args):
            if w in ("-X", "--method") and i + 1 < len(args):
                method = args[i + 1].upper()
            elif w.startswith("--method="):
                method = w.split("=", 1)[1].upper()
            elif w.startswith("-X") and len(w) > 2:
                method = w[2:].upper()
        if method == "GET" and any(w in ("-f", "-F", "--field", "--raw-field", "--input") or w.startswith(("--field=", "--raw-field=")) for w in args) and not has(args, "-X", "--method"):
            if "graphql" in args and not any("mutation" in w for w in args):
                return DENY, "remote-read"
            method = "POST"
        if method == "GET":
            return DENY, "remote-read"
        return DENY, "remote-change"
    if sub == "auth":
        if op in ("status", "token"):
            return DENY, ("remote-read" if op == "status" else "secrets")
        return DENY, "secrets"
    if sub in ("secret", "variable") and op not in ("list",):
        return DENY, "secrets"
    if sub == "release" and op in ("create", "upload", "edit", "delete", "delete-asset"):
        return DENY, "publish"
    if sub == "extension" and op in ("install", "upgrade", "remove"):
        return DENY, "persistence"
    if sub == "alias" and op in ("set", "delete", "import"):
        return DENY, "persistence"
    if sub == "config" and op == "set":
        return DENY, "persistence"
    if sub == "config":
        return None
    if (sub, op) in GH_READ or (sub, "*") in GH_READ:
        if (sub, op) in (("run", "download"), ("release", "download"), ("repo", "clone"), ("pr", "checkout")):
            return None
        return DENY, "remote-read"
    return DENY, "remote-change"


def curl_rule(ws):
    args = ws[1:]
    data = any(
        w in ("-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "-F", "--form",
              "-T", "--upload-file", "--json")
        or w.startswith(("--data", "--form=", "--json=", "--upload-file="))
        for w in args
    )
    method = None
    for i, w in enumerate(args):
        if w in ("-X", "--request") and i + 1 < len(args):
            method = args[i + 1].upper()
        elif re.match(r"^-X[A-Z]+$", w):
            method = w[2:]
    urls = [w for w in args if re.match(r"^(https?|ftp|s3)://", w) or re.match(r"^\$\{?\w*URL", w)]
    local = urls and all(LOCALHOST.search(u) for u in urls)
    auth = any(re.search(r"(?i)authorization|private-token|api-?key|token|secret|cookie|bearer|password", w) for w in args) or has(args, "-u", "--user", "--oauth2-bearer")
    if local:
        return None
    if data or (method and method not in ("GET", "HEAD", "OPTIONS")):
        if not urls and not any("$" in w for w in args):
            return None
        return DENY, "remote-change"
    if auth:
        return DENY, "secrets"
    return None


PKG_GLOBAL = re.compile(r"^(-g|--global|--location=global)$")


def node_pm_rule(prog, args):
    if not args:
        return None
    sub = args[0]
    if sub in ("publish", "unpublish", "deprecate", "dist-tag", "owner", "access", "team", "star", "unstar") and prog != "bun" or (prog == "bun" and sub == "publish"):
        if sub == "dist-tag" and len(args) > 1 and args[1] in ("ls", "list"):
            return DENY, "remote-read"
        if sub == "publish" and has(args, "--dry-run", "--dryrun"):
            return None
        return DENY, "publish"
    if prog == "yarn" and sub == "npm" and len(args) > 1 and args[1] == "publish":
        return DENY, "publish"
    if prog == "yarn" and sub == "global":
        return DENY, "persistence"
    if sub in ("login", "adduser", "logout", "token"):
        return DENY, "secrets"
    if sub in ("link",) and (len(args) == 1 or has(args, "-g", "--global")):
        return DENY, "persistence"
    if sub in ("install", "i", "add", "update", "up", "upgrade", "remove", "rm", "uninstall", "un", "link", "ci") and any(PKG_GLOBAL.match(w) for w in args[1:]):
        return DENY, "persistence"
    if sub == "config" and len(args) > 1 and args[1] in ("set", "delete", "edit", "rm", "unset"):
        if prog == "yarn" and not has(args, "-H", "--home", "-g", "--global"):
            return ALLOW, "-", "var"
        if has(args, "--location=project", "--local"):
            return None
        return DENY, "persistence"
    if sub == "set" and prog == "npm":
        return DENY, "persistence"
    if prog == "pnpm" and sub == "setup":
        return DENY, "persistence"
    if prog == "pnpm" and sub == "env" and len(args) > 1 and args[1] in ("use", "add", "remove"):
        return DENY, "persistence"
    for i, w in enumerate(args):
        if w == "--publish" and i + 1 < len(args) and args[i + 1] in ("always", "onTag", "onTagOrDraft"):
            return DENY, "publish"
    if sub in ("exec", "dlx", "x") or (prog == "yarn" and sub == "dlx"):
        rest = args[1:]
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] in ("-p", "--package", "-c", "--call") and not rest[0].startswith("--package=") else rest[1:]
        if rest:
            r = rule_for(rest, " ".join(rest), {})
            if r is None:
                r = generic_verb_rule(rest)
            return r
        return None
    if sub in ("run", "run-script") or (prog in ("yarn", "pnpm", "bun") and sub not in KNOWN_PM_SUBS):
        name = args[1] if sub in ("run", "run-script") and len(args) > 1 else sub
        r = task_name_rule(name)
        if r:
            return r
    return None


KNOWN_PM_SUBS = {
    "install", "i", "add", "remove", "rm", "ci", "test", "t", "run", "exec", "dlx", "build", "why",
    "outdated", "audit", "list", "ls", "info", "view", "pack", "version", "init", "create", "link",
    "unlink", "cache", "config", "workspace", "workspaces", "up", "upgrade", "update", "dedupe",
    "install-test", "start", "stop", "restart", "prune", "rebuild", "x", "store", "patch",
    "patch-commit", "licenses", "import", "fetch", "recursive", "-r", "--filter", "-w", "-C",
    "--cwd", "dev", "node", "set", "npm", "constraints", "dedupe", "explain", "plugin",
}


def task_name_rule(name):
    n = name.lower()
    if re.search(r"migrat|prisma|db:|drizzle", n):
        return None
    if PUBLISH_TASK.match(n):
        return DENY, "publish", "name"
    if CONTAINER_TASK.match(n) and not re.search(r"lint|check|test|validate|fmt|format", n):
        return DENY, "container", "name"
    return None


def make_rule(args, assigns=()):
    targets = [a for a in args if not a.startswith("-") and "=" not in a]
    if any(re.match(r"^(DESTDIR|PREFIX|prefix|INSTALL_DIR|BINDIR|INSTALL_PREFIX)=", a) and path_effect(a.split("=", 1)[1]) is None and not a.split("=", 1)[1].startswith("/") for a in assigns):
        return None
    # skip option values for -C/-f/-j
    for t in targets:
        if t == "install":
            return DENY, "system", "name"
        if t in ("uninstall",):
            return DENY, "system", "name"
        r = task_name_rule(t)
        if r:
            return r
    return None


def pip_rule(prog, args):
    if not args:
        return None
    sub = args[0]
    if sub == "install" or sub == "uninstall":
        if has(args, "--user"):
            return DENY, "persistence"
        if has(args, "--system", "--break-system-packages"):
            return DENY, "system"
        if has(args, "--target", "-t", "--prefix", "--root"):
            for i, w in enumerate(args):
                if w in ("--target", "-t", "--prefix", "--root") and i + 1 < len(args):
                    pe = path_effect(args[i + 1])
                    if pe and pe != "var":
                        return DENY, pe
        return ALLOW, "-", "var"
    if sub == "config" and len(args) > 1 and args[1] in ("set", "unset", "edit"):
        return DENY, "persistence"
    if sub == "download":
        return None
    return None


def cloud_rule(prog, args):
    if not args or has(args, "--version", "version", "--help", "help", "-h"):
        return None
    ro_words = {"list", "ls", "describe", "get", "show", "info", "status", "whoami", "logs",
                "get-caller-identity", "print-access-token", "inspect", "view"}
    if any(a in ("login", "auth", "configure") for a in args[:2]):
        if prog == "aws" and args[0] == "configure" and len(args) > 1 and args[1] in ("list", "get"):
            return DENY, "remote-read"
        return DENY, "secrets"
    if prog == "aws" and args[0] == "s3" and len(args) > 1 and args[1] in ("cp", "sync", "mv"):
        rest = [a for a in args[2:] if not a.startswith("-")]
        if rest and rest[-1].startswith("s3://"):
            return DENY, "publish"
        return DENY, "remote-read"
    if any(a in ro_words or a.startswith(("describe-", "list-", "get-")) for a in args[:4]):
        return DENY, "remote-read"
    return DENY, "remote-change"


def kubectl_rule(args):
    if not args or args[0] in ("version", "--help", "help", "completion", "explain", "kustomize", "api-resources") and "--client" in args or (args and args[0] in ("completion", "kustomize", "--help", "help")):
        return None
    if args[0] == "version" and has(args, "--client"):
        return None
    if args[0] == "config":
        if len(args) > 1 and args[1] in ("view", "get-contexts", "current-context", "get-clusters"):
            return None
        return DENY, "persistence"
    if any(a == "--dry-run=client" or a == "--dry-run" for a in args) and args[0] in ("apply", "create", "delete", "patch", "run", "expose"):
        return None
    if args[0] in ("get", "describe", "logs", "top", "version", "api-resources", "api-versions", "cluster-info", "explain", "auth", "events", "wait", "diff"):
        return DENY, "remote-read"
    return DENY, "remote-change"


def helm_rule(args):
    if not args:
        return None
    sub = args[0]
    if sub in ("template", "lint", "package", "version", "help", "--help", "show", "create", "completion", "env", "verify"):
        return None
    if sub in ("dependency", "dep") and len(args) > 1 and args[1] in ("build", "update", "list", "up"):
        return None
    if sub == "push":
        return DENY, "publish"
    if sub == "repo":
        if len(args) > 1 and args[1] in ("list", "ls", "update", "index", "up"):
            return None
        return DENY, "persistence"
    if sub == "registry":
        return DENY, "secrets"
    if sub == "plugin":
        if len(args) > 1 and args[1] in ("list", "ls"):
            return None
        return DENY, "persistence"
    if sub in ("list", "ls", "status", "get", "history", "search"):
        if sub == "search" and len(args) > 1 and args[1] == "repo":
            return None
        return DENY, "remote-read"
    if sub in ("install", "upgrade") and any(a in ("--dry-run=client",) for a in args):
        return None
    return DENY, "remote-change"


def terraform_rule(args):
    args = [a for a in args if not a.startswith("-chdir")]
    if not args:
        return None
    sub = args[0]
    if sub in ("fmt", "validate", "version", "-version", "--version", "providers", "graph", "console", "get", "-help", "help", "test", "metadata", "modules"):
        return None
    if sub == "init":
        return ALLOW, "-", "var"
    if sub in ("plan", "refresh", "output", "show") :
        return DENY, "remote-read"
    if sub == "state" and len(args) > 1 and args[1] in ("list", "show", "pull"):
        return DENY, "remote-read"
    if sub in ("login",):
        return DENY, "secrets"
    return DENY, "remote-change"


PKG_SYS = {"apt-get", "apt", "yum", "dnf", "zypper", "pacman", "apk", "snap", "port",
           "choco", "winget", "emerge", "pkg", "flatpak", "rpm", "dpkg", "update-alternatives",
           "add-apt-repository", "apt-key", "yum-config-manager", "microdnf", "xbps-install", "softwareupdate", "installer", "mas"}
PKG_SYS_RO = re.compile(r"^(list|search|show|info|policy|--version|-v|-V|query|-q[a-zA-Z]*|-Q[a-zA-Z]*|-l|-L|--list|madison|depends|rdepends|-S[si]|-Ss|-Si|files)$")


def rule_for(ws, seg, ctx):
    """Return (label, effect[, note]) for one simple command, or None (allow)."""
    ws = strip_prefix(ws)
    if not ws:
        return None
    prog = ws[0]
    base = prog.rsplit("/", 1)[-1]
    args = ws[1:]

    # ---- a wrapper held in a variable ("$HELPER" cmd ...): judge the wrapped command
    if prog.startswith("$") and args and re.match(r"^[a-z][\w.-]*$", args[0]):
        r = rule_for(args, seg, ctx)
        if r is None:
            return ALLOW, "-", "var"
        return (r[0], r[1], "var")
    if base == "xargs":
        rest = list(args)
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] in ("-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a") else rest[1:]
        if rest:
            return rule_for(rest, seg, ctx)
        return None

    # ---- privilege / system
    if base in ("sudo", "doas", "su", "pkexec"):
        rest = list(args)
        while rest and rest[0].startswith("-"):
            rest = rest[2:] if rest[0] in ("-u", "-g", "-C", "-D", "-h", "-p", "-U") else rest[1:]
        rest = strip_prefix(rest)
        if not rest:
            return None if base == "sudo" and not args else (DENY, "system")
        ib = rest[0].rsplit("/", 1)[-1]
        if ib in ("ls", "cat", "dmesg", "lsof", "journalctl", "id", "whoami", "true", "du", "df", "find", "grep", "head", "tail", "stat", "ps", "test", "[", "ss", "netstat", "getfacl", "lsusb", "lspci") or (ib == "fuser" and not has(rest, "-k")):
            return None
        if ib == "systemctl" and rule_for(rest, seg, ctx) is None:
            return None
        if len(rest) == 2 and rest[1] in ("version", "--version", "-V", "-v", "info", "ps"):
            return None
        if ib in ("mkdir", "chown", "chmod", "rm", "touch", "cp", "mv", "tee"):
            paths = [a for a in rest[1:] if not a.startswith("-") and not re.match(r"^[\w$(){}-]+:[\w$(){}-]*$", a) and not re.match(r"^[0-7]{3,4}$|^[ugoa]*[+-=][rwxXst]+$", a)]
            if ib == "cp" or ib == "mv":
                paths = paths[-1:]
            if paths and all(TEMP_PATH.match(p.strip("'\"")) for p in paths):
                return None
        if ib in ("kubectl", "kind", "podman", "docker", "nerdctl", "ctr", "crictl"):
            return rule_for(rest, seg, ctx)
        return DENY, "system"
    if base in PKG_SYS:
        sub = next((a for a in args if not a.startswith("-") or PKG_SYS_RO.match(a)), "")
        if PKG_SYS_RO.match(sub) or base == "rpm" and any(re.match(r"^-q", a) for a in args) or base == "dpkg" and any(a in ("-l", "-L", "-s", "--print-architecture", "-S", "--status", "--listfiles") for a in args):
            return None
        return DENY, "system"
    if base in ("systemctl", "service", "launchctl", "crontab", "update-rc.d", "chkconfig", "loginctl", "sysctl", "modprobe", "insmod", "rmmod", "mount", "umount", "ldconfig", "useradd", "usermod", "groupadd", "passwd", "chsh", "visudo", "swapon", "mkswap", "ufw", "iptables", "setcap", "csrutil", "spctl", "defaults", "scutil", "pmset", "networksetup", "security", "ip", "ifconfig", "hostnamectl", "timedatectl", "localectl", "update-ca-certificates", "mkfs", "fdisk", "parted", "dd", "tccutil", "reboot", "shutdown", "halt", "poweroff"):
        if base == "systemctl" and (not [a for a in args if not a.startswith("-")] or [a for a in args if not a.startswith("-")][0] in ("status", "is-active", "is-enabled", "list-units", "show", "cat", "list-unit-files", "--version", "list-dependencies", "is-failed", "list-timers")) or base == "systemctl" and has(args, "--user") and args and args[0] in ("status",):
            return None
        if base == "launchctl" and args and args[0] in ("list", "print", "getenv", "managername"):
            return None
        if base == "crontab" and has(args, "-l"):
            return None
        if base == "sysctl" and not has(args, "-w") and not any("=" in a for a in args):
            return None
        if base == "security" and args and args[0] in ("find-identity", "find-certificate", "list-keychains", "show-keychain-info", "cms", "verify-cert", "dump-keychain"):
            return None
        if base == "defaults" and args and args[0] in ("read", "read-type", "domains", "find"):
            return None
        if base == "ip" and args and args[0] in ("addr", "a", "link", "route", "r", "-br", "-4", "-6") and not any(a in ("add", "del", "set", "delete", "change", "replace", "flush") for a in args):
            return None
        if base == "ifconfig" and len(args) <= 1:
            return None
        if base == "mount" and not args:
            return None
        if base == "dd":
            of = [a[3:] for a in args if a.startswith("of=")]
            if not of or all(path_effect(o) is None and not o.startswith("/dev/") or o.startswith("/dev/null") for o in of):
                return None
        if base == "ip" or base == "ifconfig":
            return DENY, "system"
        if base in ("systemctl", "service") and not any(a in ("enable", "disable", "mask", "unmask", "link", "preset", "set-default", "edit", "add-wants", "revert") for a in args):
            return DENY, "system"
        if base in ("crontab", "launchctl", "systemctl", "service", "update-rc.d", "chkconfig", "loginctl", "defaults"):
            return DENY, "persistence"
        if base == "security":
            return DENY, "secrets"
        return DENY, "system"
    if base in ("journalctl",):
        if has(args, "--vacuum-size", "--vacuum-time", "--rotate", "--flush"):
            return DENY, "system"
        return None

    # ---- containers (off by default)
    if base in ("docker", "podman", "nerdctl", "docker-compose", "podman-compose", "buildah", "colima", "lima", "limactl", "minikube", "kind", "k3d", "vagrant", "act", "multipass", "earthly", "devcontainer", "lxc", "incus", "orb", "finch", "skaffold", "tilt", "ctr", "crictl"):
        sub = [a for a in args if not a.startswith("-")]
        s0 = sub[0] if sub else ""
        if base in ("docker", "podman", "nerdctl", "finch"):
            if len(sub) > 2 and sub[1] == "imagetools" and sub[2] == "create" and not has(args, "--dry-run"):
                return DENY, "publish"
            if len(sub) == 2 and sub[1] == "version":
                return None
            if s0 in ("push",) or (s0 in ("buildx", "build", "image") and has(args, "--push")) or s0 == "manifest" and len(sub) > 1 and sub[1] == "push":
                return DENY, "publish"
            if s0 in ("login", "logout"):
                return DENY, "secrets"
            if s0 in ("ps", "images", "version", "info", "inspect", "logs", "stats", "top", "events", "history", "search", "") or has(args, "--version", "--help") and not sub:
                return None
            if s0 in ("image", "container", "volume", "network", "context", "buildx", "system", "compose", "manifest", "plugin") and len(sub) > 1 and sub[1] in ("ls", "list", "inspect", "version", "config", "ps", "df", "imagetools") and not (sub[1] == "imagetools" and len(sub) > 2 and sub[2] == "create"):
                return None
            if s0 == "compose" and len(sub) > 1 and sub[1] in ("config", "ps", "ls", "logs", "version", "images"):
                return None
        if base in ("docker-compose", "podman-compose") and s0 in ("config", "ps", "logs", "version", "images"):
            return None
        if base == "kind" and s0 in ("get", "version", "export") or base == "minikube" and s0 in ("status", "version", "ip", "profile") or base == "vagrant" and s0 in ("status", "version", "global-status"):
            return None
        if base == "act" and has(args, "-l", "--list", "-n", "--dryrun", "--version"):
            return None
        if base in ("kind", "minikube", "k3d", "skaffold", "tilt") and s0 in ("load", "deploy", "run", "up") and False:
            pass
        return DENY, "container"

    # ---- git / gh
    if base == "git":
        return git_rule(ws)
    if base == "gh":
        return gh_rule(ws)
    if base in ("glab", "hub", "tea", "gitlab"):
        if args and args[0] in ("--version", "help", "version"):
            return None
        return DENY, "remote-change"

    # ---- network clients
    if base in ("curl",):
        r = curl_rule(ws)
        if r:
            return r
        return None
    if base in ("http", "https", "xh", "httpie") and args:
        if args[0].upper() in ("POST", "PUT", "PATCH", "DELETE") or any("=" in a and not a.startswith("-") for a in args[1:]):
            return DENY, "remote-change"
        return None
    if base in ("wget",):
        if has(args, "--post-data", "--post-file", "--method", "--body-data"):
            return DENY, "remote-change"
        return None
    if base in ("ssh", "mosh", "telnet", "sshpass", "autossh"):
        if not args or has(args, "-V") or (args and args[0] in ("-V",)):
            return None
        return DENY, "remote-change"
    if base in ("scp", "sftp", "rsync", "lftp", "ftp", "rclone", "s3cmd", "gsutil", "azcopy", "mc"):
        if not args:
            return None  # bare name prints usage
        if base == "rsync" and not any(REMOTE_HOST.match(a) for a in args):
            tgt = [a for a in args if not a.startswith("-")]
            if tgt:
                pe = path_effect(tgt[-1])
                if pe:
                    return (DENY, pe) if pe != "var" else (ALLOW, "-", "var")
            return None
        if base == "rclone" and args and args[0] in ("version", "ls", "lsd", "lsf", "listremotes", "config") and args[0] != "config":
            return DENY, "remote-read"
        if base == "gsutil" and args and args[0] in ("ls", "cat", "stat", "du"):
            return DENY, "remote-read"
        return DENY, "publish"
    if base in ("ssh-keyscan",):
        return None  # redirect target decides
    if base == "ssh-add":
        return DENY, "secrets"
    if base == "ssh-keygen":
        if has(args, "-f") or has(args, "-l", "-lf", "-y", "-Y"):
            return None
        if has(args, "-R"):
            return DENY, "persistence"
        return DENY, "persistence"
    if base in ("nc", "netcat", "ncat", "socat"):
        if any(LOCALHOST.search(a) for a in args) or has(args, "-l", "-z"):
            return None
        return DENY, "remote-change"

    # ---- publishing tools
    if base == "twine" and args and args[0] == "upload":
        return DENY, "publish"
    if base == "twine":
        return None
    if True:  # tool-specific rules (tool_rule returns None for tools it does not know)
        r = tool_rule(base, args, ws, seg, ctx)
        if r is not None:
            return r

    # ---- file writes outside the repository
    if base in ("rm", "rmdir", "unlink", "shred", "trash", "srm"):
        tg = [a for a in args if not a.startswith("-")]
        effs = [path_effect(t) for t in tg]
        for e in effs:
            if e in ("system", "persistence"):
                return DENY, e
        if "var" in effs and has(args, "-rf", "-fr", "-r", "-R", "--recursive") or any(re.match(r"^-[a-zA-Z]*[rR]", a) for a in args) and "var" in effs:
            return ALLOW, "-", "var"
        return None
    if base in ("cp", "mv", "ln", "install", "tee", "mkdir", "touch", "chmod", "chown", "chgrp", "ditto", "tar", "unzip", "7z", "patch", "sed", "truncate", "xattr", "codesign", "setfacl", "cpio"):
        tg = [a for a in args if not a.startswith("-")]
        if base == "tar":
            # -C dir / --directory
            for i, a in enumerate(args):
                if a in ("-C", "--directory") and i + 1 < len(args):
                    e = path_effect(args[i + 1])
                    if e in ("system", "persistence"):
                        return DENY, e
            return None
        if base == "unzip":
            for i, a in enumerate(args):
                if a == "-d" and i + 1 < len(args):
                    e = path_effect(args[i + 1])
                    if e in ("system", "persistence"):
                        return DENY, e
            return None
        if base == "sed" and not any(re.match(r"^-[a-zA-Z]*i", a) or a.startswith("--in-place") for a in args):
            return None
        if base in ("chown", "chgrp"):
            if not tg or all(path_effect(t) is None and not t.startswith("/") for t in tg[1:]) and len(tg) > 1:
                return None
            return DENY, "system"
        if base == "codesign":
            return None
        if base in ("tee", "mkdir", "touch", "chmod", "sed", "truncate", "xattr", "setfacl", "patch"):
            cand = tg
        elif base == "install" and has(args, "-d"):
            cand = tg
        else:
            # last non-option argument is the destination; -t DIR form too
            cand = tg[-1:] if len(tg) >= 2 else []
            for i, a in enumerate(args):
                if a in ("-t", "--target-directory") and i + 1 < len(args):
                    cand = [args[i + 1]]
        effs = [path_effect(t) for t in cand]
        for e in effs:
            if e in ("system", "persistence"):
                if base == "chmod" and e == "persistence" and not any(re.search(r"\.(ssh|bashrc|profile|zshrc)", t) for t in cand):
                    return DENY, e
                return DENY, e
        if "var" in effs:
            return ALLOW, "-", "var"
        return None
    if base in ("export", "source", ".", "alias", "unset", "set", "cd", "pushd", "popd", "eval") and base != "eval":
        return None
    if base in ("kill", "pkill", "killall"):
        if any(re.search(r"(?i)pawl", a) for a in args):
            return DENY, "pawl-off"
        return None
    if base in ("shutdown", "reboot"):
        return DENY, "system"
    if base in ("open", "xdg-open"):
        return None
    return None


def tool_rule(base, args, ws, seg, ctx):
    a0 = args[0] if args else ""
    nonopt = [a for a in args if not a.startswith("-")]
    s0 = nonopt[0] if nonopt else ""
    if base == "pawl":
        if s0 in ("off", "disable", "stop", "uninstall", "allow-all", "bypass") or has(args, "--no-guard", "--unsafe", "--disable-guard"):
            return DENY, "pawl-off"
        return None
    if base in ("claude", "code", "cursor"):
        if base == "claude" and (s0 == "mcp" and len(nonopt) > 1 and nonopt[1] in ("add", "remove", "add-json") or s0 in ("config",) and len(nonopt) > 1 and nonopt[1] in ("set", "add", "remove")):
            return DENY, "persistence"
        if base in ("code", "cursor") and has(args, "--install-extension", "--uninstall-extension"):
            return DENY, "persistence"
        if base == "claude" and has(args, "--dangerously-skip-permissions"):
            return DENY, "pawl-off"
        return None
    if base in ("husky",):
        if s0 in ("install", "") or not nonopt:
            return DENY, "persistence"
        return None
    if base in ("pre-commit", "lefthook"):
        if s0 in ("install", "uninstall") or (base == "pre-commit" and s0 == "init-templatedir"):
            return DENY, "persistence"
        return None
    if base == "poetry":
        if s0 == "publish":
            return None if has(args, "--dry-run") else (DENY, "publish")
        if s0 == "config" and not has(args, "--local", "--list"):
            return DENY, "persistence"
        if s0 == "self":
            return DENY, "persistence"
        if s0 == "run" and len(nonopt) > 1:
            return rule_for(nonopt[1:], seg, ctx)
        return None
    if base in ("uv", "uvx"):
        if base == "uv" and s0 == "publish":
            return None if has(args, "--dry-run") else (DENY, "publish")
        if base == "uv" and s0 == "tool" and len(nonopt) > 1 and nonopt[1] in ("install", "uninstall", "upgrade", "update-shell"):
            return DENY, "persistence"
        if base == "uv" and s0 == "python" and len(nonopt) > 1 and nonopt[1] in ("install", "uninstall", "pin") and nonopt[1] != "pin":
            return DENY, "persistence"
        if base == "uv" and s0 == "self":
            return None if len(nonopt) > 1 and nonopt[1] == "version" else (DENY, "persistence")
        if base == "uv" and s0 == "pip":
            return pip_rule("pip", nonopt[1:] + [a for a in args if a.startswith("-")])
        if base == "uv" and s0 == "run" and len(nonopt) > 1:
            inner = args[args.index("run") + 1 :]
            # drop uv-run options with values
            j = 0
            while j < len(inner) and inner[j].startswith("-"):
                j += 2 if inner[j] in ("--with", "--python", "-p", "--package", "--extra", "--group", "--env-file", "--directory", "--project", "--with-requirements", "--index", "--index-url") else 1
            r = rule_for(inner[j:], seg, ctx)
            return r if r is not None else generic_verb_rule(inner[j:])
        return None
    if base in ("pipx",):
        if s0 in ("install", "uninstall", "upgrade", "inject", "ensurepath", "reinstall", "upgrade-all", "uninstall-all", "install-all"):
            return DENY, "persistence"
        return None
    if base in ("flit", "hatch", "pdm", "rye", "maturin"):
        if s0 in ("publish", "upload"):
            return None if has(args, "--dry-run") else (DENY, "publish")
        if base == "hatch" and s0 == "run" and len(nonopt) > 1:
            return rule_for(nonopt[1:], seg, ctx)
        if base == "pdm" and s0 == "run" and len(nonopt) > 1:
            return rule_for(nonopt[1:], seg, ctx)
        if s0 == "self" or (base == "rye" and s0 == "install"):
            return DENY, "persistence"
        return None
    if base == "cargo":
        if s0 in ("publish", "yank", "owner", "login", "logout"):
            if s0 == "publish" and has(args, "--dry-run", "-n"):
                return None
            return (DENY, "secrets") if s0 in ("login", "logout") else (DENY, "publish")
        if s0 in ("install", "binstall", "uninstall"):
            if has(args, "--list"):
                return None
            for i, a in enumerate(args):
                if a == "--root" and i + 1 < len(args):
                    pe = path_effect(args[i + 1])
                    if pe is None:
                        return None
            return DENY, "persistence"
        if s0 == "release" or s0 == "smart-release" or s0 == "workspaces" and len(nonopt) > 1 and nonopt[1] == "publish":
            if has(args, "--dry-run") or not has(args, "--execute", "-x"):
                return None
            return DENY, "publish"
        if s0 == "dist" and len(nonopt) > 1 and nonopt[1] in ("host",):
            return DENY, "publish"
        return None
    if base == "gem":
        if s0 in ("push", "yank", "owner"):
            return DENY, "publish"
        if s0 in ("install", "uninstall", "update", "i", "cleanup"):
            if has(args, "--install-dir", "-i") or has(args, "--user-install"):
                return (DENY, "persistence") if has(args, "--user-install") else None
            return DENY, "persistence"
        if s0 in ("signin", "signout"):
            return DENY, "secrets"
        return None
    if base == "bundle":
        if s0 == "config" and not has(args, "--local", "list", "get"):
            if len(nonopt) > 1 and nonopt[1] in ("list", "get"):
                return None
            if len(nonopt) > 1 and nonopt[1] == "set" and not has(args, "--global"):
                return None
            return DENY, "persistence" if has(args, "--global") or (len(nonopt) > 1 and nonopt[1] not in ("set",)) else None
        if s0 == "exec" and len(nonopt) > 1:
            return rule_for(args[args.index("exec") + 1 :], seg, ctx)
        return None
    if base in ("rake", "bin/rails", "./bin/rails", "rails"):
        for t in nonopt:
            if re.search(r"release|publish|deploy|push", t):
                return DENY, "publish", "name"
        return None
    if base in ("vsce", "ovsx"):
        if s0 in ("publish", "unpublish", "login"):
            return DENY, "publish"
        return None
    if base in ("lerna", "changeset", "changesets"):
        if s0 == "publish" or s0 == "version" and base == "lerna" and not has(args, "--no-push", "--no-git-tag-version"):
            if s0 == "publish" and has(args, "--dry-run"):
                return None
            return DENY, "publish"
        if base in ("changeset", "changesets") and s0 == "tag":
            return None
        return None
    if base in ("semantic-release", "release-it", "np", "ghr", "gh-pages", "surge", "npm-publish", "jreleaser", "chromatic", "codecov", "coveralls"):
        if has(args, "--dry-run", "-d", "--help", "--version") and base != "gh-pages":
            return None
        if base == "chromatic" and has(args, "--dry-run"):
            return None
        return DENY, "publish"
    if base == "ghp-import":
        return (DENY, "publish") if has(args, "-p", "--push") or any(re.match(r"^-[a-zA-Z]*p", a) for a in args) else None
    if base == "goreleaser":
        if s0 in ("check", "healthcheck", "build", "--version", "init", "jsonschema") or has(args, "--snapshot", "--skip=publish", "--skip-publish") or any(a.startswith("--skip=") and "publish" in a for a in args):
            return None
        return DENY, "publish"
    if base in ("mkdocs", "mike"):
        if s0 == "gh-deploy" or (base == "mike" and s0 in ("deploy", "delete", "set-default", "alias", "retitle") and has(args, "--push", "-p")):
            return DENY, "publish"
        return None
    if base in ("netlify", "vercel", "firebase", "wrangler", "heroku", "fly", "flyctl", "railway", "render", "now", "serverless", "sls", "cdk", "sam", "amplify", "fastly", "deployctl", "stripe", "shopify", "turso", "pscale", "planetscale", "neonctl", "sentry-cli", "sentry", "eas", "fastlane", "ngrok", "cloudflared", "localtunnel", "lt", "tailscale"):
        local_subs = {"dev", "build", "--version", "version", "help", "--help", "types", "whoami", "init", "local", "emulators:start", "serve", "synth", "diff", "validate", "lint", "generate", "doctor", "docs", "test"}
        if base == "wrangler" and s0 in ("dev", "types", "--version", "whoami", "init", "generate", "build") and not has(args, "--remote"):
            return None if s0 != "whoami" else (DENY, "remote-read")
        if base == "wrangler" and s0 in ("d1", "kv", "r2", "queues") and (has(args, "--local") and not has(args, "--remote")):
            return None
        if base in ("cdk",) and s0 in ("synth", "ls", "list", "doctor", "--version"):
            return None
        if base == "cdk" and s0 == "diff":
            return DENY, "remote-read"
        if base in ("sam",) and s0 in ("build", "validate", "local", "init"):
            return None
        if base in ("serverless", "sls") and s0 in ("offline", "package", "print"):
            return None
        if base == "firebase" and re.match(r"^(firestore:(get|query|indexes)|database:get|projects:list|apps:list|functions:list|hosting:channel:list)$", s0):
            return DENY, "remote-read"
        if base in ("firebase",) and s0 in ("emulators:start", "emulators:exec", "serve", "--version", "help", "init"):
            return None
        if base in ("netlify", "vercel") and s0 in ("dev", "build", "--version", "help", "init", "link", "env:list") and s0 not in ("link",):
            return None
        if base == "vercel" and s0 == "env" and len(nonopt) > 1 and nonopt[1] in ("pull",):
            return DENY, "secrets"
        if base == "fastlane" and s0 in ("test", "tests", "scan", "lint", "build", "gym", "snapshot"):
            return None
        if base == "eas" and s0 in ("build",) and has(args, "--local"):
            return None
        if s0 in ("login", "logout", "auth", "secret", "secrets", "env"):
            return DENY, "secrets"
        if s0 in ("whoami", "status", "list", "ls", "logs", "info", "tail") or s0.startswith(("logs", "list")):
            return DENY, "remote-read"
        if s0 in ("deploy", "publish", "release", "upload", "push", "submit"):
            return DENY, "publish"
        if base in ("ngrok", "cloudflared", "localtunnel", "lt", "tailscale"):
            if has(args, "--version", "version", "--help"):
                return None
            return DENY, "publish"  # exposes the machine to the internet
        if s0 in local_subs:
            return None
        return DENY, "remote-change"
    if base == "supabase":
        if s0 in ("start", "stop", "status") or (s0 == "db" and len(nonopt) > 1 and nonopt[1] in ("reset", "start", "lint", "test") and not has(args, "--linked", "--db-url")):
            if s0 == "status":
                return None
            return DENY, "container"
        if s0 == "gen" and not has(args, "--project-id", "--linked", "--db-url"):
            return None
        if s0 in ("migration",) and len(nonopt) > 1 and nonopt[1] in ("new", "list", "squash", "repair", "up", "fetch") and nonopt[1] == "new":
            return None
        if s0 in ("init", "--version", "help", "--help", "test"):
            return None
        if s0 in ("login", "link", "secrets"):
            return DENY, "secrets"
        if s0 == "db" and len(nonopt) > 1 and nonopt[1] in ("diff", "dump", "pull") and not has(args, "--linked", "--db-url"):
            return DENY, "container"
        if s0 in ("projects", "orgs", "branches") and len(nonopt) > 1 and nonopt[1] == "list":
            return DENY, "remote-read"
        if s0 == "migration" and len(nonopt) > 1 and nonopt[1] == "list":
            return DENY, "remote-read"
        return DENY, "remote-change"
    if base in ("prisma", "drizzle-kit"):
        if s0 in ("generate", "format", "validate", "studio", "init", "--version", "version", "check", "introspect") and base == "drizzle-kit" and s0 != "introspect" or base == "prisma" and s0 in ("generate", "format", "validate", "init", "--version", "version", "studio", "debug"):
            return None
        if base == "prisma" and s0 == "migrate" and len(nonopt) > 1 and nonopt[1] == "diff":
            return None
        if base == "drizzle-kit" and s0 in ("generate", "check", "up"):
            return None
        # applies to the database named by DATABASE_URL: plausibly a local/dev or CI scratch DB
        return ALLOW, "-", "var"
    if base in ("pulumi",):
        if s0 in ("version", "about", "--version", "help", "--help", "plugin", "gen-completion", "convert", "package", "schema", "install", "new"):
            if s0 == "plugin" and len(nonopt) > 1 and nonopt[1] in ("install", "rm"):
                return None
            return None
        if s0 in ("login", "logout", "whoami"):
            return DENY, "secrets" if s0 != "whoami" else "remote-read"
        if s0 in ("preview", "stack", "config", "logs") and not (s0 == "config" and len(nonopt) > 1 and nonopt[1] in ("set", "rm", "set-all", "refresh")):
            if s0 == "stack" and len(nonopt) > 1 and nonopt[1] in ("init", "rm", "select", "rename", "import", "tag", "change-secrets-provider"):
                return DENY, "remote-change"
            return DENY, "remote-read"
        return DENY, "remote-change"
    if base == "cosign":
        if s0 in ("sign", "attest", "attach", "copy", "upload", "sign-blob") and not has(args, "--upload=false", "--tlog-upload=false"):
            return DENY, "publish"
        if s0 in ("verify", "verify-blob", "verify-attestation", "tree", "download", "triangulate"):
            return DENY, "remote-read" if s0 not in ("verify-blob",) else None
        return None
    if base == "notarytool" or (base == "xcrun" and s0 in ("notarytool", "altool")):
        return DENY, "publish"
    if base in ("xcrun", "simctl"):
        if (base == "xcrun" and s0 == "simctl" and len(nonopt) > 1 and nonopt[1] in ("erase", "delete", "shutdown", "create")) or (base == "simctl" and s0 in ("erase", "delete", "create")):
            return DENY, "system"
        if base == "xcrun" and s0 == "stapler":
            return DENY, "publish"
        return None
    if base == "rustup":
        if not nonopt or a0 in ("--version", "-V", "-v", "--help", "-h") or (s0 == "default" and len(nonopt) == 1):
            return None
        if s0 in ("show", "which", "doc", "help", "run", "check") or (s0 in ("toolchain", "target", "component") and len(nonopt) > 1 and nonopt[1] == "list"):
            if s0 == "run" and len(nonopt) > 2:
                return rule_for(nonopt[2:], seg, ctx)
            return None
        if s0 == "override":
            return DENY, "persistence"
        return DENY, "persistence"
    if base == "go":
        if s0 == "install":
            return DENY, "persistence"
        if s0 == "env" and has(args, "-w", "-u"):
            return DENY, "persistence"
        if s0 == "run" and len(nonopt) > 1:
            return None
        return None
    if base in ("conda", "mamba", "micromamba"):
        if s0 in ("install", "create", "remove", "update", "upgrade", "uninstall", "init", "config", "env", "clean") and not (s0 == "env" and len(nonopt) > 1 and nonopt[1] in ("list", "export")) and not (s0 == "config" and has(args, "--show", "--get", "--describe")):
            if has(args, "-p", "--prefix") and any(path_effect(args[i + 1]) is None for i, a in enumerate(args[:-1]) if a in ("-p", "--prefix")):
                return None
            return DENY, "persistence"
        if s0 == "run" and len(nonopt) > 1:
            rest = args[args.index("run") + 1 :]
            while rest and rest[0].startswith("-"):
                rest = rest[2:] if rest[0] in ("-n", "--name", "-p", "--prefix") else rest[1:]
            return rule_for(rest, seg, ctx)
        return None
    if base == "brew":
        if s0 in ("install", "uninstall", "remove", "rm", "reinstall", "upgrade", "update", "update-reset", "tap", "untap", "link", "unlink", "pin", "unpin", "cleanup", "autoremove", "services", "bundle", "postinstall", "install-bundler-gems", "developer", "analytics", "vendor-install", "setup-ruby", "tap-new", "extract", "bump", "bump-formula-pr", "bump-cask-pr", "pr-pull", "pr-upload", "pr-publish", "release", "dispatch-build-bottle", "tests", "test-bot", "update-test", "install-bundler", "bottle", "create", "edit", "migrate", "gist-logs"):
            if s0 == "bundle" and len(nonopt) > 1 and nonopt[1] in ("check", "list", "dump", "exec", "cleanup") and not (nonopt[1] == "cleanup" and has(args, "--force")):
                return None
            if s0 == "test-bot" and has(args, "--only-tap-syntax", "--only-formulae-detect", "--dry-run"):
                return None
            if s0 == "services" and (len(nonopt) == 1 or nonopt[1] in ("list", "info")):
                return None
            if s0 in ("tests", "edit", "create", "extract", "bump") and s0 not in ("bump",):
                return None  # operate on the Homebrew checkout itself / local files
            if s0 in ("bump-formula-pr", "bump-cask-pr", "pr-pull", "pr-upload", "pr-publish", "release", "dispatch-build-bottle", "gist-logs", "bump"):
                return DENY, "publish" if s0 != "bump" else "remote-read"
            if s0 == "developer" and (len(nonopt) == 1 or nonopt[1] in ("state",)):
                return None
            if s0 == "analytics" and (len(nonopt) == 1 or nonopt[1] in ("state",)):
                return None
            if s0 == "bottle" and not has(args, "--write", "--merge"):
                return None
            return DENY, "persistence"
        return None
    if base in ("nvm", "fnm", "volta", "asdf", "mise", "sdk", "ghcup", "nix-env", "home-manager", "opam", "pyenv", "rbenv", "goenv", "nodenv", "jenv", "juliaup"):
        if s0 in ("install", "uninstall", "use", "default", "global", "alias", "plugin", "add", "remove", "pin", "switch", "setup", "init", "trust", "set", "upgrade", "self-update") and not (base in ("mise", "asdf") and s0 in ("use", "set") and has(args, "--local", "--path")):
            if base == "nvm" and s0 == "use":
                return None  # shell-session only
            if base == "pyenv" and s0 == "local":
                return None
            if base == "mise" and s0 == "trust":
                return DENY, "persistence"
            return DENY, "persistence"
        if base == "mise" and s0 in ("exec", "x", "run", "r") and len(nonopt) > 1:
            return None
        return None
    if base == "corepack":
        if s0 in ("enable", "disable", "prepare", "install") or has(args, "--activate"):
            return DENY, "persistence"
        return None
    if base in ("npm", "yarn", "pnpm", "bun"):
        return node_pm_rule(base, args)
    if base == "deno":
        if s0 in ("install", "uninstall", "upgrade") and (has(args, "-g", "--global") or s0 != "install" or (s0 == "install" and len(nonopt) > 1 and not nonopt[1].startswith(("npm:", "jsr:")) and has(args, "--name", "-n"))):
            return DENY, "persistence"
        if s0 in ("publish",):
            return None if has(args, "--dry-run") else (DENY, "publish")
        if s0 == "deploy" or s0 == "task" and len(nonopt) > 1 and task_name_rule(nonopt[1]):
            return DENY, "publish"
        return None
    if base in ("pip", "pip3"):
        return pip_rule(base, args)
    if base in ("python", "python3") or re.match(r"^python3?(\.\d+)?$", base):
        if len(args) >= 2 and args[0] == "-m":
            mod = args[1]
            if mod == "pip":
                return pip_rule("pip", args[2:])
            if mod == "twine" and len(args) > 2 and args[2] == "upload":
                return DENY, "publish"
            if mod in ("pre_commit",) and len(args) > 2 and args[2] == "install":
                return DENY, "persistence"
            if mod == "mkdocs" and len(args) > 2 and args[2] == "gh-deploy":
                return DENY, "publish"
            if mod in ("http.server", "SimpleHTTPServer"):
                return None
            if mod == "ensurepip" and has(args, "--user"):
                return DENY, "persistence"
            return None
        if args and re.search(r"setup\.py$", args[0]):
            if any(a in ("upload", "register") for a in args[1:]):
                return DENY, "publish"
            if "install" in args[1:] and not has(args, "--user"):
                return ALLOW, "-", "var"
            if "install" in args[1:]:
                return DENY, "persistence"
        if args and re.search(r"release[-_]pr\.py$", args[0]):
            return DENY, "remote-change", "name"
        if args and re.match(r"^(release|publish|deploy|upload)([-_][\w-]*)?\.py$", args[0].rsplit("/", 1)[-1]) and not re.search(r"notes|check|changelog", args[0]):
            return DENY, "publish", "name"
        return None
    if base in ("mvn", "./mvnw", "mvnw"):
        goals = [a for a in args if not a.startswith("-")]
        if any(g in ("deploy", "release:perform", "release:prepare", "site-deploy", "deploy:deploy-file", "jib:build", "gpg:sign-and-deploy-file", "nexus-staging:deploy", "nexus-staging:release") or g.startswith(("deploy:", "release:", "nexus-staging:", "central-publishing:", "sonar:")) for g in goals):
            return DENY, "publish"
        if "install" in goals:
            return None  # ~/.m2 repository is a cache
        return None
    if base in ("gradle", "./gradlew", "gradlew"):
        tasks = [a for a in args if not a.startswith("-")]
        for t in tasks:
            tl = t.lower().split(":")[-1]
            if tl.startswith("publish") and "tomavenlocal" not in tl or tl in ("jib", "uploadarchives", "closeandreleasesonatypestagingrepository", "closeandreleaserepository", "releaserepository", "publishplugins", "githubrelease", "release", "dokkapublish", "deploy", "sonar", "sonarqube", "coveralls"):
                return DENY, "publish"
        return None
    if base == "dotnet":
        if s0 == "nuget" and len(nonopt) > 1 and nonopt[1] in ("push", "delete"):
            return DENY, "publish"
        if s0 == "tool" and len(nonopt) > 1 and nonopt[1] in ("install", "update", "uninstall") and has(args, "-g", "--global", "--tool-path"):
            return DENY, "persistence"
        if s0 == "workload" and len(nonopt) > 1 and nonopt[1] in ("install", "update", "uninstall", "restore"):
            return DENY, "persistence"
        if s0 == "dev-certs" and has(args, "--trust"):
            return DENY, "system"
        return None
    if base in ("pod",):
        if s0 == "trunk" and len(nonopt) > 1 and nonopt[1] in ("push", "register", "add-owner", "delete", "deprecate"):
            return DENY, "publish"
        if s0 == "repo" and len(nonopt) > 1 and nonopt[1] in ("push",):
            return DENY, "publish"
        if s0 == "repo" and len(nonopt) > 1 and nonopt[1] in ("add", "remove"):
            return DENY, "persistence"
        return None
    if base in ("expo",):
        if s0 in ("publish", "upload:android", "upload:ios"):
            return DENY, "publish"
        if s0 in ("login", "logout"):
            return DENY, "secrets"
        return None
    if base in ("helm",):
        return helm_rule(args)
    if base in ("kubectl", "oc"):
        return kubectl_rule(args)
    if base in ("kustomize",):
        return None
    if base in ("argocd", "flux", "istioctl", "linkerd", "eksctl", "k9s", "kubectx", "kubens"):
        if has(args, "version", "--version", "--help", "help") or s0 in ("version", "completion"):
            if base in ("flux", "argocd", "istioctl", "linkerd") and not has(args, "--client"):
                pass
            else:
                return None
        if base == "flux" and s0 == "build" or base == "istioctl" and s0 == "analyze" and has(args, "--use-kube=false") or base == "argocd" and s0 in ("admin",) and len(nonopt) > 1 and nonopt[1] == "settings" and has(args, "--load-cluster-settings") is False:
            return None
        if s0 in ("get", "list", "describe", "check", "status", "logs", "version", "diff") or base in ("k9s", "kubectx", "kubens") and not nonopt:
            return DENY, "remote-read"
        return DENY, "remote-change"
    if base in ("terraform", "tofu", "terragrunt"):
        return terraform_rule(args)
    if base in ("packer",):
        if s0 in ("build",):
            return DENY, "remote-change"
        return None
    if base in ("aws", "gcloud", "az", "doctl", "hcloud", "linode-cli", "ibmcloud", "oci", "aliyun"):
        if base == "gcloud" and s0 == "components":
            return DENY, "persistence"
        if base == "gcloud" and s0 == "config" and len(nonopt) > 1 and nonopt[1] in ("set", "unset"):
            return DENY, "persistence"
        return cloud_rule(base, args)
    if base in ("ansible-playbook", "ansible"):
        if has(args, "--syntax-check", "--list-hosts", "--list-tasks", "--version", "--help"):
            return None
        if has(args, "--check", "-C") and any(a in ("-c", "--connection") and i + 1 < len(args) and args[i + 1] == "local" for i, a in enumerate(args)):
            return None
        hosts = [a for a in args if a in ("localhost", "127.0.0.1")]
        if any(a in ("-c", "--connection") and i + 1 < len(args) and args[i + 1] == "local" for i, a in enumerate(args)) or hosts or has(args, "--connection=local"):
            return DENY, "system"
        return DENY, "remote-change"
    if base == "ansible-galaxy":
        if s0 in ("collection", "role") and len(nonopt) > 1 and nonopt[1] in ("install",) and not has(args, "-p", "--collections-path", "--roles-path"):
            return DENY, "persistence"
        if s0 in ("collection", "role") and len(nonopt) > 1 and nonopt[1] in ("publish", "import"):
            return DENY, "publish"
        return None
    if base in ("nix",):
        if s0 in ("profile",) and len(nonopt) > 1 and nonopt[1] in ("install", "remove", "upgrade"):
            return DENY, "persistence"
        if s0 in ("copy", "upload"):
            return DENY, "publish"
        if s0 == "registry" and len(nonopt) > 1 and nonopt[1] in ("add", "remove", "pin"):
            return DENY, "persistence"
        return None
    if base in ("composer",):
        if s0 in ("global",):
            return DENY, "persistence"
        if s0 == "config" and has(args, "--global", "-g"):
            return DENY, "persistence"
        return None
    if base in ("pecl", "cpanm", "luarocks"):
        if s0 in ("install", "uninstall", "upgrade") or base == "cpanm" and nonopt:
            if base == "cpanm" and has(args, "-l", "-L", "--local-lib", "--installdeps") and not has(args, "--sudo"):
                return None
            if base == "luarocks" and has(args, "--tree", "--local") and not has(args, "--global"):
                return None if not has(args, "--local") else (DENY, "persistence")
            return DENY, "persistence"
        if base == "luarocks" and s0 in ("upload",):
            return DENY, "publish"
        return None
    if base in ("dart", "flutter"):
        if s0 == "pub" and len(nonopt) > 1 and nonopt[1] in ("publish",) and not has(args, "--dry-run", "-n"):
            return DENY, "publish"
        if s0 == "pub" and len(nonopt) > 2 and nonopt[1] == "global" and nonopt[2] in ("activate", "deactivate"):
            return DENY, "persistence"
        if base == "flutter" and s0 in ("upgrade", "channel", "config") and (s0 != "channel" or len(nonopt) > 1) and not has(args, "--list"):
            return DENY, "persistence"
        return None
    if base in ("stack", "cabal"):
        if s0 in ("upload",) or (base == "cabal" and s0 == "upload" and has(args, "--publish")):
            return DENY, "publish"
        if s0 == "install" and not has(args, "--installdir", "--local-bin-path"):
            return DENY, "persistence"
        return None
    if base in ("mix",):
        if s0 in ("hex.publish",):
            return DENY, "publish"
        if s0 in ("archive.install", "escript.install", "local.hex", "local.rebar", "local.phx"):
            return DENY, "persistence"
        return None
    if base in ("vcpkg",):
        if s0 == "integrate" and len(nonopt) > 1 and nonopt[1] in ("install", "remove"):
            return DENY, "persistence"
        return None
    if base in ("psql", "mysql", "mongosh", "mongo", "redis-cli", "clickhouse-client", "cqlsh", "pg_dump", "pg_restore", "createdb", "dropdb", "mysqldump", "sqlite3"):
        if base == "sqlite3":
            return None
        hosts = []
        for i, a in enumerate(args):
            if a in ("-h", "--host", "-H", "-u") and i + 1 < len(args) and a != "-u":
                hosts.append(args[i + 1])
            elif a.startswith(("--host=", "-h")) and len(a) > 2 and a not in ("-h",):
                hosts.append(a.split("=", 1)[-1] if "=" in a else a[2:])
            elif re.match(r"^(postgres(ql)?|mysql|mongodb(\+srv)?|redis|rediss)://", a):
                hosts.append(a)
            elif a == "-u" and base == "redis-cli" and i + 1 < len(args):
                hosts.append(args[i + 1])
        if any(not LOCALHOST.search(h) and not h.startswith("$") and h not in ("postgres", "mysql", "db", "redis", "mongo", "database") for h in hosts):
            return DENY, "remote-change"
        if any(h.startswith("$") for h in hosts) or any("$DATABASE_URL" in a or "${DATABASE_URL" in a for a in args):
            return ALLOW, "-", "var"
        return None
    if base in ("gpg", "gpg2"):
        if has(args, "--import", "--recv-keys", "--receive-keys", "--import-ownertrust", "--gen-key", "--generate-key", "--full-generate-key", "--quick-gen-key", "--edit-key", "--delete-keys", "--delete-secret-keys", "--lsign-key", "--sign-key", "--quick-generate-key", "--batch") and not has(args, "--verify", "--list-keys", "-k", "--fingerprint", "--detach-sign", "--armor", "--decrypt", "-d", "--output", "-o", "--clearsign", "--sign", "-s", "--print-md", "--dearmor"):
            return DENY, "secrets"
        if has(args, "--send-keys", "--keyserver") and has(args, "--send-keys"):
            return DENY, "publish"
        if has(args, "--import", "--recv-keys", "--receive-keys"):
            return DENY, "persistence"
        return None
    if base in ("keytool",):
        if has(args, "-importcert", "-import") and any("cacerts" in a for a in args) or has(args, "-cacerts"):
            return DENY, "system"
        return None
    if base in ("mkcert",):
        if has(args, "-install", "-uninstall"):
            return DENY, "system"
        return None
    if base in ("certutil",):
        return DENY, "system"
    if base in ("vault", "op", "doppler", "infisical", "bw", "lpass", "1password"):
        if base in ("op", "doppler", "infisical") and s0 == "run":
            return None
        if has(args, "--version", "version", "--help"):
            return None
        if base == "vault" and s0 in ("kv", "write", "read", "login", "token", "secrets", "auth", "policy"):
            return DENY, "secrets"
        return DENY, "secrets"
    if base in ("ollama", "hf", "huggingface-cli", "wandb", "dvc"):
        if base in ("hf", "huggingface-cli") and s0 in ("upload", "repo", "login", "lfs-enable-largefiles"):
            return DENY, "publish" if s0 != "login" else "secrets"
        if base == "wandb" and s0 in ("login", "sync", "artifact"):
            return DENY, "publish" if s0 != "login" else "secrets"
        if base == "dvc" and s0 in ("push",):
            return DENY, "publish"
        if base == "ollama" and s0 in ("push",):
            return DENY, "publish"
        if base == "ollama" and s0 in ("pull", "create", "rm", "cp", "serve", "run"):
            return None
        return None
    if base in ("atlas", "flyway", "liquibase", "alembic", "knex", "sequelize", "sequelize-cli", "typeorm", "migrate", "dbmate", "goose", "sqlx", "diesel", "rails", "artisan", "manage.py", "php"):
        if base == "php" and not (args and args[0] == "artisan"):
            return None
        # database targets come from configuration/env: plausibly the local or CI scratch database
        cmdtxt = " ".join(args)
        if re.search(r"\b(migrate|upgrade|downgrade|db:|seed|migration:run|push|apply|up|down|reset|drop|schema:sync|flush|loaddata|createsuperuser|setup)\b", cmdtxt):
            return ALLOW, "-", "var"
        if re.search(r"deploy|publish", cmdtxt):
            return DENY, "publish", "name"
        return None
    if base in ("just", "make", "gmake", "task", "mage", "nx", "turbo", "rush", "earthly", "dagger"):
        targets = [a for a in args if not a.startswith("-") and "=" not in a]
        # drop option values
        clean_t = []
        skip = False
        for a in args:
            if skip:
                skip = False
                continue
            if a in ("-C", "-f", "--file", "-j", "--justfile", "-d", "--working-directory", "--filter", "-F", "--dir", "-t", "--taskfile", "--project", "-p", "--cwd", "-o", "-W", "-I", "--directory", "-l"):
                skip = True
                continue
            if a.startswith("-") or "=" in a:
                continue
            clean_t.append(a)
        if base == "turbo" and clean_t and clean_t[0] in ("run",):
            clean_t = clean_t[1:]
        if base == "nx" and clean_t and clean_t[0] in ("run", "run-many", "affected"):
            clean_t = clean_t[1:]
        if base in ("earthly", "dagger"):
            if has(args, "--push") or base == "dagger" and any("publish" in a for a in args):
                return DENY, "publish"
            return DENY, "container"
        if base == "turbo" and clean_t and clean_t[0] in ("login", "link"):
            return DENY, "secrets"
        if base in ("make", "gmake") and has(args, "-n", "--dry-run", "--just-print", "-q"):
            return None
        if base == "just" and has(args, "--dry-run", "-n", "--list", "-l", "--summary", "--show", "-s", "--evaluate", "--dump", "--choose"):
            return None
        return make_rule(clean_t, [a for a in args if "=" in a and not a.startswith("-")])
    if base in ("bash", "sh", "zsh", "node", "tsx", "ts-node", "ruby", "perl"):
        if base in ("bash", "sh", "zsh") and args and args[0] == "-c" and len(args) > 1:
            return classify_line(args[1], ctx)
        script = next((a for a in args if not a.startswith("-")), "")
        if re.search(r"(^|/)(release|publish|deploy|upload|push)[\w.-]*\.(sh|js|mjs|cjs|ts|py|rb|pl)$", script):
            return DENY, "publish", "name"
        return None
    if base in ("npx", "bunx", "pnpx"):
        inner = [a for a in args if a not in ("-y", "--yes", "--no-install", "-p", "--package") and not a.startswith("--package=")]
        if inner:
            r = rule_for(inner, seg, ctx)
            if r is None:
                r = generic_verb_rule(inner)
            return r
        return None
    if base in ("sdkmanager", "avdmanager"):
        if base == "sdkmanager" and (has(args, "--list", "--version", "--help", "--list_installed") and not has(args, "--install", "--uninstall", "--update")):
            return None
        if base == "avdmanager" and s0 in ("list",):
            return None
        return DENY, "persistence"
    if base in ("git-lfs",):
        return git_rule(["git", "lfs", *args])
    if base in ("playwright",) or (base in ("npx", "bunx") and "playwright" in args):
        if "install-deps" in args or "--with-deps" in args:
            return DENY, "system"
        return None
    if base == "clasp":
        if s0 in ("login", "logout"):
            return DENY, "secrets"
        if s0 in ("push", "deploy", "undeploy", "create", "version", "run"):
            return DENY, "publish"
        return None
    if base in ("pkg-pr-new", "smokeshow", "codecov", "codecovcli", "tx"):
        if s0 in ("publish", "upload", "push", "do-upload", "upload-process", "create-commit", "create-report"):
            return DENY, "publish"
        return None
    if base in ("tox", "nox"):
        envs = []
        for i, a in enumerate(args):
            if a in ("-e", "-s", "--session", "--sessions") and i + 1 < len(args):
                envs += args[i + 1].split(",")
        for e in envs:
            if re.search(r"-pr$", e):
                return DENY, "remote-change", "name"
            if re.match(r"^(release|publish|deploy|upload)(-publish|-upload)?$|^(publish|deploy|upload)-", e):
                return DENY, "publish", "name"
        return None
    if base in ("cmake", "ninja", "meson", "samu"):
        if (base == "cmake" and "--install" in args) or (base in ("ninja", "samu") and "install" in args) or (base == "meson" and s0 == "install"):
            if has(args, "--prefix", "--destdir") or any(a.startswith("DESTDIR=") for a in args):
                return None
            return DENY, "system", "var"
        return None
    if base in ("openssl",):
        return None
    return None


def script_name_rule(ws):
    """./scripts/release.sh and the like: body unknown, judged by name."""
    if not ws:
        return None
    p = ws[0]
    if "/" in p or p.endswith((".sh", ".py", ".js", ".mjs", ".ts", ".rb")):
        name = p.rsplit("/", 1)[-1]
        if re.match(r"^(release|publish|deploy|upload|push|ship|bump-and-release|do-release|make-release|prepare-release|create-release|tag-release|upload-[\w-]+|publish-[\w-]+|deploy-[\w-]+|release-[\w-]+|[\w-]+[-_]release|[\w-]+[-_]publish|[\w-]+[-_]deploy)(\.\w+)?$", name):
            if re.search(r"prepare|notes|check|test|build|changelog|verify", name):
                return None
            args = ws[1:]
            if any(a in ("--local", "--dry-run", "-n", "--copy", "--help", "--bump-version", "--check-package", "--build-package") for a in args) and "--publish" not in args:
                return None
            return DENY, "publish", "name"
        if re.match(r"^(install|setup|bootstrap|install-[\w-]+)(\.sh)?$", name) and p.startswith(("./", "scripts/", "script/", "bin/", "./script")):
            return None
    return None


GENERIC_SAFE = {
    "echo", "printf", "git", "prisma", "drizzle-kit", "redis-cli", "make", "just", "npm", "pnpm",
    "yarn", "bun", "docker", "podman", "helm", "cargo", "gh", "test", "[", "grep", "jq", "cat",
    "sed", "awk", "cd", "deno", "tox", "nox", "uv", "poetry", "pdm", "hatch", "bash", "sh",
    "mkdir", "rm", "rmdir", "cp", "mv", "ls", "touch", "ln", "chmod", "find", "tar", "zip", "unzip",
    "install", "tee", "head", "tail", "wc", "sort", "xargs", "export", "set", "read", "cut", "tr",
}


def generic_verb_rule(ws):
    """An unknown tool whose first argument is a publishing verb
    (`smokeshow upload`, `./scripts/translate.py push`): judged by the verb."""
    if len(ws) < 2:
        return None
    base = ws[0].rsplit("/", 1)[-1]
    if base in GENERIC_SAFE or base.startswith("$"):
        return None
    rest = ws[1:]
    if base in ("python", "python3", "node", "ruby", "perl", "tsx", "ts-node") and rest:
        if rest[0] in ("-m", "-c", "-e"):
            return None
        rest = rest[1:]
    nonopt = [a for a in rest if not a.startswith("-")]
    if nonopt and nonopt[0] in ("publish", "upload", "deploy", "push") and not any(a in ("--dry-run", "-n", "--help") for a in rest):
        return DENY, "publish", "name"
    return None


def classify_line(cmd, ctx=None):
    """Classify a whole command line. Returns (label, effect, note)."""
    ctx = ctx or {}
    segs, seps = split_top(cmd)
    verdicts = []
    note = "-"
    # curl/wget piped into a shell: installs whatever the script does
    if re.search(r"(curl|wget|iwr|fetch)\b[^|]*\|\s*(sudo\s+)?(-E\s+)?(ba|z|da)?sh\b", cmd) or re.search(r"(curl|wget)\b[^|]*\|\s*(sudo\s+)?(python3?|node|perl|ruby)\b\s*(-|$)", cmd):
        if re.search(r"(sudo|/usr/local|/usr/bin|/opt)", cmd):
            verdicts.append((DENY, "system", "-"))
        else:
            verdicts.append((DENY, "persistence", "-"))
    if re.search(r"bash\s+<\(\s*curl|sh\s+<\(\s*curl|bash\s+-c\s+\"\$\(curl", cmd):
        verdicts.append((DENY, "persistence", "-"))
    # a credential embedded in a URL to a remote host is sent there
    if re.search(r"[a-z+]+://[^/\s@]*\$\{?[A-Za-z_]*(TOKEN|KEY|PASS|SECRET|AUTH)[A-Za-z_]*\}?[^/\s@]*@(?!localhost|127\.)", cmd) or re.search(r"[a-z+]+://\$\{?[A-Za-z_]+\}?@(?!localhost|127\.)", cmd):
        verdicts.append((DENY, "secrets", "-"))
    for seg in segs:
        ws = words(seg)
        ws2 = strip_prefix(ws)
        # redirections
        for t in redirects(seg):
            e = path_effect(t)
            if e in ("system", "persistence"):
                verdicts.append((DENY, e, "-"))
            elif e == "var":
                note = "var"
        # env assignments of interest
        for w in ws:
            if re.match(r"^(PAWL_[A-Z_]*(DISABLE|OFF|BYPASS|GUARD)[A-Z_]*)=", w):
                verdicts.append((DENY, "pawl-off", "-"))
            if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w):
                break
        r = rule_for(ws, seg, ctx)
        if r is None:
            r = script_name_rule(ws2)
        if r is None:
            r = generic_verb_rule(ws2)
        if r is not None:
            if len(r) == 2:
                r = (r[0], r[1], "-")
            verdicts.append(r)
        if ws2 and ws2[0].startswith("$") and not re.match(r"^\$\{?(PYTHON|python|CC|CXX|MAKE|CARGO|NPM|GO|NODE|SHELL|UV|PIP|JAVA|MVN|GRADLE|BIN|HELPER|CMAKE|EXE|TEST_BIN|BUN|RUSTC|LLVM\w*|CLANG\w*|NINJA|PERL|RUBY|PYTEST|VENV\w*|PY)\b", ws2[0]):
            note = "var"
    denies = [v for v in verdicts if v[0] == DENY]
    if denies:
        order = ["pawl-off", "publish", "secrets", "remote-change", "history", "persistence", "system", "container", "remote-read"]
        denies.sort(key=lambda v: order.index(v[1]) if v[1] in order else 99)
        d = denies[0]
        return DENY, d[1], d[2] if d[2] != "-" else note
    for v in verdicts:
        if v[2] and v[2] != "-":
            note = v[2]
    return ALLOW, "-", note


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--in", dest="inp", default=os.path.join(here, "mined.tsv"))
    ap.add_argument("--overrides", default=os.path.join(here, "overrides.tsv"))
    ap.add_argument("--out", default=os.path.join(here, "everyday.tsv"))
    a = ap.parse_args()

    overrides = {}
    if os.path.exists(a.overrides):
        for ln in open(a.overrides):
            if not ln.strip() or ln.startswith("#") or ln.startswith("command\t"):
                continue
            f = ln.rstrip("\n").split("\t")
            if len(f) < 5:
                print("bad override line:", ln, file=sys.stderr)
                continue
            overrides[f[0]] = (f[1], f[2], f[3], f[4])

    rows = []
    used = set()
    for i, ln in enumerate(open(a.inp)):
        if i == 0:
            continue
        cmd, kind, repo, path = ln.rstrip("\n").split("\t")
        CURRENT_REPO["name"] = repo.split("/")[-1]
        label, effect, note = classify_line(cmd, {"kind": kind, "repo": repo})
        if cmd in overrides:
            label, effect, note, _ = overrides[cmd]
            used.add(cmd)
        rows.append((cmd, label, effect, repo, path, note, kind))
    for c in overrides:
        if c not in used:
            print("override not used:", c, file=sys.stderr)
    with open(a.out, "w") as f:
        f.write("command\tlabel\teffect\trepo\tpath\tnote\tkind\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    n_allow = sum(1 for r in rows if r[1] == ALLOW)
    print(f"{len(rows)} rows: {n_allow} allow, {len(rows) - n_allow} deny", file=sys.stderr)
    eff = {}
    for r in rows:
        if r[1] == DENY:
            eff[r[2]] = eff.get(r[2], 0) + 1
    for k, v in sorted(eff.items(), key=lambda kv: -kv[1]):
        print(f"  {k}: {v}", file=sys.stderr)


if __name__ == "__main__":
    main()
