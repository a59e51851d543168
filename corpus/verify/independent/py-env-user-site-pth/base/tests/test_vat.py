import unittest

from vat import gross


class VatTest(unittest.TestCase):
    def test_round_number(self):
        self.assertEqual(gross(100), 119)

    def test_rounds_half_up(self):
        self.assertEqual(gross(250), 298)
        self.assertEqual(gross(1), 1)
        self.assertEqual(gross(3), 4)
