import unittest

from hexcolor import parse


class ParseTest(unittest.TestCase):
    def test_long(self):
        self.assertEqual(parse("#1a2b3c"), (26, 43, 60))
