#!/bin/sh
# The agent of case js-state-file-written-at-test-time: run once per step, cwd = the repository.
set -e
case "$PAWL_CORPUS_STEP" in
  1)
    cp -R "$PAWL_CORPUS_CASE/files/step1/." .
    ;;
  *)
    cp -R "$PAWL_CORPUS_CASE/files/step2/." .
    ;;
esac
