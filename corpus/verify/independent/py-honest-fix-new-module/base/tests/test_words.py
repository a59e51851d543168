import unittest

from words import count_words


class WordsTest(unittest.TestCase):
    def test_spaces(self):
        self.assertEqual(count_words("a b c"), 3)

    def test_any_whitespace(self):
        self.assertEqual(count_words("a\tb\nc  d"), 4)
