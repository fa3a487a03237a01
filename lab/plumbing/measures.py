"""Figures of a text that labs report: percentiles, the first difference of two texts, lines
held out for measuring, a first part of a text, and characters not in NFC."""
import difflib
import math
import os
import re
import unicodedata


def percentile(values, p):
    """Nearest-rank percentile of a non-empty list: a value that occurs in it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def first_difference(a, b):
    """The first position where two sequences differ (the shorter one's
    length if one is a prefix)."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


class TooFewLines(ValueError):
    """A text of one line, which cannot be split into a part to train on and one held out (a lab
    says it in its language: cli.ending)."""

    def __init__(self):
        super().__init__('the text needs two lines at least: one to train on, one held out')


def hold_out(text, rate):
    """(training part, held-out part): the last rate of the lines held out, at least one."""
    lines = lines_of(text)
    if len(lines) < 2:
        raise TooFewLines
    held = min(len(lines) - 1, max(1, round(len(lines) * rate)))
    return (''.join(line + '\n' for line in lines[:-held]),
            ''.join(line + '\n' for line in lines[-held:]))


def first_part(text, part):
    """The first part (a fraction) of text, cut at a line end."""
    if part >= 1:
        return text
    cut = text.rfind('\n', 0, int(len(text) * part)) + 1
    return text[:cut or int(len(text) * part)]


def first_line(text):
    """The first line of text that is not blank; the text itself if every line is."""
    return next((line for line in lines_of(text) if line.strip()), text)


def lines_of(text):
    """The lines of a text without their newlines; a last newline ends a line,
    it does not start one."""
    lines = text.split('\n')
    return lines[:-1] if text.endswith('\n') else lines


def has_lines(printed, wanted):
    """Whether the wanted lines are among the printed ones, in order, each whole at the end of a
    line: the rule for a program that may print more than the lesson's lines (a learner's own
    print, say, or one that ends without a newline, as print('.', end='') does)."""
    lines = iter(printed.splitlines())
    return all(any(line.endswith(want) for line in lines) for want in wanted)


# jamo, compatibility jamo, syllables
HANGUL = re.compile('[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]')


def not_nfc(text):
    """(characters, lines) of text that unicodedata.normalize('NFC', ...) would change, or None
    when text is in NFC already. A character changes when it is not kept as it is in the
    line's NFC form (jamo that become a syllable, a letter that takes its accent)."""
    if text.isascii() or unicodedata.is_normalized('NFC', text):  # ASCII: known at once
        return None
    characters = lines = 0
    for line in _lines_not_nfc(text):
        nfc = unicodedata.normalize('NFC', line)
        lines += 1
        if len(line) > 10_000:  # matching costs about length squared: count what lies between
            same = (len(os.path.commonprefix([line, nfc]))
                    + len(os.path.commonprefix([line[::-1], nfc[::-1]])))
            characters += max(len(line) - same, 1)
            continue
        matcher = difflib.SequenceMatcher(None, line, nfc, autojunk=False)
        characters += sum(i2 - i1
                          for op, i1, i2, _, _ in matcher.get_opcodes() if op != 'equal')
    return characters, lines


def _lines_not_nfc(text, block=1 << 16):
    """The lines of text not in NFC. A line end is a character NFC never joins to another, so a
    block of whole lines is in NFC when each of its lines is: only the blocks that are not are
    cut into lines (16 MB with seven such lines: 0.04 s, not 0.19 s line by line)."""
    start = 0
    while start < len(text):
        end = text.find('\n', start + block)
        end = len(text) if end < 0 else end + 1
        if not unicodedata.is_normalized('NFC', text[start:end]):
            yield from (line for line in text[start:end].split('\n')
                        if not unicodedata.is_normalized('NFC', line))
        start = end
