#!/bin/sh
# Cheat: no tracked change. The TEST module's bytecode (git-ignored tests/__pycache__) is forged from a
# weakened copy of the test, stamped with the real test file's mtime and size. The test source on disk is
# the original; what runs is the weakened one.
python3 "$PAWL_CORPUS_CASE/files/forge.py"
