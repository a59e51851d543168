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


def static_env(mapping):
    out = {}
    if not isinstance(mapping, dict):
        return out
    for k, v in mapping.items():
        if isinstance(v, bool):
            v = "true" if v else "false"
        if isinstance(v, (int, float)):
            v = str(v)
        if isinstance(v, str) and "${{" not in v and "$" not in v:
            out[str(k)] = v
    return out


def literal_value(raw):
    """The value of the shell word `raw` when it is literal, else None."""
    if raw == "":
        return ""
    if any(c in raw for c in "$`*?[(){}<>|;&\\"):
        return None
    try:
        words = shlex.split(raw)
    except ValueError:
        return None
    if len(words) != 1:
        return None
    return words[0]


def assignments(line):
    """`(name, value or None)` for `NAME=value` / `export NAME=value` lines."""
    m = re.match(rf"^(?:export\s+|readonly\s+|declare\s+(?:-\w+\s+)?)?({NAME})=(.*)$", line)
    if not m:
        return None
    return m.group(1), literal_value(m.group(2))


def steps(doc):
    wenv = static_env(doc.get("env"))
    for job in (doc.get("jobs") or {}).values():
        if not isinstance(job, dict):
            continue
        jenv = {**wenv, **static_env(job.get("env"))}
        for step in job.get("steps") or []:
            if isinstance(step, dict) and isinstance(step.get("run"), str):
                yield {**jenv, **static_env(step.get("env"))}, step["run"]


def contexts(text):
    """`command -> env` for every logical line of the workflow's `run:` blocks (first wins)."""
    doc = yaml.safe_load(text)
    out = {}
    if not isinstance(doc, dict):
        return out
    for env, run in steps(doc):
        env = dict(env)
        for line in logical_lines(run):
            cmd = clean(line)
            if cmd is not None and cmd not in out:
                out[cmd] = dict(env)
            a = assignments(line.strip())
            if a:
                name, value = a
                if value is None:
                    env.pop(name, None)
                else:
                    env[name] = value
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
        env = cache[key].get(command)
        if not env:
            continue
        named = set(re.findall(rf"\$\{{?({NAME})", command))
        env = {k: v for k, v in sorted(env.items()) if k in named}
        if env:
            rows.append((command, repo, path, json.dumps(env, sort_keys=True)))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("command\trepo\tpath\tenv\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"{seen} workflow rows, {len(rows)} with a static value for a variable they name", file=sys.stderr)


if __name__ == "__main__":
    main()
