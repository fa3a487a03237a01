"""python3 -m lab.selfcheck [FILE] [--watch] [--lang LANG]: the tutor's command line.

Everything it says is in the learner's language, its own mistakes included: the language
is chosen first (--lang, else the locale as gettext reads it), then the arguments are read
by hand, so that an unknown one, --help and Ctrl-C speak that language too. A terminal that
cannot show Korean gets English, with one line that says why.
"""
import os
import shutil
import signal
import sys
import time
from pathlib import Path

# python3 lab/selfcheck/__main__.py, or python3 -m selfcheck in lab/
if __package__ != 'lab.selfcheck':
    sys.exit(f'run the tutor from the project folder ({Path(__file__).resolve().parents[2]}) as: '
             'python3 -m lab.selfcheck')

from lab.learner import catalogs
from lab.plumbing import cli, terminal
from lab.selfcheck import check, report, rules, runner

DEFAULT_FILE = Path('tokenizer.py')  # in the folder it runs in, as every lab's files


def arguments(argv, words):
    """(FILE, watch, help) from argv; ValueError in the learner's words for anything else."""
    files, watch, shown_help, skip = [], False, False, False
    for n, arg in enumerate(argv):
        if skip:
            skip = False
        elif arg in ('-h', '--help'):
            shown_help = True
        elif arg == '--watch':
            watch = True
        elif arg == '--lang' or arg.startswith('--lang='):
            value = (arg.split('=', 1)[1] if '=' in arg else
                     argv[n + 1] if n + 1 < len(argv) else None)
            skip = '=' not in arg
            if value is None or catalogs.language_code(value) not in catalogs.languages():
                langs = ', '.join(catalogs.languages())
                raise ValueError(catalogs.render(words, 'bad_lang', {'langs': langs}))
        elif arg.startswith('-') and arg != '-' or files:
            raise ValueError(catalogs.render(words, 'bad_argument', {'arg': arg}))
        else:
            files.append(arg)
    return Path(files[0]) if files else DEFAULT_FILE, watch, shown_help


def run_once(path, words, shown_file, height=None):
    """Check the file once and print the report (cut to height lines, for a screen drawn anew)."""
    lines, status = report.report(words, check.check(path), shown_file)
    print('\n'.join(report.fit(words, lines, height) if height else lines), flush=True)
    return status


def watch(path, words, shown_file):
    """Check again each time a file the tutor checks is saved (the file, and the lesson's three labs
    in lab/ beside it), until Ctrl-C: on a terminal the screen is drawn anew, elsewhere each run
    is printed once."""
    seen = None
    while True:
        now = saved(watched(path))
        if now != seen:
            seen = now
            height = None
            if sys.stdout.isatty():
                print('\x1b[H\x1b[2J', end='')  # to the top left, then clear the screen
                height = shutil.get_terminal_size().lines - 2  # the watching line, and the cursor's
            try:
                run_once(path, words, shown_file, height)
            except check.Unreadable as e:  # a file being saved may be empty or missing for a moment
                print(terminal.shown(catalogs.render(words, *e.args[0])), flush=True)
            print(words['watching'], flush=True)
        # five times a second: a save feels answered at once, and a stat costs nothing
        time.sleep(0.2)


def watched(path):
    """The files whose saving --watch answers: the file to check, and the lesson's three labs."""
    folder = Path(path).parent
    return [Path(path), *(folder / 'lab' / f'{lab}.py' for lab in rules.LABS.values())]


def saved(paths):
    """When and how large each of paths was last saved (None for one that is not there)."""
    found = []
    for path in paths:
        try:
            info = os.stat(path)
            found.append((info.st_mtime_ns, info.st_size))
        except OSError:
            found.append(None)
    return found


def stop(error):
    """A signal handler that kills the children first, wherever the tutor is (waiting on one
    of them, or between two), then raises error: Ctrl-C or SIGTERM ends it at once."""
    def handler(*_):
        runner.kill_all()
        raise error
    return handler


def main():
    argv = sys.argv[1:]
    lang = catalogs.language(argv, os.environ)
    words = catalogs.catalog(lang)
    if lang != 'en' and not catalogs.can_show(words, sys.stdout):
        words = catalogs.catalog('en')  # and said in English, which it can show
        print(words['no_hangul'].format(encoding=sys.stdout.encoding))
    try:
        path, watching, shown_help = arguments(argv, words)
    except ValueError as e:
        print(f'python3 -m lab.selfcheck: {terminal.shown(str(e))}', file=sys.stderr)
        print(words['usage'], file=sys.stderr)
        sys.exit(2)
    if shown_help:
        print(words['help'])
        return
    shown_file = terminal.shown(path.name)
    signal.signal(signal.SIGTERM, stop(cli.Terminated))
    signal.signal(signal.SIGINT, stop(KeyboardInterrupt))
    try:
        if watching:
            watch(path, words, shown_file)
        status = run_once(path, words, shown_file)
    except check.Unreadable as e:
        cli.fail(catalogs.render(words, *e.args[0]))
    except runner.NoChild:
        cli.fail(words['no_child'])
    except cli.Terminated:
        cli.fail(words['terminated'], 143)  # 128 + SIGTERM, as every lab ends
    except KeyboardInterrupt:
        cli.fail(words['interrupted'], 130)
    if status:
        sys.exit(status)


if __name__ == '__main__':
    cli.run(main)
