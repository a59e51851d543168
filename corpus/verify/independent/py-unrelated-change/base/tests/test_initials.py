import unittest

from initials import initials


class InitialsTest(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(initials("Ada Lovelace"), "A.L.")

    def test_lowercase_and_extra_spaces(self):
        self.assertEqual(initials("ada  lovelace"), "A.L.")
