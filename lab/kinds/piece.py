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
it occurs: a book has millions of words but only thousands of distinct ones. A merge
recounts only the pieces that hold its pair, and the best pair comes off a heap ordered by
count, then by a bound on where the pair first occurs (best_pair says why that is exact).
"""
import re
from collections import Counter
from heapq import heapify, heappop, heappush, heapreplace

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
        counts, where, bound = {}, {}, {}  # pair -> weighted count, the words that hold it, a bound
        for w, ids in enumerate(words):
            add_pairs(vocab, ids, weight[w], w, counts, where, bound)
        heap = [(-n, bound[pair], pair) for pair, n in counts.items()]
        heapify(heap)
        merges = []
        while len(merges) < count:
            pair = best_pair(heap, counts, bound, words, where, vocab)
            if pair is None:
                break  # no pair is left that occurs twice
            new_id = len(vocab)
            vocab.append(vocab[pair[0]] + vocab[pair[1]])
            merges.append([list(pair), new_id])
            changed = set()
            for w in sorted(where[pair]):  # only the words that hold the pair change
                changed |= add_pairs(vocab, words[w], -weight[w], w, counts, where, bound)
                words[w] = merge(words[w], pair, new_id)
                changed |= add_pairs(vocab, words[w], weight[w], w, counts, where, bound)
            for other in changed & counts.keys():
                heappush(heap, (-counts[other], bound[other], other))
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


def add_pairs(vocab, ids, n, w, counts, where, bound):
    """Add n (or take away, n < 0) to the count of each pair in word w; '\\n' never merges.
    A pair new to the counts gets the start of word w as its bound. Returns the pairs."""
    pairs = set()
    for pair in zip(ids, ids[1:]):
        if '\n' in vocab[pair[0]] + vocab[pair[1]]:
            continue
        pairs.add(pair)
        counts[pair] = counts.get(pair, 0) + n
        if n > 0:
            where.setdefault(pair, set()).add(w)
            bound.setdefault(pair, (w, 0))
        else:  # the word is being rewritten: its pairs are added again after the merge
            where[pair].discard(w)
        if not counts[pair]:
            del counts[pair], where[pair], bound[pair]
    return pairs


def best_pair(heap, counts, bound, words, where, vocab):
    """The most frequent pair, on a tie the one that occurs first; None below 2.

    The heap holds (-count, bound, pair). A bound is a place no later than the pair's first
    occurrence: (word, characters before it in the word). Words are in order of first
    appearance and merges never move a character, so the pair's first occurrence only
    moves later and a bound once found stays true. When the top entry's bound is its first
    occurrence, no other pair of its count can come earlier: it wins."""
    while heap:
        n, place, pair = heap[0]
        if counts.get(pair) != -n:  # merged already, or its count fell: put it right
            heappop(heap)
            if pair in counts:
                heappush(heap, (-counts[pair], bound[pair], pair))
        elif -n < 2:
            return None
        else:
            first = first_occurrence(pair, words, where, vocab)
            if first == place:
                return heappop(heap)[2]
            bound[pair] = first
            heapreplace(heap, (n, first, pair))
    return None


def first_occurrence(pair, words, where, vocab):
    """Where pair first occurs in the text as it is now: the first word that holds it (words
    are in order of first appearance, and every copy of a word holds the same pairs), then
    the characters before it in that word."""
    w = min(where[pair])
    ids = words[w]
    at = next(i for i in range(len(ids) - 1) if (ids[i], ids[i + 1]) == pair)
    return w, sum(len(vocab[i]) for i in ids[:at])
