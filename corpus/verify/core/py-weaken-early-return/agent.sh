#!/bin/sh
# The agent of case py-weaken-early-return: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
