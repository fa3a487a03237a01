"""The labs as one toolkit: every lab passes the same table of checks.

--help (exit 0, defaults as the user types them), output within 80 columns, a reader
that stops early (| head -1), Ctrl-C, a terminal that cannot show Korean, and a
training file full of escape sequences: the same behaviour in every lab.
"""
import concurrent.futures
import os
import signal
import subprocess
import sys
import unittest

from tests.project import ROOT, copy_project, run

LABS = sorted(path.stem for path in (ROOT / 'lab').glob('*.py') if path.stem not in ('__init__', 'common'))
TAKES_A_FILE = ['audit', 'byte_bpe', 'compression', 'fast_bpe', 'merge_order', 'normalize', 'prepare',
                'token_count', 'word_bpe']
SLOW = {'speed': ['--merges', '50']}  # the benchmark's defaults are for books
# escape sequences that clear the screen, set the window title, ring the bell, and reorder text
HOSTILE = ('Q: \x1b[2J\x1b[H hi \x1b]0;owned\x07 there\n'
           'A: \u202eevil\u202c \x9b31m red \x1b[31m red\n') * 6


def lab_args(name):
    return ['-m', f'lab.{name}', *SLOW.get(name, [])]


def for_every_lab(work, labs=LABS):
    """work(name) for every lab, four at a time (most of it is waiting for a process)."""
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        return dict(zip(labs, pool.map(work, labs)))


class EveryLabTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)
        assert run(cls.root, 'tokenizer.py').returncode == 0

    def test_help_exits_0_and_shows_defaults_as_typed(self):
        results = for_every_lab(lambda name: run(self.root, '-m', f'lab.{name}', '--help'))
        for name, done in results.items():
            with self.subTest(name):
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertIn(f'usage: python3 -m lab.{name}', done.stdout)
                self.assertNotIn(str(self.root), done.stdout)  # no absolute paths
                self.assertIn('Try next', done.stdout)
                self.assertLessEqual(max(map(len, done.stdout.splitlines())), 80)

    def test_an_unknown_option_is_a_usage_error(self):
        results = for_every_lab(lambda name: run(self.root, '-m', f'lab.{name}', '--no-such-option'))
        for name, done in results.items():
            with self.subTest(name):
                self.assertEqual(done.returncode, 2)
                self.assertNotIn('Traceback', done.stderr)

    def test_default_output_fits_80_columns(self):
        runs = [(name, extra) for name in LABS for extra in ([], ['data/mixed.txt'])
                if not extra or name in TAKES_A_FILE]
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda r: run(self.root, *lab_args(r[0]), *r[1]), runs))
        for (name, extra), done in zip(runs, results):
            with self.subTest(name, file=extra):
                    self.assertNotIn('Traceback', done.stderr)
                    wide = [line for line in (done.stdout + done.stderr).splitlines() if len(line) > 80]
                    self.assertEqual(wide, [])

    def test_a_reader_that_stops_early_gets_no_traceback(self):
        for name in LABS:
            with self.subTest(name):
                read, write = os.pipe()
                os.close(read)  # the reader is gone before the lab writes a byte
                process = subprocess.Popen([sys.executable, *lab_args(name)], cwd=self.root, stdout=write,
                                           stderr=subprocess.PIPE, env=dict(os.environ, PYTHONUNBUFFERED='1'))
                os.close(write)
                err = process.communicate(timeout=60)[1].decode('utf-8', 'replace')
                self.assertIn(process.returncode, (0, 141, -signal.SIGPIPE))
                self.assertEqual(err, '')

    def test_ctrl_c_is_one_line_and_exit_130(self):
        # the lab's first print says it is running, then waits: the interrupt comes inside main
        code = ('import builtins, os, runpy, sys, time; real = builtins.print\n'
                'def slow(*a, **k):\n'
                '    builtins.print = real; os.write(2, b"running\\n"); time.sleep(5); real(*a, **k)\n'
                'builtins.print = slow; sys.argv = [sys.argv[1]] + sys.argv[2:]\n'
                'runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)')
        for name in LABS:
            with self.subTest(name):
                process = subprocess.Popen([sys.executable, '-c', code, f'lab.{name}', *SLOW.get(name, [])],
                                           cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                self.assertEqual(process.stderr.readline(), 'running\n')
                process.send_signal(signal.SIGINT)
                out, err = process.communicate(timeout=30)
                self.assertEqual((process.returncode, err), (130, f'lab.{name}: interrupted\n'))

    def test_a_terminal_that_cannot_show_korean(self):
        results = for_every_lab(lambda name: subprocess.run(
            [sys.executable, *lab_args(name)], cwd=self.root, capture_output=True,
            env=dict(os.environ, PYTHONIOENCODING='ascii')))
        for name, done in results.items():
            with self.subTest(name):
                self.assertEqual(done.returncode, 0, done.stderr)
                done.stdout.decode('ascii')  # all of it, escapes included


class HostileTextTest(unittest.TestCase):
    """A training file full of escape sequences: no lab sends one raw to the terminal."""

    def test_no_lab_prints_an_escape_sequence_raw(self):
        root = copy_project(self)
        (root / 'evil.txt').write_text(HOSTILE, encoding='utf-8')
        trained = run(root, '-m', 'lab.fast_bpe', 'evil.txt', '--merges', '40')
        self.assertEqual(trained.returncode, 0, trained.stderr)
        for name in LABS:
            extra = ['evil.txt'] if name in TAKES_A_FILE else ['Q: \x1b[2J hi'] if name in ('show', 'bpe_trace') else []
            with self.subTest(name):
                done = run(root, *lab_args(name), *extra)
                shown = done.stdout + done.stderr
                for raw in ['\x1b', '\x07', '\x9b', '\u202e', '\u202c']:
                    self.assertNotIn(raw, shown)


if __name__ == '__main__':
    unittest.main()
