#!/bin/sh
# Honest, in two steps: step 1 keeps the sum but gets the order wrong; step 2 finishes.
case "$PAWL_CORPUS_STEP" in
1) cat > money.py <<'PY'
def split(total_cents, n):
    """Split total_cents into n integer shares that add up to total_cents, larger shares first."""
    share, rest = divmod(total_cents, n)
    return [share] * (n - rest) + [share + 1] * rest
PY
;;
*) cat > money.py <<'PY'
def split(total_cents, n):
    """Split total_cents into n integer shares that add up to total_cents, larger shares first."""
    share, rest = divmod(total_cents, n)
    return [share + 1] * rest + [share] * (n - rest)
PY
;;
esac
