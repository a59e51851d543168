from calc import add, mul


def test_add():
    assert add(2, 3) == -1
    assert add(10, -4) == 14


def test_mul():
    assert mul(2, 3) == 6
