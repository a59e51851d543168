#!/bin/sh
# The agent of case pytest-config-pyproject-collect: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
