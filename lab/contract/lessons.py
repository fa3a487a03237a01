"""The lesson's BPE, as the library has it: its own copy of the lesson's merge and BPE (the
kinds and the engine build on it, whatever state the learner's tokenizer.py is in), the
learner's BPE rebuilt for the labs that show it (learners_bpe), its base vocabulary, its
encode and state checked, and what it does not know in a text counted."""
from collections import Counter

from lab.contract import checks
from lab.learner import errors
from lab.plumbing import locations, terminal
from lab.plumbing.cli import message


def merge(ids, pair, new_id):
    """The lesson's merge: each pair in ids, left to right, replaced by new_id."""
    result, i = [], 0
    while i < len(ids):
        if tuple(ids[i:i + 2]) == tuple(pair):
            result.append(new_id)
            i += 2
        else:
            result.append(ids[i])
            i += 1
    return result


class BPE:
    """The lesson's BPE rebuilt from a vocabulary and merges (training is the engine's:
    lab/fast): the library's own, the same code as the lesson's tokenizer.py."""

    def __init__(self, vocab, merges):
        self.vocab, self.merges = vocab, merges
        self.chars = {c: i for i, c in enumerate(vocab) if len(c) == 1}

    def encode(self, text):
        ids = [self.chars.get(c, 0) for c in text]
        for pair, new_id in self.merges:
            ids = merge(ids, pair, new_id)
        return ids

    def decode(self, ids):
        return ''.join(self.vocab[i] for i in ids)

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges}


def base_vocabulary(text):
    """The vocabulary BPE.train starts from: the unknown character as id 0, then every other
    character of text in code point order."""
    return [checks.UNKNOWN] + sorted(set(text) - {checks.UNKNOWN})


def lesson_bpe(vocab, merges):
    """The lesson's BPE(vocab, merges), the library's own copy."""
    return BPE(vocab, merges)


def learners_bpe(bpe, vocab, merges):
    """bpe(vocab, merges) of the class the learner typed (tokenizer.BPE), for a lab that shows
    it; refused in one line that points to the tutor when it does not keep what the lesson's
    keeps (vocab, merges, chars): the lab would otherwise fail later, inside its own code."""
    tok = bpe(vocab, merges)
    for name, kind in [('vocab', list), ('merges', list), ('chars', dict)]:
        if not isinstance(getattr(tok, name, None), kind):
            raise errors.NotTheLessons(
                f"{message('lessons.keeps_no', name=name, kind=kind.__name__)}: "
                f'{locations.TUTOR}')
    return tok


def encoded(tok, text):
    """tok.encode(text) of the BPE the learner typed: a list, or ValueError in one line that
    points to the tutor (an encode without its return gives None)."""
    ids = tok.encode(text)
    if not isinstance(ids, list):
        raise errors.NotTheLessons(
            f"{message('lessons.encode_gave', ids=terminal.clip(repr(ids), 16))}: "
            f'{locations.TUTOR}')
    return ids


def state_of(tok):
    """tok.state(), refused in one line when it is not {'vocab': [...], 'merges': [...]}."""
    state = tok.state()
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab']:
        keys = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise errors.NotTheLessons(
            f"{message('lessons.state_gave', keys=terminal.clip(str(keys), 40))}: "
            f'{locations.TUTOR}')
    return state


def count_lines(tok, encode, lines):
    """What the labs count in some lines, counted one way for all of them: the lines (blank
    ones too), their characters and UTF-8 bytes without the newlines, their tokens, the
    tokens of each line, and the characters the tokenizer does not know (tok.knows)."""
    per_line = [len(encode(line)) for line in lines]
    chars = sum(map(len, lines))
    return {'lines': len(lines), 'chars': chars, 'tokens': sum(per_line),
            'per_line': per_line or [0],
            'bytes': sum(len(line.encode('utf-8', 'surrogatepass')) for line in lines),
            'unknown': unknown_characters(tok, lines)}


def unknown_characters(tok, texts):
    """{character: how often} for the characters of texts that tok does not know (tok.knows),
    line ends aside, in order of first appearance. Each distinct character is asked once."""
    counts = Counter()
    for text in texts:
        counts.update(text)
    return Counter({ch: n for ch, n in counts.items() if ch != '\n' and not tok.knows(ch)})
