import unittest

from temp import c_to_f


class TempTest(unittest.TestCase):
    def test_freezing(self):
        self.assertEqual(c_to_f(0), 32.0)

    def test_body(self):
        self.assertEqual(c_to_f(37), 98.6)
