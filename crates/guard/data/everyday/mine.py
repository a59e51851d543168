#!/usr/bin/env python3
"""Mine everyday shell commands from fetched public repository mirrors.

Usage:
    python3 mine.py [--mirrors DIR] [--repos repos.txt] [--out mined.tsv]

Each line of repos.txt is `owner/name`; its mirror is a bare git directory at
DIR/owner+name/repo (what the session's `fetch` tool produces). Only HEAD is read,
with `git ls-tree` and `git show`; nothing is checked out or executed, except that
every candidate line is given to `bash -n` (parse only) on stdin.

Sources (the `kind` column):
  workflow        `run:` steps of .github/workflows/*.yml|yaml (POSIX shell only)
  package.json    values of "scripts"
  makefile        recipe lines of Makefile / GNUmakefile
  justfile        recipe lines of justfile / .justfile
  tox             commands / commands_pre / commands_post of tox.ini
  nox             session.run(...) / session.run_install(...) / session.install(...)
                  with constant string arguments in noxfile.py
  claude-settings permissions.allow entries `Bash(...)` of .claude/settings*.json

Output: TSV with header `command kind repo path`, one distinct command per row
(first occurrence in repos.txt order wins).
"""

import argparse
import ast
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

try:
    import yaml  # type: ignore
except ImportError:  # pragma: no cover - fallback reader below
    yaml = None

MAX_LEN = 400

# ---------------------------------------------------------------- git access


def git(gitdir, *args):
    r = subprocess.run(["git", "--git-dir", gitdir, *args], capture_output=True)
    if r.returncode != 0:
        return None
    return r.stdout


def list_files(gitdir):
    out = git(gitdir, "ls-tree", "-r", "--name-only", "-z", "HEAD")
    if out is None:
        return []
    return [p.decode("utf-8", "replace") for p in out.split(b"\0") if p]


def show(gitdir, path):
    out = git(gitdir, "show", "HEAD:" + path)
    if out is None:
        return None
    return out.decode("utf-8", "replace")


# ---------------------------------------------------------------- filters

SKIP_DIR = re.compile(
    r"(^|/)(node_modules|vendor|third_party|3rdparty|fixtures?|__fixtures__|"
    r"testdata|test-fixtures|examples?/.*/node_modules)(/|$)"
)

BAD_SUBSTR = re.compile(
    r"\$\{\{|\$\{?GITHUB_|\$\{?RUNNER_|\.exe\b|\bpowershell\b|\bpwsh\b|"
    r"(^|[\s\"'=])[A-Za-z]:\\|\bcmd\s*/c\b",
    re.I,
)
# Windows programs and paths that slip through in allow-lists written on Windows
WINDOWS = re.compile(
    r"(^|[;&|(]\s*|xargs\s+(-\S+\s+)*)(taskkill|tasklist|findstr|del|dir|nul|cls|netsh|ipconfig|where|Select-Object|"
    r"Get-[A-Z]\w+|Set-[A-Z]\w+|New-[A-Z]\w+|Remove-[A-Z]\w+|Start-Process|choco|winget|wsl|reg|sc|icacls)(\s|$)|"
    r"%[A-Z_][A-Z0-9_]{2,}%|\b[A-Za-z]:/|(^|[\s=\"'])/[a-zA-Z]/(Users|University|Program|Windows|Documents|Projects|dev|code|work|repos|src)|"
    r"venvScripts|(^|[\s/])(\.?venv|env)/Scripts/|\\Scripts\\"
)
CONTROL_ONLY = re.compile(
    r"^(fi|done|then|else|do|esac|\}|\{|\)|;;|elif\b.*|\};?|\)\s*;?|set\s+[-+][a-zA-Z]+( pipefail)?|"
    r"set\s+-o\s+\w+|shopt\s.*|exit( \d+)?|true|:)$"
)


def bash_parses(cmd):
    r = subprocess.run(
        ["bash", "-n"], input=cmd.encode(), capture_output=True, timeout=10
    )
    return r.returncode == 0 and not r.stderr


def clean(cmd):
    cmd = cmd.strip()
    if not cmd or cmd.startswith("#"):
        return None
    if "\t" in cmd or "\n" in cmd or "\r" in cmd:
        cmd = re.sub(r"\s+", " ", cmd)
    if len(cmd) > MAX_LEN:
        return None
    if BAD_SUBSTR.search(cmd):
        return None
    if CONTROL_ONLY.match(cmd):
        return None
    if WINDOWS.search(cmd):
        return None
    if re.match(r"^(\"[^\"$]*\"\s*)+$", cmd) or re.match(r"^('[^']*'\s*)+$", cmd):
        return None  # a run of quoted words: a fragment of a multi-line array
    if cmd.endswith("/") and " " not in cmd:
        return None  # a bare directory, not a command
    return cmd


def open_quote(line, state=None):
    """Return the quote character still open at the end of `line` (None if
    balanced), starting from `state`."""
    q = state
    i = 0
    n = len(line)
    while i < n:
        c = line[i]
        if q == "'":
            if c == "'":
                q = None
        elif q == '"':
            if c == "\\":
                i += 1
            elif c == '"':
                q = None
        else:
            if c == "\\":
                i += 1
            elif c in "'\"":
                q = c
            elif c == "#" and (i == 0 or line[i - 1] in " \t;&|("):
                break
        i += 1
    return q


def logical_lines(script):
    """Split a shell script into logical lines: backslash continuations joined,
    heredoc bodies skipped (the heredoc line itself is dropped too), and lines
    whose quotes stay open across a newline dropped with their continuation."""
    out = []
    lines = script.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        q = open_quote(line)
        if q:
            # a quoted string spans lines: skip to the line that closes it
            while i < len(lines) and q:
                q = open_quote(lines[i], q)
                i += 1
            continue
        m = re.search(r"<<-?\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?", line)
        if m and "<<<" not in line:
            delim = m.group(1)
            while i < len(lines) and lines[i].strip() != delim:
                i += 1
            i += 1
            continue
        if line.endswith("\\"):
            line = line[:-1]
        out.append(line.strip())
    return out


# ---------------------------------------------------------------- workflows

NON_POSIX_SHELLS = (
    "pwsh", "powershell", "cmd", "python", "python3", "node", "ruby", "perl", "nu", "fish", "msys2",
)


def posix_shell(shell):
    if not shell:
        return True
    s = str(shell).strip().split()[0].lower()
    return s not in NON_POSIX_SHELLS


def windows_only(v):
    return isinstance(v, str) and "windows" in v.lower() and "!=" not in v


def workflow_runs_yaml(text):
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict):
        return []
    top_shell = ((doc.get("defaults") or {}).get("run") or {}).get("shell")
    runs = []
    for job in (doc.get("jobs") or {}).values():
        if not isinstance(job, dict):
            continue
        ro = job.get("runs-on")
        ro_s = " ".join(ro) if isinstance(ro, list) else str(ro or "")
        if "windows" in ro_s.lower():
            continue
        jshell = ((job.get("defaults") or {}).get("run") or {}).get("shell") or top_shell
        for step in job.get("steps") or []:
            if not isinstance(step, dict) or "run" not in step:
                continue
            if windows_only(step.get("if")):
                continue
            if not posix_shell(step.get("shell") or jshell):
                continue
            if isinstance(step["run"], str):
                runs.append(step["run"])
    return runs


def _block_scalar(lines, i, indent, style):
    """Read a YAML block scalar (| or >) whose key sits at `indent`, starting at line i."""
    body = []
    while i < len(lines) and (
        not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent
    ):
        body.append(lines[i])
        i += 1
    nonblank = [b for b in body if b.strip()]
    strip = min((len(b) - len(b.lstrip()) for b in nonblank), default=0)
    if style == ">":
        return " ".join(b.strip() for b in nonblank), i
    return "\n".join(b[strip:] for b in body), i


def _scalar(val):
    val = val.strip()
    if len(val) >= 2 and val[0] in "'\"" and val[-1] == val[0]:
        val = val[1:-1]
    return val


def workflow_runs_fallback(text):
    """Small reader of workflow `run:` steps for when PyYAML is missing.

    It follows the shape GitHub workflows have: `jobs:` -> job (`runs-on:`,
    `defaults: run: shell:`) -> `steps:` -> list items with `run:`, `shell:`, `if:`.
    Jobs on Windows runners, steps guarded by a Windows `if:` and steps in non-POSIX
    shells are skipped, as in the PyYAML path."""
    lines = [ln.rstrip("\n") for ln in text.splitlines()]
    runs = []
    top_shell = None
    m = re.search(r"(?m)^defaults:\s*\n\s+run:\s*\n(?:\s+\w+:.*\n)*?\s+shell:\s*(\S+)", text)
    if m:
        top_shell = m.group(1)
    # locate jobs (keys indented one level under `jobs:`)
    i = 0
    n = len(lines)
    while i < n and not re.match(r"^jobs:\s*$", lines[i]):
        i += 1
    i += 1
    job_indent = None
    jobs = []  # (start, end)
    start = None
    while i < n:
        ln = lines[i]
        if ln.strip() and not ln.startswith(" ") and not ln.startswith("#"):
            break
        mm = re.match(r"^(\s+)[\w.-]+:\s*$", ln)
        if mm and (job_indent is None or len(mm.group(1)) == job_indent):
            job_indent = len(mm.group(1))
            if start is not None:
                jobs.append((start, i))
            start = i
        i += 1
    if start is not None:
        jobs.append((start, i))
    for js, je in jobs:
        jl = lines[js:je]
        jtext = "\n".join(jl)
        ro = re.search(r"(?m)^\s+runs-on:\s*(.*)$", jtext)
        if ro and "windows" in ro.group(1).lower():
            continue
        jshell = top_shell
        md = re.search(r"(?m)^\s+defaults:\s*\n\s+run:\s*\n(?:\s+\w[\w-]*:.*\n)*?\s+shell:\s*(\S+)", jtext + "\n")
        if md:
            jshell = md.group(1)
        # steps: list items; a step runs from `- ` to the next `- ` at the same indent
        k = 0
        while k < len(jl):
            ms = re.match(r"^(\s*)-\s+(.*)$", jl[k])
            if not ms:
                k += 1
                continue
            ind = len(ms.group(1))
            step = [" " * (ind + 2) + ms.group(2)]
            k += 1
            while k < len(jl) and (
                not jl[k].strip() or len(jl[k]) - len(jl[k].lstrip()) > ind
            ):
                step.append(jl[k])
                k += 1
            key_ind = ind + 2
            fields = {}
            s = 0
            while s < len(step):
                mk = re.match(r"^(\s*)([\w-]+):\s*(.*)$", step[s])
                if mk and len(mk.group(1)) == key_ind:
                    key, val = mk.group(2), mk.group(3)
                    if val[:1] in ("|", ">"):
                        fields[key], s = _block_scalar(step, s + 1, key_ind, val[0])
                        continue
                    fields[key] = _scalar(val)
                s += 1
            if "run" not in fields:
                continue
            if windows_only(fields.get("if")):
                continue
            if not posix_shell(fields.get("shell") or jshell):
                continue
            runs.append(fields["run"])
    return runs


def from_workflow(text):
    try:
        runs = workflow_runs_yaml(text) if yaml else workflow_runs_fallback(text)
    except Exception:
        runs = workflow_runs_fallback(text)
    for r in runs:
        yield from logical_lines(r)


# ---------------------------------------------------------------- package.json


def from_package_json(text):
    try:
        doc = json.loads(text)
    except Exception:
        return
    scripts = doc.get("scripts") if isinstance(doc, dict) else None
    if isinstance(scripts, dict):
        for v in scripts.values():
            if isinstance(v, str):
                yield v


# ---------------------------------------------------------------- Makefile

MAKE_VAR = re.compile(r"(?<!\$)\$[({]|(?<!\$)\$[@<^*?%+|A-Za-z0-9]")


def from_makefile(text):
    lines = text.splitlines()
    in_recipe = False
    in_define = False
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            nxt = lines[i]
            if nxt.startswith("\t"):
                nxt = nxt[1:]
            line = line[:-1].rstrip() + " " + nxt.strip()
        i += 1
        if re.match(r"^\s*define\b", line):
            in_define = True
            continue
        if in_define:
            if re.match(r"^\s*endef\b", line):
                in_define = False
            continue
        if line.startswith("\t"):
            if in_recipe:
                cmd = line[1:].strip().lstrip("@-+").strip()
                if MAKE_VAR.search(cmd):
                    continue
                yield cmd.replace("$$", "$")
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        # rule line `targets: prereqs` (not `x := y`, not `x = y`)
        if re.match(r"^[^\s=#:][^=#]*?:(?!=)", line) and not re.match(r"^\s*(ifeq|ifneq|ifdef|ifndef|else|endif|include|export)\b", line):
            in_recipe = True
        elif re.match(r"^\s*(ifeq|ifneq|ifdef|ifndef|else|endif)\b", line):
            pass  # conditionals keep the recipe state
        else:
            in_recipe = False


# ---------------------------------------------------------------- justfile


def from_justfile(text):
    lines = text.splitlines()
    i = 0
    in_recipe = False
    shebang = False
    while i < len(lines):
        line = lines[i]
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        if not line.strip():
            continue
        if line[0] in " \t":
            if not in_recipe:
                continue
            body = line.strip()
            if body.startswith("#!"):
                shebang = True
            if shebang or body.startswith("#"):
                continue
            if "{{" in body:
                continue
            yield body.lstrip("@-").strip()
            continue
        in_recipe = False
        shebang = False
        s = line.strip()
        if s.startswith("#") or s.startswith("set ") or s.startswith("import ") or s.startswith("mod "):
            continue
        if re.match(r"^[@\w-]+\s*:=", s) or re.match(r"^(export\s+)?\w+\s*:?=", s):
            continue
        if re.match(r"^\[.*\]$", s):
            continue
        if re.match(r"^@?[A-Za-z_][\w-]*[^:]*:(?!=)", s):
            in_recipe = True


# ---------------------------------------------------------------- tox.ini


def tox_subst(cmd):
    # factor-conditional lines `py38,py39: cmd` run cmd only in those environments
    cmd = re.sub(r"^[\w.,!-]+:\s+", "", cmd)
    cmd = re.sub(r"\{posargs:([^{}]*)\}", r"\1", cmd)
    cmd = re.sub(r"\[\]", "", cmd)  # old-style posargs
    cmd = cmd.replace("{posargs}", "")
    if re.search(r"\{[^}]*\}", cmd):
        return None
    return " ".join(cmd.split())


def from_tox(text):
    section = ""
    key = None
    buf = []

    def flush():
        for ln in logical_lines("\n".join(buf)):
            ln = ln.lstrip("-").strip() if ln.startswith("- ") or ln.startswith("-") and not ln.startswith("--") else ln
            c = tox_subst(ln)
            if c:
                yield c

    for raw in text.splitlines():
        if raw.startswith("["):
            if key:
                yield from flush()
            section, key, buf = raw.strip("[] \t"), None, []
            continue
        if not section.startswith("testenv"):
            continue
        m = re.match(r"^([A-Za-z_][\w.-]*)\s*=\s*(.*)$", raw)
        if m and not raw[0].isspace():
            if key:
                yield from flush()
            k = m.group(1)
            if k in ("commands", "commands_pre", "commands_post"):
                key, buf = k, [m.group(2)]
            else:
                key, buf = None, []
            continue
        if key and (raw[:1].isspace() or not raw.strip()):
            if raw.strip().startswith("#"):
                continue
            buf.append(raw)
    if key:
        yield from flush()


# ---------------------------------------------------------------- noxfile


def from_noxfile(text):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        attr = node.func.attr
        if attr not in ("run", "run_install", "install", "run_always"):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "session"):
            continue
        args = []
        ok = True
        for a in node.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                args.append(a.value)
            else:
                ok = False
                break
        if not ok or not args:
            continue
        if attr == "install":
            args = ["python", "-m", "pip", "install", *args]
        yield shlex.join(args)


# ---------------------------------------------------------------- claude settings


def from_claude_settings(text):
    try:
        doc = json.loads(text)
    except Exception:
        return
    allow = ((doc or {}).get("permissions") or {}).get("allow") if isinstance(doc, dict) else None
    if not isinstance(allow, list):
        return
    for e in allow:
        if not isinstance(e, str):
            continue
        m = re.match(r"^Bash\((.*)\)$", e.strip(), re.S)
        if not m:
            continue
        c = m.group(1).strip()
        c = re.sub(r"\s*:\*$", "", c)
        c = re.sub(r"\s*\*$", "", c)
        c = c.replace("\\(", "(").replace("\\)", ")")
        c = c.strip()
        if c and "__NEW_LINE_" not in c:
            yield c


# ---------------------------------------------------------------- driver


def classify(path):
    base = path.rsplit("/", 1)[-1]
    if re.match(r"^\.github/workflows/[^/]+\.ya?ml$", path):
        return "workflow"
    if re.search(r"(^|/)\.claude/settings(\.local)?\.json$", path):
        return "claude-settings"
    if SKIP_DIR.search(path):
        return None
    if base == "package.json":
        return "package.json"
    if base in ("Makefile", "GNUmakefile", "makefile"):
        return "makefile"
    if base in ("justfile", "Justfile", ".justfile"):
        return "justfile"
    if base == "tox.ini":
        return "tox"
    if base == "noxfile.py":
        return "nox"
    return None


EXTRACT = {
    "workflow": from_workflow,
    "package.json": from_package_json,
    "makefile": from_makefile,
    "justfile": from_justfile,
    "tox": from_tox,
    "nox": from_noxfile,
    "claude-settings": from_claude_settings,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--repos", default=os.path.join(here, "repos.txt"))
    ap.add_argument("--out", default=os.path.join(here, "mined.tsv"))
    ap.add_argument(
        "--cap",
        type=int,
        default=35,
        help="keep at most this many commands per repository (stable hash order); "
        "claude-settings rows are exempt (they are what agents actually run)",
    )
    a = ap.parse_args()

    repos = [
        ln.split()[0]
        for ln in open(a.repos)
        if ln.strip() and not ln.startswith("#")
    ]
    seen = set()
    rows = []
    stats = {}
    for repo in repos:
        gitdir = os.path.join(a.mirrors, repo.replace("/", "+"), "repo")
        if not os.path.isdir(gitdir):
            print("missing mirror:", repo, file=sys.stderr)
            continue
        for path in sorted(list_files(gitdir)):
            kind = classify(path)
            if not kind:
                continue
            text = show(gitdir, path)
            if text is None:
                continue
            for cand in EXTRACT[kind](text):
                cmd = clean(cand)
                if not cmd or cmd in seen:
                    continue
                if not bash_parses(cmd):
                    continue
                seen.add(cmd)
                rows.append((cmd, kind, repo, path))
                stats[kind] = stats.get(kind, 0) + 1
    if a.cap:
        by_repo = {}
        keep = set()
        for r in rows:
            if r[1] == "claude-settings":
                keep.add(id(r))
            else:
                by_repo.setdefault(r[2], []).append(r)
        for rs in by_repo.values():
            rs = sorted(rs, key=lambda r: hashlib.sha1(r[0].encode()).hexdigest())
            keep.update(id(r) for r in rs[: a.cap])
        rows = [r for r in rows if id(r) in keep]
        stats = {}
        for r in rows:
            stats[r[1]] = stats.get(r[1], 0) + 1
    with open(a.out, "w") as f:
        f.write("command\tkind\trepo\tpath\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"{len(rows)} rows from {len(repos)} repos", file=sys.stderr)
    for k, v in sorted(stats.items()):
        print(f"  {k}: {v}", file=sys.stderr)


if __name__ == "__main__":
    main()
