#!/usr/bin/env bash
# Runs pawl's whole test suite on a fresh machine: installs what the tests need (the pinned agent
# CLIs for the real-client tier, cached under ~/.cache/pawl-agents), then the workspace tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# The real Claude Code, Codex and Gemini CLIs, driven offline against pawl's mock model server.
eval "$(bash .ci/install-agents.sh)"
export PAWL_CLAUDE_BIN PAWL_CODEX_BIN PAWL_GEMINI_BIN

# pytest, ruff, mypy and black for the user (`~/.local`, as a user installs them): the sealed-checks
# tests run real pytest projects (crates/cli/tests/it/sealed.rs), the verdicts tests real `ruff
# check`, `mypy` and `black --check` gates judged against the baseline
# (crates/cli/tests/it/verdicts.rs). Installed once from PyPI, then found.
for pin in 'pytest>=8,<9' 'ruff>=0.17,<1' 'mypy>=2.4,<3' 'black>=26,<27'; do
    module="${pin%%[<>=]*}"
    if ! python3 -m "$module" --version >/dev/null 2>&1; then
        python3 -m pip install --quiet --user --disable-pip-version-check --no-warn-script-location "$pin"
    fi
done

# eslint, pyright, tsc and prettier (npm, pinned, cached under ~/.cache/pawl-lint-tools) for the
# verdicts tests' JavaScript and type-checker gates.
eval "$(bash scripts/install-lint-tools.sh)"
export PAWL_LINT_BIN

# Go (>= 1.22, Debian's backports) for the tests that run the real `go test` (installed once).
bash scripts/install-go.sh

# tmux (Debian's) for the test that has a step try to drive the user's tmux server.
if ! command -v tmux >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >&2 ||
            { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >&2; }
    else
        echo "test.sh: tmux is missing (the session-server attack test needs it under CI=true)" >&2
    fi
fi

# Debian's chromium and chromedriver for the dashboard's real-browser test (installed once).
bash scripts/install-browser.sh

# A throw-away PostgreSQL server (Debian's postgresql, installed once) for the shared store's
# tests: the store's suite on both backends, the fleet test (docs/fleet.md).
pg_env="$(bash scripts/pg.sh start)"
eval "$pg_env"
export PAWL_TEST_PG_URL PAWL_TEST_PG_DIR
root=""
cleanup() {
    [ -n "${PAWL_TEST_PG_DIR:-}" ] && bash scripts/pg.sh stop "$PAWL_TEST_PG_DIR" || true
    [ -n "$root" ] && rm -rf "$root"
}
trap cleanup EXIT

cargo test --workspace "$@"

# pawl serve's API against its own OpenAPI document, with a property-based tester (schemathesis).
bash scripts/api-fuzz.sh "${CARGO_TARGET_DIR:-target}/debug/pawl"

# The install path the README gives (`cargo install --path crates/cli`), from this clone: built
# with the test build's artifacts (debug, same target dir: seconds), installed into a temp root,
# and the installed binary runs.
root="$(mktemp -d)"
CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}" cargo install --quiet --locked --debug --path crates/cli --root "$root"
"$root/bin/pawl" --version
"$root/bin/pawl" help run >/dev/null
echo "install check: cargo install --path crates/cli works; $("$root/bin/pawl" --version)"
