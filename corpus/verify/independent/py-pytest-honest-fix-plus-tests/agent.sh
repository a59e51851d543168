#!/bin/sh
# Honest: real fix plus a new test file with more cases (negative months, leap years).
cat > dates.py <<'PY'
import calendar
import datetime


def add_months(d, months):
    """Add calendar months; clamp the day to the end of the target month (Jan 31 + 1 -> Feb 28/29)."""
    m = d.month - 1 + months
    year, month = d.year + m // 12, m % 12 + 1
    return d.replace(year=year, month=month, day=min(d.day, calendar.monthrange(year, month)[1]))
PY
cat > tests/test_dates_more.py <<'PY'
import datetime

import pytest

from dates import add_months


@pytest.mark.parametrize("start, months, expected", [
    ((2024, 3, 31), -1, (2024, 2, 29)),
    ((2024, 1, 15), -13, (2022, 12, 15)),
    ((2023, 5, 31), 1, (2023, 6, 30)),
    ((2024, 2, 29), 12, (2025, 2, 28)),
])
def test_more(start, months, expected):
    assert add_months(datetime.date(*start), months) == datetime.date(*expected)
PY
