#!/bin/sh
# The agent of case py-honest-fix-bug-report-goal: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
