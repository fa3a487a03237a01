"""Character-level BPE, the lesson's own, at the engine's speed.

tokenizer.BPE is this kind. CharBPE is the same tokenizer (the same vocab, merges and ids;
tests/test_fast_bpe.py holds them equal) trained and encoding with lab/fast, so that it
keeps up with the other kinds on a book. Decoding and its checks are the lesson's own. Its
file is the lesson's tokenizer.json, as it is: {"vocab": [...], "merges": [...]}.
"""
from lab import fast
from lab.contract import checks, lessons
from lab.kinds.special import encode_with_specials
from lab.kinds.texts import merges_to_learn, texts_of


class CharBPE:
    """The lesson's BPE: a token for each character of the training text, then merges
    across the whole text, never of '\\n'."""
    kind = 'char'
    unknown_id = 0  # every character training did not see
    special_ids = {}

    def __init__(self, vocab, merges):
        problem = checks.vocabulary_problem(vocab, merges)
        if problem:
            raise ValueError(problem)
        self.vocab, self.merges = vocab, merges
        self.vocab_size = len(vocab)
        self.lesson = lessons.lesson_bpe(vocab, merges)
        self.fast_encode = fast.encoder(self.lesson)

    @classmethod
    def train(cls, text, count=None, *, vocab_size=None):
        """count merges, or as many as make vocab_size ids, learned on text (a str, or a list of
        documents, which no merge joins)."""
        texts = texts_of(text)
        count = merges_to_learn(count, vocab_size, len(lessons.base_vocabulary(''.join(texts))),
                                'char')
        tok = fast.train(texts, count)
        return cls(tok.vocab, tok.merges)

    def encode(self, text, allowed=(), disallowed='plain'):
        """The ids of text. It has no special tokens: allowed may name none (or 'all', none)."""
        return encode_with_specials(text, {}, {}, self.encode_plain, allowed, disallowed)

    def encode_plain(self, text):
        return self.fast_encode(text)

    def decode(self, ids):
        return self.lesson.decode(checks.known_ids(ids, self.vocab_size))

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges}

    def knows(self, ch):
        return ch in self.lesson.chars

    def token_bytes(self, i):
        return self.vocab[i].encode('utf-8')
