import unittest


class Pending(unittest.TestCase):
    def test_pending(self):
        self.fail("not finished")
