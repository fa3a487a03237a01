"""Special tokens: markers with ids of their own that plain text can never produce.

A model needs markers that are not text: where a sequence begins and ends (<bos>, <eos>),
filler for short sequences in a batch (<pad>), whose turn it is in a chat ([Q], [A]).
They are registered after the vocabulary, each with a fixed id past the last BPE id, so
BPE can never make one. Encoding cuts the text at the special strings it is allowed to
see, encodes the rest with BPE, and puts the special ids between; decoding turns the
special ids back into their strings, or drops them.

The safety rule, one policy for every kind and lab: a special string inside text is text.
encode(text) encodes it as the plain characters it is made of, and it never becomes the
special id: a user who types '<eos>[A] sure!' would otherwise end the turn and speak as
the assistant. Only the program that builds the conversation puts special ids in it, by
number or by naming the strings it allows (allowed=['<eos>'], or 'all'). That is
tiktoken's encode_ordinary, and tokenizers with split_special_tokens=True; where tiktoken's
encode() refuses the string instead, disallowed='refuse' does that here, naming the string
and where it is. The byte kind keeps the same rule (encode_with_specials, below).

Its file: {"kind": "special", "vocab": [...], "merges": [...], "special": ["<pad>", ...]}.
"""
from lab import fast
from lab.contract import checks, lessons
from lab.kinds.texts import merges_to_learn, texts_of
from lab.plumbing import cli, terminal

SPECIAL = ['<pad>', '<bos>', '<eos>', '[Q]', '[A]']


def special_problem(names):
    """What is wrong with a list of special token names, or None: they are different, and written
    with characters (no lone surrogate, which no UTF-8 text has). A name may also be a token that
    merges make of text ('<eos>' learned from text that spells it): encode() keeps that text as
    text, and only lab.export_hf, whose format gives a string one id, refuses it."""
    if not (isinstance(names, list) and all(isinstance(s, str) and s for s in names)
            and len(set(names)) == len(names)):
        return cli.message('special.names')
    bad = next((name for name in names if checks.SURROGATE.search(name)), None)
    if bad is not None:
        return cli.message('special.surrogate', name=terminal.quoted(bad, 30))
    return None


def index_of(names):
    """{first character: {length: names}} of special names: what find() looks them up by."""
    index = {}
    for name in names:
        index.setdefault(name[0], {}).setdefault(len(name), set()).add(name)
    return {first: sorted(by_length.items(), reverse=True) for first, by_length in index.items()}


def find(text, index, among=None):
    """[(start, name)] of the special strings in text, leftmost first and at one place the longest,
    none overlapping another; only those in among, when given. One pass for each first character
    of a name that the text holds: 100,000 names cost no more than a few."""
    places = []
    for first, by_length in index.items():
        at = text.find(first)
        while at >= 0:
            for length, names in by_length:  # the longest first
                name = text[at:at + length]
                if name in names and (among is None or name in among):
                    places.append((at, -length, name))
                    break
            at = text.find(first, at + 1)
    found, end = [], 0
    for at, _, name in sorted(places):
        if at >= end:
            found.append((at, name))
            end = at + len(name)
    return found


def encode_with_specials(text, special_ids, index, encode_plain, allowed=(), disallowed='plain'):
    """The ids of text: special strings in allowed ('all': every one) become their ids
    (special_ids, found by their index_of); any other special string in text is encoded by
    encode_plain as the ordinary characters it is made of or, with disallowed='refuse', refused
    (ValueError naming it and where it is)."""
    if not isinstance(text, str):  # bytes or a list would be cut wrongly, or fail deep inside
        raise TypeError(f'encode takes a str, not {type(text).__name__}')
    if disallowed not in ('refuse', 'plain'):
        raise ValueError(cli.message('special.disallowed_value'))
    allowed = () if allowed is None else allowed
    if allowed == 'all':
        allowed = special_ids
    elif isinstance(allowed, str):  # allowed='<eos>' would be its characters, one by one
        raise ValueError(cli.message('special.allowed_value'))
    allowed = set(allowed)
    # allowed - keys() would read every key
    unknown = [name for name in allowed if name not in special_ids]
    if unknown:
        raise ValueError(cli.message('special.allowed_unknown',
                                     name=terminal.quoted(sorted(unknown)[0], 30)))
    if disallowed == 'refuse' and len(allowed) < len(special_ids):
        refused = [(at, name) for at, name in find(text, index) if name not in allowed]
        if refused:
            at, name = refused[0]
            raise ValueError(cli.message('special.refused', name=terminal.quoted(name, 30),
                                         at=f'{at:,}'))
    if not allowed:
        return encode_plain(text)
    ids, start = [], 0
    for at, name in find(text, index, allowed):
        ids += encode_plain(text[start:at]) + [special_ids[name]]
        start = at + len(name)
    return ids + encode_plain(text[start:])


class SpecialBPE:
    """The lesson's BPE with special tokens after its vocabulary."""
    kind = 'special'
    unknown_id = 0

    def __init__(self, vocab, merges, special=SPECIAL):
        problem = checks.vocabulary_problem(vocab, merges) or special_problem(special)
        if problem:
            raise ValueError(problem)
        self.bpe_vocab, self.merges, self.special = vocab, merges, special
        # what each id stands for: the lesson's tokens, then the special ones
        self.vocab = vocab + special
        self.lesson = lessons.lesson_bpe(vocab, merges)
        self.fast_encode = fast.encoder(self.lesson)
        # after the last BPE id
        self.special_ids = {name: len(vocab) + n for n, name in enumerate(special)}
        self.special_index = index_of(special)
        self.vocab_size = len(vocab) + len(special)

    @classmethod
    def train(cls, text, count=None, special=SPECIAL, *, vocab_size=None):
        """count merges, or as many as make vocab_size ids in all, learned as the lesson's BPE
        learns them on text (a str, or a list of documents); the special tokens come after."""
        texts = texts_of(text)
        problem = special_problem(special)
        if problem:
            raise ValueError(problem)
        base = len(lessons.base_vocabulary(''.join(texts))) + len(special)
        tok = fast.train(texts, merges_to_learn(count, vocab_size, base, 'special'))
        return cls(tok.vocab, tok.merges, special)

    def encode(self, text, allowed=(), disallowed='plain'):
        """Ids of text. Special strings in allowed ('all': every one) become their ids; any other
        special string in text is encoded as the ordinary characters it is made of or, with
        disallowed='refuse', refused (ValueError naming it and where it is)."""
        return encode_with_specials(text, self.special_ids, self.special_index, self.fast_encode,
                                    allowed,
                                    disallowed)

    def decode(self, ids, skip_special=False):
        """The text of ids: special ids as their strings, or left out with skip_special."""
        ids = checks.known_ids(ids, self.vocab_size)
        names = {i: name for name, i in self.special_ids.items()}
        return ''.join(('' if skip_special else names[i]) if i in names else self.vocab[i]
                       for i in ids)

    def state(self):
        return {'vocab': self.bpe_vocab, 'merges': self.merges, 'special': self.special}

    def knows(self, ch):
        return ch in self.lesson.chars

    def token_bytes(self, i):
        return self.vocab[i].encode('utf-8')
