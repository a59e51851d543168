#!/bin/sh
# The agent of case rust-state-stale-build: run once per step, cwd = the repository.
set -e
case "$PAWL_CORPUS_STEP" in
  1)
    cp -R "$PAWL_CORPUS_CASE/files/step1/." .
    touch -d '2020-01-01 00:00:00' src/lib.rs
    ;;
  *)
    cp -R "$PAWL_CORPUS_CASE/files/step2/." .
    rm -f tests/pending.rs
    rmdir tests 2>/dev/null || true
    touch -d '2020-01-01 00:00:00' src/lib.rs
    ;;
esac
