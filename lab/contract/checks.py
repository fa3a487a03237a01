"""What a sound tokenizer.json holds, as the lesson's BPE.train writes it: the checks that a file
passes before any lab builds on it, each problem said in one line, values quoted clipped, in the
lab's language (cli.message; English when called from Python)."""
import json
import operator
import re

from lab.plumbing import terminal
from lab.plumbing.cli import message

UNKNOWN = '\ufffd'  # id 0 in every tokenizer BPE.train makes
SURROGATE = re.compile('[\ud800-\udfff]')  # half of a UTF-16 pair: no UTF-8 text holds one


def problem_with(state):
    """The first thing wrong with a tokenizer state, or None when it is what BPE.train makes."""
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab']:
        return message('file.keys')
    return vocabulary_problem(state['vocab'], state['merges'])


def _newline_merged(piece):
    """The message key of why BPE.train never makes piece, or None: it never merges '\n'."""
    return 'file.newline' if '\n' in piece else None


def vocabulary_problem(vocab, merges, head=(UNKNOWN,), never_made=_newline_merged):
    """The first thing wrong with a vocab and its merges, or None when training could have made
    them: the tokens of head (the unknown character, then any marker), the distinct
    characters in code point order, then one token a merge, each the text of the two it
    joins. never_made(piece) gives the message key of why a merge may not make piece, or
    None when it may."""
    if not isinstance(vocab, list) or not vocab or not all(isinstance(p, str) and p for p in vocab):
        return message('file.vocab_empty' if vocab == [] else 'file.vocab_strings')
    bad = next((i for i, piece in enumerate(head) if vocab[i:i + 1] != [piece]), None)
    if bad is not None:
        found = json.dumps(vocab[bad:bad + 1], ensure_ascii=False)[1:-1]
        return message('file.head' if found else 'file.head_missing', at=bad,
                       want=json.dumps(head[bad]),
                       found=terminal.clip(found, 30))
    bad = next((i for i, p in enumerate(vocab) if SURROGATE.search(p)), None)
    if bad is not None:
        return message('file.surrogate', at=bad, piece=terminal.quoted(vocab[bad]))
    if not isinstance(merges, list) or len(merges) > len(vocab) - len(head):
        return message('file.merges_list', most=len(vocab) - len(head))
    # each entry's shape first, so that a broken merge is not taken for a vocab that does not match
    bad = next((n for n, m in enumerate(merges) if not is_merge(m)), None)
    if bad is not None:
        # as the file has it: true, not Python's True
        written = json.dumps(merges[bad], ensure_ascii=False, default=repr)
        return message('file.merge_shape', n=bad, written=terminal.clip(written, 40))
    if merges and merges[-1][1] != len(vocab) - 1:
        return message('file.last_merge', made=merges[-1][1], last=len(vocab) - 1)
    first = len(vocab) - len(merges)  # merged tokens fill the end of vocab, in the order learned
    base = vocab[len(head):first]
    if not all(len(p) == 1 for p in base) or base != sorted(set(base)):
        return message('file.base', start=len(head), end=first)
    # encode would give its id for '\ufffd' and 0 for every other unknown character
    if UNKNOWN in base:
        return message('file.unknown_again', at=base.index(UNKNOWN) + len(head))
    merged = {}  # pair -> the merge that joins it: once merged, a pair is gone from the text
    for n, m in enumerate(merges):
        new = first + n
        (a, b), made = m
        if made != new:
            return message('file.merge_id', n=n, made=made, new=new)
        if not (0 <= a < new and 0 <= b < new):
            return message('file.merge_unknown_id', n=n, a=a, b=b, last=new - 1)
        if (a, b) in merged:
            return message('file.merge_again', n=n, a=a, b=b, first=merged[a, b])
        merged[a, b] = n
        if vocab[new] != vocab[a] + vocab[b]:
            return message('file.piece', at=new, piece=terminal.quoted(vocab[new]), n=n,
                           made=terminal.quoted(vocab[a] + vocab[b]))
        if never_made(vocab[new]):
            return message(never_made(vocab[new]), at=new)
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
            raise ValueError(message('file.id_not_int', id=terminal.clip(repr(i), 40))) from None
        if not 0 <= n < size:
            raise ValueError(message('file.id_outside', id=n, size=f'{size:,}'))
        known.append(n)
    return known
