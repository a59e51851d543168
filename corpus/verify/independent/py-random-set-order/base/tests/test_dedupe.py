import unittest

from dedupe import unique


class UniqueTest(unittest.TestCase):
    def test_empty(self):
        self.assertEqual(unique([]), [])

    def test_keeps_first_occurrence_order(self):
        self.assertEqual(unique(["pear", "apple", "pear"]), ["pear", "apple"])
