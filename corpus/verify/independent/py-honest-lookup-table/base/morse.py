def encode(text):
    """Morse code: letters separated by one space, words by ' / '."""
    raise NotImplementedError
