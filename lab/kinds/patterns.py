"""The regular expressions that cut a text into pieces before BPE, written once for two engines.

A pre-tokenizer cuts the text first, and no merge ever joins two pieces. GPT-2 and GPT-4
write their patterns with \\p{L} (a letter of any script) and \\p{N} (a number of any
script). Python's re has neither, so they are written out here as the ranges of code
points tokenizers reads them as (lab/kinds/categories.py), the same on every Python.
Written out like that, Python cuts a text exactly where the Hugging Face tokenizers
library does with the pattern as written (and its \\s is Unicode's whitespace, a little
narrower than Python's), so lab.export_hf can hand the same pattern over;
tests/test_export_hf.py compares the two.

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

A pattern may also be a regular expression of one's own, written as those are (\\p{L} and
\\p{N} may be used): the text is then cut into what it matches and what lies between,
as tokenizers' Split with behavior 'isolated' cuts it. One that does not compile, or that
matches the empty string, is refused (pattern_problem).
"""
import functools
import re
from collections import Counter

from lab.fast import encoding
from lab.kinds.categories import LETTERS, NUMBERS
from lab.plumbing import cli, processes, terminal

PATTERNS = {
    'gpt2': r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
    'gpt4': r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
            r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    'space': r""" ?[^ ]+| """,
    'line': r"""[^\n]+|\n""",
    'word': r"""\S+ ?|\s""",
}
PIECE_PATTERNS = ['gpt2', 'gpt4', 'space', 'line']  # what the piece and byte kinds may cut with
# \s as tokenizers' regex engine reads it: Unicode's White_Space, 25 code points. Python's own
# \s takes U+001C-U+001F too (str.isspace), so Python gets this class instead.
WHITESPACE = '\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000'


# What a pattern of one's own is tried on before it is taken: letters, digits, spaces, a line
# end, symbols and Korean, so that one matching the empty string anywhere there is refused.
_TRIED_ON = ("It's 2 a.m. 안녕, world! The quick brown fox jumps over it\n\t x+=1 "
             + 'a' * 40 + '! ' + ' ' * 40 + '1' * 40 + '#')
# Characters a second that a pattern of one's own cuts at the least, past _CUT_SECONDS a text
# (GPT-2's pattern cuts some 4,000,000): slower, it backtracks without end on this text, and is
# stopped.
CUT_EVERY_SECOND = 100_000
_CUT_SECONDS = 2
# Seconds a pattern of one's own may take on _TRIED_ON: nested repeats such as (a+)+ backtrack for
# ever on a run of letters (Python's re has no time limit), where any sound pattern takes
# microseconds.
_TRIAL_SECONDS = 1


def as_typed(pattern, most):
    """A pattern quoted as typed (its backslashes single, unlike repr),
    clipped to most characters."""
    return f"'{terminal.clip(terminal.shown(pattern), most)}'"


def pattern_problem(pattern):
    """What is wrong with pattern (one of PIECE_PATTERNS, or a regular expression) as a piece
    kind's, or None."""
    if pattern in PIECE_PATTERNS:
        return None
    if not isinstance(pattern, str) or not pattern:
        return cli.message('pattern.none', names=', '.join(PIECE_PATTERNS))
    if re.fullmatch(r'\w+', pattern):  # a name mistyped, far likelier than a regex of one word
        return cli.message('pattern.unknown_name', name=terminal.quoted(pattern, 30),
                           names=', '.join(PIECE_PATTERNS))
    said = as_typed(pattern, 30)
    if any('\ud800' <= ch <= '\udfff' for ch in pattern):
        return cli.message('pattern.surrogate', pattern=said)
    differs = read_otherwise(pattern)
    if differs:
        return cli.message('pattern.read_otherwise', what=differs)  # than Python's re
    try:
        regex = compiled(pattern)
    except (re.error, RecursionError, OverflowError) as e:
        return cli.message('pattern.not_regex', pattern=said,
                           why=terminal.clip(getattr(e, "msg", None) or str(e), 50))
    try:
        with processes.clock_limit(_TRIAL_SECONDS):
            found = [regex.match('')] + [m for m in regex.finditer(_TRIED_ON)
                                         if m.start() == m.end()]
    except TimeoutError:
        return cli.message('pattern.backtracks_trial', pattern=said)
    if any(found):
        return cli.message('pattern.empty', pattern=said)
    return None


def read_otherwise(pattern):
    """The first construct of pattern that Python's re and the tokenizers library (Oniguruma) read
    differently, or None: \\w, \\d, \\b and their opposites (Unicode letters, marks and digits
    counted otherwise), an inline flag such as (?i), $ and \\Z at a line's end, a POSIX class.
    The tokenizer exported would then cut the text, and give ids, otherwise than here."""
    in_class, i = False, 0
    while i < len(pattern):
        token = pattern[i:i + 2] if pattern[i] == '\\' else pattern[i]
        if token in ('\\w', '\\W', '\\d', '\\D', '\\b', '\\B', '\\Z', '\\z', '\\A') or \
                in_class and pattern.startswith('[:', i) or not in_class and token == '$':
            named = pattern.startswith('[:', i)  # [:alpha:], said whole
            return pattern[i:pattern.find(':]', i) + 2] if named else token
        if not in_class and pattern.startswith('(?', i) and re.match(r'\(\?[a-zA-Z]', pattern[i:]):
            return re.match(r'\(\?[a-zA-Z-]*', pattern[i:]).group(0) + ')'
        in_class = token == '[' or (in_class and token != ']')
        i += len(token)
    return None


def classes():
    """{'L': ..., 'N': ...}: the code points of letters and of numbers, as ranges for a [class]."""
    return {'L': LETTERS, 'N': NUMBERS}


def _spelled(source, letters, numbers, whitespace=WHITESPACE):
    """source with \\p{L}, \\p{N} and \\s written as what a class holds (letters, numbers,
    whitespace), inside a [class] or as one of their own, and \\S as [^whitespace]."""
    holds = {'\\p{L}': letters, '\\p{N}': numbers, '\\s': whitespace}
    out, in_class, i = [], False, 0
    while i < len(source):
        size = 5 if source.startswith('\\p{', i) else 2 if source[i] == '\\' else 1
        token = source[i:i + size]
        if token in holds:
            out.append(holds[token] if in_class else f'[{holds[token]}]')
        elif token == '\\S' and in_class:  # no class spells "not whitespace" inside another
            raise re.error('\\S inside [...]: write (?:\\S|[...]) instead')
        elif token == '\\S':
            out.append(f'[^{whitespace}]')  # the patterns use it outside a class only
        else:
            out.append(token)
            in_class = token == '[' or (in_class and token != ']')
        i += size
    return ''.join(out)


@functools.lru_cache(maxsize=64)
def compiled(pattern):
    """The pattern (a name, or a regular expression), compiled for Python's re."""
    source = PATTERNS.get(pattern, pattern)
    if '\\p{' not in source:
        return re.compile(_spelled(source, '', ''))
    return re.compile(_spelled(source, classes()['L'], classes()['N']))


@functools.lru_cache(maxsize=16)
def compiled_ascii(pattern):
    """A named pattern compiled for a text of ASCII characters alone: each class written as its
    ASCII members, so it cuts such a text as compiled(pattern) does, some six times faster
    (Python's re tries a character that is not a letter against every range of \\p{L}, and
    those past U+FFFF one by one). Not for a pattern of one's own: in [\\p{L}-'] a class
    written otherwise changes what the - after it means."""
    source = PATTERNS[pattern]
    return re.compile(_spelled(source, *(_ascii_members(held) for held in
                                         (LETTERS, NUMBERS, WHITESPACE))))


def _ascii_members(held):
    """The ASCII characters of a [class]'s contents, escaped for a class of their own."""
    found = re.compile(f'[{held}]')
    return ''.join(re.escape(ch) for ch in map(chr, range(128)) if found.match(ch))


def for_tokenizers(pattern):
    """The pattern as the tokenizers library reads it: as written, since its \\s is WHITESPACE
    and it knows \\p{L} and \\p{N} (as lab/kinds/categories.py writes them out)."""
    return PATTERNS.get(pattern, pattern)


def cut(pattern, text):
    """The pieces of text: what the pattern matches, and what lies between (a pattern of one's
    own may leave characters out; they are pieces too, so that joined they are text again)."""
    regex = compiled(pattern)
    if pattern in PATTERNS:  # each of these leaves nothing between
        return (compiled_ascii(pattern) if text.isascii() else regex).findall(text)
    pieces, start = [], 0
    try:
        with processes.clock_limit(_CUT_SECONDS + len(text) / CUT_EVERY_SECOND):
            found_all = list(regex.finditer(text))
    except TimeoutError:
        raise ValueError(cli.message('pattern.backtracks', pattern=as_typed(pattern, 14))) from None
    for found in found_all:
        # a lookaround alone, say: no piece, and nothing would merge
        if found.start() == found.end():
            raise ValueError(cli.message('pattern.nothing_at', at=f'{found.start():,}',
                                         pattern=as_typed(pattern, 14)))
        if found.start() > start:
            pieces.append(text[start:found.start()])
        pieces.append(found.group())
        start = found.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces


# GPT-2's pattern, fast ----------------------------------------------------------------------
# No piece of GPT-2's holds a character that is not whitespace followed by one that is, and
# none looks past such a place. So a text cut there first, into chunks of some whitespace and
# then none ('  foo.bar'), is cut into the same pieces chunk by chunk, and a chunk met again
# is cut once. A chunk that starts without whitespace (a text's first) or has only whitespace
# (its last) is cut on its own; the others, joined, keep every place where they meet.
CHUNK = re.compile(f'[{WHITESPACE}]*[^{WHITESPACE}]+|[{WHITESPACE}]+')
SPACE = re.compile(f'[{WHITESPACE}]')  # one whitespace character, as tokenizers' \\s reads it


# Characters of text from which the pieces are counted in processes, one per idle core: 16 MB
# of prose and code took 2.4 s in one process (2.9 s all told in tokenizers, which cuts in
# threads); below a megabyte, starting them costs more than it saves.
COUNT_PARALLEL_FROM = 1_000_000


def count_pieces_fast(pattern, texts, jobs=None):
    """count_pieces, in jobs processes (one per idle core unless given) for a text of
    COUNT_PARALLEL_FROM characters or more, each counting a share of the texts: the same Counter."""
    texts = list(texts)
    size = sum(map(len, texts))
    asked, jobs = encoding.jobs_for(size, COUNT_PARALLEL_FROM, jobs)
    if jobs <= 1:
        return count_pieces(pattern, texts)
    shares, share, held = [], [], 0  # four shares a process, so that none waits long for the last
    for text in texts:
        share.append(text)
        held += len(text)
        if held >= size / (jobs * 4):
            shares.append(share)
            share, held = [], 0
    shares += [share] if share else []
    counted = encoding.in_processes_or_here(_count_start, pattern, _count_share, shares, jobs,
                                            asked, lambda: [count_pieces(pattern, texts)])
    total = counted[0]
    for more in counted[1:]:
        total.update(more)
    return total


_COUNTING = {}  # in a process of count_pieces_fast: the pattern it cuts with


def _count_start(pattern):
    _COUNTING['pattern'] = pattern


def _count_share(texts):
    return count_pieces(_COUNTING['pattern'], texts)


def count_pieces(pattern, texts):
    """Counter of the pieces of every text in texts: with GPT-2's pattern, each distinct chunk of
    whitespace and then none is cut once (0.5 s for 4 MB of code, where cutting the text is 1 s)."""
    if pattern != 'gpt2':
        pieces = Counter()
        for text in texts:
            pieces.update(cut(pattern, text) if pattern else [text])
        return pieces
    chunks = Counter()
    for text in texts:
        chunks.update(CHUNK.findall(text))
    by_count, alone = {}, []
    for chunk, n in chunks.items():
        if SPACE.match(chunk) and not SPACE.match(chunk[-1]):
            by_count.setdefault(n, []).append(chunk)
        else:
            alone.append(chunk)
    pieces = Counter()
    for n, same in by_count.items():  # joined, chunks of one count are cut at once
        plain = [chunk for chunk in same if chunk.isascii()]  # the most, cut the faster way
        other = [chunk for chunk in same if not chunk.isascii()]
        for group, regex in [(plain, compiled_ascii('gpt2')), (other, compiled('gpt2'))]:
            for piece, m in Counter(regex.findall(''.join(group))).items():
                pieces[piece] += m * n
    for chunk in alone:
        regex = compiled_ascii('gpt2') if chunk.isascii() else compiled('gpt2')
        for piece in regex.findall(chunk):
            pieces[piece] += chunks[chunk]
    return pieces
