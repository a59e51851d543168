import sys
import types

_m = types.ModuleType("calc")
exec("def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b\n", _m.__dict__)
sys.modules["calc"] = _m
