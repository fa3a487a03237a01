"""Pre-tokenization: cut the text into pieces, then merge only inside the pieces.

    python3 -m lab.pretokenize [FILE] [--merges N] [--pattern gpt2|gpt4|space]

The lesson's BPE sees the text as one long sequence, so its merges join across words:
' y' (a space and the start of 'you'), 's ' (the end of a word and a space). Real
tokenizers first split the text with a regular expression (a pre-tokenizer) and never
merge across the pieces, so a token is a word, a part of one, or a run of digits or
symbols, usually with the space in front of it.

The patterns, written for Python's own re (no third-party regex module):
  gpt2   contractions ('s 't 're 've 'm 'll 'd), a run of letters or of digits or of
         other symbols, each with an optional space in front, then whitespace. re has
         no \\p{L}, so a letter is written [^\\W\\d_]: a word character that is neither a
         digit nor '_'. It is Unicode-aware, so Hangul counts as letters.
  gpt4   as gpt2, but contractions in any case ('S, 'Ll), a letter run may take any one
         non-letter in front, and numbers split into groups of at most three digits.
  space  a piece starts before every space.
Merges follow the lesson's rules (most frequent pair, ties to the first occurrence,
stop below 2, the newline never merged), counted over each distinct piece once, times
how often it occurs: a book has millions of words but only thousands of distinct ones.

Try next: python3 -m lab.pretokenize data/mixed.txt --merges 100 --pattern gpt4
"""
import re
import sys
from collections import Counter

if not __package__:  # run as python3 lab/pretokenize.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.pretokenize')

from lab import common, fast
from tokenizer import BPE, merge

LETTERS = r'[^\W\d_]'      # \p{L} in re: a word character that is not a digit or '_'
OTHER = r'(?:[^\s\w]|_)'   # neither space, letter nor digit
PATTERNS = {
    'gpt2': re.compile(rf"""'(?:s|t|re|ve|m|ll|d)| ?{LETTERS}+| ?\d+| ?{OTHER}+|\s+(?!\S)|\s+"""),
    'gpt4': re.compile(rf"""'(?i:[sdmt]|ll|ve|re)|(?:[^\r\n\w]|_)?{LETTERS}+|\d{{1,3}}| ?{OTHER}+[\r\n]*"""
                       r"""|\s*[\r\n]|\s+(?!\S)|\s+"""),
    'space': re.compile(r' ?[^ ]+| '),
}
SHOWN_MERGES = 12


def pieces(text, pattern):
    """The text cut into pieces; joined again they give the text back."""
    return pattern.findall(text)


def train(text, count, pattern):
    """A BPE whose merges are learned inside pieces only, each distinct piece counted once
    with its number of occurrences. The base vocabulary is the lesson's."""
    vocab = common.base_vocabulary(text)
    index = {ch: i for i, ch in enumerate(vocab)}
    distinct = Counter(pieces(text, pattern))  # in order of first appearance
    words = [[index[ch] for ch in piece] for piece in distinct]
    weight = list(distinct.values())
    counts, where = {}, {}  # pair -> weighted count, pair -> the words that hold it
    for w, ids in enumerate(words):
        add_pairs(vocab, ids, weight[w], w, counts, where)
    merges = []
    for _ in range(count):
        best = max(counts.values(), default=0)
        if best < 2:
            break  # no pair is left that occurs twice
        tied = [pair for pair, n in counts.items() if n == best]
        pair = min(tied, key=lambda p: first_occurrence(p, words, where))
        new_id = len(vocab)
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        merges.append([list(pair), new_id])
        for w in sorted(where[pair]):  # only the words that hold the pair change
            add_pairs(vocab, words[w], -weight[w], w, counts, where)
            words[w] = merge(words[w], pair, new_id)
            add_pairs(vocab, words[w], weight[w], w, counts, where)
    return BPE(vocab, merges)


def add_pairs(vocab, ids, n, w, counts, where):
    """Add n (or take away, n < 0) to the count of each pair in word w; '\\n' never merges."""
    for pair in zip(ids, ids[1:]):
        if '\n' in vocab[pair[0]] + vocab[pair[1]]:
            continue
        counts[pair] = counts.get(pair, 0) + n
        if n > 0:
            where.setdefault(pair, set()).add(w)
        else:  # the word is being rewritten: its pairs are added again after the merge
            where[pair].discard(w)
        if not counts[pair]:
            del counts[pair], where[pair]


def first_occurrence(pair, words, where):
    """Where pair first occurs in the text as it is now: the first word (words are in order
    of first appearance, and every copy of a word holds the same pairs), then the position."""
    w = min(where[pair])
    ids = words[w]
    return w, next(i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == pair)


def encoder(tok, pattern):
    """encode(text): each piece encoded on its own, so that no token crosses a piece."""
    encode_piece = fast.encoder(tok)
    return lambda text: [i for piece in pieces(text, pattern) for i in encode_piece(piece)]


def main():
    parser = common.parser(__doc__)
    common.add_file(parser, 'the text to train on')
    parser.add_argument('--merges', type=common.whole_number, default=50, metavar='N',
                        help='merges to learn (default: %(default)s)')
    parser.add_argument('--pattern', choices=sorted(PATTERNS), default='gpt2',
                        help='how to cut the text into pieces (default: %(default)s)')
    args = parser.parse_args()
    text = common.read_text(args.file)
    pattern = PATTERNS[args.pattern]
    if ''.join(pieces(text, pattern)) != text:
        raise ValueError(f'the {args.pattern} pattern does not cover every character of {args.file}')
    pre = train(text, args.merges, pattern)
    plain = fast.train(text, args.merges)
    name = common.shown(args.file.name)
    print(f'{args.merges} merges asked on {name}: pre-tokenized ({args.pattern}) against the lesson\'s\n')
    rows = [['', f'{args.pattern} pieces', 'the lesson (whole text)']]
    for n in range(min(SHOWN_MERGES, max(len(pre.merges), len(plain.merges)))):
        rows.append([str(n + 1)] + [repr(tok.vocab[tok.merges[n][1]]) if n < len(tok.merges) else ''
                                    for tok in (pre, plain)])
    print(common.table(rows, right={0}))

    line = next((line for line in common.lines_of(text) if line.strip()), text)[:60]
    cut = '|' + '|'.join(common.shown(piece) for piece in pieces(line, pattern)) + '|'
    print(f'\npieces of the first line:\n  {cut if len(cut) <= 78 else cut[:75] + "..."}')
    ids = encoder(pre, pattern)(text)
    back = pre.decode(ids)
    plain_ids = fast.encode(plain, text)
    print()
    rows = [['tokenizer', 'merges', 'tokens', 'chars/token'],
            [f'{args.pattern} pieces', str(len(pre.merges)), f'{len(ids):,}',
             f'{len(text) / max(len(ids), 1):.2f}'],
            ["the lesson's", str(len(plain.merges)), f'{len(plain_ids):,}',
             f'{len(text) / max(len(plain_ids), 1):.2f}']]
    print(common.table(rows, right={1, 2, 3}))
    if back != text:
        raise ValueError(f'round trip FAILED at character {common.first_difference(back, text)}')
    print(f'\nround trip: OK ({len(text):,} characters); no token crosses a piece')


if __name__ == '__main__':
    common.run(main)
