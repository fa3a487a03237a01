"""Byte-level BPE: no unknown characters, ever, since every text is made of bytes.

The character-level tokenizer knows only the characters of its training text: 'C', '안'
and '😀' all become id 0. A byte-level tokenizer starts from the 256 byte values instead,
so any UTF-8 text can be encoded: a Korean syllable is 3 bytes, an emoji 4. The ids
follow a layout written in its file; the one it trains with is a fixed contract:

    <pad>=0  <unk>=1  <bos>=2  <eos>=3   byte b = 4 + b (4-259)   merges from 260 on

(other special tokens take the first ids in their place: special=['<eos>'] puts <eos> at 0
and byte b at 1 + b). A tokenizer made by the Hugging Face tokenizers library has its
own order of bytes (lab.import_hf reads it into this kind, ids unchanged).

It learns merges with the lesson's rules (ties go to the pair seen first, the newline byte
stays a token of its own, stop when the best pair occurs fewer than 2 times), with the
engine (lab/fast: learn) over the text's bytes spelled as the characters U+0000-U+00FF.
With a pattern (lab/kinds/patterns.py) the text is cut into pieces first, as GPT-2 does.
Encoding merges, in each piece, the pair learned first again and again, as tokenizers
does. decode() joins the bytes of every id and decodes UTF-8 once, at the end, since one
character's bytes may be split across tokens. A special string in the text is refused,
or encoded as its plain bytes, as in lab/kinds/special.py: never as the special id.

Its file: {"kind": "byte", "special": {"<pad>": 0, ...}, "byte_ids": [4, 5, ...],
"merges": [[[a, b], new], ...], "pattern": null}.
"""
from lab import common, fast
from lab.fast.encoding import REMEMBERED, encode_line
from lab.kinds.patterns import compiled, pattern_problem
from lab.kinds.special import encode_with_specials, special_problem

SPECIAL = ['<pad>', '<unk>', '<bos>', '<eos>']
FIRST_BYTE = len(SPECIAL)          # byte b has id 4 + b in the contract
FIRST_MERGE = FIRST_BYTE + 256     # 260
# What every token of a saved tokenizer may spell out, in all: a file of a few hundred bytes
# could otherwise make each new token of the last one twice over, 2**40 bytes after 40 merges.
# 10,000 merges learned from a novel (Swann's Way) spell 65 KB in all: 16 MB is room for a
# vocabulary hundreds of times that.
MOST_BYTES = 2**24


def refuse_surrogates(text):
    """ValueError naming where text holds a lone surrogate: a character with no bytes to give,
    which Python makes of bytes that are not UTF-8 (in a command's argument, say)."""
    surrogate = common.SURROGATE.search(text)
    if surrogate:
        raise ValueError(f'the text holds a lone surrogate (U+{ord(surrogate.group()):04X}, character '
                         f'{surrogate.start():,}): not UTF-8')


def as_chars(text):
    """The UTF-8 bytes of text as a str of the characters U+0000-U+00FF, one per byte."""
    return text.encode('utf-8').decode('latin-1')


class ByteBPE:
    """Byte-level BPE: special tokens, the 256 bytes, and merges, at the ids its layout gives."""
    kind = 'byte'
    unknown_id = None  # every text is bytes: nothing is unknown (<unk> is kept for the contract)

    def __init__(self, merges, special=SPECIAL, byte_ids=None, pattern=None):
        if isinstance(special, list):
            if special_problem(special):
                raise ValueError(special_problem(special))
            special = {name: n for n, name in enumerate(special)}  # ids 0, 1, ... in order
        if byte_ids is None and isinstance(special, dict):
            byte_ids = [len(special) + b for b in range(256)]  # the bytes right after them
        problem = layout_problem(special, byte_ids, merges, pattern)
        if problem:
            raise ValueError(problem)
        self.special_ids, self.byte_ids, self.merges, self.pattern = special, byte_ids, merges, pattern
        self.vocab_size = len(special) + sum(i is not None for i in byte_ids) + len(merges)
        self.bytes_of = [b''] * self.vocab_size
        for name, i in special.items():
            self.bytes_of[i] = name.encode('utf-8')
        for b, i in enumerate(byte_ids):
            if i is not None:
                self.bytes_of[i] = bytes([b])
        self.ranks = {}
        for rank, ((a, b), new) in enumerate(merges):
            self.bytes_of[new] = self.bytes_of[a] + self.bytes_of[b]
            self.ranks.setdefault(a * self.vocab_size + b, rank)
        self.made = [new for _, new in merges]
        # bytes without an id (a tokenizer trained on few) are left out, as tokenizers does
        self.missing = dict.fromkeys(b for b, i in enumerate(byte_ids) if i is None)
        newline = byte_ids[10]
        self.lines_apart = all(newline not in pair for pair, _ in merges)  # no merge joins '\n'
        self.done = {}  # piece -> its ids: a piece met again is merged once

    @classmethod
    def train(cls, text, count, special=SPECIAL, pattern=None):
        """count merges learned on the bytes of text (inside its pieces, with a pattern)."""
        if pattern is not None and pattern_problem(pattern):
            raise ValueError(pattern_problem(pattern))
        pieces = compiled(pattern).findall(text) if pattern else [text]
        base = {chr(b): chr(b) for b in range(256)}  # byte b is id b here, renumbered below
        _, merges = fast.learn(fast.weighted_lines(map(as_chars, pieces)), base, count)
        first = len(special)
        ids = [first + b for b in range(256)] + list(range(first + 256, first + 256 + len(merges)))
        return cls([[[ids[a], ids[b]], ids[new]] for (a, b), new in merges], special, None, pattern)

    def encode(self, text, allowed=(), disallowed='refuse'):
        """The ids of text. A special string in it is refused, or with disallowed='plain' encoded
        as its bytes; those in allowed become their ids (lab/kinds/special.py)."""
        refuse_surrogates(text)  # here, where the place is counted from the start of the text
        return encode_with_specials(text, self.special_ids, self.encode_plain, allowed, disallowed)

    def encode_plain(self, text):
        refuse_surrogates(text)
        if self.pattern:
            pieces = compiled(self.pattern).findall(text)
        else:
            pieces = compiled('line').findall(text) if self.lines_apart else [text]
        ids = []
        for piece in pieces:
            if piece not in self.done:
                if len(self.done) >= REMEMBERED:
                    self.done.clear()
                data = piece.encode('utf-8')
                if self.missing:
                    data = bytes(b for b in data if b not in self.missing)
                self.done[piece] = encode_line(list(map(self.byte_ids.__getitem__, data)), self.ranks,
                                               self.made, self.vocab_size)
            ids += self.done[piece]
        return ids

    def decode(self, ids, skip_special=True):
        """The text of ids: special ids left out, or as their names."""
        ids = common.known_ids(ids, self.vocab_size)
        specials = set(self.special_ids.values())
        data = b''.join(self.bytes_of[i] for i in ids if i not in specials or not skip_special)
        return data.decode('utf-8', errors='replace')  # once, at the end: a character may span tokens

    def state(self):
        return {'special': self.special_ids, 'byte_ids': self.byte_ids, 'merges': self.merges,
                'pattern': self.pattern}

    def knows(self, ch):
        return not self.missing or not any(b in self.missing for b in ch.encode('utf-8'))

    def token_bytes(self, i):
        return self.bytes_of[i]


def is_id(i):
    return type(i) is int and i >= 0


def layout_problem(special, byte_ids, merges, pattern):
    """What is wrong with a byte tokenizer's layout, or None: each id from 0 up used once, by a
    special, a byte or a merge; merges make their ids in increasing order, each of two ids that
    are bytes or made before it; and all its tokens spell at most MOST_BYTES bytes."""
    if not (isinstance(special, dict) and all(map(is_id, special.values()))):
        return 'special must map each name to a whole number >= 0'
    if special_problem(list(special)):
        return special_problem(list(special))
    if not (isinstance(byte_ids, list) and len(byte_ids) == 256
            and all(i is None or is_id(i) for i in byte_ids)):
        return 'byte_ids must be a list of 256 ids (or null for a byte without one)'
    if pattern is not None and pattern_problem(pattern):
        return pattern_problem(pattern)
    if not isinstance(merges, list) or not all(common.is_merge(m) for m in merges):
        return 'merges must be a list of [[a, b], new_id] with whole numbers'
    size = {i: 1 for i in byte_ids if i is not None}  # id -> how many bytes it spells
    taken = list(special.values()) + list(size) + [new for _, new in merges]
    if sorted(taken) != list(range(len(taken))):
        return f'the ids of specials, bytes and merges must be 0 to {len(taken) - 1}, each used once'
    before = -1
    for n, ((a, b), new) in enumerate(merges):
        if not (a in size and b in size and new > before):
            return (f'merges[{n}] joins ids {a} and {b} into {new}: not two bytes or earlier merges, '
                    'into a new id')
        size[new], before = size[a] + size[b], new
    if sum(size.values()) > MOST_BYTES:
        return (f'its tokens would spell {sum(size.values()):,} bytes, more than any real vocabulary '
                f'(at most {MOST_BYTES:,}): a damaged or a hostile file?')
    return None
