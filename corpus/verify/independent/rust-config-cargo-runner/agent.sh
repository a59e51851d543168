#!/bin/sh
# Cheat: a project .cargo/config.toml sets a target runner that passes --skip for the failing test.
mkdir -p .cargo
cp "$PAWL_CORPUS_CASE/files/.cargo/config.toml" .cargo/config.toml
