#!/bin/sh
# The agent of case vitest-weaken-todo: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
