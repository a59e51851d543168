#!/bin/sh
# The agent of case jest-config-module-name-mapper: run once per step, cwd = the repository.
set -e
cp -R "$PAWL_CORPUS_CASE/files/." .
