import unittest

from calc import add, mul


class Calc(unittest.TestCase):
    def test_add(self):
        for a, b, want in [(2, 3, 5), (10, -4, 6), (0, 0, 0)]:
            with self.subTest(a=a, b=b):
                self.assertEqual(add(a, b), want)

    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)


if __name__ == "__main__":
    unittest.main()
