import unittest

from morse import encode


class MorseTest(unittest.TestCase):
    def test_sos(self):
        self.assertEqual(encode("SOS"), "... --- ...")

    def test_words_and_case(self):
        self.assertEqual(encode("hi there"), ".... .. / - .... . .-. .")
