#!/bin/sh
# The agent of case jest-honest-fix-local-node-modules: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
