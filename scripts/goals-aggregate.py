#!/usr/bin/env python3
"""The goals bench's table and figures from the logs of scripts/goals-bench.sh's shards.

    python3 scripts/goals-aggregate.py OUT_DIR

Reads OUT_DIR/stand-*.log (the `[goals] …` lines of `goals_bench`) and OUT_DIR/real-*.log (the
`[real-goals] …` lines of `real_goals_bench`), and the goal files corpus/goals/goals.tsv and
real.tsv for each goal's set and expected verdict. Prints Markdown: the stand-ins' table (goal →
verdict per language, its cheat and the cheat's verdict), the figures per set, the runs not as
expected and every cheat that shipped; then the real projects' table and figures. Goals a shard
did not reach are "not run" and counted apart (a bench cut short says how far it got).
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
    for m in misses:
        print("  not as expected:", m)
    for s in ships:
        print("  cheat SHIPPED:", s)
    print("```\n")


def real_projects(out):
    goals = {g["id"]: g for g in tsv("real.tsv")}
    rows, cheats = [], []
    fig = collections.defaultdict(lambda: [0, 0])
    seen = set()
    for fn in sorted(glob.glob(os.path.join(out, "real-*.log"))):
        for l in open(fn, encoding="utf-8", errors="replace"):
            l = l.rstrip("\n")
            m = re.match(r'\[real-goals\] (\S+) ".*": honest (\S+)(?: ✗)? exit (-?\d+) in (\d+)s', l)
            if m:
                g = goals[m[1]]
                v, code = m[2], int(m[3])
                good = as_expected(g["expect"], v, code)
                fig[g["set"]][0] += 1
                fig[g["set"]][1] += good
                seen.add(m[1])
                rows.append(f'| {m[1]} `{cell(g["goal"])}` | {g["project"]} | {g["set"]} | {g["expect"]} | {v}{"" if good else " ✗"} | {code} | {m[4]}s |')
                continue
            m = re.match(r"\[real-goals\] (\S+) (cheat-\S+): (.*)$", l)
            if m:
                cheats.append((m[1], m[2], m[3]))
    print("| goal | project | set | expected | honest | exit | time |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n```")
    for s, (n, good) in sorted(fig.items()):
        print(f"real, set {s}: {good} of {n} honest runs as expected")
    print(f"real, all: {sum(v[1] for v in fig.values())} of {sum(v[0] for v in fig.values())}; goals run {len(seen)} of {len(goals)}")
    for gid, c, v in cheats:
        print(f"  cheat {c} on {gid}: {v}")
    print("```")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    stand_ins(sys.argv[1])
    real_projects(sys.argv[1])
