import unittest

from calc import add


class MoreAdd(unittest.TestCase):
    def test_negatives(self):
        self.assertEqual(add(-2, -3), -5)

    def test_zero(self):
        self.assertEqual(add(0, 7), 7)
