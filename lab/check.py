"""Check a saved tokenizer before trusting it: python3 -m lab.check [FILE].

A tokenizer.json travels between folders and people; it can be cut short, edited by
hand or come from another program. BPE(**state) takes whatever it is given, and a
damaged file then fails later with an IndexError or, worse, gives wrong ids quietly.
load() reads the file and refuses it with the first problem it finds; every lab
loads through it. As a command it says whether FILE (default data/tokenizer.json)
is sound. Try it on a copy you have edited by hand.
"""
import argparse
import json
import sys

if not __package__:  # run as python3 lab/check.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.check')

from tokenizer import BPE, SAVED, UNKNOWN, read_text


def read_json(path, fix):
    """The parsed JSON of a file; ValueError names the file and the fix when it is not JSON."""
    try:
        return json.loads(read_text(path, fix))
    except json.JSONDecodeError as e:
        raise ValueError(f'{path} is not valid JSON ({e}): {fix}') from None


def load(path=SAVED):
    """Rebuild a saved tokenizer; ValueError names the file and its first problem."""
    state = read_json(path, 'run python3 tokenizer.py to make it')
    problem = problem_with(state)
    if problem:
        raise ValueError(f'{path}: {problem}; run python3 tokenizer.py to make it again')
    return BPE(**state)


def problem_with(state):
    """The first thing wrong with a tokenizer state, or None when it is sound."""
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab']:
        return 'expected an object with exactly the keys "vocab" and "merges"'
    vocab, merges = state['vocab'], state['merges']
    if not isinstance(vocab, list) or not vocab or not all(isinstance(p, str) for p in vocab):
        return '"vocab" must be a non-empty list of strings'
    if vocab[0] != UNKNOWN:
        return f'vocab[0] must be "\\ufffd", the unknown character, not {vocab[0]!r}'
    if not isinstance(merges, list) or len(merges) >= len(vocab):
        return '"merges" must be a list with fewer entries than "vocab"'
    first = len(vocab) - len(merges)  # merged tokens fill the end of vocab, in the order learned
    base = vocab[1:first]
    if not all(len(p) == 1 for p in base) or base != sorted(set(base)):
        return f'vocab[1:{first}] must be distinct single characters in code point order'
    for n, m in enumerate(merges):
        new = first + n
        if not is_merge(m):
            shown = json.dumps(m, ensure_ascii=False, default=repr)  # as the file has it: true, not True
            return f'merges[{n}] is {shown}, not [[a, b], new_id] with whole numbers'
        (a, b), made = m
        if made != new:
            return f'merges[{n}] makes id {made}, but the next id is {new}'
        if not (0 <= a < new and 0 <= b < new):
            return f'merges[{n}] joins ids {a} and {b}, but only ids 0 to {new - 1} exist before it'
        if vocab[new] != vocab[a] + vocab[b]:
            return f'vocab[{new}] is {vocab[new]!r}, but merges[{n}] makes {vocab[a] + vocab[b]!r}'
        if '\n' in vocab[new]:
            return f'vocab[{new}] holds a newline, which BPE never merges'
    return None


def is_merge(m):
    """[[a, b], new_id] with three ints (not bools, which JSON writes as true/false)."""
    return (type(m) is list and len(m) == 2 and type(m[0]) is list and len(m[0]) == 2
            and all(type(i) is int for i in m[0] + [m[1]]))


def main():
    parser = argparse.ArgumentParser(prog='python3 -m lab.check', description=__doc__.splitlines()[0])
    parser.add_argument('file', nargs='?', default=SAVED, help='a tokenizer.json (default: %(default)s)')
    path = parser.parse_args().file
    tok = load(path)
    print(f'{path}: sound, {len(tok.vocab)} tokens '
          f'({len(tok.vocab) - len(tok.merges) - 1} characters, {len(tok.merges)} merges)')


if __name__ == '__main__':
    try:
        main()
    except ValueError as e:
        sys.exit(f'lab.check: {e}')
