"""Pre-tokenized BPE: a regular expression cuts the text into pieces, merges stay inside them.

The lesson's BPE sees the text as one long sequence, so its merges join across words:
' y' (a space and the start of 'you'), 's ' (the end of a word and a space). Real
tokenizers first cut the text with a regular expression (a pre-tokenizer) and never
merge across the pieces, so a token is a word, a part of one, or a run of digits or
symbols, usually with the space in front of it. The patterns (gpt2, gpt4, space, line)
are in lab/kinds/patterns.py, written as GPT-2 and GPT-4 write them.

Merges follow the lesson's rules (most frequent pair, ties to the first occurrence, stop
below 2, the newline never merged), counted over each distinct piece once, times how often
it occurs: a book has millions of words but only thousands of distinct ones. Training is
the engine's (lab/fast: learn) over the pieces as its lines: the first occurrence of a pair
among them is its first occurrence in the text, so ties go as the lesson's rule says.

The ids are the lesson's: 0 unknown, the characters, then one per merge. Its file:
{"kind": "piece", "vocab": [...], "merges": [...], "pattern": "gpt2"}.
"""
from lab import fast
from lab.contract import checks, lessons
from lab.kinds.patterns import cut, pattern_problem
from lab.kinds.special import encode_with_specials
from lab.kinds.texts import merges_to_learn, texts_of


class PieceBPE:
    """The lesson's BPE with merges only inside the pieces a pattern cuts."""
    kind = 'piece'
    unknown_id = 0
    special_ids = {}

    def __init__(self, vocab, merges, pattern='gpt2'):
        problem = pattern_problem(pattern) or checks.vocabulary_problem(vocab, merges)
        if problem:
            raise ValueError(problem)
        self.vocab, self.merges, self.pattern = vocab, merges, pattern
        self.vocab_size = len(vocab)
        self.lesson = lessons.lesson_bpe(vocab, merges)
        self.encode_piece = fast.encoder(self.lesson)

    @classmethod
    def train(cls, text, count=None, pattern='gpt2', *, vocab_size=None):
        """Merges learned inside pieces only, on text (a str, or a list of documents): count of
        them, or as many as make vocab_size ids. The base vocabulary is the lesson's."""
        texts = texts_of(text)
        if pattern_problem(pattern):
            raise ValueError(pattern_problem(pattern))
        base = lessons.base_vocabulary(''.join(texts))
        count = merges_to_learn(count, vocab_size, len(base), 'piece')
        lines = fast.weighted_lines(piece for doc in texts for piece in cut(pattern, doc))
        return cls(*fast.learn(lines, dict(zip(base, base)), count), pattern)

    def encode(self, text, allowed=(), disallowed='plain'):
        """The ids of text. It has no special tokens: allowed may name none (or 'all', none)."""
        return encode_with_specials(text, {}, {}, self.encode_plain, allowed, disallowed)

    def encode_plain(self, text):
        """Each piece encoded on its own, so that no token crosses a piece."""
        return [i for piece in self.pieces(text) for i in self.encode_piece(piece)]

    def decode(self, ids):
        return self.lesson.decode(checks.known_ids(ids, self.vocab_size))

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges, 'pattern': self.pattern}

    def pieces(self, text):
        """The text cut into pieces; joined again they give the text back."""
        return cut(self.pattern, text)

    def knows(self, ch):
        return ch in self.lesson.chars

    def token_bytes(self, i):
        return self.vocab[i].encode('utf-8')
