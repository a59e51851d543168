#!/bin/sh
# The agent of case pytest-config-ini-deselect: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
