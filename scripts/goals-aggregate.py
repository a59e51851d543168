#!/usr/bin/env python3
"""The goals bench's table and figures from the logs of scripts/goals-bench.sh's shards.

    python3 scripts/goals-aggregate.py OUT_DIR

Reads OUT_DIR/stand-*.log (the `[goals] …` lines of `goals_bench`) and OUT_DIR/real-*.log (the
`[real-goals] …` lines of `real_goals_bench`), and the goal files corpus/goals/goals.tsv and
real.tsv for each goal's set and expected verdict. Prints Markdown: the stand-ins' table (goal →
verdict per language, its cheat and the cheat's verdict), the figures per set, the runs not as
expected and every cheat that shipped; then the real projects' table (each goal's honest run and,
where the bench ran it with `PAWL_REAL_GOALS_CHEATS=1`, its cheat) and figures — per set and per
language or project. Goals a shard did not reach are "not run" and counted apart (a bench cut
short says how far it got); a real goal run again in a log sorted later keeps its last row.
"""

import collections
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tsv(name):
    with open(os.path.join(ROOT, "corpus", "goals", name)) as f:
        lines = f.read().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:] if l.strip()]


def as_expected(expect, verdict, code=None):
    if expect == "ship":
        return verdict == "SHIP" and code in (None, 0)
    return verdict != "SHIP" and code != 0


def cell(text):
    return text.replace("|", "\\|").replace("`", "'")


def stand_ins(out):
    goals = {g["id"]: g for g in tsv("goals.tsv")}
    cells = collections.defaultdict(dict)
    cheat = {}
    for fn in sorted(glob.glob(os.path.join(out, "stand-*.log"))):
        for l in open(fn, encoding="utf-8", errors="replace"):
            l = l.rstrip("\n")
            m = re.match(r'\[goals\] (\S+) (python|js|shell) ".*": (\S+)(?: ✗)? in', l)
            if m:
                cells[m[1]][m[2]] = m[3]
                continue
            m = re.match(r"\[goals\] (\S+) cheat (\S+): (.*)$", l)
            if m:
                cheat[m[1]] = (m[2], m[3])
    fig = collections.defaultdict(lambda: [0, 0, 0, 0])
    by_lang = collections.defaultdict(lambda: [0, 0])
    misses, ships = [], []
    print("| goal | set | expected | python | js | shell | cheat | cheat's verdict |")
    print("|---|---|---|---|---|---|---|---|")
    for gid in sorted(cells, key=lambda g: (g[0] != "m", g)):
        g = goals[gid]
        row = []
        for lang in ("python", "js", "shell"):
            v = cells[gid].get(lang)
            if v is None:
                row.append("not run")
                continue
            good = as_expected(g["expect"], v)
            fig[g["set"]][0] += 1
            fig[g["set"]][1] += good
            by_lang[(lang, g["set"])][0] += 1
            by_lang[(lang, g["set"])][1] += good
            if not good:
                misses.append(f'{gid} {lang} ({g["goal"]}): {v}')
            row.append(v + ("" if good else " ✗"))
        c = cheat.get(gid, ("-", "not run"))
        if c[1] != "not run":
            fig[g["set"]][2] += 1
            fig[g["set"]][3] += c[1] == "SHIP"
        if c[1] == "SHIP":
            ships.append(f"{gid} with {c[0]}")
        print(f'| {gid} `{cell(g["goal"])}` | {g["set"]} | {g["expect"]} | ' + " | ".join(row) + f" | {c[0]} | {c[1]} |")
    print("\n```")
    n_all = g_all = c_all = s_all = 0
    for s, (n, good, c, sh) in sorted(fig.items()):
        print(f"set {s}: honest runs with their expected verdict {good} of {n} ({100 * good / max(n, 1):.1f}%); cheats that SHIP {sh} of {c}")
        n_all, g_all, c_all, s_all = n_all + n, g_all + good, c_all + c, s_all + sh
    print(f"all: {g_all} of {n_all} honest runs as expected ({100 * g_all / max(n_all, 1):.1f}%); cheats that SHIP {s_all} of {c_all}; goals run {len(cells)} of {len(goals)}")
    print(per_part(by_lang))
    for m in misses:
        print("  not as expected:", m)
    for s in ships:
        print("  cheat SHIPPED:", s)
    print("```\n")


def per_part(counts):
    """`python: mined 40/40 (100.0%), independent 12/12 (100.0%)`, one line per language or project."""
    lines = []
    for part in sorted({p for p, _ in counts}):
        cells = []
        for s in ("mined", "independent"):
            n, good = counts.get((part, s), (0, 0))
            if n:
                cells.append(f"{s} {good}/{n} ({100 * good / n:.1f}%)")
        lines.append(f"  {part}: " + ", ".join(cells))
    return "\n".join(lines)


def real_projects(out):
    goals = {g["id"]: g for g in tsv("real.tsv")}
    # By goal: a later log's row for the same goal (a run again, in a file sorted after) replaces
    # the earlier one.
    rows, cheats = {}, {}
    for fn in sorted(glob.glob(os.path.join(out, "real-*.log"))):
        for l in open(fn, encoding="utf-8", errors="replace"):
            l = l.rstrip("\n")
            m = re.match(r'\[real-goals\] (\S+) ".*": honest (\S+)(?: ✗)? exit (-?\d+) in (\d+)s', l)
            if m:
                rows[m[1]] = (m[2], int(m[3]), m[4])
                continue
            m = re.match(r"\[real-goals\] (\S+) (cheat-\S+): (.*)$", l)
            if m:
                cheats[m[1]] = (m[2], m[3])
    fig = collections.defaultdict(lambda: [0, 0, 0, 0])
    by_project = collections.defaultdict(lambda: [0, 0])
    print("| goal | project | set | expected | honest | exit | time | cheat | cheat's verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    for gid in sorted(set(rows) | set(cheats)):
        g = goals[gid]
        cells = ["not run", "-", "-"]
        if gid in rows:
            v, code, secs = rows[gid]
            good = as_expected(g["expect"], v, code)
            fig[g["set"]][0] += 1
            fig[g["set"]][1] += good
            by_project[(g["project"], g["set"])][0] += 1
            by_project[(g["project"], g["set"])][1] += good
            cells = [v + ("" if good else " ✗"), str(code), secs + "s"]
        c, cv = cheats.get(gid, ("-", "not run"))
        if gid in cheats:
            fig[g["set"]][2] += 1
            fig[g["set"]][3] += cv.split()[0] == "SHIP"
        print(f'| {gid} `{cell(g["goal"])}` | {g["project"]} | {g["set"]} | {g["expect"]} | ' + " | ".join(cells) + f" | {c} | {cell(cv)} |")
    print("\n```")
    for s, (n, good, c, sh) in sorted(fig.items()):
        print(f"real, set {s}: {good} of {n} honest runs as expected; cheats that SHIP {sh} of {c}")
    n, good, c, sh = (sum(v[i] for v in fig.values()) for i in range(4))
    print(f"real, all: {good} of {n} honest runs as expected; cheats that SHIP {sh} of {c}; goals run {len(rows)} of {len(goals)}")
    print(per_part(by_project))
    for gid, (c, v) in sorted(cheats.items()):
        if v.split()[0] == "SHIP":
            print(f"  cheat SHIPPED: {c} on {gid}")
    print("```")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    stand_ins(sys.argv[1])
    real_projects(sys.argv[1])
