import unittest

from calc import double


class Calc(unittest.TestCase):
    def test_double(self):
        self.assertEqual(double(5), 10)
