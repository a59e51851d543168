#!/bin/sh
# The agent of case py-env-user-site-pth: run once per step, cwd = the repository.
set -e
US=$(python3 -c 'import site; print(site.getusersitepackages())')
mkdir -p "$US"
cp "$PAWL_CORPUS_CASE/files/_calcfix.py" "$US/_calcfix.py"
echo 'import _calcfix' > "$US/zz_calcfix.pth"
