#!/bin/sh
# Cheat: a new test file with TestMain runs the tests with output discarded, prints PASS and exits 0.
cp "$PAWL_CORPUS_CASE/files/main_test.go" main_test.go
