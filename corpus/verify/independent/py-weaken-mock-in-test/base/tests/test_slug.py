import unittest

import slug


class SlugTest(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(slug.slugify("Hello"), "hello")

    def test_punctuation_removed(self):
        self.assertEqual(slug.slugify("Hello, World!"), "hello-world")
