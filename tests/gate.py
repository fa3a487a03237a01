"""The tutor first: a test uses a part of the learner's tokenizer.py only once the tutor has
found that part keeps the lesson's rules.

The first test that needs the learner's file asks the tutor (lab.selfcheck, in a child
bounded in CPU time, memory and output) about it, once for the whole run: `learners(*parts)`
gives the module, or skips the test (or the module, from setUpModule) naming the part to fix
and the tutor's command. A file that does not keep the rules then fails one test,
tests/test_tutor.py, with the tutor's first FAILED, and the suite ends in seconds however the
file loops or grows. The library's tests never need it: they compare with the lesson's own
file (tests.project.LESSON_MODULE).
"""
import functools
import hashlib
import importlib
import json
import os
import sys
import unittest
from pathlib import Path

from lab.learner import catalogs
from lab.plumbing import terminal
from lab.selfcheck import check, report, rules

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / 'lab' / 'selfcheck' / 'lesson'  # the tutor's copy of the lesson's files
PATH = ROOT / 'tokenizer.py'
VERDICT = 'XSLM_TUTOR_VERDICT'  # the tutor's verdict, passed to the processes the tests start


@functools.lru_cache(maxsize=None)
def verdict():
    """(the tutor's answers for tokenizer.py, or None when they were passed down or the file cannot
    be read; {part not to use: 'failed' or 'todo'}). A process a test starts takes its parent's
    verdict, for the same files, through the environment: the tutor runs once a run."""
    said = json.loads(os.environ.get(VERDICT, '{}'))
    if said.get('files') == fingerprint():
        return None, {int(part): why for part, why in said['unusable'].items()}
    try:
        answers = check.check(PATH)
    except check.Unreadable:
        answers, unusable = None, {part: 'failed' for part in rules.PARTS}
    else:
        unusable = {}
        for name, (state, _) in answers.items():
            if state != 'passed':
                part = rules.PART_OF.get(name, 0)
                failed = state != 'todo' or unusable.get(part) == 'failed'
                unusable[part] = 'failed' if failed else 'todo'
        broken = check.syntax_part(answers)
        if broken is not None:  # Python cannot read the file from that part on
            unusable.update({part: 'failed' for part in rules.PARTS if part >= broken})
    os.environ[VERDICT] = json.dumps({'files': fingerprint(), 'unusable': unusable})
    return answers, unusable


def fingerprint(root=ROOT):
    """A sha256 of root's tokenizer.py and the lesson's three labs as they are now."""
    digest = hashlib.sha256()
    labs = [root / 'lab' / f'{name}.py' for name in ['bpe_trace', 'unknown', 'token_count']]
    for path in [root / 'tokenizer.py', *labs]:
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b'-')
    return digest.hexdigest()


def holding(root):
    """The environment that tells the processes a test starts in root that the tutor found its
    files keep every rule: for a copy holding the lesson's own files (use_lesson_files), which do
    (tests/test_selfcheck.py asks the tutor), so that no process asks it again."""
    return {VERDICT: json.dumps({'files': fingerprint(root), 'unusable': {}})}


def words(environ=None):
    """The tutor's words in the learner's language (the locale's, as the tutor reads it), in English
    where the terminal cannot show them."""
    lang = catalogs.language([], os.environ if environ is None else environ)
    said = catalogs.catalog(lang)
    try:
        ''.join(said.values()).encode(getattr(sys.stderr, 'encoding', None) or 'utf-8')
    except (UnicodeEncodeError, LookupError):
        said = catalogs.catalog('en')
    return said


def why(part):
    key = 'tests_part_todo' if verdict()[1].get(part) == 'todo' else 'tests_part_failed'
    return catalogs.render(words(), key, {'part': str(part)})


def failure(answers, environ=None):
    """What the one failing test says: the tutor's first FAILED (or TODO) as its report says it,
    through what it says of it, and the line that says what to do, in the learner's language."""
    said = words(environ)
    if answers is None:
        return catalogs.render(said, 'tests_unreadable', {})
    lines, _ = report.report(said, answers, 'tokenizer.py')
    start = next((n for n, line in enumerate(lines) if line.startswith(report.MARKERS['failed'])),
                 next((n for n,
                       line in enumerate(lines) if line.startswith(report.MARKERS['todo'])), 0))
    end = start + 1
    while end < len(lines) and lines[end].startswith(' '):
        end += 1
    # 80 columns, as the report
    header = terminal.fill(catalogs.render(said, 'tests_tutor_failed', {}))
    return '\n'.join([header, *lines[start:end], lines[-1]])


def part_holds(part):
    """Whether a test may use part of tokenizer.py (the __main__ block, a lesson's lab: 6, 7)."""
    return part not in verdict()[1]


def learners(*parts):
    """The learner's tokenizer module, imported, for a test of the lesson's rules that uses
    parts of it (and those before them); SkipTest naming the first that does not hold."""
    for part in range(max(parts, default=0) + 1):
        if not part_holds(part):
            raise unittest.SkipTest(why(part))
    return importlib.import_module('tokenizer')


def skip_unless_holds(part, path=None):
    """SkipTest when part does not hold, for a test that runs the learner's file (path: a copy of
    it, or of one of the lesson's labs; another file, ours, is run whatever the learner's does)."""
    if not part_holds(part) and (path is None or is_learners(path)):
        raise unittest.SkipTest(why(part))


def skip_unless_the_file_holds(path=None):
    """skip_unless_holds for every part of tokenizer.py: for a test whose child imports it whole."""
    for part in range(7):
        skip_unless_holds(part, path)


def is_learners(path):
    """Whether path holds the learner's tokenizer.py (or lab of the lesson), or one a test made of
    it: a copy of the project's, or, while the project's is one the tutor finds wrong, any but the
    tutor's lesson-style file."""
    path = Path(path)
    where = Path('lab', path.name) if path.name != 'tokenizer.py' else Path('tokenizer.py')
    try:
        held = path.read_bytes()
        if held == (ROOT / where).read_bytes():
            return True
        return bool(verdict()[1]) and held != (LESSON / where).read_bytes()
    except OSError:
        return False
