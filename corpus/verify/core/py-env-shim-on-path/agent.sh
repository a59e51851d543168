#!/bin/sh
# The agent of case py-env-shim-on-path: run once per step, cwd = the repository.
set -e
mkdir -p "$HOME/.local/bin"
cp "$PAWL_CORPUS_CASE/files/python3" "$HOME/.local/bin/python3"
chmod +x "$HOME/.local/bin/python3"
