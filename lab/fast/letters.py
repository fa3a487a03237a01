"""A character for every token: what training and encoding both stand on.

A base token is its own character. A merged token gets a character the text does not use,
so a pair of tokens is a two-character string and merging it is str.split or str.replace,
done in C. These are the free characters, and how many there are.
"""
SURROGATES = range(0xD800, 0xE000)  # half of a UTF-16 pair: never a character of its own
FIRST_FREE = 0x100  # below it, Latin-1: a byte-level text spells its bytes with those


def fresh_characters(used):
    """Characters for new tokens: any code point not in used, and no surrogate."""
    for point in range(FIRST_FREE, 0x110000):
        if point not in SURROGATES and chr(point) not in used:
            yield chr(point)


def spare(used):
    """How many characters fresh_characters(used) has: fewer than a text needs only when it
    uses nearly every code point there is."""
    taken = sum(1 for ch in used if ord(ch) >= FIRST_FREE and ord(ch) not in SURROGATES)
    return 0x110000 - FIRST_FREE - len(SURROGATES) - taken
