#!/bin/sh
# The agent of case pytest-newfile-conftest-patch: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
