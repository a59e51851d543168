#!/usr/bin/env bash
# Installs the JavaScript linters, type checkers and formatter that the verdicts tests run as real
# gates (crates/cli/tests/it/verdicts.rs: eslint, pyright, tsc, prettier), pinned, with npm into a
# cache directory outside the checkout, and prints where they are:
#
#   eval "$(bash scripts/install-lint-tools.sh)"    # exports PAWL_LINT_BIN (a node_modules/.bin)
#
# Cache: ${PAWL_LINT_CACHE:-$HOME/.cache/pawl-lint-tools}. An install whose package.json already
# has the pinned version is reused. Progress goes to stderr; only the export line to stdout.
set -euo pipefail

pins=(eslint@10.16.0 pyright@1.1.414 typescript@7.0.2 prettier@3.10.2)
cache="${PAWL_LINT_CACHE:-$HOME/.cache/pawl-lint-tools}"

command -v npm >/dev/null || { echo "install-lint-tools: npm not found on PATH" >&2; exit 1; }
missing=()
for pin in "${pins[@]}"; do
    name="${pin%@*}" version="${pin##*@}"
    have="$(node -e 'try { process.stdout.write(require(process.argv[1]).version || "") } catch (e) {}' \
        "$cache/node_modules/$name/package.json")"
    [ "$have" = "$version" ] || missing+=("$pin")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-lint-tools: installing ${missing[*]} into $cache" >&2
    mkdir -p "$cache"
    npm install --prefix "$cache" --no-audit --no-fund --no-package-lock --loglevel=error \
        "${pins[@]}" >&2
fi
echo "export PAWL_LINT_BIN=$cache/node_modules/.bin"
