"""A learner's error met in a lab: what an exception raised inside tokenizer.py means, in words.

The tutor says what an error means at length (explain.py); a lab that imports tokenizer.py and
finds it failing says it in a few lines, then names the tutor: learners_error for an error,
interrupted_in_learners_file for Ctrl-C in a loop that never ended, raised_in_learners_file
and calls_the_lesson_wrongly to tell the learner's slip from a bad file or a lab's own.
"""
import os
import re
import sys
import traceback
from pathlib import Path

from lab.learner import catalogs

ROOT = Path(__file__).resolve().parent.parent.parent  # the project folder: lab/learner/ is in it
# errors.selfcheck, in English
SELFCHECK = 'python3 -m lab.selfcheck checks tokenizer.py rule by rule'


class NotTheLessons(ValueError):
    """tokenizer.py's BPE does not do what the lesson's does: said of tokenizer.py, whatever
    file was being read when it showed."""


def learners_error(error, words=None):
    """The lines that say what an error raised inside tokenizer.py (the file a learner types)
    means, as the tutor says it (lab/learner/explain.py), in words (a catalog: the lab's
    language; English by default), then the tutor's command; None when the error is not the
    learner's."""
    lines = _what_it_means(error)
    if lines is None:
        return None
    words = words or catalogs.catalog('en')  # read only for an error that is the learner's
    return [catalogs.render(words, key, fields)
            for key, fields in [*lines, ('errors.selfcheck', {})]]


def _what_it_means(error):
    """learners_error's lines, as [(message key, fields)], or None when the error
    is not the learner's."""
    module = sys.modules.get('tokenizer')
    mine = os.path.realpath(getattr(module, '__file__', None) or 'tokenizer.py')
    unreadable = isinstance(error, (SyntaxError, ValueError)) and 'null bytes' in str(error)
    if unreadable and 'tokenizer' not in sys.modules:  # Python cannot read it, nor says where
        return [('errors.nul', {})]
    if isinstance(error, ImportError) and error.name == 'tokenizer':
        lacking = re.match(r"cannot import name '(\w+)'", str(error))
        part = {'merge': 1, 'BPE': 2}.get(lacking.group(1)) if lacking else None
        if part:  # typed part by part: what the lab needs comes later
            return [('errors.not_yet', {'name': lacking.group(1), 'part': str(part)})]
        return [('errors.cannot_import', {'error': str(error)})]
    if not (isinstance(error, SyntaxError) and os.path.realpath(error.filename or '') == mine):
        frames = traceback.extract_tb(error.__traceback__)
        last = frames[-1] if frames else None
        if last and os.path.realpath(last.filename) == mine and \
                (last.line or '').startswith('raise'):
            # raised on purpose: a check in tokenizer.py refusing bad input, one line as any
            return None
        learners = False
        for frame in frames:
            path = os.path.realpath(frame.filename)
            if path == mine:
                learners = True
            elif learners and path.startswith(str(ROOT / 'lab') + os.sep):
                learners = False  # tokenizer.py called back into a lab: the error is the lab's
        if not (learners or _calls_the_lesson_wrongly(error)):
            return None
    try:
        source = Path(mine).read_text(encoding='utf-8', errors='replace')
    except OSError:
        source = ''
    # here, not at the top: a lab starts without the tutor's hints, which most runs never need
    from lab.learner import explain
    return [(key, dict(fields, file='tokenizer.py'))
            for key, fields in explain.explain(error, mine, source) if key != 'look']


def interrupted_in_learners_file(error, words=None):
    """Where in tokenizer.py Ctrl-C found it (a lab that waits on a loop that never ends is
    stopped so), each function it was in, and the tutor's command, in words (English by
    default); nothing when it was elsewhere."""
    words = words or catalogs.catalog('en')
    module = sys.modules.get('tokenizer')
    mine = os.path.realpath(getattr(module, '__file__', None) or 'tokenizer.py')
    # a function of the file, or a loop at its top level (not a comprehension)
    def stopped_in(frame):
        at_top = frame.name == '<module>' and (frame.line or '').startswith(('while', 'for'))
        return os.path.realpath(frame.filename) == mine and frame.lineno and \
            (at_top or frame.name[0] != '<')
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if stopped_in(frame)]
    if not frames:
        return []
    def place(frame):
        key = 'errors.at_top' if frame.name == '<module>' else 'errors.in_function'
        return catalogs.render(words, key, {'line': str(frame.lineno), 'function': frame.name})
    places = catalogs.render(words, 'errors.then', {}).join(map(place, frames[-3:]))
    which = 'errors.stopped_one' if len(frames) == 1 else 'errors.stopped_many'
    return [catalogs.render(words, which, {'places': places}),
            catalogs.render(words, 'errors.selfcheck', {})]


def raised_in_learners_file(error):
    """Whether error was raised by a line of tokenizer.py (a check of its own, or a raise at
    import): then it is tokenizer.py's to say, not a file's."""
    module = sys.modules.get('tokenizer')
    mine = os.path.realpath(getattr(module, '__file__', None) or 'tokenizer.py')
    if isinstance(error, NotTheLessons):
        return True
    frames = traceback.extract_tb(error.__traceback__)
    return any(os.path.realpath(frame.filename) == mine for frame in frames)


def _calls_the_lesson_wrongly(error):
    """Whether error is a lab calling tokenizer.py's BPE or merge as the lesson does, and finding
    them otherwise: a method not typed yet (or typed outside the class), a @classmethod left out."""
    if 'tokenizer' not in sys.modules or not isinstance(error, (AttributeError, TypeError)):
        return False
    from lab.learner import explain  # (as in _what_it_means)
    lacking = explain.NO_ATTRIBUTE.match(str(error))
    if lacking:
        # a lab's own slip is its own
        return lacking.group(1) in [*explain.METHODS, *explain.ATTRIBUTES]
    frames = traceback.extract_tb(error.__traceback__)
    line = frames[-1].line or '' if frames else ''
    calling = re.search(r'\bBPE\.train\(|\btok\.(encode|decode|state|vocab|merges|chars)\b', line)
    if calling and re.search(r"'(NoneType|tuple|list|dict|str|int)' object|type 'NoneType'",
                             str(error)):
        # what train or encode gave back, used where the lesson's would be: None, a tuple
        return True
    # 'BPE.train() missing...', before 3.10 'train()'
    called = re.match(r'(?:BPE\.)?(\w+)\(\) ', str(error))
    lessons = [*explain.METHODS, 'BPE', 'merge']
    return isinstance(error, TypeError) and bool(called) and called.group(1) in lessons
