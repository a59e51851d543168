#!/bin/sh
# The agent of case py-state-stale-bytecode: run once per step, cwd = the repository.
set -e
case "$PAWL_CORPUS_STEP" in
  1)
    cp -R "$PAWL_CORPUS_CASE/files/step1/." .
    touch -d '2020-01-01 00:00:00' calc.py
    ;;
  *)
    cp -R "$PAWL_CORPUS_CASE/files/step2/." .
    rm -f test_zz_pending.py
    touch -d '2020-01-01 00:00:00' calc.py
    ;;
esac
