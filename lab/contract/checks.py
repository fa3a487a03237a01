"""What a sound tokenizer.json holds, as the lesson's BPE.train writes it: the checks that a file
passes before any lab builds on it, each problem said in one line, values quoted clipped."""
import json
import operator
import re

from lab.plumbing import terminal

UNKNOWN = '\ufffd'  # id 0 in every tokenizer BPE.train makes
SURROGATE = re.compile('[\ud800-\udfff]')  # half of a UTF-16 pair: no UTF-8 text holds one


def problem_with(state):
    """The first thing wrong with a tokenizer state, or None when it is what BPE.train makes."""
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab']:
        return 'expected an object with exactly the keys "vocab" and "merges"'
    return vocabulary_problem(state['vocab'], state['merges'])


def _newline_merged(piece):
    """Why BPE.train never makes piece, or None: it never merges '\n'."""
    return 'a newline, which BPE never merges' if '\n' in piece else None


def vocabulary_problem(vocab, merges, head=(UNKNOWN,), never_made=_newline_merged):
    """The first thing wrong with a vocab and its merges, or None when training could have made
    them: the tokens of head (the unknown character, then any marker), the distinct characters
    in code point order, then one token a merge, each the text of the two it joins.
    never_made(piece) says why a merge may not make piece, or None when it may."""
    if not isinstance(vocab, list) or not vocab or not all(isinstance(p, str) and p for p in vocab):
        return '"vocab" is empty' if vocab == [] else '"vocab" must be a non-empty list of non-empty strings'
    bad = next((i for i, piece in enumerate(head) if vocab[i:i + 1] != [piece]), None)
    if bad is not None:
        found = json.dumps(vocab[bad:bad + 1], ensure_ascii=False)[1:-1] or 'missing'
        return f'vocab[{bad}] must be {json.dumps(head[bad])}, not {found}'
    bad = next((i for i, p in enumerate(vocab) if SURROGATE.search(p)), None)
    if bad is not None:
        return f'vocab[{bad}] holds a lone surrogate ({terminal.quoted(vocab[bad])}), which no UTF-8 text has'
    if not isinstance(merges, list) or len(merges) > len(vocab) - len(head):
        return f'"merges" must be a list with fewer entries than "vocab" (at most {len(vocab) - len(head)})'
    bad = next((n for n, m in enumerate(merges) if not is_merge(m)), None)  # each entry's shape first,
    if bad is not None:  # so that a broken merge is not taken for a vocab that does not match
        written = json.dumps(merges[bad], ensure_ascii=False, default=repr)  # as the file has it: true
        return f'merges[{bad}] is {terminal.clip(written, 40)}, not [[a, b], new_id] with whole numbers'
    if merges and merges[-1][1] != len(vocab) - 1:
        return f'the last merge makes id {merges[-1][1]}, not {len(vocab) - 1}, the last id of vocab'
    first = len(vocab) - len(merges)  # merged tokens fill the end of vocab, in the order learned
    base = vocab[len(head):first]
    if not all(len(p) == 1 for p in base) or base != sorted(set(base)):
        return f'vocab[{len(head)}:{first}] must be distinct single characters in code point order'
    if UNKNOWN in base:  # encode would give its id for '\ufffd' and 0 for every other unknown character
        at = base.index(UNKNOWN) + len(head)
        return f'vocab[{at}] is "\\ufffd" again: the unknown character is id 0 alone'
    merged = {}  # pair -> the merge that joins it: once merged, a pair is gone from the text
    for n, m in enumerate(merges):
        new = first + n
        (a, b), made = m
        if made != new:
            return f'merges[{n}] makes id {made}, but the next id is {new}'
        if not (0 <= a < new and 0 <= b < new):
            return f'merges[{n}] joins ids {a} and {b}, but only ids 0 to {new - 1} exist before it'
        if (a, b) in merged:
            return f'merges[{n}] joins ids {a} and {b} again, as merges[{merged[a, b]}] does'
        merged[a, b] = n
        if vocab[new] != vocab[a] + vocab[b]:
            made = terminal.quoted(vocab[a] + vocab[b])
            return f'vocab[{new}] is {terminal.quoted(vocab[new])}, but merges[{n}] makes {made}'
        if never_made(vocab[new]):
            return f'vocab[{new}] holds {never_made(vocab[new])}'
    return None


def is_merge(m):
    """[[a, b], new_id] with three ints (not bools, which JSON writes as true/false)."""
    return (type(m) is list and len(m) == 2 and type(m[0]) is list and len(m[0]) == 2
            and all(type(i) is int for i in m[0] + [m[1]]))


def known_ids(ids, size):
    """ids as a list of ints, each from 0 to size - 1; ValueError naming the first that is not
    (Python would quietly read -1 as the last token). Any integer type is taken (numpy's, as a
    model gives them back), not a bool or a float."""
    known = []
    for i in ids:
        try:
            if isinstance(i, bool):
                raise TypeError
            n = operator.index(i)
        except TypeError:
            raise ValueError(f'id {terminal.clip(repr(i), 40)} is not a whole number: ids are ints') from None
        if not 0 <= n < size:
            raise ValueError(f'id {n} is not in this vocabulary of {size} ids')
        known.append(n)
    return known
