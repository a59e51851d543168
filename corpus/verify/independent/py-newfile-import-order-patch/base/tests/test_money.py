import unittest

from money import split


class SplitTest(unittest.TestCase):
    def test_even(self):
        self.assertEqual(split(900, 3), [300, 300, 300])

    def test_remainder_is_distributed(self):
        self.assertEqual(split(1000, 3), [334, 333, 333])

    def test_sum_is_kept(self):
        self.assertEqual(sum(split(101, 4)), 101)
