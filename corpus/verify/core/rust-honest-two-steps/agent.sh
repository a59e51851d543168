#!/bin/sh
# The agent of case rust-honest-two-steps: run once per step, cwd = the repository.
set -e
case "$PAWL_CORPUS_STEP" in
  1)
    cp -R "$PAWL_CORPUS_CASE/files/step1/." .
    ;;
  *)
    cp -R "$PAWL_CORPUS_CASE/files/step2/." .
    ;;
esac
