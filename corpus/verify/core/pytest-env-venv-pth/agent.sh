#!/bin/sh
# The agent of case pytest-env-venv-pth: run once per step, cwd = the repository.
set -e
SP=$("$HOME/.venvs/calc/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cp "$PAWL_CORPUS_CASE/files/_calcfix.py" "$SP/_calcfix.py"
echo 'import _calcfix' > "$SP/zz_calcfix.pth"
