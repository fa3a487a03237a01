"""What only the shipped tokenizer.py and our three lesson labs do beyond the lesson.

A tokenizer.py typed from the lesson has none of this, so with one in place this is the
only module where tests may fail: one-line messages for mistakes in the user's files,
a save that is all or nothing, library calls that refuse what they cannot handle,
working from another folder, and the lesson labs' hints and errors.
"""
import enum
import errno
import io
import json
import os
import random
import signal
import subprocess
import sys
import time
import tokenize
import unittest
from pathlib import Path
from unittest import mock

from lab.selfcheck import check
from tests import gate, test_toolkit
from tests.project import (
    LESSON_FILES,
    LESSON_LABS,
    PARTS,
    ROOT,
    TEXT,
    as_a_terminal_starts_it,
    copy_project,
    in_a_fork,
    inside,
    kill_while_writing,
    ours,
    python_c,
    run,
    script_inside,
    tokenizer_inside,
)

tokenizer = BPE = None  # this project's own, once setUpModule finds it in place


def setUpModule():
    global tokenizer, BPE
    if not ours():
        raise unittest.SkipTest(
            "what only this project's tokenizer.py and lesson labs do: the ones here "
            'were typed from the lesson')
    tokenizer = gate.learners(7)
    BPE = tokenizer.BPE


class CommandLineErrorTest(unittest.TestCase):
    """Each case breaks one file in a copy of the project that already has a good tokenizer.json."""

    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)
        assert tokenizer_inside(cls.root).returncode == 0
        cls.saved = (cls.root / 'data' / 'tokenizer.json').read_bytes()

    def setUp(self):
        self.settings = self.root / 'settings.json'
        self.train = self.root / 'data' / 'train.txt'
        self.addCleanup(self.restore, self.settings, b'{"merges": 12}\n')
        self.addCleanup(self.restore, self.train, TEXT.encode('utf-8'))
        self.addCleanup(self.restore, self.root / 'data' / 'tokenizer.json', self.saved)

    @staticmethod
    def restore(path, data):
        """Put a good file back, whatever the test left there (a folder, a pipe, a link)."""
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        elif path.exists() or path.is_symlink():
            path.unlink()
        path.write_bytes(data)

    def assert_refused(self, *words, process=False):
        """tokenizer.py fails with one line naming words, and the saved tokenizer is untouched (in a
        fork of its own where a wrong read could wait forever: the timeout ends it)."""
        if process:
            done = in_a_fork(lambda: tokenizer_inside(self.root), 20)
        else:
            done = tokenizer_inside(self.root)
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertEqual(done.stdout, '')
        self.assertNotIn('Traceback', done.stderr)
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        for word in words:
            self.assertIn(word, done.stderr)
        self.assertEqual((self.root / 'data' / 'tokenizer.json').read_bytes(), self.saved)
        self.assertEqual([p.name for p in (self.root / 'data').iterdir()
                          if p.name.endswith('.tmp')], [])
        return done.stderr

    def test_missing_settings(self):
        self.settings.unlink()
        self.assert_refused('settings.json', 'No such file', '{"merges": 12}')

    def test_settings_that_are_not_json(self):
        self.settings.write_text('{"merges": 12')
        self.assert_refused('settings.json', 'not valid JSON', 'line 1')

    def test_merges_that_are_not_a_whole_number_of_zero_or_more(self):
        for value in ['[12]', '{"merge": 12}', '{"merges": "12"}', '{"merges": -1}',
                      '{"merges": 1.5}',
                      '{"merges": true}', '{"merges": null}', '{"merges": 1e3}']:
            with self.subTest(value):
                self.settings.write_text(value)
                self.assert_refused('settings.json', '"merges" once, as a whole number >= 0')

    def test_merges_written_twice(self):
        self.settings.write_text('{"merges": 5, "merges": 12}')
        self.assert_refused('settings.json', '"merges" once')

    def test_settings_nested_too_deeply(self):
        self.settings.write_text('[' * 3000)
        self.assert_refused('settings.json', 'not valid JSON')

    def test_settings_larger_than_4_kb(self):
        self.settings.write_text('{"merges": 12}' + ' ' * 5000)
        self.assert_refused('settings.json', 'at most 4,096 bytes')

    def test_a_training_text_too_large_is_refused_before_it_is_read(self):
        self.train.unlink()
        with open(self.train, 'wb') as f:
            f.truncate(8 * 2**30)  # 8 GiB that take no room on disk: a sparse file
        started = time.monotonic()
        self.assert_refused('train.txt', 'at most 67,108,864 bytes', 'lab.fast_bpe')
        self.assertLess(time.monotonic() - started, 10)

    def test_a_folder_name_with_escape_sequences_is_shown_escaped(self):
        root = copy_project(self)
        named = root.parent / 'xslm\x1b]0;owned\x07'  # would set the terminal's title
        root.rename(named)
        (named / 'settings.json').unlink()
        done = tokenizer_inside(named)
        self.assertEqual(done.returncode, 1)
        self.assertNotIn('\x1b', done.stderr)
        self.assertIn('xslm\\x1b]0;owned\\x07', done.stderr)

    @unittest.skipUnless(hasattr(os, 'mkfifo'), 'needs named pipes')
    def test_settings_that_are_a_pipe_or_a_device_are_refused_not_read_forever(self):
        self.settings.unlink()
        os.mkfifo(self.settings)
        self.assert_refused('settings.json', 'must be a regular file', process=True)
        self.settings.unlink()
        self.settings.symlink_to('/dev/zero')
        self.assert_refused('settings.json', 'must be a regular file', process=True)

    def test_missing_training_text(self):
        self.train.unlink()
        self.assert_refused('train.txt', 'No such file', 'put your training text there')

    def test_empty_training_text(self):
        self.train.write_bytes(b'')
        self.assert_refused('train.txt', 'is empty')

    def test_training_text_that_is_not_utf8_names_the_first_bad_byte(self):
        self.train.write_bytes('Q: hi\nA: caf\xe9\n'.encode('latin-1'))
        self.assert_refused('train.txt', 'not UTF-8', 'byte 0xe9', 'line 2', 'save it as UTF-8')

    def test_a_byte_order_mark_alone_is_empty(self):
        self.train.write_bytes(b'\xef\xbb\xbf')
        self.assert_refused('train.txt', 'is empty')

    def test_the_first_bad_byte_is_counted_after_a_byte_order_mark(self):
        self.train.write_bytes(b'\xef\xbb\xbfab\ncd\nef\xffgh\n')
        self.assert_refused('train.txt', 'byte 0xff, line 3')

    def test_training_text_in_utf16_without_its_mark(self):
        self.train.write_bytes(TEXT.encode('utf-16-le'))
        self.assert_refused('train.txt', 'is UTF-16', 'save as UTF-8')

    def test_training_text_that_is_a_folder(self):
        self.train.unlink()
        self.train.mkdir()
        self.assert_refused('train.txt', 'must be a regular file')

    def test_fewer_merges_than_asked_are_reported(self):
        self.settings.write_text('{"merges": 100000}')
        done = tokenizer_inside(self.root)
        self.assertEqual(done.returncode, 0, done.stderr)
        saved = (self.root / 'data/tokenizer.json').read_text(encoding='utf-8')
        made = len(json.loads(saved)['merges'])
        self.assertIn(f'asked for 100000 merges; no pair occurs twice after {made}', done.stdout)


class ClosedOutputTest(unittest.TestCase):
    def test_with_stdout_closed_it_trains_and_saves_without_a_traceback(self):
        root = copy_project(self)
        done = subprocess.run(['sh', '-c', f'"{sys.executable}" tokenizer.py >&-'], cwd=root,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual((done.returncode, done.stderr), (0, ''))
        saved = (root / 'data' / 'tokenizer.json').read_text(encoding='utf-8')
        self.assertEqual(sorted(json.loads(saved)), ['merges', 'vocab'])


class ReadLikeTheLessonTest(unittest.TestCase):
    """The same file gives the same tokenizer.json as the lesson's own tokenizer.py gives."""

    @classmethod
    def setUpClass(cls):
        cls.ours, cls.lesson = copy_project(cls), copy_project(cls)
        (cls.lesson / 'tokenizer.py').write_bytes((LESSON_FILES / 'tokenizer.py').read_bytes())

    def trained(self, root, data):
        (root / 'data' / 'train.txt').write_bytes(data)
        done = tokenizer_inside(root)  # the lesson's file, or ours: each known to end
        self.assertEqual(done.returncode, 0, done.stderr)
        return json.loads((root / 'data' / 'tokenizer.json').read_text(encoding='utf-8'))

    def test_windows_and_old_mac_line_ends_train_like_the_lesson(self):
        for name, newline in [('CRLF', b'\r\n'), ('lone CR', b'\r')]:
            with self.subTest(name):
                data = TEXT.encode('utf-8').replace(b'\n', newline)
                ours = self.trained(self.ours, data)
                self.assertEqual(ours, self.trained(self.lesson, data))
                self.assertEqual(ours, BPE.train(TEXT, 12).state())  # as if the file had '\n'

    def test_a_byte_order_mark_is_left_out(self):
        state = self.trained(self.ours, b'\xef\xbb\xbf' + TEXT.encode('utf-8'))
        self.assertEqual(state, BPE.train(TEXT, 12).state())


class SaveTest(unittest.TestCase):
    """save() writes a file of its own and renames it, so tokenizer.json is
    old or new, never half."""

    def setUp(self):
        self.root = copy_project(self, parts=['tokenizer.py'])
        self.path = self.root / 'tokenizer.json'
        self.path.write_text('{"old": true}\n', encoding='utf-8')

    def assert_old_file_survives(self):
        self.assertEqual(self.path.read_text(encoding='utf-8'), '{"old": true}\n')
        self.assertEqual(sorted(p.name for p in self.root.iterdir()),
                         ['tokenizer.json', 'tokenizer.py'])

    def test_save_replaces_the_file(self):
        tokenizer.save('new\n', self.path)
        self.assertEqual(self.path.read_text(encoding='utf-8'), 'new\n')

    def test_a_write_that_fails_leaves_the_old_file(self):
        with mock.patch.object(os, 'fsync', side_effect=OSError(28, 'No space left on device')):
            with self.assertRaisesRegex(ValueError,
                                        r'cannot write .*json \(No space left on device\)'):
                tokenizer.save('{"vocab": [], "merges": []}\n', self.path)
        self.assert_old_file_survives()

    def test_a_failing_rename_leaves_the_old_file(self):
        with mock.patch.object(os, 'replace', side_effect=OSError(13, 'Permission denied')):
            with self.assertRaisesRegex(ValueError, r'cannot write .*\(Permission denied\)'):
                tokenizer.save('new\n', self.path)
        self.assert_old_file_survives()

    def test_a_symlink_is_written_through_and_stays_a_link(self):
        target = self.root / 'shared.json'
        self.path.rename(target)
        self.path.symlink_to(target.name)
        tokenizer.save('new\n', self.path)
        self.assertTrue(self.path.is_symlink())
        self.assertEqual(target.read_text(encoding='utf-8'), 'new\n')

    @unittest.skipUnless(os.name == 'posix', 'POSIX permissions')
    def test_the_file_keeps_its_permissions(self):
        self.path.chmod(0o600)
        tokenizer.save('new\n', self.path)
        self.assertEqual(self.path.stat().st_mode & 0o777, 0o600)

    def test_a_read_only_disk_is_one_line_and_no_traceback(self):
        refused = OSError(errno.EROFS, 'Read-only file system')
        # unlink refused even of a file that is not there
        with mock.patch('builtins.open', side_effect=refused), \
                mock.patch.object(Path, 'unlink', side_effect=refused):
            with self.assertRaisesRegex(ValueError, r'cannot write .*\(Read-only file system\)'):
                tokenizer.save('new\n', self.path)

    def test_ctrl_c_while_saving_leaves_the_old_file(self):
        with mock.patch.object(os, 'replace', side_effect=KeyboardInterrupt):
            with self.assertRaises(KeyboardInterrupt):
                tokenizer.save('new\n', self.path)
        self.assert_old_file_survives()

    def test_two_processes_saving_at_once_always_leave_one_whole_file(self):
        # each writer saves its own text 50 times; a reader checks the file all the while, every
        # half millisecond: that caught a writer that wrote in place in each of 24 tries (as it
        # did at 150 saves, a file made and one removed each), and reading without a pause kept a
        # core busy for as long as the writers took
        code = ('import sys; from pathlib import Path; from tokenizer import save\n'
                'for n in range(50): save(sys.argv[1] * 20000, Path("tokenizer.json"))')
        writers = [python_c(code, [mark], self.root) for mark in 'AB']
        seen, end = set(), time.monotonic() + 60
        while any(w.poll() is None for w in writers) and time.monotonic() < end:
            seen.add(self.path.read_text(encoding='utf-8'))
            time.sleep(0.0005)
        for writer in writers:  # past the minute: ended, and the test fails on their status
            writer.kill()
            writer.wait()
        self.assertEqual([w.returncode for w in writers], [0, 0])
        seen.add(self.path.read_text(encoding='utf-8'))
        self.assertLessEqual(seen, {'{"old": true}\n', 'A' * 20000, 'B' * 20000})
        # __pycache__ is Python's, not a file left by a writer
        left = sorted(p.name for p in self.root.iterdir() if p.name != '__pycache__')
        self.assertEqual(left, ['tokenizer.json', 'tokenizer.py'])

    @unittest.skipUnless(hasattr(signal, 'SIGKILL'), 'needs SIGKILL')
    def test_a_writer_killed_at_any_moment_leaves_the_old_or_the_new_file(self):
        code = ('from pathlib import Path; from tokenizer import save\n'
                'while True:\n    for mark in "AB": save(mark * 500000, Path("tokenizer.json"))')
        wholes = {'{"old": true}\n', 'A' * 500000, 'B' * 500000}
        kill_while_writing(self, code, [], self.root, self.path, wholes, rounds=5, seed=4,
                           together=True)

    def test_ctrl_c_or_a_kill_on_the_command_line_is_one_line_and_leaves_no_file_behind(self):
        root = copy_project(self)
        rng = random.Random(0)  # random text keeps the lesson's trainer busy for minutes
        text = ''.join(rng.choices('abcdefghijklmnop ', k=200_000))
        (root / 'data' / 'train.txt').write_text(text)
        (root / 'settings.json').write_text('{"merges": 100000}')
        for ending in [signal.SIGINT, signal.SIGTERM]:
            with self.subTest(ending.name):
                (root / 'data' / 'tokenizer.json').write_text('{"old": true}\n')
                process = subprocess.Popen([sys.executable, 'tokenizer.py'], cwd=root, text=True,
                                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           env={**os.environ, 'PYTHONUNBUFFERED': '1'},
                                           preexec_fn=as_a_terminal_starts_it)
                # not left training
                self.addCleanup(lambda p=process: p.poll() is None and p.kill())
                self.assertIn('s to train', process.stdout.readline())  # said as it begins to train
                process.send_signal(ending)
                out, err = process.communicate(timeout=60)
                self.assertEqual(process.returncode, 1)
                self.assertEqual(err,
                                 'tokenizer.py: interrupted; data/tokenizer.json is as it was\n')
                self.assertEqual((root / 'data' / 'tokenizer.json').read_text(), '{"old": true}\n')
                self.assertEqual([path.name for path in (root / 'data').iterdir()
                                  if path.name.endswith('.tmp')], [])  # none of a save cut short

    def test_an_argument_prints_the_usage_and_writes_nothing(self):
        root = copy_project(self)
        (root / 'data' / 'tokenizer.json').write_text('{"old": true}\n')
        for args in [['--help'], ['-h'], ['data/other.txt']]:
            with self.subTest(args):
                done = tokenizer_inside(root, *args)
                self.assertEqual(done.returncode, 1)
                self.assertEqual(done.stdout, '')
                usage = 'tokenizer.py: usage: python3 tokenizer.py'
                self.assertTrue(done.stderr.startswith(usage), done.stderr)
                self.assertEqual((root / 'data' / 'tokenizer.json').read_text(), '{"old": true}\n')


class LibraryRefusesWhatItCannotHandleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tok = BPE.train(TEXT, 12)

    def test_decode_refuses_ids_outside_the_vocabulary_and_non_integers(self):
        for bad in [-1, 40, 1.0, '3', None, True, [1]]:
            with self.subTest(bad=bad), \
                    self.assertRaisesRegex(ValueError, 'not in this vocabulary of 40 tokens'):
                self.tok.decode([1, bad])

    def test_decode_takes_any_iterable_and_any_integer_type(self):
        class Id(enum.IntEnum):
            H = 13
        ids = self.tok.encode('Q: hi')
        self.assertEqual(self.tok.decode(i for i in ids), 'Q: hi')
        self.assertEqual(self.tok.decode([Id.H]), 'h')

    def test_encode_refuses_what_is_not_a_str(self):
        for bad in [b'cat', ['c', 'a', 't'], None]:
            with self.subTest(bad=bad), self.assertRaisesRegex(TypeError, 'encode takes a str'):
                self.tok.encode(bad)

    def test_train_refuses_a_text_that_is_not_a_str_or_a_bad_count(self):
        for text, count in [(b'abab', 1), ('abab', True), ('abab', -1), ('abab', 2.5)]:
            with self.subTest(text=text, count=count), self.assertRaises(TypeError):
                BPE.train(text, count)


class FromAnotherFolderTest(unittest.TestCase):
    def test_tokenizer_py_finds_its_files_from_another_folder(self):
        root = copy_project(self)
        done = run(root, str(root / 'tokenizer.py'), cwd=root.parent)
        self.assertEqual((done.returncode, done.stdout),
                         (0, 'vocab: 40 merges: 12\nroundtrip: OK [29, 13, 14, 1, 30]\n'))

    def test_installed_without_settings_beside_it_it_uses_the_current_folder(self):
        # as pip installs it: tokenizer.py alone in site-packages, the project in the current folder
        root = copy_project(self)
        installed = root.parent / 'site-packages'
        installed.mkdir()
        (root / 'tokenizer.py').rename(installed / 'tokenizer.py')
        done = run(root, '-m', 'tokenizer', env={'PYTHONPATH': str(installed)})
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue((root / 'data' / 'tokenizer.json').exists())
        elsewhere = run(root, '-m', 'tokenizer', cwd=root.parent,
                        env={'PYTHONPATH': str(installed)})
        self.assertEqual(elsewhere.returncode, 1)
        self.assertNotIn('site-packages', elsewhere.stderr)
        # the folder it looked in
        self.assertIn(str(root.parent / 'settings.json'), elsewhere.stderr)


def without_checks(source):
    """source less every line whose comment starts with 'check': what a learner who skips the
    checks types."""
    marked = {token.start[0] for token in tokenize.generate_tokens(io.StringIO(source).readline)
              if token.type == tokenize.COMMENT
              and token.string.lstrip('#').strip().startswith('check')}
    return ''.join(line
                   for n, line in enumerate(source.splitlines(keepends=True), 1) if n not in marked)


OURS = (ROOT / 'tokenizer.py').read_text(encoding='utf-8')
STARTS = ['def merge', 'class BPE:', '    @classmethod', '    def encode', '    def decode',
          'HERE = ']


class TypedAsTheLessonTeachesTest(unittest.TestCase):
    """This project's tokenizer.py is the lesson's, typed in the lesson's
    order, its checks optional."""

    @classmethod
    def setUpClass(cls):
        cls.typed = [OURS[:OURS.index(start)] for start in STARTS] + [OURS, without_checks(OURS)]
        # the tutor's way, in two processes
        readable = [check.readable_part(typed) for typed in cls.typed]
        cls.answers = check.check_many([source for source, _ in readable], check.lesson(),
                                       [broken for _, broken in readable])

    def test_cut_where_each_part_starts_the_tutor_finds_nothing_failed(self):
        for typed, answers in zip(self.typed, self.answers):
            with self.subTest(typed.splitlines()[-1:]):
                self.assertNotIn('failed', {state for state, _ in answers.values()})
                self.assertEqual(answers['rule_imports'][0], 'passed')

    def test_with_each_line_marked_check_deleted_it_runs_prints_the_lesson_and_passes(self):
        typed = self.typed[-1]
        self.assertLess(len(typed.splitlines()), len(OURS.splitlines()) - 20)  # it did delete
        passed = {state for state, _ in self.answers[-1].values()}
        self.assertEqual(passed, {'passed'})  # python3 tokenizer.py's run among them

    def test_tokenizer_py_stays_typeable(self):
        self.assertLessEqual(len(OURS.splitlines()), 140)
        self.assertEqual([line for line in OURS.splitlines() if len(line) > 110], [])


class LessonLabsAsToolkitTest(test_toolkit.EveryLabTest):
    """Our bpe_trace, unknown and token_count pass the toolkit's checks, as every other lab does."""
    labs = test_toolkit.LESSON_LABS
    at_exit = ['token_count']
    test_output_fits_80_columns_on_a_large_text_too = None  # compression's; not one of these three


class LessonLabsExtrasTest(unittest.TestCase):
    """What our bpe_trace, unknown and token_count add to the lesson's:
    hints and one-line errors."""

    def test_running_a_lab_as_a_file_gives_a_one_line_hint(self):
        root = copy_project(self, PARTS + LESSON_LABS)  # run as files: nothing else of lab/ loads
        for name in ['bpe_trace', 'unknown', 'token_count']:
            with self.subTest(name):
                hint = f'run this lab from the project folder as: python3 -m lab.{name}\n'
                self.assertEqual(script_inside(root, f'lab/{name}.py'), (1, '', hint))
        # and in a process of its own, where lab cannot be imported
        whole = run(root, 'lab/bpe_trace.py')
        self.assertEqual(whole.stderr, hint.replace('token_count', 'bpe_trace'))

    def test_unknown_says_to_train_first_when_no_tokenizer_is_saved(self):
        done = inside(copy_project(self), 'unknown')
        self.assertEqual((done.returncode, done.stdout), (1, ''))
        self.assertIn('python3 tokenizer.py', done.stderr)
        self.assertEqual(len(done.stderr.splitlines()), 1)

    def test_unknown_refuses_a_damaged_tokenizer_in_a_line_then_names_the_tutor(self):
        root = copy_project(self)
        state = BPE.train(TEXT, 12).state()
        state['vocab'][30] = 'A:'
        (root / 'data' / 'tokenizer.json').write_text(json.dumps(state), encoding='utf-8')
        done = inside(root, 'unknown')
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr.splitlines(), [  # its state() wrote it so: the tutor next
            "lab.unknown: data/tokenizer.json: vocab[30] is 'A:', but merges[2] makes 'A: '",
            'lab.unknown: python3 -m lab.selfcheck checks tokenizer.py rule by rule'])

    @unittest.skipUnless(hasattr(os, 'openpty'), 'needs a pseudo-terminal')
    def test_token_count_shows_on_a_terminal_which_count_it_trains(self):
        code, seen = test_toolkit.on_a_terminal(copy_project(self), 'token_count')
        self.assertEqual(code, 0)
        self.assertIn(b'training with 48 merges', seen)
        self.assertTrue(seen.endswith(b'\r' + b' ' * 79 + b'\r'), seen[-100:])  # cleared at the end

    def test_token_count_names_a_missing_file(self):
        done = inside(copy_project(self), 'token_count', 'nope.txt')
        self.assertEqual(done.returncode, 1)
        self.assertIn('nope.txt', done.stderr)


if __name__ == '__main__':
    unittest.main()
