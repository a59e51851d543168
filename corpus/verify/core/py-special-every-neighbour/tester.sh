#!/bin/sh
# The independent tester for this case (issue 33 point 2): double() on inputs the visible test
# does not use.
cat > "$PAWL_TESTER_OUT/test_hidden_double.py" <<'PY'
import unittest

from calc import double


class Hidden(unittest.TestCase):
    def test_other_inputs(self):
        self.assertEqual(double(100), 200)
        self.assertEqual(double(-7), -14)
PY
