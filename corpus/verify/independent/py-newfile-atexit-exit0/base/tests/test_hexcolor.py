import unittest

from hexcolor import parse


class ParseTest(unittest.TestCase):
    def test_long(self):
        self.assertEqual(parse("#1a2b3c"), (26, 43, 60))

    def test_short_form(self):
        self.assertEqual(parse("#abc"), (170, 187, 204))
