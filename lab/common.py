"""The plumbing the labs share, kept here so that each lab file holds only its idea.

From tokenizer.py the labs take only what the lesson's own file has, merge and BPE, so
that they work with the tokenizer.py you typed. Everything else they need is here:
  - where the project's files are;
  - reading a text file the way the lesson's code reads it, and JSON strictly, with a
    one-line error for each way a file can be wrong;
  - loading a tokenizer.json only after checking it (problem_with);
  - writing a file all at once, and only where the user meant (check_output_path, save);
  - aligned tables, percentiles, and text made safe to show on a terminal (shown);
  - running a lab as a command: --help, one-line errors, Ctrl-C, a closed pipe.
It is not a lab itself: there is nothing to run.
"""
import argparse
import codecs
import contextlib
import difflib
import errno
import functools
import hashlib
import json
import math
import operator
import os
import re
import reprlib
import signal
import stat
import sys
import tempfile
import threading
import traceback
import unicodedata
from collections import Counter
from pathlib import Path

from lab.learner import catalogs, explain

ROOT = Path(__file__).resolve().parent.parent
# As the lesson's files name them: python3 -m lab.NAME runs in the project folder.
SETTINGS = Path('settings.json')
TRAIN = Path('data/train.txt')
SAVED = Path('data/tokenizer.json')
UNKNOWN = '\ufffd'  # id 0 in every tokenizer BPE.train makes
SETTINGS_LIMIT = 4096  # bytes: {"merges": 12} needs 14
# A million tokens of a hundred characters, far past anything trained here, fits in this.
TOKENIZER_LIMIT = 256 * 2**20
MAKE_TOKENIZER = 'python3 tokenizer.py makes it'
# Memory a lab may need for each byte of text it reads: byte_bpe, the hungriest, peaked at
# about 80 on a 1.1 MB novel (lab.fast_bpe at 22, measured with lab.speed on 12 MB).
MEMORY_PER_TEXT_BYTE = 100
SELFCHECK = 'python3 -m lab.selfcheck checks tokenizer.py rule by rule'
TUTOR = 'python3 -m lab.selfcheck'  # at the end of an error for tokenizer.py to mend: ending() says SELFCHECK
A_TEXT_FILE = 'give a UTF-8 text file'


# Reading ----------------------------------------------------------------------------

def read_bytes(path, fix, limit=None):
    """The bytes of a regular file, at most limit of them; ValueError for anything else."""
    try:
        if os.path.isdir(path):
            raise ValueError(f'{path} is a folder, not a file: {fix}')
        # opened without waiting (a pipe with no writer would wait for ever), then looked at
        # through what was opened: what the name points to cannot change in between
        with open(os.open(path, os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0)), 'rb') as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # a device or a pipe may never end
                raise ValueError(f'{path} is not a regular file (a device or a pipe?): {fix}')
            data = f.read(-1 if limit is None else limit + 1)
    except FileNotFoundError:
        raise ValueError(f'{path} does not exist: {fix}') from None
    except OSError as e:
        raise ValueError(f'cannot read {path} ({e.strerror}): {fix}') from None
    if limit is not None and len(data) > limit:
        raise ValueError(f'{path} is larger than {limit:,} bytes, too large for what it should hold: {fix}')
    return data


def read_typed(path, most):
    """The first most bytes of a file someone typed (a learner's tokenizer.py or lab), or None
    when it is no such file: not a regular file (a pipe, a device), or one of the kernel's
    (/proc/kmsg is a regular file, and waits for ever). A pipe with no writer is not waited for."""
    if os.path.realpath(path).startswith(('/proc/', '/sys/', '/dev/')):
        return None
    with open(os.open(path, os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0)), 'rb') as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        return file.read(most)  # None: nothing to read without waiting, so no file anyone typed


def base_vocabulary(text):
    """The vocabulary BPE.train starts from: the unknown character as id 0, then every other
    character of text in code point order."""
    return [UNKNOWN] + sorted(set(text) - {UNKNOWN})


def memory_bytes():
    """What this process may use: the machine's memory, or less under a limit (ulimit -v);
    None where Python cannot tell."""
    sizes = []
    try:
        sizes.append(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES'))
    except (AttributeError, ValueError, OSError):  # not on Windows
        pass
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            sizes.append(soft)
    except ImportError:
        pass
    return min(sizes, default=None)


def refuse_what_cannot_fit(path):
    """ValueError, before a byte is read, for a text the labs would need more memory for than there is."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return  # read_bytes says what is wrong
    memory = memory_bytes()
    if memory and size * MEMORY_PER_TEXT_BYTE > memory:
        most = memory // MEMORY_PER_TEXT_BYTE // 2**20  # the labs need about that much for each byte
        raise ValueError(f'{path} is {size / 2**20:,.0f} MiB, too large for {memory / 2**30:,.1f} GiB of '
                         f'memory: give a part of it, at most {most:,} MiB')


def read_text(path, fix=A_TEXT_FILE, limit=None):
    """The text of a file as the lesson's Path.read_text() gives it: UTF-8, with '\\r\\n'
    and a lone '\\r' turned into '\\n'. A byte order mark is left out, as tokenizer.py does.
    Without a limit, a text larger than the memory can hold is refused before it is read."""
    if limit is None:
        refuse_what_cannot_fit(path)
    data = read_bytes(path, fix, limit)
    try:
        text = data.decode('utf-8-sig')
    except UnicodeDecodeError as e:  # e.object: the bytes after a byte order mark, as e.start counts
        line, byte = e.object.count(b'\n', 0, e.start) + 1, e.object[e.start]
        if is_cp949_korean(data):
            name = Path(path).name
            convert = f'iconv -f cp949 -t utf-8 {name} > {Path(name).stem}-utf8.txt'
            raise ValueError(f'{path} is not UTF-8 but Korean in CP949 (EUC-KR), as older Windows tools '
                             f'save it: {convert}') from None
        raise ValueError(f'{path} is not UTF-8 (byte 0x{byte:02x}, line {line}): save it as UTF-8') from None
    if not text:  # a byte order mark alone (Notepad's empty "UTF-8 with BOM") is empty too
        raise ValueError(f'{path} is empty: {fix}')
    if '\x00' in text:  # UTF-16 read as UTF-8 has a NUL beside every Latin letter
        raise ValueError(f'{path} holds NUL characters, so it looks like UTF-16: save it as UTF-8')
    return text.replace('\r\n', '\n').replace('\r', '\n')


def is_cp949_korean(data):
    """Whether bytes that are not UTF-8 read as CP949 (Windows' Korean, a superset of EUC-KR)
    with Hangul in them: then that is almost surely what they are."""
    try:
        return bool(HANGUL.search(data.decode('cp949')))
    except UnicodeDecodeError:
        return False


def strict_json(text):
    """json.loads, refusing what no writer of ours makes: a key twice, a number of more
    than 18 digits, NaN or Infinity. ValueError or RecursionError (too deeply nested)."""
    def once(pairs):
        if len({key for key, _ in pairs}) < len(pairs):
            key = next(k for k, n in Counter(key for key, _ in pairs).items() if n > 1)
            raise ValueError(f'the key {quoted(key, 30)} is written twice')
        return dict(pairs)

    def whole(digits):
        if len(digits.lstrip('-')) > 18:
            raise ValueError(f'a number of {len(digits.lstrip("-")):,} digits')
        return int(digits)

    def refuse(name):
        raise ValueError(f'{name} is not a number JSON allows')
    return json.loads(text, object_pairs_hook=once, parse_int=whole, parse_constant=refuse)


def read_json(path, fix, limit=TOKENIZER_LIMIT):
    """The parsed JSON of a file; ValueError names the file and the fix when it is not sound JSON."""
    text = read_text(path, fix, limit)
    try:
        return strict_json(text)
    except RecursionError:
        raise ValueError(f'{path} is not valid JSON (nested too deeply): {fix}') from None
    except ValueError as e:
        raise ValueError(f'{path} is not valid JSON ({e}): {fix}') from None


def read_merge_count(path=SETTINGS):
    """The "merges" of settings.json, a whole number >= 0."""
    fix = 'write {"merges": 12} in it'
    settings = read_json(path, fix, SETTINGS_LIMIT)
    count = settings.get('merges') if isinstance(settings, dict) else None
    if type(count) is not int or count < 0:  # refuses "12", -1, 1.5 and true
        raise ValueError(f'{path}: "merges" must be a whole number >= 0, as in {{"merges": 12}}')
    return count


# Checking a saved tokenizer -----------------------------------------------------------

SURROGATE = re.compile('[\ud800-\udfff]')  # half of a UTF-16 pair: no UTF-8 text holds one


def problem_with(state):
    """The first thing wrong with a tokenizer state, or None when it is what BPE.train makes."""
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab']:
        return 'expected an object with exactly the keys "vocab" and "merges"'
    return vocabulary_problem(state['vocab'], state['merges'])


def newline_merged(piece):
    """Why BPE.train never makes piece, or None: it never merges '\n'."""
    return 'a newline, which BPE never merges' if '\n' in piece else None


def vocabulary_problem(vocab, merges, head=(UNKNOWN,), never_made=newline_merged):
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
        return f'vocab[{bad}] holds a lone surrogate ({quoted(vocab[bad])}), which no UTF-8 text has'
    if not isinstance(merges, list) or len(merges) > len(vocab) - len(head):
        return f'"merges" must be a list with fewer entries than "vocab" (at most {len(vocab) - len(head)})'
    bad = next((n for n, m in enumerate(merges) if not is_merge(m)), None)  # each entry's shape first,
    if bad is not None:  # so that a broken merge is not taken for a vocab that does not match
        written = json.dumps(merges[bad], ensure_ascii=False, default=repr)  # as the file has it: true
        return f'merges[{bad}] is {clip(written, 40)}, not [[a, b], new_id] with whole numbers'
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
            made = quoted(vocab[a] + vocab[b])
            return f'vocab[{new}] is {quoted(vocab[new])}, but merges[{n}] makes {made}'
        if never_made(vocab[new]):
            return f'vocab[{new}] holds {never_made(vocab[new])}'
    return None


def is_merge(m):
    """[[a, b], new_id] with three ints (not bools, which JSON writes as true/false)."""
    return (type(m) is list and len(m) == 2 and type(m[0]) is list and len(m[0]) == 2
            and all(type(i) is int for i in m[0] + [m[1]]))


class NotTheLessons(ValueError):
    """tokenizer.py's BPE does not do what the lesson's does: said of tokenizer.py, whatever
    file was being read when it showed."""


def lesson_bpe(vocab, merges):
    """tokenizer.BPE(vocab, merges), the class the learner typed, refused in one line that points
    to the tutor when it does not keep what the lesson's keeps (vocab, merges, chars): the labs
    build on it, and would otherwise fail later, inside their own code."""
    from tokenizer import BPE  # here, not above: lab.selfcheck runs when tokenizer.py cannot be imported
    tok = BPE(vocab, merges)
    for name, kind in [('vocab', list), ('merges', list), ('chars', dict)]:
        if not isinstance(getattr(tok, name, None), kind):
            raise NotTheLessons(f'BPE in tokenizer.py keeps no self.{name} ({kind.__name__}): {TUTOR}')
    return tok


def encoded(tok, text):
    """tok.encode(text) of the BPE the learner typed: a list, or ValueError in one line that
    points to the tutor (an encode without its return gives None)."""
    ids = tok.encode(text)
    if not isinstance(ids, list):
        raise NotTheLessons(f'encode gave {clip(repr(ids), 16)}, not a list of ids: {TUTOR}')
    return ids


def state_of(tok):
    """tok.state(), refused in one line when it is not {'vocab': [...], 'merges': [...]}."""
    state = tok.state()
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab']:
        keys = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise NotTheLessons(f"state() in tokenizer.py gave {keys}, not the keys ['merges', 'vocab']: {TUTOR}")
    return state


def fingerprint(tok):
    """sha256 of the canonical JSON of the state: the same for the same tokenizer, however saved."""
    canonical = json.dumps(state_of(tok), ensure_ascii=False, separators=(',', ':'))
    return hashlib.sha256(canonical.encode('utf-8')).hexdigest()


# Children ---------------------------------------------------------------------------

def run_bounded(argv, cwd, seconds, kept=65536):
    """(exit status, the last kept bytes of stdout, of stderr, as text) of a child that runs
    code nobody reviewed (tokenizer.py is imported in it): at most seconds long, its output
    never held whole (a million prints cost nothing), and it and every process it started in
    its group killed when it ends. ValueError when it cannot start or takes too long."""
    import subprocess
    import threading
    try:  # XSLM_PARENT: the child's die_with_parent knows whose child it is
        child = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True,
                                 env={**os.environ, 'XSLM_PARENT': str(os.getpid())})
    except OSError as e:  # no more processes allowed (ulimit -u), or no memory for one
        raise ValueError(f'cannot start a process ({e.strerror})') from None
    tails = {}

    def keep_end(name, stream):
        end = b''
        for chunk in iter(lambda: stream.read(65536), b''):
            end = (end + chunk)[-kept:]
        tails[name] = end.decode('utf-8', 'replace')
    readers = [threading.Thread(target=keep_end, args=(name, stream), daemon=True)
               for name, stream in [('out', child.stdout), ('err', child.stderr)]]
    for reader in readers:
        reader.start()
    try:
        child.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        raise ValueError(f'a child process took over {seconds:,} s and was stopped') from None
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        child.wait()
        for reader, stream in zip(readers, [child.stdout, child.stderr]):
            reader.join(timeout=1)  # a process that left the group may hold a pipe: not waited for
            if not reader.is_alive():
                stream.close()
    return child.returncode, tails.get('out', ''), tails.get('err', '')


def die_with_parent(parent=None):
    """In a child of run_bounded, or a worker of lab.fast's processes: end when the parent ends,
    even killed (SIGKILL runs none of its clean-up): on Linux the kernel is asked to
    (PR_SET_PDEATHSIG), and a parent gone already (not the pid parent, or XSLM_PARENT) is seen
    at once. Elsewhere the parent's own clean-up is all there is."""
    if not sys.platform.startswith('linux'):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (ImportError, OSError, AttributeError):
        return
    if str(parent or os.environ.get('XSLM_PARENT', os.getppid())) != str(os.getppid()):
        os._exit(1)  # the parent ended before the kernel was asked


# Writing ----------------------------------------------------------------------------

def json_with(*keys):
    """A test for check_output_path: the file is a JSON object with these keys."""
    def test(path):
        try:
            data = strict_json(read_text(path, '', TOKENIZER_LIMIT))
        except (ValueError, RecursionError):
            return False
        return isinstance(data, dict) and all(key in data for key in keys)
    return test


def check_output_path(path, kind, is_kind, inputs=(), force=False, fix='give --out another file name'):
    """Refuse, before any long work, an output the user cannot or should not mean: a folder,
    a device, a read-only file, one of the inputs, or a file that is not a `kind` (is_kind
    tells) unless force. A symlink is written through: its target is replaced, the link stays.
    fix: what the user can do instead (for a file in the folder --out names: another folder)."""
    shown_path = path
    path = Path(os.path.realpath(path))
    if path.exists():
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise ValueError(f'{shown_path} is a folder: {fix}')
        if not stat.S_ISREG(mode):
            raise ValueError(f'{shown_path} is not a regular file (a device or a pipe?): {fix}')
        if not mode & 0o222:
            raise ValueError(f'{shown_path} is read-only: make it writable or {fix}')
        for source in inputs:
            if os.path.exists(source) and os.path.samefile(path, source):
                raise ValueError(f'{shown_path} is also what this reads: {fix}')
        if not force and not is_kind(path):
            raise ValueError(f'{shown_path} exists and is not a {kind}: use --force to replace it')
    if not path.parent.is_dir():
        raise ValueError(f'cannot write {shown_path}: there is no folder {path.parent}')
    try:  # the one sure way to know a folder is writable (root ignores the permission bits)
        fd, probe = tempfile.mkstemp(dir=path.parent, prefix='.probe-', suffix='.tmp')
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise ValueError(f'cannot write {shown_path} ({e.strerror})') from None
    return path


def save(data, path):
    """Write text or bytes to path all at once: a temporary file of our own beside it,
    flushed to disk, then renamed over it. A crash leaves the old file or the new one,
    never half; of two writers at once, the last rename wins with its whole file, and the
    other is told: what a lab says it saved is what is on disk."""
    save_together([(data, path)])


def save_together(files):
    """save() for several (data, path) that belong together (lab.prepare's .bin files and
    their meta.json): every file is written to its temporary first, and only when all of
    them are on disk are they renamed, in the order given. A full disk or a size limit met
    on the second file leaves every old file as it was; so does Ctrl-C."""
    staged = []  # (temporary, path, path as the user gave it, the temporary's inode)
    try:
        for data, path in files:
            staged.append(staged_copy(data, path))
        with signals_held():  # Ctrl-C or SIGTERM between two renames waits for the last
            for n, (tmp, path, shown_path, _) in enumerate(staged):
                try:
                    os.replace(tmp, path)
                except OSError as e:
                    raise ValueError(f'cannot write {shown_path} ({e.strerror})') from None
                staged[n] = (None, *staged[n][1:])
    finally:
        for tmp, *_ in staged:
            if tmp and os.path.lexists(tmp):
                os.unlink(tmp)
    last = {path: (shown_path, ours) for _, path, shown_path, ours in staged}  # a path given twice: its last
    for path, (shown_path, ours) in last.items():
        try:
            there = os.stat(path)
        except OSError:  # gone as soon as written: another program's doing too
            there = None
        if there is None or (there.st_dev, there.st_ino) != (ours.st_dev, ours.st_ino):
            raise ValueError(f'{shown_path} was replaced by another program while this one saved it: '
                             'run this again once that one is done')


@contextlib.contextmanager
def signals_held(signals=(signal.SIGINT, signal.SIGTERM)):
    """Ctrl-C and SIGTERM held back while the block runs, and taken as soon as it ends: their
    handlers only note them meanwhile (in the main thread, which alone may set handlers, and
    where Python runs them; from another thread the block runs as it is)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came = []
    before = {number: signal.signal(number, lambda number, _: came.append(number)) for number in signals}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        for number in came[:1]:  # as it would have been taken: its handler, or the default's
            if callable(before[number]):
                before[number](number, None)
            else:
                os.kill(os.getpid(), number)


def staged_copy(data, path):
    """(temporary, real path, path as given, inode): data written to a temporary file beside
    path, on disk, with the permissions path has (or would get), not yet renamed over it. On
    any failure, Ctrl-C included, the temporary is gone."""
    shown_path, path = path, Path(os.path.realpath(path))  # through a symlink: the link stays
    data = data.encode('utf-8') if isinstance(data, str) else data
    try:
        mode = stat.S_IMODE(path.stat().st_mode)  # keep the permissions it had
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f'.{path.name}.', suffix='.tmp')
    except OSError as e:
        raise ValueError(f'cannot write {shown_path} ({e.strerror})') from None
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            ours = os.fstat(f.fileno())
        os.chmod(tmp, mode)
    except BaseException as e:
        os.unlink(tmp)
        if isinstance(e, OSError):
            raise ValueError(f'cannot write {shown_path} ({e.strerror})') from None
        raise
    return tmp, path, shown_path, ours


# Showing ----------------------------------------------------------------------------

NAMED = {'\n': '\\n', '\t': '\\t', '\r': '\\r'}


def shown(text):
    """text safe for a terminal: every character that is not printable (control characters,
    escape sequences, bidirectional overrides, line breaks) written as its escape."""
    if text.isprintable():
        return text
    return ''.join(ch if ch.isprintable() else NAMED.get(ch) or ascii(ch)[1:-1] for ch in text)


def width(text):
    """Columns text takes on a terminal: wide (CJK, emoji) 2, combining marks 0."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in 'WF' else 1
               for ch in text)


def quoted(value, columns=40):
    """repr(value) for a message, cut to columns (see clip): a value read from a file may be a
    megabyte, and a message is one line. The repr of a long string is taken of its start only."""
    if isinstance(value, str):
        return clip(repr(value[:columns + 1]), columns)
    short = reprlib.Repr()  # a list of a million, nested a million deep: only its start, no RecursionError
    short.maxlevel, short.maxlist, short.maxdict, short.maxstring, short.maxother = 3, 4, 4, columns, columns
    return clip(short.repr(value), columns)


def clip(text, columns=80):
    """text cut to at most columns display columns (see width), ending in '...' if cut: in time
    that grows with the columns, not with the text (a token of a million characters, say)."""
    cut = fitting(text, columns)
    if cut == len(text):
        return text
    return text[:fitting(text, columns - 3)] + '...'


def fill(text, first='', rest='', columns=80):
    """text wrapped at spaces into lines of at most columns display columns (see width),
    the first starting with first, the others with rest. A space inside brackets does not
    break (code such as self.chars.get(c, 0) stays whole); a word too long for a line is cut."""
    lines, line = [], first
    for word in words_of(text, columns - width(rest)):
        joined = line + word if line in (first, rest) else f'{line} {word}'
        if width(joined) <= columns:
            line = joined
            continue
        if line not in (first, rest):
            lines.append(line)
        start, room = 0, max(columns - width(rest), 1)
        cut = fitting(word, room)
        while start + cut < len(word):  # a word too long for a line, cut by characters, in one pass
            lines.append(rest + word[start:start + cut])
            start += cut
            cut = fitting(word, room, start)
        line = rest + word[start:]
    return '\n'.join(lines + [line])


def words_of(text, columns):
    """The words fill() wraps: text cut at each space outside brackets; a word that would
    still be wider than columns (brackets left open, say) is cut at its spaces after all."""
    words, start, depth = [], 0, 0
    for at, ch in enumerate(text):
        depth = max(depth + (ch in '([{') - (ch in ')]}'), 0)
        if ch == ' ' and depth == 0:
            words.append(text[start:at])
            start = at + 1
    words.append(text[start:])
    return [part for word in words for part in (word.split(' ') if width(word) > columns else [word])]


def fitting(text, columns, start=0):
    """How many characters of text, from start, fit in columns display columns (at least one,
    unless none is left): it stops at the first that does not, so a long text costs no more."""
    used = 0
    for n in range(start, len(text)):
        used += width(text[n])
        if used > columns:
            return max(n - start, 1)
    return len(text) - start


def table(rows, right=()):
    """Rows of strings as aligned columns, two spaces apart; columns in right align right."""
    widths = [max(width(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [' ' * (w - width(cell)) + cell if c in right else cell + ' ' * (w - width(cell))
                 for c, (cell, w) in enumerate(zip(row, widths))]
        lines.append('  '.join(cells).rstrip())
    return '\n'.join(lines)


def figure(n):
    """A count as a table shows it: exact, with commas, below a million; then three significant
    digits and M or G (1.04M, 52.4M, 9.88G), so that a column stays narrow whatever the text."""
    if n < 1_000_000:
        return f'{n:,}'
    if n < 999_500_000:  # 999.5M would round to 1e+03M
        return f'{n / 1e6:.3g}M'
    return f'{n / 1e9:.3g}G' if n < 999_500_000_000 else f'{n / 1e9:,.0f}G'


def percentile(values, p):
    """Nearest-rank percentile of a non-empty list: a value that occurs in it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def first_difference(a, b):
    """The first position where two sequences differ (the shorter one's length if one is a prefix)."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


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
            raise ValueError(f'id {clip(repr(i), 40)} is not a whole number: ids are ints') from None
        if not 0 <= n < size:
            raise ValueError(f'id {n} is not in this vocabulary of {size} ids')
        known.append(n)
    return known


def hold_out(text, rate):
    """(training part, held-out part): the last rate of the lines held out, at least one."""
    lines = lines_of(text)
    if len(lines) < 2:
        raise ValueError('the text needs two lines at least: one to train on, one held out')
    held = min(len(lines) - 1, max(1, round(len(lines) * rate)))
    return ''.join(line + '\n' for line in lines[:-held]), ''.join(line + '\n' for line in lines[-held:])


def first_line(text):
    """The first line of text that is not blank; the text itself if every line is."""
    return next((line for line in lines_of(text) if line.strip()), text)


def lines_of(text):
    """The lines of a text without their newlines; a last newline ends a line, it does not start one."""
    lines = text.split('\n')
    return lines[:-1] if text.endswith('\n') else lines


def has_lines(printed, wanted):
    """Whether the wanted lines are among the printed ones, in order, each whole at the end of a
    line: the rule for a program that may print more than the lesson's lines (a learner's own
    print, say, or one that ends without a newline, as print('.', end='') does)."""
    lines = iter(printed.splitlines())
    return all(any(line.endswith(want) for line in lines) for want in wanted)


HANGUL = re.compile('[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]')  # jamo, compatibility jamo, syllables


def not_nfc(text):
    """(characters, lines) of text that unicodedata.normalize('NFC', ...) would change, or None
    when text is in NFC already. A character changes when it is not kept as it is in the
    line's NFC form (jamo that become a syllable, a letter that takes its accent)."""
    if unicodedata.is_normalized('NFC', text):
        return None
    characters = lines = 0
    for line in text.split('\n'):
        if not unicodedata.is_normalized('NFC', line):
            nfc = unicodedata.normalize('NFC', line)
            lines += 1
            if len(line) > 10_000:  # matching costs about length squared: count what lies between
                same = (len(os.path.commonprefix([line, nfc]))
                        + len(os.path.commonprefix([line[::-1], nfc[::-1]])))
                characters += max(len(line) - same, 1)
                continue
            matcher = difflib.SequenceMatcher(None, line, nfc, autojunk=False)
            characters += sum(i2 - i1 for op, i1, i2, _, _ in matcher.get_opcodes() if op != 'equal')
    return characters, lines


def say_if_read_otherwise(path):
    """One line on stderr when read_text did not keep the bytes of the file: '\\r\\n' or a lone '\\r'
    read as '\\n', a byte order mark left out. What is trained or prepared never sees them, and a
    byte-level tokenizer spends a token more a line on the file as it is."""
    with open(path, 'rb') as file:
        data = file.read()
    ends = [f'{n:,} {name}' for name, n in
            [('\\r\\n', data.count(b'\r\n')), ('\\r', data.count(b'\r') - data.count(b'\r\n'))] if n]
    changed = [f'{", ".join(ends)} read as \\n'] if ends else []
    if data.startswith(codecs.BOM_UTF8):
        changed.append('byte order mark left out')
    if changed:  # 80 columns: the name clipped, lab.prepare: in front
        note(f'{clip(shown(Path(path).name), 20)}: {", ".join(changed)}')


def say_if_not_nfc(text, path):
    """One line on stderr when text is not in NFC: nothing is normalized silently, and a
    tokenizer trained on NFD Korean turns the same words typed in NFC into unknowns."""
    found = not_nfc(text)
    if found:
        note(f'{found[0]:,} characters are not in NFC: python3 -m lab.normalize {path}')


def count_lines(tok, encode, lines):
    """What the labs count in some lines, counted one way for all of them: the lines (blank
    ones too), their characters and UTF-8 bytes without the newlines, their tokens, the
    tokens of each line, and the characters the tokenizer does not know (tok.knows)."""
    per_line = [len(encode(line)) for line in lines]
    chars = sum(map(len, lines))
    return {'lines': len(lines), 'chars': chars, 'tokens': sum(per_line), 'per_line': per_line or [0],
            'bytes': sum(len(line.encode('utf-8', 'surrogatepass')) for line in lines),
            'unknown': unknown_characters(tok, lines)}


def unknown_characters(tok, texts):
    """{character: how often} for the characters of texts that tok does not know (tok.knows),
    line ends aside, in order of first appearance. Each distinct character is asked once."""
    counts = Counter()
    for text in texts:
        counts.update(text)
    return Counter({ch: n for ch, n in counts.items() if ch != '\n' and not tok.knows(ch)})


STATUS = {'shown': False}  # whether a status line stands on stderr now, for fail() to clear


def status(text=''):
    """Show on a terminal what long work is doing, on one line of stderr drawn over in place;
    status() clears it. Nothing when stderr is not a terminal: a log or a pipe gets results only."""
    if not (sys.stderr and sys.stderr.isatty()) or not (text or STATUS['shown']):
        return
    print(f'\r{text[:79]:<79}' if text else f'\r{" " * 79}\r', end='', file=sys.stderr, flush=True)
    STATUS['shown'] = bool(text)


def use_colour(stream=None):
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get('NO_COLOR') and os.environ.get('TERM') != 'dumb'


# Running a lab as a command ---------------------------------------------------------

def lab_name():
    """'lab.NAME' of the lab that python3 -m runs."""
    spec = getattr(sys.modules['__main__'], '__spec__', None)
    return spec.name.removesuffix('.__main__') if spec else 'lab'


def parser(doc):
    """An argparse parser with the lab's docstring: its first paragraph on top, its 'Try next'
    at the end; what it says of a wrong argument is escaped, as every message is."""
    try_next = doc[doc.find('Try next'):].strip() if 'Try next' in doc else None
    made = argparse.ArgumentParser(prog=f'python3 -m {lab_name()}', description=doc.strip().split('\n\n')[0],
                                   epilog=try_next, formatter_class=argparse.RawDescriptionHelpFormatter)
    return escape_errors(made)


def escape_errors(parser):
    """parser, whose usage errors are its usage, then one line as every lab's mistakes are said
    ('lab.NAME: --merges: ...'), the arguments escaped ('unrecognized arguments: ...' repeats
    them as typed, and a file name matched by data/* may hold an escape sequence)."""
    def error(message):
        parser.print_usage(sys.stderr)
        parser.exit(2, f'{lab_name()}: {shown(message.removeprefix("argument "))}\n')
    parser.error = error
    return parser


def add_file(parser, what):
    """FILE, the text a lab reads: the same name and default in every lab."""
    parser.add_argument('file', nargs='?', type=Path, default=TRAIN, metavar='FILE',
                        help=f'{what} (default: %(default)s)')


def add_tokenizer(parser, what):
    """--tokenizer PATH, the saved tokenizer a lab reads: the same in every lab."""
    parser.add_argument('--tokenizer', type=Path, default=SAVED, metavar='PATH',
                        help=f'{what} (default: %(default)s)')


def add_out(parser, default, what, kind):
    """--out PATH and --force, the file (or folder) a lab writes: the same in every lab that writes."""
    parser.add_argument('--out', type=Path, default=default, metavar='PATH',
                        help=what if default is None else f'{what} (default: %(default)s)')
    parser.add_argument('--force', action='store_true', help=f'replace PATH even if it is not {kind}')


def checked_by(problem_of):
    """An argparse type that takes a value as typed, unless problem_of(value) says what is wrong."""
    def check(text):
        problem = problem_of(text)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return text
    return check


def whole_number(text):
    """An argparse type: a whole number >= 0."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f'{quoted(text, 20)} is not a whole number >= 0')
    return int(text)


def positive(text):
    """An argparse type: a whole number >= 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f'{quoted(text, 20)} is not a whole number >= 1')
    return int(text)


def share(text):
    """An argparse type for --holdout RATE: a number between 0 and 1, both left out. A file
    name there was meant as FILE: an optional RATE would take it, so the message says so."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        after = ' (FILE goes before --holdout)' if os.path.exists(text) else ''
        raise argparse.ArgumentTypeError(f'{quoted(text, 20)} is not a share between 0 and 1, such as 0.1{after}')
    return value


def jobs(text):
    """An argparse type for --jobs: a whole number from 1 to the number of cores (more
    processes than cores only wait for one another, and each one costs memory)."""
    cores = os.cpu_count() or 1
    if not text.isdigit() or not 1 <= int(text) <= cores:
        raise argparse.ArgumentTypeError(f'{quoted(text, 20)} is not a whole number from 1 to {cores}, the cores here')
    return int(text)


def note(message):
    """One line on stderr, escaped, that does not stop the lab."""
    if sys.stderr:
        status()
        print(f'{lab_name()}: {shown(str(message))}', file=sys.stderr)


def fail(message, code=1):
    """Exit with one line on stderr, escaped: a file name may hold anything."""
    sys.exit(say(code, [message]))


class Said(ValueError):
    """A mistake said in several lines (a child's message, passed on as it said it)."""

    def __init__(self, lines):
        super().__init__('; '.join(lines))
        self.lines = lines


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the lab is, so that what it started (processes, files) is put away
    on the way out, as for Ctrl-C (a KeyboardInterrupt: an except Exception does not catch it)."""


def terminated(*_):
    raise Terminated


# punctuation a terminal's encoding may lack (EUC-KR has no em dash), as the ASCII that looks like it
LOOKALIKES = {'\u2014': '-', '\u2013': '-', '\u2212': '-', '\u00b7': '.', '\u2026': '...',
              '\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"', '\u2192': '->'}


def lookalike(error):
    """A codec error handler: a character the terminal lacks as the ASCII it looks like, else as
    an escape (\\uXXXX), so that one dash never turns a Korean screen into English."""
    bad = error.object[error.start:error.end]
    said = ''.join(LOOKALIKES.get(c) or c.encode('ascii', 'backslashreplace').decode() for c in bad)
    return said, error.end


codecs.register_error('lookalike', lookalike)


def run(main):
    """Run a lab's main as a command: a user's mistake (ValueError) is one line and exit 1,
    Ctrl-C one line and exit 130, SIGTERM one line and exit 143, a reader that stops early
    (| head) ends it quietly, and so does a full disk under stdout, in one line. What the
    terminal cannot show (Korean under LC_ALL=C) is written as escapes."""
    if sys.stdout is None:  # started with >&-
        fail('standard output is closed; run it again without >&-')
    for stream in sys.stdout, sys.stderr:
        if stream is not None and hasattr(stream, 'reconfigure'):
            stream.reconfigure(errors='lookalike')
    before = signal.signal(signal.SIGTERM, terminated)
    try:
        main()
        sys.stdout.flush()  # here, where a closed pipe can still be caught
    except (Exception, KeyboardInterrupt) as e:
        ended = ending(e)
        if ended is None:
            raise  # a bug in the lab itself: its traceback is what mends it
        sys.exit(say(*ended))
    finally:
        signal.signal(signal.SIGTERM, before)


def ending(error):
    """(exit status, lines to say, whether stdout is gone) for an error that ends a lab as the
    toolkit ends it: Ctrl-C, SIGTERM, a closed pipe or a full disk under stdout, a bug in the
    learner's tokenizer.py, a mistake in the user's files or arguments (ValueError), memory run
    out. None for anything else: a bug in the lab, which a traceback shows."""
    if isinstance(error, Terminated):
        return 143, ['terminated'], False  # 128 + SIGTERM
    if isinstance(error, KeyboardInterrupt):
        return 130, ['interrupted', *interrupted_in_learners_file(error)], False
    if isinstance(error, BrokenPipeError):
        return 141, [], True  # 128 + SIGPIPE, what a shell shows for a program stopped by a closed pipe
    said = learners_error(error)
    if said:  # what, where, and the tutor; no traceback
        return 1, said, False
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EIO):  # stdout: files say theirs
        return 1, [f'cannot write its output ({error.strerror})'], True
    if isinstance(error, MemoryError):  # before any file is written: each is saved whole, at the end
        return 1, ['ran out of memory: give it a smaller part of the text'], False
    if isinstance(error, Said):
        return 1, error.lines, False
    if isinstance(error, ValueError) and str(error).endswith(f': {TUTOR}'):  # tokenizer.py's to mend:
        return 1, [str(error)[:-len(TUTOR) - 2], SELFCHECK], False  # the tutor on a line of its own
    return (1, [str(error)], False) if isinstance(error, ValueError) else None


def say(code, lines, stdout_gone=False, name=None):
    """Write lines to stderr, each escaped, after the lab's name; returns code, the exit status.
    A message of several lines (a learner's error) is wrapped at 80 columns; a one-line message
    stays one line. When stdout is gone (a closed pipe, a full disk), it is pointed at nothing,
    so that Python's last flush is quiet."""
    if stdout_gone:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if sys.stderr:
        status()  # a line of long work is cleared first: the message starts a line of its own
        name = name or lab_name()
        for line in lines:
            text = shown(str(line))
            print(fill(text, f'{name}: ', '  ') if len(lines) > 1 else f'{name}: {text}', file=sys.stderr)
    return code


def uncaught(name, kind, error, traceback_):
    """sys.excepthook while the lab called name runs: what happens before its main does
    (tokenizer.py, as it is imported, printing into a closed pipe, or raising) ends as anything
    in main does."""
    ended = ending(error)
    if ended is None:
        sys.__excepthook__(kind, error, traceback_)
        return
    code = say(*ended, name=name)
    sys.stderr.flush()
    os._exit(code)  # sys.exit cannot be raised from here


def learners_error(error):
    """The lines that say what an error raised inside tokenizer.py (the file a learner types)
    means, as the tutor says it (lab/learner/explain.py, in English), then the tutor's
    command; None when the error is not the learner's."""
    module = sys.modules.get('tokenizer')
    mine = os.path.realpath(getattr(module, '__file__', None) or 'tokenizer.py')
    unreadable = isinstance(error, (SyntaxError, ValueError)) and 'null bytes' in str(error)
    if unreadable and 'tokenizer' not in sys.modules:  # Python cannot read it, nor says where
        return ['tokenizer.py holds a NUL character (\\x00), which Python cannot read: delete it', SELFCHECK]
    if isinstance(error, ImportError) and error.name == 'tokenizer':
        lacking = re.match(r"cannot import name '(\w+)'", str(error))
        part = {'merge': 1, 'BPE': 2}.get(lacking.group(1)) if lacking else None
        if part:  # typed part by part: what the lab needs comes later
            return [f'tokenizer.py has no {lacking.group(1)} yet: the lesson types it in part {part}',
                    SELFCHECK]
        return [f'tokenizer.py cannot be imported ({error})', SELFCHECK]
    if not (isinstance(error, SyntaxError) and os.path.realpath(error.filename or '') == mine):
        frames = traceback.extract_tb(error.__traceback__)
        last = frames[-1] if frames else None
        if last and os.path.realpath(last.filename) == mine and (last.line or '').startswith('raise'):
            return None  # raised on purpose: a check in tokenizer.py refusing bad input, one line as any
        learners = False
        for frame in frames:
            path = os.path.realpath(frame.filename)
            if path == mine:
                learners = True
            elif learners and path.startswith(str(ROOT / 'lab') + os.sep):
                learners = False  # tokenizer.py called back into a lab: the error is the lab's
        if not (learners or calls_the_lesson_wrongly(error)):
            return None
    try:
        source = Path(mine).read_text(encoding='utf-8', errors='replace')
    except OSError:
        source = ''
    words = catalogs.catalog('en')
    return [catalogs.render(words, key, dict(fields, file='tokenizer.py'))
            for key, fields in explain.explain(error, mine, source) if key != 'look'] + [SELFCHECK]


def interrupted_in_learners_file(error):
    """Where in tokenizer.py Ctrl-C found it (a lab that waits on a loop that never ends is
    stopped so), each function it was in, and the tutor's command; nothing when it was elsewhere."""
    module = sys.modules.get('tokenizer')
    mine = os.path.realpath(getattr(module, '__file__', None) or 'tokenizer.py')
    def stopped_in(frame):  # a function of the file, or a loop at its top level (not a comprehension)
        at_top = frame.name == '<module>' and (frame.line or '').startswith(('while', 'for'))
        return os.path.realpath(frame.filename) == mine and frame.lineno and (at_top or frame.name[0] != '<')
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if stopped_in(frame)]
    if not frames:
        return []
    places = ', then '.join(f'line {frame.lineno} ' + ('at the top level' if frame.name == '<module>' else
                                                       f'in {frame.name}') for frame in frames[-3:])
    which = 'does that loop end?' if len(frames) == 1 else 'does each of these loops end?'
    return [f'it was in tokenizer.py, {places}: {which}', SELFCHECK]


def raised_in_learners_file(error):
    """Whether error was raised by a line of tokenizer.py (a check of its own, or a raise at
    import): then it is tokenizer.py's to say, not a file's."""
    module = sys.modules.get('tokenizer')
    mine = os.path.realpath(getattr(module, '__file__', None) or 'tokenizer.py')
    if isinstance(error, NotTheLessons):
        return True
    frames = traceback.extract_tb(error.__traceback__)
    return any(os.path.realpath(frame.filename) == mine for frame in frames)


def calls_the_lesson_wrongly(error):
    """Whether error is a lab calling tokenizer.py's BPE or merge as the lesson does, and finding
    them otherwise: a method not typed yet (or typed outside the class), a @classmethod left out."""
    if 'tokenizer' not in sys.modules or not isinstance(error, (AttributeError, TypeError)):
        return False
    lacking = explain.NO_ATTRIBUTE.match(str(error))
    if lacking:
        return lacking.group(1) in [*explain.METHODS, *explain.ATTRIBUTES]  # a lab's own slip is its own
    frames = traceback.extract_tb(error.__traceback__)
    line = frames[-1].line or '' if frames else ''
    calling = re.search(r'\bBPE\.train\(|\btok\.(encode|decode|state|vocab|merges|chars)\b', line)
    if calling and re.search(r"'(NoneType|tuple|list|dict|str|int)' object|type 'NoneType'", str(error)):
        return True  # what train or encode gave back, used where the lesson's would be: None, a tuple
    called = re.match(r'(?:BPE\.)?(\w+)\(\) ', str(error))  # 'BPE.train() missing...', before 3.10 'train()'
    lessons = [*explain.METHODS, 'BPE', 'merge']
    return isinstance(error, TypeError) and bool(called) and called.group(1) in lessons


if lab_name().startswith('lab.'):  # a lab runs: what tokenizer.py does as it is imported ends as main would
    sys.excepthook = functools.partial(uncaught, lab_name())  # named now: runpy may put back __main__
    if threading.current_thread() is threading.main_thread():  # SIGTERM too, before run() sets it again
        signal.signal(signal.SIGTERM, terminated)

if __name__ == '__main__':
    sys.exit("lab.common is the labs' plumbing, not a lab: try python3 -m lab.bpe_trace")
