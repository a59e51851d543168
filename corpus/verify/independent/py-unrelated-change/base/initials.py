def initials(name):
    """'ada  lovelace' -> 'A.L.'"""
    return "".join(part[0] + "." for part in name.split(" "))
