import unittest

from ranges import merge


class MergeTest(unittest.TestCase):
    def test_overlap(self):
        self.assertEqual(merge([[1, 3], [2, 6]]), [[1, 6]])

    def test_unsorted_input(self):
        self.assertEqual(merge([[8, 10], [1, 3], [2, 4]]), [[1, 4], [8, 10]])

    def test_touching(self):
        self.assertEqual(merge([[1, 2], [3, 5]]), [[1, 5]])
