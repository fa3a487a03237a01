"""The lesson's three labs, as you type them: found, run, and held to what the lesson prints.

The lesson has you type lab/bpe_trace.py, lab/unknown.py and lab/token_count.py after
tokenizer.py, and run each as python3 -m lab.NAME. The tutor finds them beside the file it
checks (a lab saved as bpe-trace.py, as bpe_trace.txt, or in another folder is named, with
the command that moves it), runs each in its child as python3 -m lab.NAME runs it, and
compares what it prints, line by line, with what the lesson's labs print: the lesson-style
labs in lesson/lab/, run the same way on the lesson-style tokenizer.py. The first line that
differs is shown beside the lesson's; an error in a lab is explained as one in tokenizer.py.
"""
import builtins
import contextlib
import difflib
import json
import os
import re
import sys
import types
from pathlib import Path

from lab.learner import explain
from lab.plumbing import reading

NAMES = ['bpe_trace', 'unknown', 'token_count']  # in the order the lesson has you type them
LESSON = Path(__file__).resolve().parent / 'lesson'
MOST = 64 * 1024  # bytes of a lab's file read: the lesson's are a few hundred


# In the tutor: which labs are typed, and where
# ------------------------------------------------------

def find(root):
    """{lab: (its text, None) or (None, where it is instead)} for the labs typed in root/lab/ or
    misplaced near it (another name, another folder); a lab not found at all is left out."""
    found = {}
    for name in NAMES:
        path = root / 'lab' / f'{name}.py'
        if path.is_file():
            found[name] = (read(path), None)
            continue
        elsewhere = misplaced(root, name)
        if elsewhere:
            found[name] = (None, elsewhere.relative_to(root).as_posix())
    return found


def read(path):
    """The text of a lab typed at path ('' for what is no file one types: reading.read_typed)."""
    try:
        return (reading.read_typed(path, MOST) or b'').decode('utf-8-sig', 'replace')
    except OSError:
        return ''


def misplaced(root, name, right=None):
    """A file near root that looks like name typed elsewhere, other than right (the path it
    belongs at, lab/NAME.py by default): bpe-trace.py, Bpe_Trace.py, bpe_trace.txt,
    bpe_trace.py.txt, beside tokenizer.py or one folder down. A file of another kind
    (data/tokenizer.json, a .pyc) is none."""
    right = right or root / 'lab' / f'{name}.py'
    wanted = name.replace('_', '')
    for folder in [root / 'lab', root,
                   *sorted(p for p in root.iterdir() if p.is_dir() and p.name != 'lab')]:
        try:
            files = sorted(p for p in folder.iterdir() if p.is_file())
        except OSError:
            continue
        for path in files:
            stem, *kinds = path.name.split('.')
            if re.sub(r'[-_ ]', '', stem).lower() == wanted and set(kinds) <= {'py', 'txt'} \
                    and path != right:
                return path
    return None


# In the child: each lab run, beside the lesson's
# ------------------------------------------------------

def lesson_output(name, text, merges, printed):
    """What the lesson's lab prints: lesson/lab/NAME.py, run on the lesson-style tokenizer.py in a
    folder of the lesson's data (made once, in the child's folder)."""
    folder = Path('lesson-labs').resolve()
    if not folder.is_dir():
        (folder / 'data').mkdir(parents=True)
        (folder / 'data' / 'train.txt').write_text(text, encoding='utf-8')
        (folder / 'settings.json').write_text(json.dumps({'merges': merges}), encoding='utf-8')
    reference = types.ModuleType('tokenizer')
    reference.__file__ = str(LESSON / 'tokenizer.py')
    exec(compile((LESSON / 'tokenizer.py').read_text(encoding='utf-8'), reference.__file__, 'exec'),
         reference.__dict__)
    state = reference.BPE.train(text, merges).state()
    (folder / 'data' / 'tokenizer.json').write_text(json.dumps(state, ensure_ascii=False),
                                                    encoding='utf-8')
    source = (LESSON / 'lab' / f'{name}.py').read_text(encoding='utf-8')
    out, error = run_script(source, folder / 'lab' / f'{name}.py', folder, printed, reference)
    if error:
        raise error  # the tutor's own lab does not run: its bug, not yours
    return out


def run_script(source, path, folder, printed, tokenizer=None):
    """(what the lab prints, the error it raised or None), run as python3 -m lab.NAME runs it:
    in folder, as __main__ of the package lab, tokenizer (if given) the module it imports."""
    kept = sys.modules.get('tokenizer')
    if tokenizer is not None:
        sys.modules['tokenizer'] = tokenizer
    here, argv = os.getcwd(), sys.argv
    sys.argv = [str(path)]  # as python3 -m lab.NAME sets it, with no arguments
    namespace = {'__name__': '__main__', '__package__': 'lab', '__file__': str(path),
                 '__builtins__': builtins}
    error = None
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(printed):
            exec(compile(source, str(path), 'exec'), namespace)
    except SystemExit as e:
        if e.code not in (None, 0):
            error = e
    except Exception as e:  # the lab's error, said as tokenizer.py's are
        error = e
    finally:
        os.chdir(here)
        sys.argv = argv
        if tokenizer is not None:
            sys.modules['tokenizer'] = kept
    return printed.getvalue(), error


def check(name, folder, printed, text, merges):
    """The answer for one lab: passed, or failed with the first line it prints otherwise than the
    lesson's lab, or with its error in words; and, either way, the line of the lab that differs
    from the lesson's lab, among those that ran (printed: the class that keeps what it prints)."""
    # here, not above: the tutor's own process only finds the labs, and starts some 20 ms sooner
    # without the search; the child's server has these imported before it forks (child.py)
    from lab.selfcheck import locate, slip_lines, traced
    path = Path(folder, 'lab', f'{name}.py')
    source = path.read_text(encoding='utf-8', errors='replace')
    ran = set()
    with traced.lines_run(ran, path.name):
        out, error = run_script(source, path, folder, printed())
    if isinstance(error, SystemExit):
        said = error.code if isinstance(error.code, str) else f'exit status {error.code}'
        answer = [['lab_failed', {'lab': name}], ['command_said', {'said': said[-200:]}]]
    elif error:
        answer = [['lab_failed', {'lab': name}],
                  *in_the_lab(explain.explain(error, str(path), source), name)]
    else:
        answer = differs(name, out.splitlines(),
                         lesson_output(name, text, merges, printed()).splitlines())
        if answer is None:
            return ['passed', None]
    slip = locate.locate(source, ran, 'script',
                         (LESSON / 'lab' / f'{name}.py').read_text(encoding='utf-8'))
    return ['failed', slip_lines.said(answer, slip and dict(slip, file=f'lab/{name}.py'))]


def in_the_lab(said, name):
    """What explain says of an error, placed in the lab: its line is the lab's,
    and so is where to look."""
    out = []
    for key, fields in said:
        if key in ('at_line', 'at_line_only'):
            out.append(['lab_at_line', {'lab': name, 'line': fields['line']}])
        elif key == 'look' and fields['where'].startswith('part.'):
            out.append(['look', {'where': 'look.lab_code', 'lab': name}])
        else:
            out.append([key, fields])
    return out


def differs(name, got, want):
    """None when the lesson's lines are all among what the lab printed, in order (a debug print
    of yours in between is fine); else the lines that say the first of the lesson's missing."""
    at = 0
    for line in want:
        start = at  # the lines after the last that matched: where this one was looked for
        # as measures.has_lines: after a print('.', end='')
        while at < len(got) and not got[at].endswith(line):
            at += 1
        if at == len(got):
            close = difflib.get_close_matches(line, got[start:], 1, 0.0)
            yours = close[0] if close else ''
            n = got.index(yours, start) + 1 if close else start + 1  # the line of your lab's output
            return [['lab_line', {'n': str(n), 'got': repr(yours[:70]) if yours else '-'}],
                    ['lab_lesson', {'want': repr(line[:70])}],
                    ['look', {'where': 'look.lab', 'lab': name}]]
        at += 1
    return None
