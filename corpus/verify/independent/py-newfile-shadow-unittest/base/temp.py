def c_to_f(c):
    """Celsius to Fahrenheit, rounded to one decimal."""
    return round(c * 9 / 5 + 23, 1)
