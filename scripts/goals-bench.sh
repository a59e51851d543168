#!/usr/bin/env bash
# The goals bench (issue 35 point 5) in full, sharded: every goal of corpus/goals/goals.tsv on the
# stand-ins (Python, JavaScript, shell, each goal's cheat) and every goal of corpus/goals/real.tsv on
# the real projects, with ONE frozen copy of pawl, then the table and figures
# (scripts/goals-aggregate.py). A benchmark of its own: not part of scripts/test.sh and it does not
# gate CI (the shape of the goal files is checked in CI by `the_goals_are_well_formed` and
# `real_goals_are_well_formed`). Several hours of CPU: about 400 stand-in runs (10–130 s each) and 80
# real runs (2–11 min each); the real projects' worlds come from scripts/real-projects.sh's cache
# (network when it is cold).
#
#   bash scripts/goals-bench.sh [OUT_DIR]                 # default: target/goals-bench
#   PAWL_GOALS_STREAMS=2 bash scripts/goals-bench.sh      # stand-in streams at once (default 4)
#   PAWL_GOALS_PARTS=stand bash scripts/goals-bench.sh    # stand-ins only (or: real)
#   PAWL_REAL_GOALS_CHEATS=1 bash scripts/goals-bench.sh  # the real goals with their cheats too
#   PAWL_REAL_GOALS_CHEATS=1 PAWL_REAL_GOALS_HONEST=0 …   # the real goals' cheats only
#   PAWL_GOALS_BINS=DIR bash scripts/goals-bench.sh     # DIR/{pawl,corpus,real_projects}: build nothing
#                                                       # (the test binaries read corpus/ where they were built)
#   PAWL_GOALS_NICE=10 …                                  # niceness of every run (default 10)
#
# One stream per real project, never two: the real-projects harness sets a project up in one
# directory of its cache (`run/<project>`), and a second run of the same project at once overwrites
# the first's tree (seen: a honest run REFUSED, exit 14). Another run beside the bench needs its own
# `PAWL_REAL_CACHE` (its `run/`, `results/` and `worlds/` its own, the other entries linked to the
# cache's: a world's key holds the cache's path, and preparing a project removes its worlds under
# other keys — a shared `worlds/` lets two caches delete each other's world; seen in session 20).
#
# Each shard writes OUT_DIR/stand-<prefix>.log|.md (ids m0…m6, i0…i3) and OUT_DIR/real-<lang>.log|.md;
# `python3 scripts/goals-aggregate.py OUT_DIR` prints the whole table and figures again at any time
# (also while shards still run: goals not reached are counted apart).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=$(realpath -m "${1:-target/goals-bench}")
mkdir -p "$out/bin"
nice_n=${PAWL_GOALS_NICE:-10}
streams=${PAWL_GOALS_STREAMS:-4}
parts=${PAWL_GOALS_PARTS:-stand,real}

# Build once and freeze the binaries: a rebuild during the bench changes nothing it runs.
if [ -n "${PAWL_GOALS_BINS:-}" ]; then
  cp "$PAWL_GOALS_BINS"/{pawl,corpus,real_projects} "$out/bin/"
else
  mapfile -t exes < <(nice -n "$nice_n" cargo test -p pawl-cli --test corpus --test real_projects --no-run \
    --message-format=json 2>/dev/null | python3 -c '
import json, sys
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] in ("corpus", "real_projects", "pawl"):
        print(m["target"]["name"] + "\t" + m["executable"])
')
  for e in "${exes[@]}"; do
    cp "${e#*$'\t'}" "$out/bin/${e%%$'\t'*}"
  done
fi
for n in pawl corpus real_projects; do
  [ -x "$out/bin/$n" ] || { echo "goals-bench: $n was not built" >&2; exit 1; }
done
export CARGO_BIN_EXE_pawl="$out/bin/pawl"
git rev-parse HEAD > "$out/commit"
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "goals-bench: pawl $(sha256sum "$CARGO_BIN_EXE_pawl" | cut -c1-12), commit $(cut -c1-8 "$out/commit"), start $(date -u +%T), load $(load), out $out"

# The test binaries read corpus/ relative to their crate's manifest directory.
cd "$root/crates/cli"
stand() {
  for s in "$@"; do
    PAWL_GOALS_FILTER=$s PAWL_GOALS_REPORT="$out/stand-$s.md" nice -n "$nice_n" "$out/bin/corpus" \
      goals::goals_bench --exact --ignored --nocapture > "$out/stand-$s.log" 2>&1
    echo "stand-ins $s rc=$? $(date -u +%T) load $(load)"
  done
}
real() {
  PAWL_REAL_GOALS_CHEATS=${PAWL_REAL_GOALS_CHEATS:-0} PAWL_REAL_GOALS_FILTER=$2 PAWL_REAL_GOALS_REPORT="$out/real-$1.md" \
    nice -n "$nice_n" "$out/bin/real_projects" real_goals_bench --exact --ignored --nocapture > "$out/real-$1.log" 2>&1
  echo "real $1 rc=$? $(date -u +%T) load $(load)"
}
# The shards (ids by prefix: m0 = m01…m09, i3 = i30…i33), mined and written-apart goals
# alternating (a bench cut short has both), dealt to the streams in turn.
shards=(m0 i0 m1 i1 m2 i2 m3 i3 m4 m5 m6)
if [[ ,$parts, == *,real,* ]]; then
  for p in py js rs go; do
    real "$p" "$p-" &
  done
fi
if [[ ,$parts, == *,stand,* ]]; then
  for ((k = 0; k < streams; k++)); do
    mine=()
    for ((j = k; j < ${#shards[@]}; j += streams)); do mine+=("${shards[j]}"); done
    stand "${mine[@]}" &
  done
fi
wait
echo "goals-bench: all done $(date -u +%T), load $(load)"
python3 "$root/scripts/goals-aggregate.py" "$out"
