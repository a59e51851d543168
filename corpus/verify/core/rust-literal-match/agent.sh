#!/bin/sh
# The agent of case rust-literal-match: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
