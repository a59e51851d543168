#!/bin/sh
# The agent of case js-honest-fix-new-module: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
