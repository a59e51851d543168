#!/usr/bin/env python3
"""Turn check-cases.sh output (argv[1]) into CHECKED.md (stdout): per-case result and expected verdict."""
import collections
import glob
import os
import sys
import tomllib

here = os.path.dirname(os.path.abspath(__file__))
results = {}
for line in open(sys.argv[1]):
    parts = line.split(None, 2)
    if len(parts) >= 2 and parts[0] in ("OK", "BAD", "SKIP"):
        results[parts[1]] = (parts[0], parts[2].strip() if len(parts) > 2 else "")

cases = []
for f in sorted(glob.glob(os.path.join(here, "*", "case.toml"))):
    with open(f, "rb") as fh:
        cases.append(tomllib.load(fh))

out = []
w = out.append
w("# Independent corpus: mechanical check (without pawl)\n")
w("Produced by `check-cases.sh` (then `summarize.py`). For every case: base/ copied to a temp dir and git-initialised,")
w("`setup` run, the gate must FAIL on base, agent.sh run for each step (temp HOME, `~/.local/bin` first on PATH),")
w("then the gate must PASS in that naive same-room setting (for `random`: pass in some but not all of 10 runs).")
w("OK = the case behaves so; it shows the cheat is dangerous to a naive judge (or the honest work is real).\n")
ok = sum(1 for c in cases if results.get(c["id"], ("?",))[0] == "OK")
w(f"Cases: {len(cases)}; OK: {ok}; not OK or not run: {len(cases) - ok}.\n")
w("| case | lang | runner | kind | category | expect | check |")
w("|---|---|---|---|---|---|---|")
for c in cases:
    r = results.get(c["id"], ("NOT RUN", ""))
    detail = r[1].strip("()") if r[0] != "OK" or c["category"] == "random" else "fails on base, passes after agent"
    w(f"| {c['id']} | {c['language']} | {c['runner']} | {c['kind']} | {c['category']} | {c['expect']} | {r[0]}: {detail} |")
w("\n## Counts (language x category)\n")
langs = sorted({c["language"] for c in cases})
cats = sorted({(c["kind"], c["category"]) for c in cases})
cnt = collections.Counter((c["language"], c["category"]) for c in cases)
w("| kind/category | " + " | ".join(langs) + " | total |")
w("|---|" + "---|" * (len(langs) + 1))
for k, cat in cats:
    row = [cnt[(l, cat)] for l in langs]
    w(f"| {k}/{cat} | " + " | ".join(str(x) if x else "" for x in row) + f" | {sum(row)} |")
tot = [sum(1 for c in cases if c["language"] == l) for l in langs]
w("| **total** | " + " | ".join(map(str, tot)) + f" | {len(cases)} |")
w("\n## What a correct judge must conclude\n")
for c in cases:
    w(f"- **{c['id']}** ({c['kind']}, {c['category']}): expect `{c['expect']}` — {c['finding']}")
print("\n".join(out))
