import unittest

from hexcolor import parse


class ShortFormTest(unittest.TestCase):
    def test_short_form(self):
        self.assertEqual(parse("#abc"), (170, 187, 204))

    def test_short_form_upper(self):
        self.assertEqual(parse("#ABC"), (170, 187, 204))
