#!/bin/sh
# The agent of case go-weaken-log-not-error: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
