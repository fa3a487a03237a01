"""The lesson's rules, one function each, as the tutor's child process runs them on your code.

Each rule calls the functions of the tokenizer.py you typed on small, hand-picked inputs
and compares what comes back with what the lesson defines. A rule that holds returns (a
value, for the hash-seed rule); a rule that does not raises Wrong with the lines to show:
what was called, what came back, what the lesson expects, and where to look. The
expectations come from the library's own copy of the lesson (lab/contract/lessons.py), not
from tokenizer.py: your file is the one under test.

RULES lists them in the order the lesson teaches them: the part each belongs to, what
must be typed for it to run, and the parts whose code it calls (a rule is not checked
while a rule of an earlier part it calls fails: that part is the one to fix).
"""
import functools
import hashlib
import importlib
import json
import reprlib
from pathlib import Path
from typing import Callable, NamedTuple

from lab.contract import lessons
from lab.contract.checks import UNKNOWN
from lab.learner import parts

LESSON_MERGES = 12  # settings.json as shipped
SECONDS = 2  # of CPU time the rule running now is given: the tutor's child sets it (runner.SECONDS)


@functools.lru_cache(maxsize=None)
def lesson_text():
    """The lesson's data/train.txt, as the tutor copies it into the folder the child runs in
    (read before your code is imported: nothing it does to the folder changes it)."""
    return Path('data', 'train.txt').read_text(encoding='utf-8')


class Wrong(Exception):
    """A rule does not hold: up to four lines, each [message key, {field: text}]."""


class TooLong(BaseException):
    """The rule's time is up (a BaseException: your code's except Exception does not catch it)."""


# The lesson's training, step by step, by the library's copy of the lesson ----------------------

def _pair_counts(vocab, ids):
    """{pair: (count, first position)} of the pairs the lesson counts, in
    order of first position."""
    found = {}
    for at, pair in enumerate(zip(ids, ids[1:])):
        if '\n' not in vocab[pair[0]] + vocab[pair[1]]:
            count, first = found.get(pair, (0, at))
            found[pair] = (count + 1, first)
    return found


@functools.lru_cache(maxsize=4)  # the same for every file a child checks: worked out once
def _reference_steps(text, count):
    """The lesson's training, step by step: (vocab, [(pair, its count, first position, all
    counts)]), never changed by those who read it."""
    vocab = lessons.base_vocabulary(text)
    ids = [vocab.index(ch) for ch in text]
    steps = []
    for _ in range(count):
        found = _pair_counts(vocab, ids)
        best = max(found, key=lambda p: (found[p][0], -found[p][1]), default=None)
        if best is None or found[best][0] < 2:
            break
        steps.append((best, *found[best], found))
        vocab.append(vocab[best[0]] + vocab[best[1]])
        ids = lessons.merge(ids, best, len(vocab) - 1)
    return vocab, steps


def lesson_lines():
    """What python3 tokenizer.py prints with the lesson's defaults: its two lines."""
    vocab, steps = _reference_steps(lesson_text(), LESSON_MERGES)
    base = len(vocab) - len(steps)
    prompt = [vocab.index(ch) if ch in vocab[:base] else 0 for ch in 'Q: hi\nA: ']
    for n, (pair, *_) in enumerate(steps):
        prompt = lessons.merge(prompt, pair, base + n)
    return [f'vocab: {len(vocab)} merges: {len(steps)}', f'roundtrip: OK {prompt}']


# Calling the learner's code ---------------------------------------------------------------------

# what a value your code gave is shown as: its start, not all of it (a decode that gives a list of
# 300,000 items would be thousands of lines), nested at most three deep
_SHOWN = reprlib.Repr()
_SHOWN.maxlist = _SHOWN.maxtuple = _SHOWN.maxset = 24
_SHOWN.maxdict, _SHOWN.maxlevel = 12, 3
_SHOWN.maxstring = _SHOWN.maxother = _SHOWN.maxlong = 120


def shown(value):
    """repr(value), cut where it grows long: 200 characters at most."""
    text = _SHOWN.repr(value)
    return text if len(text) <= 200 else text[:197] + '...'


def expect(call, got, want, look, gave='gave'):
    """Wrong, with what was called and came back (said as the message gave), what the lesson
    expects and where to look."""
    if got != want:
        raise Wrong([[gave, {'call': call, 'got': shown(got)}], ['lesson', {'want': shown(want)}],
                     ['look', {'where': look}]])


def _returned(call, got, look):
    """got, unless it is None: then Wrong, since a function that reaches its end without a
    return gives None (a return left out, or indented into the loop)."""
    if got is None:
        raise Wrong([['returned_none', {'call': call}], ['look', {'where': look}]])
    return got


def trained(text, count):
    """BPE.train(text, count), a tokenizer or Wrong. A pair merged twice is Wrong at once: in the
    lesson a pair merged is gone from ids, so a second time means ids never took the merge."""
    from tokenizer import BPE
    call = f'BPE.train({text[-20:]!r}, {count})'
    tok = _returned(call, BPE.train(text, count), 'look.train_return')
    try:
        pairs = [tuple(pair) for pair, _ in tok.merges]
    except (AttributeError, TypeError, ValueError):
        return tok  # merges not of the lesson's shape: the rules that read them say so
    again = next((pair for n, pair in enumerate(pairs) if pair in pairs[:n]), None)
    if again:
        try:
            # as pieces of text, as the lesson shows them
            again = tuple(tok.vocab[i] for i in again)
        except (AttributeError, TypeError, IndexError):
            pass
        raise Wrong([['same_pair_again', {'call': call, 'pair': shown(again)}],
                     ['look', {'where': 'look.train_ids'}]])
    return tok


def _merged(call, ids, pair, new_id):
    """merge(ids, pair, new_id), a list or Wrong."""
    from tokenizer import merge
    return _returned(call, merge(ids, pair, new_id), 'look.merge_return')


# The rules ----------------------------------------------------------------------------------------

def rule_imports():
    importlib.import_module('tokenizer')  # that it imports without an error is the rule


def rule_merge_copies():
    for ids in [[2, 1], [5], [], [3, 4, 1], [2, 2, 1, 1]]:
        call = f'merge({ids}, (1, 2), 9)'
        expect(call, _merged(call, list(ids), (1, 2), 9), ids, 'look.merge_copy')
    ids = [1, 2]
    _merged('merge(ids, (1, 2), 9)', ids, (1, 2), 9)
    expect('merge(ids, (1, 2), 9)', ids, [1, 2], 'look.merge_new_list', 'gave_ids_after')


def _expect_merged(call, got, ids, want, look):
    """As expect, but a merge that changed nothing is most often a list compared with a tuple."""
    expect(call, got, want, 'look.merge_list_tuple' if got == ids else look)


def rule_merge_replaces():
    for ids, pair, want in [([1, 2, 3, 1, 2], (1, 2), [9, 3, 9]), ([7, 7, 7], (7, 7), [8, 7]),
                            ([7, 7, 7, 7], (7, 7), [8, 8]), ([7, 7, 7, 7, 7], (7, 7), [8, 8, 7])]:
        call = f'merge({ids}, {pair}, {want[0]})'
        _expect_merged(call, _merged(call, list(ids), pair, want[0]), ids, want, 'look.merge_step')


def rule_merge_list_pair():
    call = 'merge([1, 2, 3], [1, 2], 9)'
    _expect_merged(call, _merged(call, [1, 2, 3], [1, 2], 9), [1, 2, 3], [9, 3],
                   'look.merge_list_pair')


def rule_merge_in_time():
    # the lesson's merge takes a few hundredths of a second on 200,000 ids; one that copies the
    # list at each step takes some ten seconds (and the tests, and python3 tokenizer.py on a
    # book, as long again). Its time grows as the square of the ids, so they grow as the square
    # root of the rule's time: 200,000 at the tutor's 2 s, 32,000 at a test's 0.05 s (a quarter
    # of a second for that merge, five times the limit)
    ids = [1, 2] * (round(100 * (SECONDS / 2) ** 0.5) * 1000)  # every other id starts the pair
    try:
        _merged('merge(ids, (1, 2), 9)', ids, (1, 2), 9)
    except TooLong:
        raise Wrong([['merge_too_slow', {'n': f'{len(ids):,}'}],
                     ['look', {'where': 'look.merge_in_time'}]]) from None


def rule_init():
    from tokenizer import BPE
    vocab, merges = [UNKNOWN, '\n', 'a', 'b', 'ab'], [[[2, 3], 4]]
    tok = BPE(list(vocab), [[[2, 3], 4]])
    call = "BPE(['\\ufffd', '\\n', 'a', 'b', 'ab'], [[[2, 3], 4]])"
    expect(f'{call}.vocab', tok.vocab, vocab, 'look.init')
    expect(f'{call}.merges', tok.merges, merges, 'look.init')
    expect(f'{call}.chars', tok.chars, {UNKNOWN: 0, '\n': 1, 'a': 2, 'b': 3}, 'look.init_chars')


def rule_base_vocab():
    expect("BPE.train('cab\\n', 0).vocab", trained('cab\n', 0).vocab,
           [UNKNOWN, '\n', 'a', 'b', 'c'],
           'look.base_vocab')


def rule_unknown_once():
    expect("BPE.train('a\\ufffdb', 0).vocab", trained('a\ufffdb', 0).vocab, [UNKNOWN, 'a', 'b'],
           'look.unknown_once')


def rule_count():
    text = 'the cat sat on the mat\n' * 3
    for count in [0, 1]:
        expect(f'len(BPE.train(text, {count}).merges)', len(trained(text, count).merges), count,
               'look.count')


def _first_merge(text):
    """The pieces of the first pair that BPE.train(text, 1) merges, or None."""
    tok = trained(text, 1)
    return tuple(tok.vocab[i] for i in tok.merges[0][0]) if tok.merges else None


def _expect_first_merge(cases, look):
    for text, want in cases:
        call, got = f'BPE.train({text[-20:]!r}, 1)', _first_merge(text)
        if got is None:  # not None said as a value: no merge at all
            raise Wrong([['merged_nothing', {'call': call}], ['lesson', {'want': shown(want)}],
                         ['look', {'where': look}]])
        expect(call, got, want, look, 'gave_merged')


def rule_most_frequent():
    _expect_first_merge([('ab cdcdcd', ('c', 'd')), ('xyz xyz abababab', ('a', 'b'))],
                        'look.most_frequent')


def rule_ties():
    _expect_first_merge([('yzab yzab yzab', ('y', 'z')), ('ba ab ba ab ba ab', ('b', 'a'))],
                        'look.ties')


def rule_newline():
    _expect_first_merge([('x\n' * 20 + 'ab ab ab', ('a', 'b')),
                         ('\nx' * 20 + 'ab ab ab', ('a', 'b'))],
                        'look.newline')


def rule_new_token():
    tok = trained('ababab', 1)
    a, b = tok.vocab.index('a'), tok.vocab.index('b')
    # lists, as the lesson appends them and JSON gives them back: a tuple would be another
    # tokenizer after a save (the tests, and BPE(**state), see lists)
    expect("BPE.train('ababab', 1).merges", tok.merges, [[[a, b], 3]], 'look.new_merge')
    expect("BPE.train('ababab', 1).vocab[3:]", tok.vocab[3:], ['ab'], 'look.new_piece')


def rule_early_stop():
    for text, want in [('abcdef', []), ('abab', ['ab']), ('\n\n\n\n', []), ('', [])]:
        tok = trained(text, 10)
        expect(f'BPE.train({text!r}, 10)', [tok.vocab[new] for _, new in tok.merges], want,
               'look.early_stop', 'gave_learned')


def rule_hash_seed():
    tok = trained(''.join(chr(0x61 + (n * 7) % 13) for n in range(300)) + '\nxyzzy plugh\n', 25)
    # compared with a second child's, under another hash seed: a digest, whatever the size
    saved = json.dumps([tok.vocab, tok.merges]).encode('utf-8', 'replace')
    return hashlib.sha256(saved).hexdigest()


def rule_lesson_text():
    tok = trained(lesson_text(), LESSON_MERGES)
    vocab, steps = _reference_steps(lesson_text(), LESSON_MERGES)
    theirs = [(tok.vocab[a], tok.vocab[b]) for (a, b), _ in tok.merges]
    ours = [(vocab[a], vocab[b]) for (a, b), _, _, _ in steps]
    # the first that differs
    for n, (want, got) in enumerate(zip(ours, theirs + [None] * len(ours))):
        if got is None:  # it stopped before the lesson does
            raise Wrong([['lesson_text_fewer', {'got': str(len(theirs)), 'want': str(len(ours))}],
                         ['look', {'where': 'look.early_stop'}]])
        if got != want:
            found = steps[n][3]
            ids = {piece: i for i, piece in enumerate(vocab)}
            count, first = found.get((ids.get(got[0]), ids.get(got[1])), (0, None))
            yours = {'n': str(n + 1), 'got': shown(got), 'count': str(count), 'first': str(first)}
            lesson = {'want': repr(want), 'count': str(steps[n][1]), 'first': str(steps[n][2])}
            # there, but never counted: the lesson does not merge a line end
            if '\n' in ''.join(got):
                raise Wrong([['lesson_text_newline', yours], ['lesson_text_lesson', lesson],
                             ['look', {'where': 'look.newline'}]])
            raise Wrong([['lesson_text_yours' if count else 'lesson_text_none', yours],
                         ['lesson_text_lesson', lesson], ['look', {'where': 'look.most_frequent'}]])
    if len(theirs) > len(ours):
        raise Wrong([['lesson_text_more', {'got': str(len(theirs)), 'want': str(len(ours))}],
                     ['look', {'where': 'look.early_stop'}]])


def _hand_made():
    """l, o, w and two merges, 'l'+'o' then 'lo'+'w': the second needs the first."""
    from tokenizer import BPE
    return BPE([UNKNOWN, 'l', 'o', 'w', 'lo', 'low'], [[[1, 2], 4], [[4, 3], 5]])


def _encoded(text):
    call = f'encode({text!r})'
    ids = _returned(call, _hand_made().encode(text), 'look.encode_return')
    if not isinstance(ids, list):  # a string of the ids, say: what is wrong is what it gives back
        raise Wrong([['gave_not_list',
                      {'call': call, 'type': type(ids).__name__, 'got': shown(ids)}],
                     ['look', {'where': 'look.encode_return'}]])
    return call, ids


def rule_encode_unknown():
    expect(*_encoded('wCo😀'), [3, 0, 2, 0], 'look.encode_unknown')


def rule_encode_order():
    for text, want in [('low', [5]), ('lolow', [4, 5]), ('owl', [2, 3, 1])]:
        expect(*_encoded(text), want, 'look.encode_order')


def rule_decode():
    expect('decode([5, 3, 0, 4])', _hand_made().decode([5, 3, 0, 4]), 'loww\ufffdlo', 'look.decode')


def rule_state():
    from tokenizer import BPE
    tok = trained('the cat sat on the mat\n' * 2, 6)
    state = _returned('tokenizer.state()', tok.state(), 'look.state')
    if not isinstance(state, dict):  # what json.dumps makes an object of, and BPE(**state) takes
        raise Wrong([['gave_not_dict', {'call': 'tokenizer.state()', 'type': type(state).__name__,
                                        'got': shown(state)}], ['look', {'where': 'look.state'}]])
    expect('sorted(state())', sorted(map(str, state)), ['merges', 'vocab'], 'look.state')
    again = BPE(**json.loads(json.dumps(state, ensure_ascii=False)))
    for text in ['the cat', 'mat\nthe', 'Cat!']:
        expect(f'BPE(**state()).encode({text!r})', again.encode(text), tok.encode(text),
               'look.state_again')


class Rule(NamedTuple):
    """One rule of the lesson: its part (lab/learner/parts.py), the units that must be typed
    for it to run, the parts whose code it calls, and the check. Its words are
    'rule.NAME' in the catalogs."""
    part: int
    needs: set
    calls: set
    check: Callable


# in the order the lesson teaches them; part 6 is the __main__ block (rule_command_line: run by the
# child as python3 tokenizer.py, lab/selfcheck/child.py)
TRAIN = {'BPE.train'}
RULES = [
    Rule(0, {'<file>'}, {0}, rule_imports),
    Rule(1, {'merge'}, {0, 1}, rule_merge_copies),
    Rule(1, {'merge'}, {0, 1}, rule_merge_replaces),
    Rule(1, {'merge'}, {0, 1}, rule_merge_list_pair),
    Rule(1, {'merge'}, {0, 1}, rule_merge_in_time),
    Rule(2, {'BPE.__init__'}, {0, 2}, rule_init),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_base_vocab),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_unknown_once),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_count),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_most_frequent),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_ties),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_newline),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_new_token),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_early_stop),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_hash_seed),
    Rule(3, TRAIN, {0, 1, 2, 3}, rule_lesson_text),
    Rule(4, {'BPE.encode'}, {0, 1, 2, 4}, rule_encode_unknown),
    Rule(4, {'BPE.encode'}, {0, 1, 2, 4}, rule_encode_order),
    Rule(5, {'BPE.decode'}, {0, 2, 5}, rule_decode),
    Rule(5, TRAIN | {'BPE.encode', 'BPE.state'}, {0, 1, 2, 3, 4, 5}, rule_state),
]
COMMAND_LINE = 'rule_command_line'  # part 6: python3 tokenizer.py, run as the lesson runs it
# part 7, after the file: the lesson's three labs, each typed as lab/NAME.py and run by the child as
# python3 -m lab.NAME (lab/selfcheck/labs.py); each needs the whole file, and its saved
# tokenizer.json
LABS = {f'rule_lab_{name}': name for name in ['bpe_trace', 'unknown', 'token_count']}
CHECKS = {rule.check.__name__: rule.check for rule in RULES}
PART_OF = {**{rule.check.__name__: rule.part for rule in RULES}, COMMAND_LINE: 6,
           **dict.fromkeys(LABS, parts.LABS)}
EVERY_PART = set(range(parts.LABS))  # what the command line and a lab call: the whole file
CALLS = {**{rule.check.__name__: rule.calls for rule in RULES}, COMMAND_LINE: EVERY_PART,
         **{name: EVERY_PART for name in LABS}}
NEEDS = {**{rule.check.__name__: rule.needs for rule in RULES}, COMMAND_LINE: {'__main__'},
         **{name: {'__main__', f'lab/{lab}.py'} for name, lab in LABS.items()}}
PARTS = parts.NUMBERS
