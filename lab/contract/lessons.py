"""The lesson's BPE, the class the learner typed, as the labs and the engine use it: rebuilt from
a vocabulary and merges (lesson_bpe), its base vocabulary, its encode and state checked, and
what it does not know in a text counted."""
from collections import Counter

from lab.contract import checks
from lab.learner import errors
from lab.plumbing import locations, terminal


def base_vocabulary(text):
    """The vocabulary BPE.train starts from: the unknown character as id 0, then every other
    character of text in code point order."""
    return [checks.UNKNOWN] + sorted(set(text) - {checks.UNKNOWN})


def lesson_bpe(vocab, merges):
    """tokenizer.BPE(vocab, merges), the class the learner typed, refused in one line that points
    to the tutor when it does not keep what the lesson's keeps (vocab, merges, chars): the labs
    build on it, and would otherwise fail later, inside their own code."""
    from tokenizer import BPE  # here, not above: lab.selfcheck runs when tokenizer.py cannot be imported
    tok = BPE(vocab, merges)
    for name, kind in [('vocab', list), ('merges', list), ('chars', dict)]:
        if not isinstance(getattr(tok, name, None), kind):
            raise errors.NotTheLessons(f'BPE in tokenizer.py keeps no self.{name} ({kind.__name__}): '
                                       f'{locations.TUTOR}')
    return tok


def encoded(tok, text):
    """tok.encode(text) of the BPE the learner typed: a list, or ValueError in one line that
    points to the tutor (an encode without its return gives None)."""
    ids = tok.encode(text)
    if not isinstance(ids, list):
        raise errors.NotTheLessons(f'encode gave {terminal.clip(repr(ids), 16)}, not a list of ids: '
                                   f'{locations.TUTOR}')
    return ids


def state_of(tok):
    """tok.state(), refused in one line when it is not {'vocab': [...], 'merges': [...]}."""
    state = tok.state()
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab']:
        keys = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise errors.NotTheLessons(f"state() in tokenizer.py gave {keys}, not the keys ['merges', 'vocab']: "
                                   f'{locations.TUTOR}')
    return state


def count_lines(tok, encode, lines):
    """What the labs count in some lines, counted one way for all of them: the lines (blank
    ones too), their characters and UTF-8 bytes without the newlines, their tokens, the
    tokens of each line, and the characters the tokenizer does not know (tok.knows)."""
    per_line = [len(encode(line)) for line in lines]
    chars = sum(map(len, lines))
    return {'lines': len(lines), 'chars': chars, 'tokens': sum(per_line), 'per_line': per_line or [0],
            'bytes': sum(len(line.encode('utf-8', 'surrogatepass')) for line in lines),
            'unknown': unknown_characters(tok, lines)}


def unknown_characters(tok, texts):
    """{character: how often} for the characters of texts that tok does not know (tok.knows),
    line ends aside, in order of first appearance. Each distinct character is asked once."""
    counts = Counter()
    for text in texts:
        counts.update(text)
    return Counter({ch: n for ch, n in counts.items() if ch != '\n' and not tok.knows(ch)})
