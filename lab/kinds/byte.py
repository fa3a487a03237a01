"""Byte-level BPE: no unknown characters, ever, since every text is made of bytes.

The character-level tokenizer knows only the characters of its training text: 'C', '안'
and '😀' all become id 0. A byte-level tokenizer starts from the 256 byte values instead,
so any UTF-8 text can be encoded: a Korean syllable is 3 bytes, an emoji 4. The ids
follow a layout written in its file; the one it trains with is a fixed contract:

    <pad>=0  <unk>=1  <bos>=2  <eos>=3   byte b = 4 + b (4-259)   merges from 260 on

(other special tokens take the first ids in their place: special=['<eos>'] puts <eos> at 0
and byte b at 1 + b). A tokenizer made by the Hugging Face tokenizers library has its
own order of bytes (lab.import_hf reads it into this kind, ids unchanged).

It learns merges by one of two rules. rules='lesson', the default: the lesson's (ties go to
the pair seen first, the newline byte stays a token of its own, stop when the best pair
occurs fewer than 2 times), with the engine (lab/fast: learn) over the text's bytes
spelled as the characters U+0000-U+00FF. rules='tokenizers': those of the Hugging Face
tokenizers library's BpeTrainer with ByteLevel, as the course's next step trains: GPT-2's
pattern cuts each document (a pattern of one's own or none if given), its special tokens
take the first ids, then the 256 bytes in the order of the characters ByteLevel writes
them as (BYTE_CHARACTERS, sorted), then one id per merge; the pair of smaller ids wins a
tie, the newline merges like any byte, and a pair seen once may be merged, until the
vocabulary has the size asked. tests/test_hf_rules.py holds it to tokenizers' own merges.
With a pattern (lab/kinds/patterns.py) the text is cut into pieces first, as GPT-2 does.
Encoding merges, in each piece, the pair learned first again and again, as tokenizers
does. decode() joins the bytes of every id and decodes UTF-8 once, at the end, since one
character's bytes may be split across tokens. A special string in the text is text, as in
lab/kinds/special.py: it becomes the special id only where allowed.

Its file: {"kind": "byte", "special": {"<pad>": 0, ...}, "byte_ids": [4, 5, ...],
"merges": [[[a, b], new], ...], "pattern": null}.
"""
from types import SimpleNamespace

from lab import fast
from lab.contract import checks
from lab.fast.encoding import REMEMBERED, encode_line, replayer
from lab.kinds.patterns import (CHUNK, compiled, compiled_ascii, count_pieces_fast, cut,
                                pattern_problem)
from lab.kinds.special import encode_with_specials, index_of, special_problem
from lab.kinds.texts import merges_to_learn, texts_of
from lab.plumbing import cli, terminal

SPECIAL = ['<pad>', '<unk>', '<bos>', '<eos>']
FIRST_BYTE = len(SPECIAL)          # byte b has id 4 + b in the contract
FIRST_MERGE = FIRST_BYTE + 256     # 260
# What every token of a saved tokenizer may spell out, in all: a file of a few hundred bytes
# could otherwise make each new token of the last one twice over, 2**40 bytes after 40 merges.
# 10,000 merges learned from a novel (Swann's Way) spell 65 KB in all: 16 MB is room for a
# vocabulary hundreds of times that.
MOST_BYTES = 2**24
# bytes in a piece from which it is merged as the lesson's encode merges, merge after merge over
# all of it, in C (lab/fast/encoding.py: replayer): merging pair by pair costs about 10 µs a byte
# on a long run of one letter ('a' * 2,000,000: 21 s), replaying a few milliseconds a call
LONG_PIECE = 10_000
RULES = ['lesson', 'tokenizers']


def _byte_characters():
    """[the character byte b is written as, for b in 0-255], as GPT-2 and tokenizers' ByteLevel
    write bytes: printable bytes as themselves, the 68 others (controls, space, DEL, U+00A0 and
    U+00AD) as U+0100, U+0101, ... in order."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    others = iter(range(0x100, 0x200))
    return [chr(b) if b in printable else chr(next(others)) for b in range(256)]


BYTE_CHARACTERS = _byte_characters()
BYTE_OF = {ch: b for b, ch in enumerate(BYTE_CHARACTERS)}
# for str.translate of a latin-1 str
_AS_BYTE_CHARACTERS = {b: ch for b, ch in enumerate(BYTE_CHARACTERS)}


def _refuse_surrogates(text):
    """ValueError naming where text holds a lone surrogate: a character with no bytes to give,
    which Python makes of bytes that are not UTF-8 (in a command's argument, say)."""
    if text.isascii():  # known at once (Python keeps it), where a search reads 16 MB in 0.05 s
        return
    surrogate = checks.SURROGATE.search(text)
    if surrogate:
        raise ValueError(cli.message('byte.surrogate', code=f'U+{ord(surrogate.group()):04X}',
                                     at=f'{surrogate.start():,}'))


def _as_chars(text):
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
        problem = _layout_problem(special, byte_ids, merges, pattern)
        if problem:
            raise ValueError(problem)
        self.special_ids, self.byte_ids = special, byte_ids
        self.merges, self.pattern = merges, pattern
        self.special_index = index_of(special)
        names = {i: name for name, i in special.items()}
        # a merge into a special's name makes no id
        made = sum(new not in names for _, new in merges)
        self.vocab_size = len(special) + len(_byte_only(special, byte_ids)) + made
        self.bytes_of = [b''] * self.vocab_size
        for name, i in special.items():
            self.bytes_of[i] = name.encode('utf-8')
        for b, i in enumerate(byte_ids):
            if i is not None:
                self.bytes_of[i] = bytes([b])
        self._ranks = {}
        for rank, ((a, b), new) in enumerate(merges):
            if new in names:  # a merge tokenizers made into a special token's name, and gave its id
                if self.bytes_of[a] + self.bytes_of[b] != self.bytes_of[new]:
                    raise ValueError(cli.message('byte.spells_not', n=rank, a=a, b=b,
                                                 name=terminal.quoted(names[new], 30)))
                # never applied: that text stays text, as tokenizers cuts the name out first
                continue
            self.bytes_of[new] = self.bytes_of[a] + self.bytes_of[b]
            self._ranks.setdefault(a * self.vocab_size + b, rank)
        self._merges_applied = [merge for merge in merges if merge[1] not in names]
        self._made = [new for _, new in merges]
        # bytes without an id (a tokenizer trained on few) are left out, as tokenizers does
        self._missing = dict.fromkeys(b for b, i in enumerate(byte_ids) if i is None)
        # cut at line ends when no merge joins '\n'; a newline with no id is left out, and the bytes
        # on either side of it may merge, as in tokenizers
        newline = byte_ids[10]
        self._lines_apart = newline is not None and all(newline not in pair for pair, _ in merges)
        self._done = {}  # piece (or chunk of pieces) -> its ids: one met again is merged once
        self._replay = None  # the replayer of long pieces, built the first time one comes
        # what each id stands for: its bytes (a special token: its name's)
        self.vocab = self.bytes_of

    @classmethod
    def train(cls, text, count=None, special=None, pattern=None, *, vocab_size=None,
              rules='lesson'):
        """count merges, or as many as make vocab_size ids, learned on the bytes of text (a str, or
        a list of documents), inside its pieces with a pattern; by the lesson's rules or by those of
        tokenizers (rules='tokenizers', where, as in its BpeTrainer and ByteLevel, there are no
        special tokens and the pattern is GPT-2's unless given: the module's docstring says how
        the two differ). special: the names of the special tokens (the lesson's rules: SPECIAL)."""
        texts = texts_of(text)
        if rules not in RULES:
            raise ValueError(cli.message('byte.rules', rules=terminal.quoted(rules, 20),
                                         names=', '.join(RULES)))
        if special is None:
            special = SPECIAL if rules == 'lesson' else []
        pattern = 'gpt2' if pattern is None and rules == 'tokenizers' else pattern
        problem = (pattern is not None and pattern_problem(pattern)) or special_problem(special)
        if problem:
            raise ValueError(problem)
        count = merges_to_learn(count, vocab_size, len(special) + 256, 'byte')
        for doc in texts:
            _refuse_surrogates(doc)
        if rules == 'tokenizers':
            return _train_as_tokenizers(cls, texts, count, special, pattern)
        pieces = (piece for doc in texts for piece in (cut(pattern, doc) if pattern else [doc]))
        base = {chr(b): chr(b) for b in range(256)}  # byte b is id b here, renumbered below
        _, merges = fast.learn(fast.weighted_lines(map(_as_chars, pieces)), base, count)
        first = len(special)
        ids = [first + b for b in range(256)] + list(range(first + 256, first + 256 + len(merges)))
        return cls([[[ids[a], ids[b]], ids[new]] for (a, b), new in merges], special, None, pattern)

    def encode(self, text, allowed=(), disallowed='plain'):
        """The ids of text. A special string in it is text, encoded as its bytes, unless named in
        allowed ('all': every one), where it becomes its id; disallowed='refuse' refuses one
        that is not allowed instead (lab/kinds/special.py)."""
        if isinstance(text, str):  # (anything else: encode_with_specials says what it takes)
            _refuse_surrogates(text)  # here, where the place is counted from the start of the text
        return encode_with_specials(text, self.special_ids, self.special_index, self.encode_plain,
                                    allowed,
                                    disallowed)

    def encode_plain(self, text):
        _refuse_surrogates(text)
        # cut chunk by chunk, a chunk met again merged once (patterns.py)
        if self.pattern == 'gpt2':
            regex, plain = compiled('gpt2'), compiled_ascii('gpt2')
            ids = []
            for chunk in CHUNK.findall(text):
                if chunk not in self._done:
                    cut_by = plain if chunk.isascii() else regex
                    self.remember(chunk, [i for piece in cut_by.findall(chunk)
                                          for i in self.piece_ids(piece)])
                ids += self._done[chunk]
            return ids
        if self.pattern:
            pieces = cut(self.pattern, text)
        else:
            pieces = compiled('line').findall(text) if self._lines_apart else [text]
        return [i for piece in pieces for i in self.piece_ids(piece)]

    def piece_ids(self, piece):
        """The ids of one piece: its bytes, merged pair by pair; a piece met again merged once."""
        if piece not in self._done:
            data = piece.encode('utf-8')
            if self._missing:
                data = bytes(b for b in data if b not in self._missing)
            if len(data) >= LONG_PIECE and self.replayer():
                self.remember(piece, self._replay(data.decode('latin-1')))
            else:
                ids = list(map(self.byte_ids.__getitem__, data))
                self.remember(piece, encode_line(ids, self._ranks, self._made, self.vocab_size))
        return self._done[piece]

    def replayer(self):
        """The replayer of lab/fast for this tokenizer's merges, over bytes written as the
        characters U+0000-U+00FF; None when too few characters are left for its tokens. Its
        merges are made as training makes them (layout_problem), so replaying them gives what
        merging by rank gives."""
        if self._replay is None:
            chars = {chr(b): i for b, i in enumerate(self.byte_ids) if i is not None}
            bytes_as = SimpleNamespace(chars=chars,
                                       vocab=range(self.vocab_size), merges=self._merges_applied,
                                       encode=None)
            self._replay = replayer(bytes_as) or False
        return self._replay

    def remember(self, piece, ids):
        if len(self._done) >= REMEMBERED:
            self._done.clear()
        self._done[piece] = ids

    def decode(self, ids, skip_special=True):
        """The text of ids: special ids left out, or as their names."""
        ids = checks.known_ids(ids, self.vocab_size)
        specials = set(self.special_ids.values())
        data = b''.join(self.bytes_of[i] for i in ids if i not in specials or not skip_special)
        # once, at the end: a character may span tokens
        return data.decode('utf-8', errors='replace')

    def state(self):
        return {'special': self.special_ids, 'byte_ids': self.byte_ids, 'merges': self.merges,
                'pattern': self.pattern}

    def knows(self, ch):
        return not self._missing or not any(b in self._missing for b in ch.encode('utf-8'))

    def token_bytes(self, i):
        return self.bytes_of[i]


def _train_as_tokenizers(cls, texts, count, special, pattern):
    """A ByteBPE as tokenizers' BpeTrainer trains it on texts with ByteLevel's bytes: the special
    tokens, the bytes in the order of their characters, then each merge, the most frequent pair
    first and of those the pair of smaller ids, down to pairs seen once."""
    bad = next((name for name in special if len(name) == 1 and name in BYTE_OF), None)
    # tokenizers would give that byte the special token's id, and nothing to the byte
    if bad is not None:
        raise ValueError(cli.message('byte.special_is_byte', name=terminal.quoted(bad),
                                     byte=BYTE_OF[bad]))
    words = {}
    for piece, n in count_pieces_fast(pattern, texts).items():
        word = _as_chars(piece).translate(_AS_BYTE_CHARACTERS)
        words[word] = words.get(word, 0) + n
    alphabet = sorted(BYTE_CHARACTERS)  # tokenizers sorts its alphabet by code point
    vocab, merges = fast.learn(words, dict(zip(alphabet, alphabet)), count, tie='ids', least=1)
    clash = next((name for name in special if name in vocab), None)
    if clash is not None:  # tokenizers would give that merge the special token's id
        raise ValueError(cli.message('byte.merge_makes_special', name=terminal.quoted(clash, 30)))
    first = len(special)
    byte_ids = [first + alphabet.index(ch) for ch in BYTE_CHARACTERS]
    return cls([[[first + a, first + b], first + new] for (a, b), new in merges], special, byte_ids,
               pattern)


def _is_id(i):
    return type(i) is int and i >= 0


def _byte_only(special, byte_ids):
    """The ids of bytes that are not also a special token's. A tokenizers file may name a special
    token as the character ByteLevel writes a byte as ('Ġ', the space): there the byte is encoded
    as that token's id, which stands for the byte."""
    names = {i: name for name, i in special.items()}
    return [i
            for b, i in enumerate(byte_ids) if i is not None and names.get(i) != BYTE_CHARACTERS[b]]


def _layout_problem(special, byte_ids, merges, pattern):
    """What is wrong with a byte tokenizer's layout, or None: each id from 0 up used once, by a
    special, a byte or a merge; merges make their ids in increasing order, each of two ids that
    are bytes or made before it; and all its tokens spell at most MOST_BYTES bytes."""
    if not (isinstance(special, dict) and all(map(_is_id, special.values()))):
        return cli.message('byte.special_ids')
    if special_problem(list(special)):
        return special_problem(list(special))
    if not (isinstance(byte_ids, list) and len(byte_ids) == 256
            and all(i is None or _is_id(i) for i in byte_ids)):
        return cli.message('byte.byte_ids')
    if pattern is not None and pattern_problem(pattern):
        return pattern_problem(pattern)
    if not isinstance(merges, list) or not all(checks.is_merge(m) for m in merges):
        return cli.message('byte.merges')
    size = {i: 1 for i in byte_ids if i is not None}  # id -> how many bytes it spells
    names = {i: name for name, i in special.items()}
    made = [new for _, new in merges if new not in names]  # a merge into a special's name: its id
    taken = list(special.values()) + _byte_only(special, byte_ids) + made
    if sorted(taken) != list(range(len(taken))):
        return cli.message('byte.ids_once', last=len(taken) - 1)
    before = -1
    for n, ((a, b), new) in enumerate(merges):
        # into a special token's name: checked by its bytes
        if new in names and a in size and b in size:
            # later merges may use it, as in tokenizers (they never apply)
            size[new] = size[a] + size[b]
            continue
        if not (a in size and b in size and new > before):
            return cli.message('byte.merge_order', n=n, a=a, b=b, new=new)
        size[new], before = size[a] + size[b], new
    if sum(size.values()) > MOST_BYTES:
        return cli.message('byte.too_many_bytes', bytes=f'{sum(size.values()):,}',
                           most=f'{MOST_BYTES:,}')
    return None
