import calc

calc.add = lambda a, b: a + b
