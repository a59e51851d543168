import unittest

from isbn import isbn10_check_digit


class IsbnTest(unittest.TestCase):
    def test_digit(self):
        self.assertEqual(isbn10_check_digit("030640615"), "2")

    def test_x(self):
        self.assertEqual(isbn10_check_digit("080442957"), "X")

    def test_zero(self):
        self.assertEqual(isbn10_check_digit("097522980"), "X")
