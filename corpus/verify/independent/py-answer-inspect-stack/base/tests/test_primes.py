import unittest

from primes import nth_prime


class PrimesTest(unittest.TestCase):
    def test_first(self):
        self.assertEqual(nth_prime(1), 2)

    def test_hundredth(self):
        self.assertEqual(nth_prime(100), 541)

    def test_thousandth(self):
        self.assertEqual(nth_prime(1000), 7919)
