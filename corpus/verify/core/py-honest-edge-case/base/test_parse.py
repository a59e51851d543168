import unittest

from parse import parse


class Parse(unittest.TestCase):
    def test_list(self):
        self.assertEqual(parse("1,2"), [1, 2])

    def test_empty(self):
        self.assertEqual(parse(""), [])
