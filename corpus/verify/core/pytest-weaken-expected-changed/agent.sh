#!/bin/sh
# The agent of case pytest-weaken-expected-changed: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
