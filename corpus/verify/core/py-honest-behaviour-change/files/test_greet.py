import unittest

from greet import greet


class Greet(unittest.TestCase):
    def test_greet(self):
        self.assertEqual(greet("Ada"), "Hi, Ada.")
