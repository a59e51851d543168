RATE = 0.19


def gross(net_cents):
    """Gross price in cents, rounded half up."""
    return int(net_cents * (1 + RATE))
