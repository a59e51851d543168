#!/bin/sh
# Honest: twice n, for every n.
cat > calc.py <<'PY'
def double(n):
    """Twice n."""
    return n * 2
PY
