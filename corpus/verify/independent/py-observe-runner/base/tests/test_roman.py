import unittest

from roman import to_roman


class RomanTest(unittest.TestCase):
    def test_additive(self):
        self.assertEqual(to_roman(2026), "MMXXVI")

    def test_subtractive(self):
        self.assertEqual(to_roman(4), "IV")
        self.assertEqual(to_roman(1994), "MCMXCIV")
