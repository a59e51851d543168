import datetime


def add_months(d, months):
    """Add calendar months; clamp the day to the end of the target month (Jan 31 + 1 -> Feb 28/29)."""
    m = d.month - 1 + months
    return d.replace(year=d.year + m // 12, month=m % 12 + 1)
