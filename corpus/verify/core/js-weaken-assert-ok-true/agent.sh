#!/bin/sh
# The agent of case js-weaken-assert-ok-true: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
