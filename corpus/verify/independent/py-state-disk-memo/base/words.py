def count_words(text):
    """Number of words; words are separated by any whitespace."""
    return len(text.split(" "))
