"""Part 6, the if __name__ == '__main__': block: python3 tokenizer.py run in the tutor's child as
the learner runs it, its lines held to the lesson's and its data/tokenizer.json to the lesson's
keys. What it prints is kept at both ends only (Printed), so that a million debug prints cost
nothing and the lesson's two lines, printed last, are still seen."""
import contextlib
import io
import json
import runpy
import sys
from pathlib import Path

from lab.learner import explain
from lab.plumbing import locations, measures, reading
from lab.selfcheck import rules

PRINTED = 64 * 1024  # characters of what tokenizer.py prints that are kept to compare


class Printed(io.StringIO):
    """What tokenizer.py prints: its first PRINTED characters, and its last PRINTED, where the
    lesson's two lines are (a million debug prints before them cost nothing)."""

    def __init__(self):
        super().__init__()
        self.last = ''

    def write(self, text):
        room = PRINTED - self.tell()
        if room > 0:
            super().write(text[:room])
        self.last = (self.last + text[max(room, 0):][-PRINTED:])[-PRINTED:]
        return len(text)

    def getvalue(self):
        return super().getvalue() + ('\n' + self.last if self.last else '')


def command_line(source, code=None):
    """python3 tokenizer.py with the lesson's defaults: its lines among what it prints, in order,
    and a data/tokenizer.json as the lesson's (code: a trial of the file, compiled, run instead)."""
    saved = Path('data', 'tokenizer.json')
    saved.unlink(missing_ok=True)
    printed = Printed()
    with contextlib.redirect_stdout(printed), patched_argv(['tokenizer.py']):
        try:
            if code is None:
                runpy.run_path('tokenizer.py', run_name='__main__')
            else:
                exec(code, {'__name__': '__main__', '__file__': str(Path('tokenizer.py').resolve()),
                            '__builtins__': __builtins__})
        except SystemExit as e:
            if e.code not in (None, 0):
                said = e.code if isinstance(e.code, str) else f'exit status {e.code}'
                return ['failed', [['command_failed', {}], ['command_said', {'said': said[-200:]}]]]
        except Exception as e:  # your code's error, said as every error is
            return ['failed', [['command_failed', {}], *explain.explain(e, 'tokenizer.py', source)]]
    want = rules.lesson_lines()
    lines = printed.getvalue().splitlines()
    if not measures.has_lines('\n'.join(lines), want):
        slip = [['hint', {'text': 'hint.main_name'}]] if explain.main_guard_slip(source) else []
        return ['failed', [['command_printed', {'got': repr([line[:60] for line in lines[:4]])}],
                           ['lesson', {'want': repr(want)}], *slip,
                           ['look', {'where': 'look.command_print'}]]]
    try:  # read as every lab reads a tokenizer: a pipe, a device, a folder or a huge file is none
        raw = reading.read_bytes(saved, '', locations.TOKENIZER_LIMIT).decode('utf-8', 'replace')
    except ValueError:
        return ['failed', [['no_tokenizer_json', {}], ['look', {'where': 'look.command_save'}]]]
    try:
        state = json.loads(raw)
    except (ValueError, RecursionError):
        state = None
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab'] or rules.UNKNOWN not in raw:
        return ['failed', [['tokenizer_json_keys', {}], ['look', {'where': 'look.command_save'}]]]
    return ['passed', None]


@contextlib.contextmanager
def patched_argv(argv):
    before = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = before
