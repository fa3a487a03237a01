"""Word-level BPE: merges inside words only, the classic way (Sennrich et al., 2016).

The text is cut into words: a word is a run of characters that are not whitespace, with
the one space after it if there is one. Every space is the token </w>, the end of a word:
after a word it merges with it ('er</w>', as in 'lower ', is not the 'er' inside 'ere');
any other space, and any other whitespace character, stands alone and never merges. So
'low lower\\n' is  l o w </w> | l o w e r | \\n , and decoding, with </w> read as the space
it is, gives the text back exactly.

Pairs are counted inside words, each distinct word once, weighted by how often it occurs;
no pair joins two words. On a tie the pair whose two pieces sort first wins, so two runs
learn the same merges. Training is the engine's (lab/fast: learn), over the words as its
lines, sorting ties by text; encoding merges the pair learned first again and again, which
for merges training made is replaying them in order.

The ids: 0 the unknown character, 1 </w>, then the other characters in code point order,
then one per merge. Its file: {"kind": "word", "vocab": [...], "merges": [...]}.
"""
import re
from collections import Counter

from lab import fast
from lab.contract import checks, lessons
from lab.kinds.patterns import SPACE, compiled  # SPACE: whitespace, a word of its own here
from lab.kinds.special import encode_with_specials
from lab.kinds.texts import merges_to_learn, texts_of
from lab.plumbing import cli, terminal

END = '</w>'  # shown for the space it stands for


class WordBPE:
    """Word-level BPE: id 0 unknown, id 1 END (the space), then the characters, then the merges."""
    kind = 'word'
    unknown_id = 0
    special_ids = {}

    def __init__(self, vocab, merges):
        problem = checks.vocabulary_problem(vocab, merges, head=(checks.UNKNOWN, END),
                                            never_made=lambda piece: None)  # checked below, spoken
        if problem:
            raise ValueError(problem)
        base = vocab[2:len(vocab) - len(merges)]
        if ' ' in base:
            at = base.index(' ') + 2
            raise ValueError(cli.message('word.space', at=at, end=END))
        self.vocab, self.merges = vocab, merges
        self.vocab_size = len(vocab)
        spoken = [checks.UNKNOWN, ' '] + base  # END read as the space it is
        for n, ((a, b), new) in enumerate(merges):
            spoken.append(spoken[a] + spoken[b])
            if not compiled('word').fullmatch(spoken[new]):
                raise ValueError(cli.message('word.across', n=n,
                                             piece=terminal.quoted(spoken[new], 30)))
        # the same tokenizer, with END written as a space
        self.spoken = lessons.lesson_bpe(spoken, merges)
        self.fast_encode = fast.encoder(self.spoken)

    @classmethod
    def train(cls, text, count=None, *, vocab_size=None):
        """Merges learned inside words of text (a str, or a list of documents), count of them or as
        many as make vocab_size ids; ties go to the pair that sorts first."""
        texts = texts_of(text)
        base = {checks.UNKNOWN: checks.UNKNOWN, ' ': END}
        base.update((ch, ch) for ch in lessons.base_vocabulary(''.join(texts))[1:] if ch != ' ')
        count = merges_to_learn(count, vocab_size, len(base), 'word')
        words = Counter(word for doc in texts for word in compiled('word').findall(doc))
        vocab, merges = fast.learn(words, base, count, tie='sorted')
        return cls(vocab, merges)

    def encode(self, text, allowed=(), disallowed='plain'):
        """The ids of text. It has no special tokens: allowed may name none (or 'all', none)."""
        return encode_with_specials(text, {}, {}, self.encode_plain, allowed, disallowed)

    def encode_plain(self, text):
        # no merge joins two words (each is inside one, above), so the text can be merged whole;
        # but for one place: an unknown whitespace character, a word of its own, is id 0, and a
        # merge made on the unknown id ('\ufffd</w>', say) would join it to the space after it.
        # The text is cut at such characters, as tokenizers cuts it into words
        unknown_spaces = [ch for ch in set(text) if ch not in self.spoken.chars and SPACE.match(ch)]
        if not unknown_spaces:
            return self.fast_encode(text)
        ids = []
        for part in re.split(f'([{re.escape("".join(unknown_spaces))}])', text):
            unknown = len(part) == 1 and part in unknown_spaces
            ids += [self.unknown_id] if unknown else self.fast_encode(part)
        return ids

    def decode(self, ids):
        """The text of ids, END read as the space it stands for (a literal '</w>' stays)."""
        return ''.join(map(self.spoken.vocab.__getitem__, checks.known_ids(ids, self.vocab_size)))

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges}

    def pieces(self, text):
        """The text cut where no token may cross: its words, each with its space."""
        return compiled('word').findall(text)

    def knows(self, ch):
        return ch in self.spoken.chars

    def token_bytes(self, i):
        return self.spoken.vocab[i].encode('utf-8')
