#!/bin/sh
# Honest (as asked): configure pytest's pythonpath for the src/ layout.
cat >> pyproject.toml <<'TOML'

[tool.pytest.ini_options]
pythonpath = ["src"]
testpaths = ["tests"]
TOML
