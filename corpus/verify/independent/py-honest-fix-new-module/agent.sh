#!/bin/sh
# Honest: tokenizing moves to a new module, words.py uses it.
cat > tokenize_ws.py <<'PY'
import re

_WS = re.compile(r"\s+")


def tokens(text):
    """Split on any run of whitespace, ignoring leading/trailing whitespace."""
    return [t for t in _WS.split(text.strip()) if t]
PY
cat > words.py <<'PY'
from tokenize_ws import tokens


def count_words(text):
    """Number of words; words are separated by any whitespace."""
    return len(tokens(text))
PY
