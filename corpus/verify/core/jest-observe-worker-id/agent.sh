#!/bin/sh
# The agent of case jest-observe-worker-id: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
