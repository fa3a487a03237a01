"""Part 6, the if __name__ == '__main__': block: python3 tokenizer.py run in the tutor's child as
the learner runs it, its lines held to the lesson's and its data/tokenizer.json to the lesson's
keys. What it prints is kept at both ends only (Printed), so that a million debug prints cost
nothing and the lesson's two lines, printed last, are still seen."""
import atexit
import contextlib
import io
import json
import runpy
import sys
import threading
from pathlib import Path

from lab.learner import explain
from lab.plumbing import locations, measures, reading
from lab.selfcheck import rules

PRINTED = 64 * 1024  # characters of what tokenizer.py prints that are kept to compare
JOIN = 0.5  # seconds by the clock a thread your main block started may take to end after it


class Kept(io.RawIOBase):
    """The bytes written to it: the first PRINTED, and the last PRINTED."""

    def __init__(self):
        super().__init__()
        self.first, self.last = bytearray(), bytearray()

    def writable(self):
        return True

    def write(self, data):
        data = bytes(data)
        room = PRINTED - len(self.first)
        self.first += data[:max(room, 0)]
        self.last = (self.last + data[max(room, 0):])[-PRINTED:]
        return len(data)


class Printed(io.TextIOWrapper):
    """What tokenizer.py prints: its first PRINTED bytes, and its last PRINTED, where the lesson's
    two lines are (a million debug prints before them cost nothing). A real text stream, as
    sys.stdout is: your code may reconfigure it (encoding='utf-8', to print Korean on Windows)
    or write bytes to its .buffer."""

    def __init__(self):
        super().__init__(io.BufferedWriter(Kept()), encoding='utf-8', errors='replace',
                         write_through=True)

    def getvalue(self):
        if not self.closed:  # your code may have closed it
            self.flush()
        kept = self.buffer.raw
        both = bytes(kept.first) + (b'\n' + bytes(kept.last) if kept.last else b'')
        return both.decode('utf-8', 'replace')


def command_line(source, code=None):
    """python3 tokenizer.py with the lesson's defaults: its lines among what it prints, in order,
    and a data/tokenizer.json as the lesson's (code: a trial of the file, compiled, run instead)."""
    saved = Path('data', 'tokenizer.json')
    saved.unlink(missing_ok=True)
    printed = Printed()
    threads, at_exit = set(threading.enumerate()), []
    with contextlib.redirect_stdout(printed), patched_argv(['tokenizer.py']), kept_at_exit(at_exit):
        try:
            if code is None:
                runpy.run_path('tokenizer.py', run_name='__main__')
            else:
                exec(code, {'__name__': '__main__', '__file__': str(Path('tokenizer.py').resolve()),
                            '__builtins__': __builtins__})
            never = never_ends(threads, at_exit)
            if never:
                return never
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
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab'] or \
            rules.UNKNOWN not in raw:
        return ['failed', [['tokenizer_json_keys', {}], ['look', {'where': 'look.command_save'}]]]
    return ['passed', None]


def never_ends(threads, at_exit):
    """python3 tokenizer.py as Python ends it, once the main block is done: it waits for each
    thread that is not a daemon, then runs the atexit functions, last registered first. A failed
    answer when a thread your code started does not end; an atexit function that runs on is
    stopped by the rule's limit, where it is. None when it ends."""
    left = [thread for thread in threading.enumerate() if thread not in threads
            and not thread.daemon]
    for thread in left:
        thread.join(JOIN)
    if any(thread.is_alive() for thread in left):
        return ['failed', [['command_never_ends', {}], ['look', {'where': 'look.command_ends'}]]]
    for function, args, kwargs in reversed(at_exit):
        try:
            function(*args, **kwargs)
        except Exception:  # Python says it and goes on to end: the rule has nothing to say of it
            pass
    return None


@contextlib.contextmanager
def patched_argv(argv):
    before = sys.argv
    sys.argv = argv
    try:
        yield
    finally:
        sys.argv = before


@contextlib.contextmanager
def kept_at_exit(at_exit):
    """While it lasts, what your code gives atexit.register is added to at_exit instead (a
    function registered to run at the end that never ends is said as such, not waited for)."""
    def register(function, *args, **kwargs):
        at_exit.append((function, args, kwargs))
        return function
    before = atexit.register
    atexit.register = register
    try:
        yield
    finally:
        atexit.register = before
