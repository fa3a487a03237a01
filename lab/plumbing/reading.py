"""Reading a file the way the lesson's code reads it, and JSON strictly: a one-line error for
each way a file can be wrong, and a text too large for the memory refused before it is read."""
import json
import os
import stat
from collections import Counter
from pathlib import Path

from lab.plumbing import cli, locations, measures, terminal

# Memory a lab may need for each byte of text it reads: byte_bpe, the hungriest, peaked at
# about 80 on a 1.1 MB novel (lab.fast_bpe at 22, measured with lab.speed on 12 MB).
MEMORY_PER_TEXT_BYTE = 100
A_TEXT_FILE = 'give a UTF-8 text file'


def read_bytes(path, fix, limit=None):
    """The bytes of a regular file, at most limit of them; ValueError for anything else."""
    say, fix = cli.message, cli.phrase(fix)  # in the lab's language
    try:
        if os.path.isdir(path):
            raise ValueError(say('reading.folder', path=path, fix=fix))
        # opened without waiting (a pipe with no writer would wait for ever), then looked at
        # through what was opened: what the name points to cannot change in between
        with open(os.open(path, os.O_RDONLY | getattr(os, 'O_NONBLOCK', 0)), 'rb') as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # a device or a pipe may never end
                raise ValueError(say('reading.not_regular', path=path, fix=fix))
            data = f.read(-1 if limit is None else limit + 1)
    except FileNotFoundError:
        raise ValueError(say('reading.missing', path=path, fix=fix)) from None
    except OSError as e:
        raise ValueError(say('reading.cannot', path=path, why=cli.os_error(e), fix=fix)) from None
    if limit is not None and len(data) > limit:
        raise ValueError(say('reading.too_large', path=path, limit=f'{limit:,}', fix=fix))
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


def _memory_bytes():
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


def _refuse_what_cannot_fit(path):
    """ValueError, before a byte is read, for a text the labs would need more
    memory for than there is."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return  # read_bytes says what is wrong
    memory = _memory_bytes()
    if memory and size * MEMORY_PER_TEXT_BYTE > memory:
        # the labs need about that much for each byte
        most = memory // MEMORY_PER_TEXT_BYTE // 2**20
        raise ValueError(cli.message('reading.too_large_for_memory', path=path,
                                     size=f'{size / 2**20:,.0f}',
                                     memory=f'{memory / 2**30:,.1f}', most=f'{most:,}'))


def read_text(path, fix=A_TEXT_FILE, limit=None):
    """The text of a file as the lesson's Path.read_text() gives it: UTF-8, with '\\r\\n'
    and a lone '\\r' turned into '\\n'. A byte order mark is left out, as tokenizer.py does.
    Without a limit, a text larger than the memory can hold is refused before it is read."""
    if limit is None:
        _refuse_what_cannot_fit(path)
    data = read_bytes(path, fix, limit)
    try:
        text = data.decode('utf-8-sig')
    except UnicodeDecodeError as e:
        # e.object: the bytes after a byte order mark, as e.start counts
        line, byte = e.object.count(b'\n', 0, e.start) + 1, e.object[e.start]
        if _is_cp949_korean(data):
            name = Path(path).name
            convert = f'iconv -f cp949 -t utf-8 {name} > {Path(name).stem}-utf8.txt'
            raise ValueError(cli.message('reading.cp949', path=path, convert=convert)) from None
        said = cli.message('reading.not_utf8', path=path, byte=f'0x{byte:02x}', line=line)
        raise ValueError(said) from None
    if not text:  # a byte order mark alone (Notepad's empty "UTF-8 with BOM") is empty too
        raise ValueError(cli.message('reading.empty', path=path, fix=cli.phrase(fix)))
    # what most texts lack (NUL, '\r') looked for once, before it is counted or replaced
    if '\x00' in text:
        # UTF-16 as UTF-8: NUL by each letter
        if '\x00' * 2 in text or text.count('\x00') * 4 > len(text):
            raise ValueError(cli.message('reading.utf16', path=path))
        # a stray one: no text file means it, and the labs would show it as \x00
        line = text.count('\n', 0, text.index('\x00')) + 1
        raise ValueError(cli.message('reading.nul', path=path, line=f'{line:,}'))
    return text.replace('\r\n', '\n').replace('\r', '\n') if '\r' in text else text


def _is_cp949_korean(data):
    """Whether bytes that are not UTF-8 read as CP949 (Windows' Korean, a superset of EUC-KR)
    with Hangul in them: then that is almost surely what they are."""
    try:
        return bool(measures.HANGUL.search(data.decode('cp949')))
    except UnicodeDecodeError:
        return False


# what Python's json says, said in the reader's words (a trailing comma, 'single quotes')
JSON_SAYS = {'Expecting property name enclosed in double quotes': 'json.key',
             'Expecting value': 'json.value', "Expecting ',' delimiter": 'json.comma',
             "Expecting ':' delimiter": 'json.colon', 'Extra data': 'json.extra',
             'Unterminated string starting at': 'json.string'}


def strict_json(text):
    """json.loads, refusing what no writer of ours makes: a key twice, a number of more
    than 18 digits, NaN or Infinity. ValueError or RecursionError (too deeply nested)."""
    def once(pairs):
        if len({key for key, _ in pairs}) < len(pairs):
            key = next(k for k, n in Counter(key for key, _ in pairs).items() if n > 1)
            raise ValueError(cli.message('reading.json_twice', key=terminal.quoted(key, 30)))
        return dict(pairs)

    def whole(digits):
        if len(digits.lstrip('-')) > 18:
            raise ValueError(cli.message('reading.json_digits',
                                         digits=f'{len(digits.lstrip("-")):,}'))
        return int(digits)

    def refuse(name):
        raise ValueError(cli.message('reading.json_constant', name=name))
    return json.loads(text, object_pairs_hook=once, parse_int=whole, parse_constant=refuse)


def json_problem(error):
    """What is wrong with JSON that strict_json raised error on, in the lab's language: where
    Python's json stopped and what that means (its own words are a parser's), or
    strict_json's own words."""
    if isinstance(error, RecursionError):
        return cli.message('reading.json_deep')
    if isinstance(error, json.JSONDecodeError):
        return cli.message('reading.json_at', line=error.lineno, column=error.colno,
                           what=cli.message(JSON_SAYS.get(error.msg, 'json.other')))
    return str(error)


def read_json(path, fix, limit=locations.TOKENIZER_LIMIT):
    """The parsed JSON of a file; ValueError names the file and the fix when
    it is not sound JSON."""
    text = read_text(path, fix, limit)
    try:
        return strict_json(text)
    except (RecursionError, ValueError) as e:
        why = json_problem(e)
    raise ValueError(cli.message('reading.not_json', path=path, why=why, fix=cli.phrase(fix)))


def read_merge_count(path=locations.SETTINGS):
    """The "merges" of settings.json, a whole number >= 0."""
    fix = 'write {"merges": 12} in it'  # a phrase of the catalogs
    settings = read_json(path, fix, locations.SETTINGS_LIMIT)
    count = settings.get('merges') if isinstance(settings, dict) else None
    if type(count) is not int or count < 0:  # refuses "12", -1, 1.5 and true
        raise ValueError(cli.message('reading.merges', path=path))
    return count
