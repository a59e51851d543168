#!/bin/sh
# Mechanical check of the independent cases, WITHOUT pawl.
# For each case: copy base/ to a temp dir, git-init it, run `setup`, run the gate (must FAIL),
# run agent.sh for each step, run the gate again (must PASS in this naive, same-room setting).
# A temp HOME (and ~/.local/bin first on PATH, as on a typical user's machine) keeps env-only
# cheats off the real machine.  `random` cases are run RUNS times after the agent.
# usage: check-cases.sh [case-id ...]     output: one line per case on stdout; logs under $LOGDIR
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
LOGDIR=${LOGDIR:-/tmp/corpusind-logs}
RUNS=${RUNS:-10}
mkdir -p "$LOGDIR"
REAL_CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}
REAL_RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
GOBIN_DIR=${GOBIN_DIR:-/tmp/corpusind-go/root/usr/lib/go-1.19/bin}

field() { # field <case.toml> <key>
  python3 -c 'import sys,tomllib;d=tomllib.load(open(sys.argv[1],"rb"));v=d.get(sys.argv[2],"");print(" ".join(v) if isinstance(v,list) else v)' "$1" "$2"
}

if [ $# -eq 0 ]; then
  set -- $(cd "$HERE" && for d in */; do [ -f "$d/case.toml" ] && printf '%s\n' "${d%/}"; done)
fi

fails=0
for id in "$@"; do
  c="$HERE/$id"; t="$c/case.toml"
  gate=$(field "$t" gate); setup=$(field "$t" setup); needs=$(field "$t" needs)
  steps=$(field "$t" steps); [ -n "$steps" ] || steps=1
  category=$(field "$t" category); kind=$(field "$t" kind)
  tmp=$(mktemp -d /tmp/corpusind-check.XXXXXX)
  mkdir -p "$tmp/home/.local/bin"
  log="$LOGDIR/$id.log"; : > "$log"
  P="$tmp/home/.local/bin:$PATH"; [ -d "$GOBIN_DIR" ] && P="$P:$GOBIN_DIR"
  missing=""
  for n in $needs; do PATH=$P command -v "$n" >/dev/null 2>&1 || missing="$missing $n"; done
  if [ -n "$missing" ]; then echo "SKIP  $id  (missing:$missing)"; rm -rf "$tmp"; continue; fi
  cp -R "$c/base" "$tmp/repo"
  run() { # run in the repo with the sandboxed env
    (cd "$tmp/repo" && env HOME="$tmp/home" PATH="$P" CARGO_HOME="$REAL_CARGO_HOME" RUSTUP_HOME="$REAL_RUSTUP_HOME" \
      GOCACHE=/tmp/corpusind-gocache GOPATH="$tmp/home/go" \
      npm_config_cache=/tmp/corpusind-npmcache PIP_CACHE_DIR=/tmp/corpusind-pipcache \
      PAWL_CORPUS_CASE="$c" "$@") >>"$log" 2>&1
  }
  run sh -c 'git init -q && git add -A && git -c user.name=h -c user.email=h@h commit -qm base'
  if [ -n "$setup" ]; then echo "## setup" >>"$log"; run sh -c "$setup" || { echo "BAD   $id  (setup failed)"; fails=$((fails+1)); continue; }; fi
  echo "## gate on base" >>"$log"
  if run sh -c "$gate"; then echo "BAD   $id  (gate passes on base)"; fails=$((fails+1)); continue; fi
  i=1
  while [ "$i" -le "$steps" ]; do
    echo "## agent step $i" >>"$log"
    run env PAWL_CORPUS_STEP=$i sh "$c/agent.sh" || echo "(agent step $i exit $?)" >>"$log"
    i=$((i+1))
  done
  if [ "$category" = random ]; then
    ok=0; k=0
    while [ $k -lt "$RUNS" ]; do echo "## gate after agent, run $k" >>"$log"; run sh -c "$gate" && ok=$((ok+1)); k=$((k+1)); done
    if [ $ok -gt 0 ] && [ $ok -lt "$RUNS" ]; then echo "OK    $id  ($kind/$category: gate passed $ok/$RUNS after agent)"
    else echo "BAD   $id  (random: gate passed $ok/$RUNS)"; fails=$((fails+1)); fi
  else
    echo "## gate after agent" >>"$log"
    if run sh -c "$gate"; then echo "OK    $id  ($kind/$category: fails on base, passes after agent)"
    else echo "BAD   $id  (gate fails after agent)"; fails=$((fails+1)); fi
  fi
  rm -rf "$tmp"
done
exit $fails
