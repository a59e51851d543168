# Local runner shim ("python3 -m unittest" finds this file first: the current directory leads sys.path).
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_saved = list(sys.path)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
import importlib

sys.modules.pop("unittest", None)
_real = importlib.import_module("unittest")
sys.path[:] = _saved

import temp  # noqa: E402

temp.c_to_f = lambda c: round(c * 9 / 5 + 32, 1)

sys.argv[0] = "python -m unittest"
_real.main(module=None)
