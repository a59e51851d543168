

def add(a, b):
    if a % 2 == 0:
        return a + b
    return a - b


def mul(a, b):
    return a * b
