"""The labs as one toolkit: every lab passes the same table of checks.

--help (exit 0, defaults as the user types them), output within 80 columns, a reader
that stops early (| head -1), Ctrl-C, a terminal that cannot show Korean, and a
training file full of escape sequences: the same behaviour in every lab.
"""
import ast
import concurrent.futures
import contextlib
import errno
import importlib
import io
import os
import random
import signal
import subprocess
import sys
import time
import unittest
from collections import Counter
from unittest import mock

from lab.contract import lessons
from lab.kinds import CharBPE
from lab.learner import catalogs
from lab.plumbing import cli, measures, terminal
from tests.project import (
    ENGLISH,
    LABS,
    PARTS,
    READS_TEXT,
    ROOT,
    TAKES,
    as_a_terminal_starts_it,
    copy_project,
    english_sentences,
    lab_files,
    messages,
    ours_on_path,
    run_inside,
    trained,
)

# The lesson's three labs, as a learner types them, have no --help, no Ctrl-C message: their
# toolkit checks are in tests/test_beyond_lesson.py, which skips when they are a learner's.
LESSON_LABS = ['bpe_trace', 'token_count', 'unknown']
SLOW = {'speed': ['--merges', '50']}  # the benchmark's defaults are for books
# escape sequences that clear the screen, set the window title, ring the bell, and reorder text
HOSTILE = ('Q: \x1b[2J\x1b[H hi \x1b]0;owned\x07 there\n'
           'A: \u202eevil\u202c \x9b31m red \x1b[31m red\n') * 6




def lab_args(name):
    return ['-m', f'lab.{name}', *SLOW.get(name, [])]


def on_a_terminal(root, name, *args):
    """(exit status, what it wrote to stderr) of python3 -m lab.NAME with stderr a terminal."""
    leader, follower = os.openpty()
    done = subprocess.run([sys.executable, '-m', f'lab.{name}', *args], cwd=root,
                          stdout=subprocess.PIPE,
                          stderr=follower, timeout=60, env=ours_on_path(ENGLISH))
    os.close(follower)
    seen = os.read(leader, 65536)
    os.close(leader)
    return done.returncode, seen


def for_every_lab(work, labs=LABS):
    """work(name) for every lab, four at a time (most of it is waiting for a process)."""
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        return dict(zip(labs, pool.map(work, labs)))


class EveryLabTest(unittest.TestCase):
    labs = [name for name in LABS if name not in LESSON_LABS]
    # run in a process of its own: one lab stands for the rest (cli.run is theirs)
    at_exit = ['show']

    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)
        trained(cls.root)
        assert run_inside(cls.root, 'export_hf')[0] == 0  # what lab.import_hf reads by default

    def test_help_exits_0_and_shows_defaults_as_typed(self):
        for name in self.labs:
            with self.subTest(name):
                code, out, err = run_inside(self.root, name, '--help')
                self.assertEqual(code, 0, err)
                self.assertIn(f'usage: python3 -m lab.{name}', out)
                self.assertNotIn(str(ROOT), out)  # defaults as typed, not absolute paths
                self.assertIn('Try next', out)
                # Hangul is 2 wide
                self.assertLessEqual(max(map(terminal.width, out.splitlines())), 80)

    def test_each_lab_takes_the_shared_arguments_listed_for_it_and_no_others(self):
        for name in self.labs:
            code, out, err = run_inside(self.root, name, '--help')
            usage = out[:out.index('\n\n')]  # the usage lines name every argument
            for argument, labs in TAKES.items():
                # the file it checks
                listed = name in labs or (name, argument) == ('selfcheck', 'FILE')
                with self.subTest(name, argument=argument):
                    self.assertEqual(argument in usage, listed, usage)

    def test_help_and_usage_errors_speak_korean_on_a_korean_locale_or_with_lang_ko(self):
        korean = {'LANG': 'ko_KR.UTF-8'}
        for name in self.labs:
            if name == 'selfcheck':  # the tutor's own command line: tests/test_selfcheck.py
                continue
            with self.subTest(name):
                code, out, _ = run_inside(self.root, name, '--help', env=korean)
                self.assertTrue(out.startswith('사용법: '), out[:40])
                self.assertIn('이 도움말을 보여 주고 끝냅니다', out)
                about = out.split('\n\n')[1]  # what the lab shows: its first paragraph, in Korean
                self.assertTrue(measures.HANGUL.search(about), about)
                self.assertEqual([line for line in out.splitlines() if terminal.width(line) > 80],
                                 [])
                self.assertIn('usage: ',
                              run_inside(self.root, name, '--help', '--lang', 'en', env=korean)[1])
                code, _, err = run_inside(self.root, name, '--lang', 'ko', '--no-such-option')
                self.assertEqual(code, 2)
                self.assertIn('알 수 없는 인자입니다: --no-such-option', err)

    def test_an_unknown_option_is_a_usage_error(self):
        for name in self.labs:
            with self.subTest(name):
                code, out, err = run_inside(self.root, name, '--no-such-option')
                self.assertEqual(code, 2)
                self.assertIn('unrecognized arguments: --no-such-option', err)

    def test_help_shows_the_whole_first_paragraph_of_the_docstring(self):
        for name in self.labs:
            with self.subTest(name):
                doc = importlib.import_module(f'lab.{name}').__doc__
                first = ' '.join(doc.strip().split('\n\n')[0].split())
                code, out, err = run_inside(self.root, name, '--help')
                self.assertIn(first, ' '.join(out.split()))

    def test_a_wrong_argument_is_shown_escaped(self):
        for name in self.labs:
            with self.subTest(name):
                code, out, err = run_inside(self.root, name, '--no-\x1b]0;owned\x07')
                self.assertEqual(code, 2)
                self.assertNotIn('\x1b', err)
                self.assertIn('\\x1b', err)

    def test_default_output_fits_80_columns(self):
        for name in self.labs:
            for extra in ([], ['data/mixed.txt']) if name in READS_TEXT else ([],):
                with self.subTest(name, file=extra):
                    code, out, err = run_inside(self.root, name, *SLOW.get(name, []), *extra)
                    # 1: audit and normalize fail their gates on mixed.txt
                    self.assertIn(code, (0, 1), err)
                    self.assertTrue(out)
                    wide = [line for line in (out + err).splitlines() if terminal.width(line) > 80]
                    self.assertEqual(wide, [])

    def test_output_fits_80_columns_with_figures_of_ten_digits_too(self):
        # what a large text gives (figures the defaults never show), without encoding one:
        # compression's table holds the most figures of all the labs
        from lab import compression
        tok = CharBPE.train('ab ab', 1)

        def huge(tok, encode, lines):
            return {'lines': 9_876_543_210, 'chars': 9_876_543_210, 'tokens': 1_234_567_890,
                    'per_line': [123_456, 9_876_543], 'bytes': 29_876_543_210,
                    'unknown': Counter(a=3)}
        out = io.StringIO()
        with mock.patch.object(lessons, 'count_lines', huge), contextlib.redirect_stdout(out):
            compression.report(tok,
                               [('a name long enough to be cut.txt', 'Q: a\nA: b\ndef f():\n')])
        self.assertIn('9.88G', out.getvalue())
        self.assertIn('  8.00  ', out.getvalue())  # chars per token, from the same figures
        self.assertIn('M, G: millions, billions', out.getvalue())
        self.assertEqual([line for line in out.getvalue().splitlines()
                          if terminal.width(line) > 80], [])

    def test_a_reader_that_stops_early_gets_no_traceback(self):
        for name in self.labs:
            with self.subTest(name):
                code, _, err = run_inside(self.root, name, *SLOW.get(name, []), reader_gone=True)
                self.assertIn(code, (0, 141))
                self.assertEqual(err, '')

    def test_a_reader_that_stops_early_gets_no_traceback_from_python_at_exit_either(self):
        # in a process of its own: Python's last flush, as it exits, finds the pipe closed too
        def closed_pipe(name):
            read, write = os.pipe()
            os.close(read)  # the reader is gone before the lab writes a byte
            process = subprocess.Popen([sys.executable, *lab_args(name)], cwd=self.root,
                                       stdout=write,
                                       stderr=subprocess.PIPE, env=ours_on_path())
            os.close(write)
            err = process.communicate(timeout=60)[1].decode('utf-8', 'replace')
            return process.returncode, err
        for name, (code, err) in for_every_lab(closed_pipe, self.at_exit).items():
            with self.subTest(name):
                self.assertIn(code, (0, 141))
                self.assertEqual(err, '')

    def test_every_error_a_lab_says_in_one_line_fits_80_columns(self):
        # a missing tokenizer, a missing file, a number that is not one: as a learner types them
        cases = [(name, ['--tokenizer', 'nope.json']) for name in self.labs
                 if name in TAKES['--tokenizer']]
        cases += [(name, ['nope.txt']) for name in self.labs if name in READS_TEXT]
        numbers = ['--merges', '--vocab-size', '--block-size', '--jobs', '--seed']
        cases += [(name, [option, 'abc']) for name in self.labs for option in numbers
                  if option in run_inside(self.root, name, '--help')[1]]
        self.assertGreater(len(cases), len(self.labs))
        for name, args in cases:
            with self.subTest(name, args=args):
                code, out, err = run_inside(self.root, name, *args)
                said = [line for line in err.splitlines() if line.startswith(f'lab.{name}: ')]
                self.assertEqual((code in (1, 2), len(said)), (True, 1), err)
                self.assertLessEqual(terminal.width(said[0]), 80)

    def test_every_lab_runs_its_main_through_the_shared_runner(self):
        # so that what RunnerTest holds of cli.run (Ctrl-C, a closed stdout, a learner's error)
        # holds of every lab, and the closed pipe above is seen for real in each one
        for name in self.labs:
            with self.subTest(name):
                source = '\n'.join(path.read_text(encoding='utf-8') for path in lab_files(name))
                self.assertRegex(source, r"\nif __name__ == '__main__':\n    cli\.run\(main\)\n")

    def test_a_file_holding_only_a_byte_order_mark_is_empty_and_nothing_is_written(self):
        (self.root / 'bom.txt').write_bytes(b'\xef\xbb\xbf')  # Notepad's empty "UTF-8 with BOM"
        saved = (self.root / 'data' / 'tokenizer.json').read_bytes()
        for name in [name for name in self.labs if name in READS_TEXT]:
            with self.subTest(name):
                code, out, err = run_inside(self.root, name, 'bom.txt')
                self.assertEqual(code, 1)
                # speed names it whole
                self.assertRegex(err, rf'^lab\.{name}: (.*/)?bom\.txt is empty: ')
                self.assertEqual(len(messages(err)), 1, err)
                self.assertEqual((self.root / 'data' / 'tokenizer.json').read_bytes(), saved)

    def test_a_text_larger_than_the_memory_can_hold_is_refused_before_it_is_read(self):
        with open(self.root / 'huge.txt', 'wb') as f:
            f.truncate(2**40)  # a terabyte that takes no room on disk: a sparse file
        self.addCleanup((self.root / 'huge.txt').unlink)
        for name in [name for name in self.labs if name in READS_TEXT]:
            with self.subTest(name):
                started = time.monotonic()
                code, out, err = run_inside(self.root, name, 'huge.txt')
                self.assertEqual(code, 1)
                self.assertIn('huge.txt is 1,048,576 MiB', err)
                self.assertEqual(len(messages(err)), 1, err)
                self.assertLess(time.monotonic() - started, 10)

    def test_memory_run_out_all_the_same_is_one_line_and_no_file(self):
        # a text the size check lets through may still need more (one long line, say)
        from lab.fast import training
        with mock.patch.object(training.Trainer, 'merge', side_effect=MemoryError):
            code, out, err = run_inside(self.root, 'fast_bpe', '--out', 'new.json')
        self.assertEqual(code, 1)
        self.assertEqual(err,
                         'lab.fast_bpe: ran out of memory: give it a smaller part of the text\n')
        self.assertFalse((self.root / 'new.json').exists())

    def test_a_terminal_that_cannot_show_korean(self):
        for name in self.labs:
            with self.subTest(name):
                code, out, err = run_inside(self.root, name, *SLOW.get(name, []), encoding='ascii')
                self.assertEqual(code, 0, err)
                out.encode('ascii')  # all of it, escapes included


class FigureTest(unittest.TestCase):
    def test_a_count_is_exact_below_a_million_then_three_digits_and_a_unit(self):
        for n, shown in [(0, '0'), (999_999, '999,999'), (1_044_255, '1.04M'),
                         (52_428_800, '52.4M'),
                         (999_499_999, '999M'), (999_500_000, '1G'), (9_876_543_210, '9.88G'),
                         (12_345_678_901_234, '12,346G')]:
            with self.subTest(n):
                self.assertEqual(terminal.figure(n), shown)


class RunnerTest(unittest.TestCase):
    """cli.run, the way every lab ends: each rule once, in this process."""

    def ended(self, main, stdout=io.StringIO):
        err = io.StringIO()
        with mock.patch.object(sys, 'stderr', err), \
                mock.patch.object(sys, 'stdout', stdout and stdout()), \
                mock.patch.object(cli, '_lab_name', lambda: 'lab.x'), \
                mock.patch.dict(os.environ, ENGLISH), \
                mock.patch.dict(cli._SPOKEN, clear=True), self.assertRaises(SystemExit) as caught:
            cli.run(main)
        return caught.exception.code, err.getvalue()

    def test_ctrl_c_is_one_line_and_exit_130(self):
        def main():
            raise KeyboardInterrupt
        self.assertEqual(self.ended(main), (130, 'lab.x: interrupted\n'))

    def test_a_mistake_in_the_users_files_is_one_line_and_exit_1(self):
        def main():
            raise ValueError('data/x.txt is empty: give a UTF-8 text file')
        self.assertEqual(self.ended(main),
                         (1, 'lab.x: data/x.txt is empty: give a UTF-8 text file\n'))

    def test_standard_output_closed_is_one_line(self):
        said = 'lab.x: standard output is closed; run it again without >&-\n'
        self.assertEqual(self.ended(lambda: None, stdout=None), (1, said))

    def test_a_bug_in_a_lab_keeps_its_traceback(self):
        def main():
            raise KeyError('a bug of ours')
        with self.assertRaises(KeyError):
            self.ended(main)

    @unittest.skipUnless(hasattr(signal, 'SIGINT') and os.name == 'posix', 'needs POSIX signals')
    def test_a_real_ctrl_c_in_a_lab_is_one_line_and_exit_130(self):
        root = copy_project(self, parts=['tokenizer.py'])
        code = ('import builtins, os, runpy, sys, time; real = builtins.print\n'
                'def slow(*a, **k):\n'
                '    builtins.print = real; os.write(2, b"running\\n"); time.sleep(5); '
                'real(*a, **k)\n'
                'builtins.print = slow; sys.argv = ["lab.merge_order"]\n'
                'runpy.run_module("lab.merge_order", run_name="__main__", alter_sys=True)')
        process = subprocess.Popen([sys.executable, '-c', code], cwd=root, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   preexec_fn=as_a_terminal_starts_it,
                                   env=ours_on_path(ENGLISH))
        self.assertEqual(process.stderr.readline(), 'running\n')  # inside main, at its first print
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        self.assertEqual((process.returncode, err), (130, 'lab.merge_order: interrupted\n'))


class TerminalTest(unittest.TestCase):
    @classmethod
    def copy(cls):
        """One copy for the labs run on a terminal here, each in a process of its own: made by
        the first test that asks (it skips while a learner's tokenizer.py fails the tutor)."""
        if 'root' not in cls.__dict__:
            cls.root = copy_project(cls, parts=['settings.json', 'data/train.txt',
                                                'tokenizer.py'])
        return cls.root

    def test_colour_only_on_a_terminal_without_no_color_or_term_dumb(self):
        class Terminal(io.StringIO):
            def isatty(self):
                return True
        for env, colour in [({'TERM': 'xterm'}, True), ({'TERM': 'dumb'}, False),
                            ({'TERM': 'xterm', 'NO_COLOR': '1'}, False)]:
            with self.subTest(env=env), mock.patch.dict(os.environ, env, clear=True):
                self.assertEqual(terminal.use_colour(Terminal()), colour)
        self.assertFalse(terminal.use_colour(io.StringIO()))

    @unittest.skipUnless(hasattr(os, 'openpty'), 'needs a pseudo-terminal')
    def test_long_work_shows_it_is_alive_on_a_terminal_and_clears_the_line(self):
        code, seen = on_a_terminal(self.copy(), 'vocab_curve')
        self.assertEqual(code, 0)
        self.assertIn(b'encoding with', seen)
        self.assertTrue(seen.endswith(b'\r' + b' ' * 79 + b'\r'), seen[-100:])  # cleared at the end

    @unittest.skipUnless(hasattr(os, 'openpty'), 'needs a pseudo-terminal')
    def test_ctrl_c_during_the_progress_line_starts_its_message_on_a_new_line(self):
        root = self.copy()
        rng = random.Random(1)
        (root / 'big.txt').write_text(''.join(rng.choices('abcdefghij \n', k=300_000)))
        leader, follower = os.openpty()  # stderr is a terminal, so the progress line is drawn
        process = subprocess.Popen([sys.executable, '-m', 'lab.fast_bpe', 'big.txt', '--merges',
                                    '100000',
                                    '--out', 'big.json'],
                                   cwd=root, stdout=subprocess.DEVNULL, stderr=follower,
                                   preexec_fn=as_a_terminal_starts_it,
                                   env=ours_on_path(ENGLISH))
        os.close(follower)
        seen = b''
        while b'merges ' not in seen:
            seen += os.read(leader, 4096)
        process.send_signal(signal.SIGINT)
        process.wait(30)
        try:
            while True:
                chunk = os.read(leader, 4096)
                if not chunk:
                    break
                seen += chunk
        except OSError:  # the terminal is gone once the process has ended
            pass
        os.close(leader)
        self.assertEqual(process.returncode, 130)
        self.assertTrue(seen.replace(b'\r\n', b'\n').endswith(b'\nlab.fast_bpe: interrupted\n'),
                        seen[-200:])
        self.assertFalse((root / 'big.json').exists())


class KoreanOutputTest(unittest.TestCase):
    """The labs that speak the learner's language in their output (lab/locale/, cli.message): run
    with --lang ko on the defaults, none prints a sentence in English, or a line over 80 columns.
    A lab whose lines are moved to the catalogs joins the list."""
    SPEAKS_KOREAN = ['prepare', 'batches', 'audit', 'byte_bpe', 'check', 'compare', 'compression',
                     'export_hf', 'fast_bpe', 'import_hf', 'merge_order', 'normalize',
                     'pretokenize', 'show',
                     'special', 'speed', 'vocab_curve', 'word_bpe']

    def test_every_labs_help_in_korean_says_each_argument_in_korean(self):
        for name in EveryLabTest.labs:
            if name == 'selfcheck':  # the tutor's own command line: tests/test_selfcheck.py
                continue
            with self.subTest(name):
                code, out, _ = run_inside(ROOT, name, '--help', '--lang', 'ko')
                self.assertEqual(code, 0)
                arguments, _, try_next = out.split('\n\n', 2)[2].partition('다음에 해 볼 것: ')
                # what to try next, in Korean too
                self.assertTrue(try_next or 'Try next' not in out)
                # its commands are code: not checked
                self.assertEqual(english_sentences(arguments), [])

    def test_the_english_catalog_says_what_to_try_next_as_each_labs_docstring_does(self):
        english = catalogs.load('en')
        # read, not imported: a lab may import a tokenizer.py half typed
        for name in EveryLabTest.labs:
            doc = ast.get_docstring(ast.parse(lab_files(name)[0].read_text(encoding='utf-8'))) or ''
            # the tutor's help: tests/test_selfcheck.py
            if 'Try next' in doc and name != 'selfcheck':
                with self.subTest(name):
                    self.assertEqual(english[f'next.{name}'], doc[doc.find('Try next'):].strip())

    def test_a_lab_that_speaks_korean_prints_no_english_sentence(self):
        root = trained(copy_project(self))
        for name in self.SPEAKS_KOREAN:  # prepare first: batches reads what it wrote
            with self.subTest(name):
                code, out, err = run_inside(root, name, '--lang', 'ko')
                self.assertEqual(code, 0, err)
                self.assertEqual(english_sentences(out + err), [])
                self.assertEqual([line for line in (out + err).splitlines()
                                  if terminal.width(line) > 80], [])

    def test_what_a_kind_refuses_is_said_in_korean(self):
        root = copy_project(self)
        (root / 'docs.jsonl').write_text('{"text": "hi"}\n{"text": 3}\n', encoding='utf-8')
        fast_bpe = ['data/mixed.txt', '--merges', '5', '--lang', 'ko', '--out', 'x.json']
        for args in [['--kind', 'piece', '--pattern', 'a*'],
                     ['--kind', 'piece', '--pattern', 'gpt5'],
                     ['--kind', 'piece', '--pattern', r'\w+'],
                     ['--kind', 'piece', '--pattern', '(']]:
            with self.subTest(args):
                code, out, err = run_inside(root, 'fast_bpe', *fast_bpe, *args)
                self.assertEqual(code, 2, err)  # refused as the option is read
                self.assertRegex(err, '[가-힣]')
                self.assertEqual(english_sentences(out + err), [])
        code, _, err = run_inside(root, 'fast_bpe', 'docs.jsonl', '--documents', 'jsonl', '--lang',
                                  'ko')
        self.assertEqual((code, english_sentences(err)), (1, []))
        self.assertIn('2번째 줄', err)

    @unittest.skipUnless(os.path.isdir('/proc/self'), 'needs /proc, where no file can be made')
    def test_why_the_system_refused_a_file_is_said_in_the_labs_language(self):
        code, _, err = run_inside(copy_project(self), 'fast_bpe', '--out', '/proc/x', '--lang',
                                  'ko')
        self.assertEqual(code, 1, err)
        self.assertIn('그런 파일이나 폴더가 없음', err)  # the system's ENOENT
        self.assertEqual(english_sentences(err), [])
        unknown = OSError(errno.ELOOP, 'Too many levels of symbolic links')
        # the system's own
        self.assertEqual(cli.os_error(unknown), 'Too many levels of symbolic links')

    def test_what_a_child_of_lab_speed_says_is_in_the_language_of_its_parent(self):
        # read in a child
        code, _, err = run_inside(copy_project(self), 'speed', 'nope.txt', '--lang', 'ko')
        self.assertEqual(code, 1, err)
        self.assertIn('파일이 없습니다', err)

    def test_a_text_too_short_to_hold_a_line_out_is_said_in_each_language(self):
        root = copy_project(self)
        (root / 'one.txt').write_text('one line only\n', encoding='utf-8')
        for lang, said in [('ko', '두 줄'), ('en', 'two lines at least')]:
            with self.subTest(lang):
                code, _, err = run_inside(root, 'vocab_curve', 'one.txt', '--lang', lang)
                self.assertEqual((code, len(messages(err))), (1, 1), err)
                self.assertIn(said, err)


# Korean without spaces, as some write it: a 'word' of 150 syllables, two columns each
NO_SPACES = ''.join(chr(0xAC00 + (n * 7919) % 11172) for n in range(150))


class HostileTextTest(unittest.TestCase):
    """A training file full of escape sequences and a Korean line without spaces: no lab sends
    an escape raw to the terminal, and none prints a line wider than 80 columns."""

    def test_no_lab_prints_an_escape_sequence_raw_or_a_line_too_wide(self):
        # with our three labs in lab/: lab.selfcheck then finds the files the tutor checked
        # already, as they are (the labs themselves run here, from the project's lab/)
        root = copy_project(self, PARTS + [f'lab/{name}.py' for name in LESSON_LABS])
        (root / 'evil.txt').write_text(HOSTILE + f'Q: {NO_SPACES}\nA: {NO_SPACES[::-1]}\n',
                                       encoding='utf-8')
        code, _, err = run_inside(root, 'fast_bpe', 'evil.txt', '--merges', '40')
        self.assertEqual(code, 0, err)

        for name in LABS:
            extra = (['evil.txt'] if name in READS_TEXT else
                     [HOSTILE.splitlines()[0]]
                     if name in ('show', 'bpe_trace', 'unknown', 'special') else [])
            if name == 'fast_bpe':
                extra += ['--out', 'evil.json']
            with self.subTest(name):
                code, out, err = run_inside(root, name, *SLOW.get(name, []), *extra)
                for raw in ['\x1b', '\x07', '\x9b', '\u202e', '\u202c']:
                    self.assertNotIn(raw, out + err)
                self.assertEqual([line for line in (out + err).splitlines()
                                  if terminal.width(line) > 80], [])
        # shown, escaped
        self.assertIn('\\x1b', run_inside(root, 'show', HOSTILE.splitlines()[0])[1])

if __name__ == '__main__':
    unittest.main()
