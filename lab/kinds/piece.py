"""Pre-tokenized BPE: a regular expression cuts the text into pieces, merges stay inside them.

The lesson's BPE sees the text as one long sequence, so its merges join across words:
' y' (a space and the start of 'you'), 's ' (the end of a word and a space). Real
tokenizers first cut the text with a regular expression (a pre-tokenizer) and never
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
  line   a piece a line: then it learns just what the lesson's BPE learns, since the
         lesson never merges '\\n' either.
Merges follow the lesson's rules (most frequent pair, ties to the first occurrence, stop
below 2, the newline never merged), counted over each distinct piece once, times how often
it occurs: a book has millions of words but only thousands of distinct ones.
"""
import re
from collections import Counter

from lab import common, fast
from tokenizer import BPE, merge

LETTERS = r'[^\W\d_]'      # \p{L} in re: a word character that is not a digit or '_'
OTHER = r'(?:[^\s\w]|_)'   # neither space, letter nor digit
PATTERNS = {
    'gpt2': re.compile(rf"""'(?:s|t|re|ve|m|ll|d)| ?{LETTERS}+| ?\d+| ?{OTHER}+|\s+(?!\S)|\s+"""),
    'gpt4': re.compile(rf"""'(?i:[sdmt]|ll|ve|re)|(?:[^\r\n\w]|_)?{LETTERS}+|\d{{1,3}}| ?{OTHER}+[\r\n]*"""
                       r"""|\s*[\r\n]|\s+(?!\S)|\s+"""),
    'space': re.compile(r' ?[^ ]+| '),
    'line': re.compile(r'[^\n]+|\n'),
}


class PieceBPE:
    """The lesson's BPE with merges only inside the pieces a pattern cuts."""
    unknown_id = 0

    def __init__(self, vocab, merges, pattern='gpt2'):
        if pattern not in PATTERNS:
            raise ValueError(f'no pattern {pattern!r}: the patterns are {", ".join(PATTERNS)}')
        self.vocab, self.merges, self.pattern = vocab, merges, pattern
        self.vocab_size = len(vocab)
        self.lesson = BPE(vocab, merges)
        self.encode_piece = fast.encoder(self.lesson)

    @classmethod
    def train(cls, text, count, pattern='gpt2'):
        """Merges learned inside pieces only. The base vocabulary is the lesson's."""
        vocab = common.base_vocabulary(text)
        index = {ch: i for i, ch in enumerate(vocab)}
        distinct = Counter(PATTERNS[pattern].findall(text))  # in order of first appearance
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
        return cls(vocab, merges, pattern)

    def encode(self, text):
        """Each piece encoded on its own, so that no token crosses a piece."""
        return [i for piece in self.pieces(text) for i in self.encode_piece(piece)]

    def decode(self, ids):
        return self.lesson.decode(common.known_ids(ids, self.vocab_size))

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges, 'pattern': self.pattern}

    def pieces(self, text):
        """The text cut into pieces; joined again they give the text back."""
        return PATTERNS[self.pattern].findall(text)


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
