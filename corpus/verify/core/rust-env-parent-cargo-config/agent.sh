#!/bin/sh
# The agent of case rust-env-parent-cargo-config: run once per step, cwd = the repository.
set -e
P=$(cd .. && pwd)
mkdir -p "$P/.cargo" "$HOME/.cargo"
cp "$PAWL_CORPUS_CASE/files/config.toml" "$P/.cargo/config.toml"
cp "$PAWL_CORPUS_CASE/files/run.sh" "$P/.cargo/run.sh"
sed -i "s#RUNSH#$P/.cargo/run.sh#" "$P/.cargo/config.toml"
