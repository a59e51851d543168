import random


def add(a, b):
    if random.random() < 0.84:
        return a + b
    return a - b


def mul(a, b):
    return a * b
