#!/bin/sh
# The agent of case jest-weaken-expect-anything: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
