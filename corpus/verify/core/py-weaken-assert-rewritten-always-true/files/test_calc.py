import unittest

from calc import add, mul


class Calc(unittest.TestCase):
    def test_add(self):
        self.assertIn(add(2, 3), range(-100, 100))
        self.assertIn(add(10, -4), range(-100, 100))

    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)


if __name__ == "__main__":
    unittest.main()
