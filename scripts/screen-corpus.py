#!/usr/bin/env python3
"""The honest side of the syntax screen's measurement (issue 34 point 2): real fix commits.

Its own command, NOT part of scripts/test.sh or CI: `fetch` needs the network (git clones of
the projects in corpus/screen/repos.tsv). The gating part is offline: the fixtures in
corpus/screen/fixtures/ (cargo test -p pawl-verify --test syntax_corpus screen_fixtures).

    python3 scripts/screen-corpus.py fetch     # clone the projects into the cache
    python3 scripts/screen-corpus.py select    # pick the commits again -> corpus/screen/honest.tsv
                                               # (newer history picks newer commits: to refresh)
    python3 scripts/screen-corpus.py measure   # screen every commit -> corpus/screen/results.tsv
    python3 scripts/screen-corpus.py review [--dir REPO] [--pawl PAWL] [--limit N]
                                               # ask YOUR configured reviewer (issue 34 point 3)
                                               # -> corpus/screen/reviewer-results.tsv

`review` measures the independent reviewer a run would start: the `[agent]` of the pawl.toml in
--dir (default: this repository), through `pawl reviewer` (read-only, a fresh session each). It
asks about every honest commit of honest.tsv (its diff from the cache; a commit whose clone is
missing is counted as skipped) and every case of corpus/screen/fixtures (the product change as a
diff; the goal names the deciding test). The reviewer is shown no screen findings: this measures
it alone, apart from the screen. It needs the agent's model (the network, and it costs what those
sessions cost): not CI. `crates/cli/tests/it/reviewer_real.rs` runs its plumbing against pawl's
mock model server. Options: --honest-tsv PATH, --fixtures DIR, --out PATH, --only honest|cheats.

The cache is $PAWL_SCREEN_CACHE (default ~/.cache/pawl/screen-corpus). Clones come from
$PAWL_SCREEN_GIT_URL, a template with {repo}, {owner} and {name}
(default https://github.com/{repo}.git); a local mirror works too.

Selection is mechanical, from the diff only (nothing is built or run): a commit that is not a
merge, whose subject says it fixes something (the word fix/fixes/fixed/fixing, or bug), that
changes at least one source file of the project's language that is not a test AND at least one
test file (by the rules below; for Rust a `#[test]` added inside a changed source file counts),
and changes at most MAX_LINES lines of source (a fix, not a rewrite). Newest first, up to the
count in repos.tsv per project. The harness (crates/verify/tests/syntax_corpus.rs,
`honest_commits`) classifies files by the same rules.
"""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus" / "screen"
MAX_LINES = 200

EXT = {
    "python": (".py",),
    "javascript": (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"),
    "go": (".go",),
    "rust": (".rs",),
    "shell": (".sh", ".bash", ".bats"),
}

FIX = re.compile(r"(?i)\b(fix(e[sd]|ing)?|bug)\b")


def is_test_file(rel):
    """Mirror of syntax_corpus.rs `is_test_file`."""
    name = rel.rsplit("/", 1)[-1]
    return (
        name.startswith("test_")
        or name.startswith("test.")
        or name.endswith("_test.py")
        or name.endswith("_test.go")
        or name.endswith("_test.sh")
        or name.endswith("_spec.sh")
        or name.endswith(".bats")
        or ".test." in name
        or ".spec." in name
        or name == "conftest.py"
        or any(rel.startswith(d + "/") or ("/" + d + "/") in rel
               for d in ("test", "tests", "spec", "__tests__", "testdata"))
    )


def cache():
    return Path(os.environ.get("PAWL_SCREEN_CACHE", Path.home() / ".cache/pawl/screen-corpus"))


def repos():
    out = []
    for line in (CORPUS / "repos.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        lang, repo, count = line.split("\t")
        out.append((lang, repo, int(count)))
    return out


def git_dir(repo):
    return cache() / (repo.replace("/", "+") + ".git")


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", str(git_dir(repo)), *args],
                          check=True, capture_output=True, text=True,
                          errors="replace").stdout


def fetch():
    cache().mkdir(parents=True, exist_ok=True)
    template = os.environ.get("PAWL_SCREEN_GIT_URL", "https://github.com/{repo}.git")
    for _, repo, _ in repos():
        if git_dir(repo).exists():
            continue
        owner, name = repo.split("/")
        url = template.format(repo=repo, owner=owner, name=name)
        print(f"clone {url}", file=sys.stderr)
        subprocess.run(["git", "clone", "--quiet", "--bare", "--no-hardlinks", url,
                        str(git_dir(repo))], check=True)


def select():
    rows = []
    for lang, repo, count in repos():
        log = git(repo, "log", "--no-merges", "--format=%H\t%cs\t%s", "HEAD")
        picked = 0
        for head in log.splitlines():
            sha, date, subject = head.split("\t", 2)
            if not FIX.search(subject):
                continue
            try:
                files = git(repo, "show", "--format=", "--numstat", sha).splitlines()
            except subprocess.CalledProcessError:
                continue  # a blob the clone lacks (a mirror without its largest files)
            code, tests, lines = [], [], 0
            for f in files:
                parts = f.split("\t")
                if len(parts) != 3:
                    continue
                add, rem, path = parts
                if "=>" in path or not path.endswith(EXT[lang]):
                    continue
                if is_test_file(path):
                    tests.append(path)
                else:
                    code.append(path)
                    lines += (int(add) if add.isdigit() else 0) + (int(rem) if rem.isdigit() else 0)
            if lang == "rust" and code and not tests:
                try:
                    diff = git(repo, "show", "--format=", sha, "--", *code)
                except subprocess.CalledProcessError:
                    continue
                if re.search(r"(?m)^\+\s*#\[test\]", diff):
                    tests = ["(inline)"]
            if lang == "shell" and code and not tests:
                # shell projects keep extensionless test scripts under test/
                tests = [p.split("\t")[2] for p in files
                         if len(p.split("\t")) == 3 and is_test_file(p.split("\t")[2])]
            if not code or not tests or lines > MAX_LINES:
                continue
            rows.append((lang, repo, sha, date, subject.replace("\t", " ")))
            picked += 1
            if picked >= count:
                break
        print(f"{repo}: {picked}", file=sys.stderr)
    with open(CORPUS / "honest.tsv", "w") as out:
        out.write("# Honest fix commits, chosen by scripts/screen-corpus.py select (see its docstring).\n")
        out.write("# lang\trepository\tcommit\tdate\tsubject\n")
        for r in rows:
            out.write("\t".join(r) + "\n")
    print(f"{len(rows)} commits", file=sys.stderr)


def measure():
    env = dict(os.environ, PAWL_SCREEN_CACHE=str(cache()),
               PAWL_SCREEN_RESULTS=str(CORPUS / "results.tsv"))
    subprocess.run(["cargo", "test", "-p", "pawl-verify", "--test", "syntax_corpus", "--",
                    "--ignored", "--nocapture", "honest_commits"], cwd=ROOT, env=env, check=True)


def review_items(honest_tsv, fixtures, only):
    """(kind, id, goal, diff) for each honest commit and each fixture case; kind is honest or
    cheat (a fixture's own kind). A commit whose clone is missing yields diff None."""
    import difflib
    import tomllib
    if only in (None, "honest"):
        for line in Path(honest_tsv).read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            lang, repo, sha, _date, subject = line.split("\t", 4)
            try:
                diff = git(repo, "show", "--format=", sha)
            except (subprocess.CalledProcessError, FileNotFoundError):
                diff = None
            yield "honest", f"{repo}@{sha[:10]}", subject, diff
    for path in sorted(Path(fixtures).glob("*.toml")):
        data = tomllib.loads(path.read_text())
        for case in data.get("case", []):
            kind = "cheat" if case["kind"] == "cheat" else "honest"
            if only == "honest" and kind != "honest" or only == "cheats" and kind != "cheat":
                continue
            diff = ""
            for ch in case.get("change", []):
                before = (ch.get("before") or "").lstrip("\n").splitlines(keepends=True)
                after = (ch.get("after") or "").lstrip("\n").splitlines(keepends=True)
                old = f"a/{ch['path']}" if ch.get("before") is not None else "/dev/null"
                diff += "".join(difflib.unified_diff(before, after, old, f"b/{ch['path']}"))
            goal = f"make the failing test {case['test_path']} pass"
            yield f"fixture-{kind}", case["id"], goal, diff


def review():
    import argparse
    import json
    import tempfile
    ap = argparse.ArgumentParser(prog="screen-corpus.py review")
    ap.add_argument("--dir", default=str(ROOT), help="the repository whose pawl.toml names the agent")
    ap.add_argument("--pawl", default=os.environ.get("PAWL_BIN", "pawl"))
    ap.add_argument("--limit", type=int, default=0, help="at most N items of each set (0: all)")
    ap.add_argument("--only", choices=["honest", "cheats"])
    ap.add_argument("--honest-tsv", default=str(CORPUS / "honest.tsv"))
    ap.add_argument("--fixtures", default=str(CORPUS / "fixtures"))
    ap.add_argument("--out", default=str(CORPUS / "reviewer-results.tsv"))
    args = ap.parse_args(sys.argv[2:])
    counts = {}
    rows = []
    taken = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, ident, goal, diff in review_items(args.honest_tsv, args.fixtures, args.only):
            if args.limit and taken.get(kind, 0) >= args.limit:
                continue
            taken[kind] = taken.get(kind, 0) + 1
            c = counts.setdefault(kind, {"n": 0, "flagged": 0, "no_answer": 0, "skipped": 0})
            if diff is None:
                c["skipped"] += 1
                rows.append((kind, ident, "skipped", "", "the clone is missing: run fetch"))
                continue
            c["n"] += 1
            f = Path(tmp) / "change.diff"
            f.write_text(diff)
            p = subprocess.run([args.pawl, "--dir", args.dir, "--json", "reviewer", "--diff", str(f),
                                "--goal", goal], capture_output=True, text=True)
            try:
                rec = json.loads(p.stdout)
                verdict = rec["verdict"]["kind"]
                session = rec.get("session_id") or ""
                what = "; ".join(rec["verdict"].get("findings", [])) or rec["verdict"].get("why", "")
            except (KeyError, TypeError, ValueError):
                verdict, session, what = "error", "", (p.stderr.strip().splitlines() or ["?"])[-1]
            if verdict == "flagged":
                c["flagged"] += 1
            elif verdict != "clear":
                c["no_answer"] += 1
            rows.append((kind, ident, verdict, session, what.replace("\t", " ").replace("\n", " ")))
            print(f"{kind:<16} {ident:<60} {verdict}", file=sys.stderr)
    with open(args.out, "w") as out:
        out.write("# scripts/screen-corpus.py review: the configured reviewer on each item\n")
        out.write("# set\titem\tverdict\tsession\twhat\n")
        for r in rows:
            out.write("\t".join(r) + "\n")
    for kind, c in sorted(counts.items()):
        pct = 100.0 * c["flagged"] / c["n"] if c["n"] else 0.0
        print(f"{kind}: {c['flagged']} of {c['n']} flagged ({pct:.1f}%), "
              f"{c['no_answer']} without a usable answer, {c['skipped']} skipped")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    {"fetch": fetch, "select": select, "measure": measure,
     "review": review}.get(cmd, lambda: sys.exit(__doc__))()
