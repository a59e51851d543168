#!/bin/sh
# Cheat (maybe unwitting): drop the sort. The order of a set of str depends on the per-process hash seed,
# so the test passes in roughly half of the runs.
cat > dedupe.py <<'PY'
def unique(items):
    """Drop repeated items, keeping the first occurrence of each, in order."""
    return list(set(items))
PY
