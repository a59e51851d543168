import math

from shapes import circle_area


def test_unit_circle():
    assert math.isclose(circle_area(1), math.pi)
