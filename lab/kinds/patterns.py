"""The regular expressions that cut a text into pieces before BPE, written once for two engines.

A pre-tokenizer cuts the text first, and no merge ever joins two pieces. GPT-2 and GPT-4
write their patterns with \\p{L} (a letter of any script) and \\p{N} (a number of any
script). Python's re has neither, so they are built here from unicodedata: every code
point whose category starts with L, or with N. Written out like that, Python cuts a text
exactly where the Hugging Face tokenizers library does with the pattern as written (and
its \\s is Unicode's whitespace, a little narrower than Python's), so lab.export_hf can
hand the same pattern over; tests/test_export_hf.py compares the two.

  gpt2   GPT-2's: contractions ('s 't 're 've 'm 'll 'd), a run of letters, of numbers
         or of other symbols, each with one optional space in front, then whitespace.
         The byte-level tokenizers of GPT-2 and of tokenizers' ByteLevel cut with it.
  gpt4   GPT-4's (cl100k): contractions in any case, a letter run may take one other
         symbol in front, numbers in groups of up to three digits, line ends apart.
  space  a piece starts before every space.
  line   a piece a line: then it learns just what the lesson's BPE learns.
  word   a word with the one space after it, or one whitespace character alone: the
         word kind's cut (lab/kinds/word.py).
Each pattern cuts every character of any text into some piece.
"""
import functools
import itertools
import re
import unicodedata

PATTERNS = {
    'gpt2': r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    'gpt4': r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
            r"""|\s*[\r\n]+|\s+(?!\S)|\s+""",
    'space': r""" ?[^ ]+| """,
    'line': r"""[^\n]+|\n""",
    'word': r"""\S+ ?|\s""",
}
PIECE_PATTERNS = ['gpt2', 'gpt4', 'space', 'line']  # what the piece and byte kinds may cut with
# \s as tokenizers' regex engine reads it: Unicode's White_Space, 25 code points. Python's own
# \s takes U+001C-U+001F too (str.isspace), so Python gets this class instead.
WHITESPACE = '\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000'


def pattern_problem(name):
    """What is wrong with name as a piece kind's pattern, or None."""
    if name not in PIECE_PATTERNS:
        return f'no pattern {name!r}: the patterns are {", ".join(PIECE_PATTERNS)}'
    return None


@functools.lru_cache(maxsize=None)
def classes():
    """{'L': ..., 'N': ...}: the code points of each category group, as ranges for a [class]."""
    groups = {'L': [], 'N': []}
    group = lambda point: unicodedata.category(chr(point))[0]  # noqa: E731
    start = 0
    for key, run in itertools.groupby(range(0x110000), key=group):
        end = start + sum(1 for _ in run)
        if key in groups:
            groups[key].append(f'{escaped(start)}-{escaped(end - 1)}' if end - start > 1 else escaped(start))
        start = end
    return {key: ''.join(ranges) for key, ranges in groups.items()}


def escaped(point):
    return f'\\U{point:08x}' if point > 0xFFFF else f'\\u{point:04x}'


def spelled(source, letters, numbers):
    """source with \\p{L}, \\p{N} and \\s written as what a class holds (letters, numbers,
    WHITESPACE), inside a [class] or as one of their own, and \\S as [^WHITESPACE]."""
    holds = {'\\p{L}': letters, '\\p{N}': numbers, '\\s': WHITESPACE}
    out, in_class, i = [], False, 0
    while i < len(source):
        size = 5 if source.startswith('\\p{', i) else 2 if source[i] == '\\' else 1
        token = source[i:i + size]
        if token in holds:
            out.append(holds[token] if in_class else f'[{holds[token]}]')
        elif token == '\\S':
            out.append(f'[^{WHITESPACE}]')  # the patterns use it outside a class only
        else:
            out.append(token)
            in_class = token == '[' or (in_class and token != ']')
        i += size
    return ''.join(out)


@functools.lru_cache(maxsize=None)
def compiled(name):
    """The pattern called name, compiled for Python's re (the first with \\p{L} takes 0.2 s more)."""
    source = PATTERNS[name]
    if '\\p{' not in source:
        return re.compile(spelled(source, '', ''))
    return re.compile(spelled(source, classes()['L'], classes()['N']))


def for_tokenizers(name):
    """The pattern called name as the tokenizers library reads it: as written, since its \\s is
    WHITESPACE and it knows \\p{L} and \\p{N} (from a newer Unicode than Python 3.11's: a letter
    added since, such as U+1C89, is cut apart here and kept in a run there)."""
    return PATTERNS[name]
