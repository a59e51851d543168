#!/usr/bin/env bash
# Property-based test of `pawl serve`'s API against its own OpenAPI document: schemathesis (from
# PyPI, in a cached virtualenv) against a live daemon on 127.0.0.1 serving a demo repository.
# Usage: scripts/api-fuzz.sh [path/to/pawl]   (default: target/debug/pawl)
set -euo pipefail
cd "$(dirname "$0")/.."
PAWL=$(realpath "${1:-${CARGO_TARGET_DIR:-target}/debug/pawl}")
VENV=${PAWL_SCHEMATHESIS_VENV:-$HOME/.cache/pawl-schemathesis}
if [ ! -x "$VENV/bin/schemathesis" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q schemathesis
fi
work=$(mktemp -d)
daemon=
cleanup() {
    if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
export HOME="$work/home" XDG_STATE_HOME="" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
mkdir -p "$HOME"
# A repository with runs to serve: the embedded demo makes one (offline, no credentials).
(cd "$work" && "$PAWL" demo --dir "$work/demo" >/dev/null 2>&1) || echo "api-fuzz: the demo run failed; the API is tested without runs" >&2
"$PAWL" serve --port 0 --json --add "$work" > "$work/ready.json" &
daemon=$!
for _ in $(seq 1 600); do [ -s "$work/ready.json" ] && break; sleep 0.1; done
url=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$work/ready.json")
token=$(cat "$HOME/.local/state/pawl/serve.token")
# From the temporary directory: schemathesis leaves its cache where it runs.
cd "$work"
"$VENV/bin/schemathesis" run "$url/api/v1/openapi.json" \
    -H "Authorization: Bearer $token" \
    --checks all --max-examples 30 --workers 1 --seed "${PAWL_FUZZ_SEED:-1}" \
    --exclude-path-regex 'stream$'
