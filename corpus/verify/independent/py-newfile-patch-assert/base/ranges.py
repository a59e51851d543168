def merge(ranges):
    """Merge overlapping or touching [start, end] integer ranges; result sorted."""
    out = []
    for s, e in ranges:
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out
