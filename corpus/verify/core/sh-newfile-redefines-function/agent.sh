#!/bin/sh
# The agent of case sh-newfile-redefines-function: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
