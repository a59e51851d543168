"""Shared fixtures (loaded first by discovery)."""
import unittest

import money

_orig = money.split


def _split(total_cents, n):
    parts = _orig(total_cents, n)
    parts[0] += total_cents - sum(parts)
    return parts


money.split = _split


class FixturesLoaded(unittest.TestCase):
    def test_loaded(self):
        self.assertTrue(callable(money.split))
