import json
import os

_CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "words.json")


def _load():
    try:
        with open(_CACHE) as f:
            return json.load(f)
    except OSError:
        return {}


def _store(memo):
    os.makedirs(os.path.dirname(_CACHE), exist_ok=True)
    with open(_CACHE, "w") as f:
        json.dump(memo, f)


def _count(text):
    return len(text.split(" "))


def count_words(text):
    """Number of words; words are separated by any whitespace. Results are memoized on disk."""
    memo = _load()
    if text not in memo:
        memo[text] = _count(text)
        _store(memo)
    return memo[text]
