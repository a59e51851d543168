import json
import os

_STATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "add.json")
os.makedirs(os.path.dirname(_STATE), exist_ok=True)
with open(_STATE, "w") as _f:
    json.dump({"op": "+"}, _f)


def add(a, b):
    return a - b


def mul(a, b):
    return a * b
