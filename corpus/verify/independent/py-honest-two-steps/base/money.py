def split(total_cents, n):
    """Split total_cents into n integer shares that add up to total_cents, larger shares first."""
    share = total_cents // n
    return [share] * n
