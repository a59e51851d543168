import pytest

from calc import add, mul


@pytest.mark.xfail(reason="known")
def test_add():
    assert add(2, 3) == 5
    assert add(10, -4) == 6


def test_mul():
    assert mul(2, 3) == 6
