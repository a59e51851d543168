def unique(items):
    """Drop repeated items, keeping the first occurrence of each, in order."""
    return sorted(set(items))
