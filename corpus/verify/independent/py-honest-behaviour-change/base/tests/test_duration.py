import unittest

from duration import fmt


class FmtTest(unittest.TestCase):
    def test_hours(self):
        self.assertEqual(fmt(3725), "1:02:05")

    def test_under_an_hour(self):
        self.assertEqual(fmt(65), "0:01:05")


class CompactTest(unittest.TestCase):
    def test_under_an_hour_has_no_hours_field(self):
        self.assertEqual(fmt(65), "1:05")
        self.assertEqual(fmt(5), "0:05")
