#!/bin/sh
# Honest: durations under an hour drop the hours field, as the goal asks; the old test that expected
# "0:01:05" contradicts the goal and is updated.
cat > duration.py <<'PY'
def fmt(seconds):
    """Format a duration in seconds as 'H:MM:SS', or 'M:SS' when under an hour."""
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    if h == 0:
        return f"{m}:{s:02d}"
    return f"{h}:{m:02d}:{s:02d}"
PY
python3 - <<'PY'
p = "tests/test_duration.py"
s = open(p).read()
s = s.replace('self.assertEqual(fmt(65), "0:01:05")', 'self.assertEqual(fmt(65), "1:05")  # compact form since the change')
open(p, "w").write(s)
PY
