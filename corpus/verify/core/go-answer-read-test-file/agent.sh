#!/bin/sh
# The agent of case go-answer-read-test-file: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
