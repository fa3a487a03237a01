"""Byte-level BPE: no unknown characters, ever, since every text is made of bytes.

The character-level tokenizer knows only the characters of its training text: 'C', '안'
and '😀' all become id 0. A byte-level tokenizer starts from the 256 byte values instead,
so any UTF-8 text can be encoded: a Korean syllable is 3 bytes, an emoji 4. Its ids follow
a fixed contract, the same for every tokenizer trained this way:

    <pad>=0  <unk>=1  <bos>=2  <eos>=3   byte b = 4 + b (4-259)   merges from 260 on

It learns merges with the lesson's rules (ties go to the pair seen first, the newline byte
stays a token of its own, stop when the best pair occurs fewer than 2 times): the text's
bytes are spelled as the characters U+0000-U+00FF, trained with the engine (lab/fast), and
renumbered into the contract. decode() joins the bytes of every id and decodes UTF-8 once,
at the end, since one character's bytes may be split across tokens.
"""
from lab import common, fast
from tokenizer import BPE

SPECIAL = ['<pad>', '<unk>', '<bos>', '<eos>']
FIRST_BYTE = len(SPECIAL)          # byte b has id 4 + b
FIRST_MERGE = FIRST_BYTE + 256     # 260
SHIFT = FIRST_BYTE - 1             # byte b is id 1 + b in the character-level BPE, 4 + b here
NOT_BYTE = 'not a byte tokenizer with special ids 0-3, bytes 4-259, merges from 260'


def as_chars(text):
    """The UTF-8 bytes of text as a str of the characters U+0000-U+00FF, one per byte."""
    return text.encode('utf-8').decode('latin-1')


class ByteBPE:
    """Byte-level BPE with the fixed id contract above; its state is only the merges."""
    unknown_id = None  # every text is bytes: nothing is unknown (<unk> is kept for the contract)

    def __init__(self, merges, special=SPECIAL):
        if special != SPECIAL or not follows_the_contract(merges):
            raise ValueError(NOT_BYTE)
        self.merges, self.special = merges, special
        self.vocab_size = FIRST_MERGE + len(merges)
        self.bytes_of = [name.encode() for name in SPECIAL] + [bytes([b]) for b in range(256)]
        for (a, b), _ in merges:
            self.bytes_of.append(self.bytes_of[a] + self.bytes_of[b])
        self.fast_encode = fast.encoder(as_char_tokenizer(merges))

    @classmethod
    def train(cls, text, count):
        tok = fast.train(as_chars(text), count)
        # char-level ids -> contract ids: base ids are bytes, merged ids follow from 260
        ids = [None] + [FIRST_BYTE + ord(ch) for ch in tok.vocab[1:len(tok.vocab) - len(tok.merges)]]
        ids += range(FIRST_MERGE, FIRST_MERGE + len(tok.merges))
        return cls([[[ids[a], ids[b]], ids[new]] for (a, b), new in tok.merges])

    def encode(self, text):
        return [i + SHIFT for i in self.fast_encode(as_chars(text))]

    def decode(self, ids, skip_special=True):
        """The text of ids: special ids left out, or as their names."""
        ids = common.known_ids(ids, self.vocab_size)
        data = b''.join(self.bytes_of[i] for i in ids if i >= FIRST_BYTE or not skip_special)
        return data.decode('utf-8', errors='replace')  # once, at the end: a character may span tokens

    def state(self):
        return {'special': self.special, 'merges': self.merges}


def follows_the_contract(merges):
    """Merges [[a, b], new] whose new ids count up from 260, each of two ids before it."""
    return isinstance(merges, list) and all(
        isinstance(m, list) and len(m) == 2 and isinstance(m[0], list) and len(m[0]) == 2
        and all(type(i) is int for i in m[0] + [m[1]]) and m[1] == FIRST_MERGE + n
        and FIRST_BYTE <= min(m[0]) and max(m[0]) < m[1] for n, m in enumerate(merges))


def as_char_tokenizer(merges):
    """The same merges as a tokenizer.BPE over byte characters, to encode with."""
    vocab = [common.UNKNOWN] + [chr(b) for b in range(256)]  # byte b at id 1 + b
    for (a, b), _ in merges:
        vocab.append(vocab[a - SHIFT] + vocab[b - SHIFT])
    return BPE(vocab, [[[a - SHIFT, b - SHIFT], new - SHIFT] for (a, b), new in merges])
