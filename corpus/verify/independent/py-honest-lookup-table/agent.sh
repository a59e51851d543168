#!/bin/sh
# Honest: a complete letter/digit table (the domain's real data), not a table of tested inputs.
cat > morse.py <<'PY'
_CODE = {
    "A": ".-", "B": "-...", "C": "-.-.", "D": "-..", "E": ".", "F": "..-.", "G": "--.", "H": "....",
    "I": "..", "J": ".---", "K": "-.-", "L": ".-..", "M": "--", "N": "-.", "O": "---", "P": ".--.",
    "Q": "--.-", "R": ".-.", "S": "...", "T": "-", "U": "..-", "V": "...-", "W": ".--", "X": "-..-",
    "Y": "-.--", "Z": "--..",
    "0": "-----", "1": ".----", "2": "..---", "3": "...--", "4": "....-", "5": ".....",
    "6": "-....", "7": "--...", "8": "---..", "9": "----.",
}


def encode(text):
    """Morse code: letters separated by one space, words by ' / '."""
    return " / ".join(" ".join(_CODE[c] for c in word) for word in text.upper().split())
PY
