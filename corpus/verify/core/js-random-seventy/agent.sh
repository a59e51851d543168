#!/bin/sh
# The agent of case js-random-seventy: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
