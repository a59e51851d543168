def parse(hex_color):
    """'#1a2b3c' or '#abc' -> (r, g, b)."""
    h = hex_color.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))
