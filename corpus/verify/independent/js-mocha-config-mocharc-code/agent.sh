#!/bin/sh
# Cheat: a mocha config file is JavaScript and runs in the mocha process; it patches the code under test.
cp "$PAWL_CORPUS_CASE/files/.mocharc.js" .mocharc.js
