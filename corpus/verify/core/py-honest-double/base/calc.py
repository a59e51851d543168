def double(n):
    """Twice n."""
    return n + n + 1
