"""The tutor first: the tests use only the parts of tokenizer.py whose rules hold.

Before any test imports tokenizer.py, the tutor checks it (lab.selfcheck, in a child bounded
in CPU time, memory and output). A part whose rules do not all hold, or that is not typed yet,
is not used: what the tests take from tokenizer.py stands in for it, and a test that calls
it is skipped, with the part to fix and the tutor's command. One test fails instead of
hundreds (tests/test_tutor.py, with the tutor's first FAILED), and the suite ends in
seconds however the file loops or grows: its code runs in the tests only once the tutor
has seen each part finish the lesson's rules. A learner's file that keeps them all is used
as it is, its time counted (BUDGET): one that is slow only on texts longer than the tutor's
is stopped when the budget is used up, and the tests after it skip. With this project's own
tokenizer.py nothing stands in and nothing is counted.
"""
import functools
import hashlib
import importlib
import json
import os
import sys
import threading
import time
import unittest
from pathlib import Path

from lab.plumbing import processes
from lab.selfcheck import check, rules

ROOT = Path(__file__).resolve().parent.parent
# seconds of the learner's code the whole suite may run, all calls together (CPU time, or a fifth
# of the clock's for code that sleeps, and for python3 tokenizer.py or a lab): the lesson-style
# file needs about 9, so a file that keeps every rule on the tutor's small inputs and is slow on
# long ones cannot hold the suite for minutes
BUDGET = 20
LESSON = ROOT / 'lab' / 'selfcheck' / 'lesson'  # the tutor's lesson-style files, which the tests run too

PATH = ROOT / 'tokenizer.py'
VERDICT = 'XSLM_TUTOR_VERDICT'  # the tutor's verdict, passed to the processes the tests start
TUTOR = 'python3 -m lab.selfcheck shows where'


def verdict():
    """(the tutor's answers for tokenizer.py, or None when it cannot be read; the parts not to use,
    each with why: 'failed' or 'todo')."""
    try:
        answers = check.check(PATH)
    except check.Unreadable:
        return None, {part: 'failed' for part in rules.PARTS}
    unusable = {}
    for name, (state, _) in answers.items():
        if state != 'passed':
            part = rules.PART_OF.get(name, 0)
            unusable[part] = 'failed' if state != 'todo' or unusable.get(part) == 'failed' else 'todo'
    broken = check.syntax_part(answers)
    if broken is not None:  # Python cannot read the file from that part on
        unusable.update({part: 'failed' for part in rules.PARTS if part >= broken})
    return answers, unusable


def why(part, unusable):
    said = 'is not typed yet' if unusable.get(part) == 'todo' else "fails the lesson's rules"
    return f'part {part} of tokenizer.py {said} ({TUTOR})'


def stand_in(part, unusable):
    """Something that skips the test that touches it: called, or asked for an attribute."""
    reason = why(part, unusable)

    class StandIn:
        def __call__(self, *args, **kwargs):
            raise unittest.SkipTest(reason)

        def __getattr__(self, attribute):
            raise unittest.SkipTest(reason)

    return StandIn()


def gated_bpe(bpe, unusable):
    """A class of the learner's BPE whose methods from parts that do not hold skip the test
    that calls them; the others are the learner's own."""
    methods = {'__init__': 2, 'train': 3, 'encode': 4, 'decode': 5, 'state': 5}
    body = {}
    for method, part in methods.items():
        if part in unusable:
            reason = why(part, unusable)

            def skip(*args, _reason=reason, **kwargs):
                raise unittest.SkipTest(_reason)
            body[method] = classmethod(skip) if method == 'train' else skip
    return type('BPE', (bpe,), body) if body else bpe


def fingerprint():
    """A sha256 of tokenizer.py and the lesson's three labs as they are now."""
    digest = hashlib.sha256()
    for path in [PATH, *(ROOT / 'lab' / f'{name}.py' for name in ['bpe_trace', 'unknown', 'token_count'])]:
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b'-')
    return digest.hexdigest()


def install():
    """Check tokenizer.py with the tutor and put in sys.modules what the tests may use of it. A
    process a test starts (python3 -c 'from tests... import ...') takes the verdict from its
    parent, for the same files, through the environment: the tutor runs once a suite."""
    global ANSWERS, UNUSABLE
    said = json.loads(os.environ.get(VERDICT, '{}'))
    if said.get('files') == fingerprint():
        ANSWERS, UNUSABLE = None, {int(part): why for part, why in said['unusable'].items()}
    else:
        ANSWERS, UNUSABLE = verdict()
        os.environ[VERDICT] = json.dumps({'files': fingerprint(), 'unusable': UNUSABLE})
    lesson = {part for part in rules.PARTS if part <= 6}
    if not UNUSABLE.keys() & lesson:
        time_the_learners_code()  # every part holds: the tests take it as it is, within BUDGET
        return
    module = None if 0 in UNUSABLE else importlib.import_module('tokenizer')
    if module is None:  # it does not import, or not within the tutor's limits
        module = type(sys)('tokenizer')
        module.__file__ = str(PATH)
        sys.modules['tokenizer'] = module
    for name, part in [('merge', 1), ('BPE', 2)]:
        if part in UNUSABLE or not hasattr(module, name):
            setattr(module, name, stand_in(part, UNUSABLE))
    if not isinstance(module.BPE, type) or not UNUSABLE.keys() & {2, 3, 4, 5}:
        return
    module.BPE = gated_bpe(module.BPE, UNUSABLE)


class OutOfTime(BaseException):
    """The learner's code has used the suite's BUDGET (a BaseException: its except Exception
    does not catch it)."""


SPENT = 0.0  # of BUDGET, so far
SLOW = (f"tokenizer.py's code has taken more than {BUDGET} s of the tests' time, where the lesson's "
        'takes about 9: is it slow on a long text? (time python3 tokenizer.py on a larger data/train.txt)')
CALLING = threading.local()  # how deep in the learner's code this thread is: only the outermost call counts


def timed(function):
    """function, counted against BUDGET and stopped (the test skipped) when it is used up."""
    @functools.wraps(function)
    def call(*args, **kwargs):
        global SPENT
        if getattr(CALLING, 'depth', 0):
            return function(*args, **kwargs)  # train calling merge: counted once, by train
        skip_if_out_of_time()
        CALLING.depth, started, cpu = 1, time.monotonic(), time.thread_time()
        try:
            with processes.clock_limit(BUDGET - SPENT, OutOfTime):
                return function(*args, **kwargs)
        except OutOfTime:
            SPENT = BUDGET + 1
            raise unittest.SkipTest(SLOW) from None
        finally:
            CALLING.depth = 0
            SPENT += max(time.thread_time() - cpu, (time.monotonic() - started) / 5)
    return call


def skip_if_out_of_time():
    if SPENT > BUDGET:
        raise unittest.SkipTest(SLOW)


def spend(seconds):
    """Count seconds of the learner's code that ran elsewhere (python3 tokenizer.py, a lab)."""
    global SPENT
    SPENT += seconds


def remaining():
    return max(BUDGET - SPENT, 0)


TIMED = False  # whether the learner's code is counted: their file, which keeps every rule


def time_the_learners_code():
    """Count every call the tests make of the learner's merge and BPE (not of this project's own
    tokenizer.py, whose speed lab.speed measures)."""
    global TIMED
    text = PATH.read_text(encoding='utf-8-sig', errors='replace')
    if all(line in text for line in ['HERE = ', 'def read_text(', 'def save(', 'def main(']):
        return  # ours
    module = importlib.import_module('tokenizer')
    TIMED = True
    if callable(getattr(module, 'merge', None)):
        module.merge = timed(module.merge)
    bpe = getattr(module, 'BPE', None)
    for name, method in list(vars(bpe).items()) if isinstance(bpe, type) else []:
        if name in ('__init__', 'encode', 'decode', 'state') and callable(method):
            setattr(bpe, name, timed(method))
        elif name == 'train' and isinstance(method, (classmethod, staticmethod)):
            setattr(bpe, name, type(method)(timed(method.__func__)))


def part_holds(part):
    """Whether a test may use part of tokenizer.py (the __main__ block, a lesson's lab: 6, 7)."""
    return part not in UNUSABLE


def skip_unless_holds(part, path=None):
    """SkipTest when part does not hold, for a test that runs the learner's file (path: a copy of
    it, or of one of the lesson's labs; another file, ours, is run whatever the learner's does)."""
    if not part_holds(part) and (path is None or is_learners(path)):
        raise unittest.SkipTest(why(part, UNUSABLE))


def skip_unless_the_file_holds(path=None):
    """skip_unless_holds for every part of tokenizer.py: for a test whose child imports it whole."""
    for part in range(7):
        skip_unless_holds(part, path)


def is_learners(path):
    """Whether path holds the learner's tokenizer.py (or lab of the lesson), or one a test made of it:
    a copy of the project's, or, while the project's is a learner's (one the tutor finds wrong, or
    one whose time is counted), any but the tutor's lesson-style file."""
    path = Path(path)
    where = Path('lab', path.name) if path.name != 'tokenizer.py' else Path('tokenizer.py')
    try:
        held = path.read_bytes()
        if held == (ROOT / where).read_bytes():
            return True
        return (bool(UNUSABLE) or TIMED) and held != (LESSON / where).read_bytes()
    except OSError:
        return False


ANSWERS, UNUSABLE = None, {}
