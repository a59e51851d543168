def add(a, b):
    return abs(a - b)


def mul(a, b):
    return a * b
