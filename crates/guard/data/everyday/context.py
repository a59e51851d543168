#!/usr/bin/env python3
"""Record, for each workflow row of everyday.tsv, the static environment its line runs with.

Usage:
    python3 context.py [--mirrors DIR] [--in everyday.tsv] [--out context.tsv]

A `run:` line of a GitHub workflow gets variables from the workflow's, the job's and the step's
`env:` maps and from assignments on earlier lines of the same `run:` block. Mining keeps one line
per row; this script gives the row back the part of that context that is static: `env:` values
without `${{ }}` and without `$` (GitHub does not expand `env:` values; a `$` in one is a
literal dollar sign no CI line relies on), and earlier `NAME=value` / `export NAME=value`
lines whose value is literal (no `$`, backquote, glob or unquoted space). A later non-static
assignment of the same name forgets it. Only the variables the row's command names are kept.

Output: TSV with header `command repo path env`, `env` a JSON object. Rows whose command names no
variable with a static value are left out. The figures bench passes the object as the row's
`Context::env` (the environment an agent running that job's step would have) and prints the
false positives with and without it. No label is read or changed.

Needs PyYAML and the mirrors mine.py reads (`DIR/owner+name/repo`).
"""

import argparse
import json
import re
import shlex
import subprocess
import sys

import yaml  # type: ignore

from mine import clean, logical_lines

NAME = r"[A-Za-z_][A-Za-z0-9_]*"


EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
VAR = re.compile(r"\$(?:\{(" + NAME + r")\}|(" + NAME + r"))")


def scalar(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return v if isinstance(v, str) else None


def first_combination(strategy):
    """The first combination of a job's static `strategy.matrix` (what one real job run has):
    the first value of each listed key, then the first `include` entry's keys not set yet.
    Values that are expressions stay out."""
    matrix = (strategy or {}).get("matrix") if isinstance(strategy, dict) else None
    if not isinstance(matrix, dict):
        return {}
    out = {}
    for k, v in matrix.items():
        if k in ("include", "exclude"):
            continue
        if isinstance(v, list) and v:
            s = scalar(v[0])
            if s is not None and "${{" not in s:
                out[str(k)] = s
    inc = matrix.get("include")
    if isinstance(inc, list) and inc and isinstance(inc[0], dict):
        for k, v in inc[0].items():
            s = scalar(v)
            if str(k) not in out and s is not None and "${{" not in s:
                out[str(k)] = s
    return out


def expand_exprs(text, env, matrix):
    """`text` with its `${{ matrix.K }}` and `${{ env.K }}` expressions replaced by their values,
    or None when another expression (secrets, github context, step outputs) or an unknown key
    is in it."""
    ok = True

    def sub(m):
        nonlocal ok
        e = m.group(1)
        for prefix, table in (("matrix.", matrix), ("env.", env)):
            if e.startswith(prefix) and re.fullmatch(NAME, e[len(prefix):]) and e[len(prefix):] in table:
                return table[e[len(prefix):]]
        ok = False
        return ""

    out = EXPR.sub(sub, text)
    return out if ok else None


def static_env(mapping, env=None, matrix=None):
    """The static values of an `env:` map: literal values, and values whose only expressions are
    `${{ matrix.K }}`/`${{ env.K }}` with a static value (GitHub expands expressions in `env:`,
    not `$NAME`; a `$` left in a value is kept out)."""
    out = {}
    env = env or {}
    matrix = matrix or {}
    if not isinstance(mapping, dict):
        return out
    for k, v in mapping.items():
        v = scalar(v)
        if v is None:
            continue
        v = expand_exprs(v, {**env, **out}, matrix)
        if v is not None and "$" not in v:
            out[str(k)] = v
    return out


def literal_value(raw, env=None):
    """The value of the shell word `raw` when it is literal (after replacing `$NAME`/`${NAME}`
    with a value `env` holds, inside double quotes or bare), else None."""
    if raw == "":
        return ""
    if env is not None:
        unknown = False

        def sub(m):
            nonlocal unknown
            n = m.group(1) or m.group(2)
            if n in env and not any(c in env[n] for c in " \t'\"$`*?[](){}<>|;&\\"):
                return env[n]
            unknown = True
            return ""

        if "'" in raw:
            # single quotes keep `$` literal; leave such words to the plain reading
            pass
        else:
            raw = VAR.sub(sub, raw)
            if unknown:
                return None
    if any(c in raw for c in "$`*?[(){}<>|;&\\"):
        return None
    try:
        words = shlex.split(raw)
    except ValueError:
        return None
    if len(words) != 1:
        return None
    return words[0]


def assignments(line, env=None):
    """`(name, value or None)` for `NAME=value` / `export NAME=value` lines."""
    m = re.match(rf"^(?:export\s+|readonly\s+|declare\s+(?:-\w+\s+)?)?({NAME})=(.*)$", line)
    if not m:
        return None
    return m.group(1), literal_value(m.group(2), env)


GITHUB_ENV = re.compile(
    rf"""^echo\s+(["']?)({NAME})=(.*?)\1\s*>>\s*"?\$(?:GITHUB_ENV|{{GITHUB_ENV}})"?\s*$"""
)


def exported(line, env, matrix):
    """`(name, value or None)` for a step's `echo "NAME=value" >> $GITHUB_ENV` line: the
    variable every later step of the job has. The value is static when its expressions and
    variables are."""
    m = GITHUB_ENV.match(line.strip())
    if not m:
        return None
    quote, name, raw = m.groups()
    raw = expand_exprs(raw, env, matrix)
    if raw is None:
        return name, None
    if quote == "'":
        return name, None if "$" in raw else raw
    return name, literal_value(f'"{raw}"' if quote else raw, env)


def join_dir(cwd, d):
    """The repository-relative directory `cd d` leads to from `cwd`, or None."""
    if d is None or d.startswith(("/", "~", "-")) or d == "":
        return None
    parts = [p for p in (cwd.split("/") if cwd else []) if p]
    for c in d.split("/"):
        if c in ("", "."):
            continue
        if c == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(c)
    return "/".join(parts)


def working_directory(*mappings, env=None, matrix=None):
    """The static `working-directory` (`defaults.run` of the workflow or job, or the step's)."""
    wd = ""
    for m in mappings:
        if not isinstance(m, dict):
            continue
        w = m.get("working-directory")
        if w is None:
            d = m.get("defaults")
            w = ((d or {}).get("run") or {}).get("working-directory") if isinstance(d, dict) else None
        if w is None:
            continue
        w = scalar(w)
        w = expand_exprs(w, env or {}, matrix or {}) if w is not None else None
        if w is None or "$" in w:
            return None
        wd = join_dir("", w.strip())
        if wd is None:
            return None
    return wd


class Block:
    """The assignments of a `run:` block read line by line: GitHub replaces the block's
    `${{ matrix.* }}`/`${{ env.* }}` expressions (of the job's first combination) before the
    shell runs it; an assignment inside `if`/`case` keeps its value only when every branch
    that assigns the name gives the same one (one real run takes one branch)."""

    def __init__(self, env, matrix):
        self.env = dict(env)
        self.matrix = matrix
        self.depth = 0
        self.pending = {}

    def expanded(self, line):
        return expand_exprs(line, self.env, self.matrix) if "${{" in line else line

    def assign(self, name, value, table):
        if self.depth > 0:
            self.pending.setdefault((name, id(table)), (table, set()))[1].add(value)
            table.pop(name, None)
        elif value is None:
            table.pop(name, None)
        else:
            table[name] = value

    def line(self, line, exports=None):
        """Reads one logical line: its assignments (and `$GITHUB_ENV` exports into
        `exports`)."""
        stripped = line.strip()
        opens = len(re.findall(r"(?:^|[;&|]\s*)(?:if|case)\s", stripped))
        closes = len(re.findall(r"(?:^|[;&|]\s*)(?:fi|esac)\b", stripped))
        self.depth += opens
        text = self.expanded(stripped)
        if text is None:
            m = re.match(rf"^(?:export\s+)?({NAME})=", stripped)
            if m:
                self.assign(m.group(1), None, self.env)
            e = GITHUB_ENV.match(stripped)
            if e and exports is not None:
                self.assign(e.group(2), None, exports)
        else:
            a = assignments(text, self.env)
            if a:
                self.assign(a[0], a[1], self.env)
            # An assignment later in the line (`[ x ] || guard=""`, `then V=1`) may or may not
            # run: its name is no longer known.
            for m in re.finditer(
                rf"(?:[;&|]\s*|\b(?:then|else|do)\s+)(?:export\s+)?({NAME})=", text
            ):
                self.env.pop(m.group(1), None)
            if exports is not None:
                e = exported(text, self.env, self.matrix)
                if e:
                    self.assign(e[0], e[1], exports)
        self.depth = max(0, self.depth - closes)
        if self.depth == 0 and self.pending:
            for (name, _), (table, values) in self.pending.items():
                if len(values) == 1 and None not in values:
                    table[name] = next(iter(values))
                else:
                    table.pop(name, None)
            self.pending = {}
        return text


def steps(doc):
    """Each `run:` step of each job: `(env, cwd, run, matrix)`, the static environment and
    working directory it starts with. A job's environment carries what earlier steps of the same
    job wrote to `$GITHUB_ENV` with a static value."""
    wenv = static_env(doc.get("env"))
    for job in (doc.get("jobs") or {}).values():
        if not isinstance(job, dict):
            continue
        matrix = first_combination(job.get("strategy"))
        jenv = {**wenv, **static_env(job.get("env"), wenv, matrix)}
        for step in job.get("steps") or []:
            if not (isinstance(step, dict) and isinstance(step.get("run"), str)):
                continue
            senv = {**jenv, **static_env(step.get("env"), jenv, matrix)}
            cwd = working_directory(doc, job, step, env=senv, matrix=matrix)
            yield senv, cwd, step["run"], matrix
            # What this step writes to $GITHUB_ENV, for the steps after it.
            block = Block(senv, matrix)
            exports = dict(jenv)
            for line in logical_lines(step["run"]):
                block.line(line, exports)
            jenv = exports


CD = re.compile(r"^(?:cd|pushd)\s+(\S+)\s*(?:&&\s*)?$")


def contexts(text):
    """`command -> (env, cwd)` for every logical line of the workflow's `run:` blocks (first
    wins): the static environment of its step and the literal assignments and `cd`s of earlier
    lines of its block. `cwd` is None when a `cd` the reading cannot follow came before."""
    doc = yaml.safe_load(text)
    out = {}
    if not isinstance(doc, dict):
        return out
    for env, cwd, run, matrix in steps(doc):
        block = Block(env, matrix)
        for line in logical_lines(run):
            cmd = clean(line)
            if cmd is not None and cmd not in out:
                out[cmd] = (dict(block.env), cwd)
            text = block.line(line)
            stripped = line.strip()
            m = CD.match(text or "")
            if m and cwd is not None and block.depth == 0:
                cwd = join_dir(cwd, literal_value(m.group(1), block.env))
            elif re.match(r"^(cd|pushd|popd)\b", stripped) or re.search(r"[;&|]\s*(cd|pushd|popd)\b", stripped):
                cwd = None
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--in", dest="inp", default="everyday.tsv")
    ap.add_argument("--out", default="context.tsv")
    args = ap.parse_args()
    cache = {}
    rows = []
    seen = 0
    for line in open(args.inp, encoding="utf-8"):
        c = line.rstrip("\n").split("\t")
        if len(c) < 5 or c[0] == "command" or line.startswith("#"):
            continue
        command, repo, path = c[0], c[3], c[4]
        if ".github/workflows/" not in path:
            continue
        seen += 1
        key = (repo, path)
        if key not in cache:
            gitdir = f"{args.mirrors}/{repo.replace('/', '+')}/repo"
            r = subprocess.run(
                ["git", "-C", gitdir, "show", f"HEAD:{path}"], capture_output=True, text=True
            )
            try:
                cache[key] = contexts(r.stdout) if r.returncode == 0 else {}
            except yaml.YAMLError:
                cache[key] = {}
        found = cache[key].get(command)
        if not found:
            continue
        env, cwd = found
        named = set(re.findall(rf"\$\{{?({NAME})", command))
        env = {k: v for k, v in sorted(env.items()) if k in named}
        if env or cwd:
            rows.append((command, repo, path, json.dumps(env, sort_keys=True), cwd or "."))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("command\trepo\tpath\tenv\tcwd\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(
        f"{seen} workflow rows, {len(rows)} with a static value for a variable they name or a working directory",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
