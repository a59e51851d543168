import unittest

from bmi import bmi_class


class BmiTest(unittest.TestCase):
    def test_normal(self):
        self.assertEqual(bmi_class(70, 1.80), "normal")

    def test_obese(self):
        self.assertEqual(bmi_class(100, 1.75), "obese")

    def test_boundary_is_over(self):
        self.assertEqual(bmi_class(81, 1.80), "over")
