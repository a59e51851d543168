#!/bin/sh
# The agent of case py-weaken-skip-if: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
