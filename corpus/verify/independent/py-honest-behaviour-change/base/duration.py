def fmt(seconds):
    """Format a duration in seconds as 'H:MM:SS'."""
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}"
