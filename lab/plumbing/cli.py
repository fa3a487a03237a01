"""A lab as a command: its --help from its docstring, the arguments every lab shares, one-line
errors in place of tracebacks, Ctrl-C, SIGTERM and a closed pipe handled (run), and notes on
stderr. An error raised inside tokenizer.py is said as the learner's (lab/learner/errors.py)."""
import argparse
import codecs
import copy
import errno
import functools
import math
import os
import signal
import sys
import threading
from pathlib import Path

from lab.learner import catalogs, errors
from lab.plumbing import locations, measures, terminal


def say_if_read_otherwise(path):
    """One line on stderr when read_text did not keep the bytes of the file: '\\r\\n' or a lone
    '\\r' read as '\\n', a byte order mark left out. What is trained or prepared never sees them,
    and a byte-level tokenizer spends a token more a line on the file as it is."""
    with open(path, 'rb') as file:
        data = file.read()
    ends = []
    if b'\r' in data:  # most files have none: one look, not three counts of 16 MB
        crlf = data.count(b'\r\n')
        ends = [f'{n:,} {name}' for name, n in [('\\r\\n', crlf), ('\\r', data.count(b'\r') - crlf)]
                if n]
    changed = [message('cli.read_as_newline', ends=", ".join(ends))] if ends else []
    if data.startswith(codecs.BOM_UTF8):
        changed.append(message('cli.bom_left_out'))
    if changed:  # 80 columns: the name clipped, lab.prepare: in front
        _note(f'{terminal.clip(terminal.shown(Path(path).name), 20)}: {", ".join(changed)}')


def say_if_not_nfc(text, path):
    """One line on stderr when text is not in NFC: nothing is normalized silently, and a
    tokenizer trained on NFD Korean turns the same words typed in NFC into unknowns."""
    found = measures.not_nfc(text)
    if found:
        _note(message('cli.not_nfc', n=f'{found[0]:,}', path=path))


def _lab_name():
    """'lab.NAME' of the lab that python3 -m runs."""
    spec = getattr(sys.modules['__main__'], '__spec__', None)
    return spec.name.removesuffix('.__main__') if spec else 'lab'


def parser(doc):
    """An argparse parser with the lab's docstring: its first paragraph on top, its 'Try next'
    at the end; what it says of a wrong argument is escaped, as every message is. It speaks the
    learner's language as the tutor does (--lang, else the locale): argparse's own words (usage,
    its errors) come from the catalogs."""
    lang, words = speak(catalogs.language(sys.argv[1:], os.environ))
    try_next = doc[doc.find('Try next'):].strip() if 'Try next' in doc else None
    about = doc.strip().split('\n\n')[0]
    # what the lab shows and what to try next, in the learner's words, within 80 columns
    if lang != 'en':
        name = _lab_name().removeprefix('lab.')
        about = terminal.fill(words.get(f'about.{name}', about))
        try_next = _refilled(words.get(f'next.{name}', try_next))
    # argparse wraps by characters: a word of Hangul (사용법:) is twice as wide as it counts
    wide = terminal.width(argparse._('usage: ')) - len(argparse._('usage: '))
    formatter = functools.partial(_Formatter, width=78 - wide)
    # allow_abbrev: --la ko would be --lang to argparse, and no language to the catalogs
    made = argparse.ArgumentParser(prog=f'python3 -m {_lab_name()}', description=about,
                                   epilog=try_next, formatter_class=formatter, allow_abbrev=False)
    made.add_argument('--lang', type=catalogs.language_code, choices=catalogs.languages(),
                      metavar='LANG',
                      help=argparse._("the language to speak: ko or en (default: the locale's)"))
    return _escape_errors(made)


def _refilled(text):
    """text with each run of lines of prose filled within 80 columns (Hangul counts two), its
    indented lines (commands to type) as they are."""
    lines, prose = [], []
    # an indented line at the end: the last prose is filled
    for line in text.split('\n') + ['    ']:
        if line.startswith('    '):
            if prose:
                lines += terminal.fill(' '.join(prose)).split('\n')
                prose = []
            lines.append(line)
        else:
            prose.append(line.strip())
    return '\n'.join(lines[:-1])


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help, each argument's help in the lab's language: its English text is the key
    ('help.TEXT') in the catalogs, as gettext looks up a message by its text."""

    # by the columns shown, as terminal.fill wraps: Hangul takes two
    def _split_lines(self, text, width):
        return terminal.fill(' '.join(text.split()), columns=width).split('\n')

    def _expand_help(self, action):
        said = (_SPOKEN.get('words') or {}).get(f'help.{action.help}') if action.help else None
        return super()._expand_help(action if said is None else _with_help(action, said))


def _with_help(action, text):
    action = copy.copy(action)
    action.help = text
    return action


def speak(lang):
    """argparse's own words in lang (where the terminal can show them, else English): its
    gettext lookups answered from the catalogs' 'argparse.' messages: (the language, its words).
    The lab's own lines (message()) are said in the same words from then on."""
    words = catalogs.catalog(lang)
    # a dash EUC-KR lacks is written as a lookalike (run)
    if not catalogs.can_show(words, sys.stdout):
        lang, words = 'en', catalogs.catalog('en')
    argparse._ = lambda text: words.get(f'argparse.{text}', text)
    argparse.ngettext = lambda one, many, n: argparse._(one if n == 1 else many)
    _SPOKEN.update(words=words, lang=lang)
    return lang, words


_SPOKEN = {}  # the catalog the running lab speaks from: set by speak(), which parser() calls


def phrase(text):
    """An English phrase of the library's (how documents were cut, say) in the lab's language,
    where the catalogs have it as 'phrase.TEXT'; else as it is."""
    return (_SPOKEN.get('words') or {}).get(f'phrase.{text}', text)


def language():
    """The language the running lab speaks ('en' before its parser is made): what its child
    processes are told with --lang."""
    return _SPOKEN.get('lang', 'en')


# the OSErrors a lab meets, by errno: said from the catalogs (the C library speaks its own locale)
OS_ERRORS = {errno.ENOENT: 'os.ENOENT', errno.EACCES: 'os.EACCES', errno.EPERM: 'os.EPERM',
             errno.EROFS: 'os.EROFS', errno.ENOTDIR: 'os.ENOTDIR', errno.EISDIR: 'os.EISDIR',
             errno.ENOSPC: 'os.ENOSPC', errno.EEXIST: 'os.EEXIST', errno.EAGAIN: 'os.EAGAIN',
             errno.ENOMEM: 'os.ENOMEM', errno.EIO: 'os.EIO', errno.ENAMETOOLONG: 'os.ENAMETOOLONG'}


def os_error(error):
    """Why an OSError happened, in the lab's language (the C library's words for one the catalogs
    do not have)."""
    key = OS_ERRORS.get(getattr(error, 'errno', None))
    return message(key) if key else (getattr(error, 'strerror', None) or str(error))


def _words():
    """The catalog the running lab speaks from, or None before its parser is made."""
    return _SPOKEN.get('words')


def message(key, /, **fields):
    """One of the lab's lines for people (its output, a one-line error) in the language its
    parser chose (--lang, else the locale), from lab/locale/: key's text with the fields in.
    English until a parser is made (a lab's function called from Python)."""
    words = _SPOKEN.get('words') or catalogs.catalog('en')
    return catalogs.render(words, key, {name: str(value) for name, value in fields.items()})


def _escape_errors(parser):
    """parser, whose usage errors are its usage, then one line as every lab's mistakes are said
    ('lab.NAME: --merges: ...'), the arguments escaped ('unrecognized arguments: ...' repeats
    them as typed, and a file name matched by data/* may hold an escape sequence)."""
    def error(message):
        parser.print_usage(sys.stderr)
        said = f'{_lab_name()}: {terminal.shown(message.removeprefix("argument "))}'
        parser.exit(2, terminal.fill(said, '', '  ') + '\n')  # 80 columns, a line of its own
    parser.error = error
    return parser


def add_file(parser, what):
    """FILE, the text a lab reads: the same name and default in every lab."""
    parser.add_argument('file', nargs='?', type=Path, default=locations.TRAIN, metavar='FILE',
                        help=f'{what} (default: %(default)s)')


def add_tokenizer(parser, what):
    """--tokenizer PATH, the saved tokenizer a lab reads: the same in every lab."""
    parser.add_argument('--tokenizer', type=Path, default=locations.SAVED, metavar='PATH',
                        help=f'{what} (default: %(default)s)')


def add_out(parser, default, what, kind):
    """--out PATH and --force, the file (or folder) a lab writes: the same in
    every lab that writes."""
    parser.add_argument('--out', type=Path, default=default, metavar='PATH',
                        help=what if default is None else f'{what} (default: %(default)s)')
    parser.add_argument('--force', action='store_true',
                        help=f'replace PATH even if it is not {kind}')


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
        raise argparse.ArgumentTypeError(message('cli.not_whole', text=terminal.quoted(text, 20),
                                                 least=0))
    return int(text)


def integer(text):
    """An argparse type: a whole number, negative too (a seed)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(message('cli.not_integer',
                                                 text=terminal.quoted(text, 20))) from None


def positive(text):
    """An argparse type: a whole number >= 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(message('cli.not_whole', text=terminal.quoted(text, 20),
                                                 least=1))
    return int(text)


def share(text):
    """An argparse type for --holdout RATE: a number between 0 and 1, both left out. A file
    name there was meant as FILE: an optional RATE would take it, so the message says so."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value < 1:
        after = message('cli.file_first') if os.path.exists(text) else ''
        said = message('cli.not_share', text=terminal.quoted(text, 20), after=after)
        raise argparse.ArgumentTypeError(said)
    return value


def jobs(text):
    """An argparse type for --jobs: a whole number from 1 to the number of cores (more
    processes than cores only wait for one another, and each one costs memory)."""
    cores = os.cpu_count() or 1
    if not text.isdigit() or not 1 <= int(text) <= cores:
        said = message('cli.not_jobs', text=terminal.quoted(text, 20), cores=cores)
        raise argparse.ArgumentTypeError(said)
    return int(text)


def _note(message):
    """One line on stderr, escaped, that does not stop the lab."""
    if sys.stderr:
        terminal.status()
        print(f'{_lab_name()}: {terminal.shown(str(message))}', file=sys.stderr)


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


def run(main):
    """Run a lab's main as a command: a user's mistake (ValueError) is one line and exit 1,
    Ctrl-C one line and exit 130, SIGTERM one line and exit 143, a reader that stops early
    (| head) ends it quietly, and so does a full disk under stdout, in one line. What the
    terminal cannot show (Korean under LC_ALL=C) is written as escapes."""
    # started with >&-, before the lab's parser chose a language: chosen here
    if sys.stdout is None:
        speak(catalogs.language(sys.argv[1:], os.environ))
        fail(message('cli.stdout_closed'))
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
        return 143, [message('cli.terminated')], False  # 128 + SIGTERM
    if isinstance(error, KeyboardInterrupt):
        return 130, [message('cli.interrupted'),
                     *errors.interrupted_in_learners_file(error, _words())], False
    if isinstance(error, BrokenPipeError):
        # 128 + SIGPIPE, what a shell shows for a program stopped by a closed pipe
        return 141, [], True
    said = errors.learners_error(error, _words())
    if said:  # what, where, and the tutor; no traceback
        return 1, said, False
    # a disk full or failing under stdout (a file the lab writes says its own error)
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EIO):
        return 1, [message('cli.cannot_write', why=os_error(error))], True
    # before any file is written: each is saved whole, at the end
    if isinstance(error, MemoryError):
        return 1, [message('cli.memory')], False
    if isinstance(error, Said):
        return 1, error.lines, False
    # said below the catalogs, in English: here in the lab's
    if isinstance(error, measures.TooFewLines):
        return 1, [message('measures.two_lines')], False
    tutor = locations.TUTOR
    if isinstance(error, ValueError) and str(error).endswith(f': {tutor}'):
        # tokenizer.py's to mend: the tutor on a line of its own
        return 1, [str(error)[:-len(tutor) - 2], message('errors.selfcheck')], False
    return (1, [str(error)], False) if isinstance(error, ValueError) else None


def say(code, lines, stdout_gone=False, name=None):
    """Write lines to stderr, each escaped, after the lab's name; returns code, the exit status.
    Each message is wrapped at 80 columns (Hangul two each), the lines after its first indented:
    a long path or a Korean sentence stays on the screen. When stdout is gone (a closed pipe, a
    full disk), it is pointed at nothing, so that Python's last flush is quiet."""
    if stdout_gone:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if sys.stderr:
        # a line of long work is cleared first: the message starts a line of its own
        terminal.status()
        name = name or _lab_name()
        for line in lines:
            print(terminal.fill(terminal.shown(str(line)), f'{name}: ', '  '), file=sys.stderr)
    return code


def _uncaught(name, kind, error, traceback_):
    """sys.excepthook while the lab called name runs: what happens before its main does
    (tokenizer.py, as it is imported, printing into a closed pipe, or raising) ends as anything
    in main does, in the language the lab would speak (its parser is not made yet)."""
    if not _SPOKEN:
        speak(catalogs.language(sys.argv[1:], os.environ))
    ended = ending(error)
    if ended is None:
        sys.__excepthook__(kind, error, traceback_)
        return
    code = say(*ended, name=name)
    sys.stderr.flush()
    os._exit(code)  # sys.exit cannot be raised from here


# a lab runs: what tokenizer.py does as it is imported ends as main would
if _lab_name().startswith('lab.'):
    # named now: runpy may put back __main__
    sys.excepthook = functools.partial(_uncaught, _lab_name())
    # SIGTERM too, before run() sets it again
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminated)
