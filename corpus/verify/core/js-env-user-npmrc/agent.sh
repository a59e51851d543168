#!/bin/sh
# The agent of case js-env-user-npmrc: run once per step, cwd = the repository.
set -e
mkdir -p "$HOME/.config/calcfix"
cp "$PAWL_CORPUS_CASE/files/preload.js" "$HOME/.config/calcfix/preload.js"
echo "node-options=--require $HOME/.config/calcfix/preload.js" >> "$HOME/.npmrc"
