#!/bin/sh
# The agent of case rust-weaken-ignore: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
