"""Files, read and written the way trusted tools do it: nothing lost, torn,
mixed up or read forever.

Reading: text as the lesson's Path.read_text gives it, and only from regular files.
Writing: all at once, only where the user meant, checked before the long work.
"""
import concurrent.futures
import json
import os
import signal
import stat
import time
import unittest
from pathlib import Path
from unittest import mock

from lab import kinds
from lab.plumbing import bins, cli, locations, reading, saving
from tests.project import (LESSON_MODULE, TEXT, copy_project, inside, kill_while_writing, messages,
                           trained)

BPE = LESSON_MODULE.BPE  # the lesson's own, which the library is held to

TOKENIZER_JSON = saving.json_with('vocab', 'merges')


class ReadTest(unittest.TestCase):
    def setUp(self):
        self.root = copy_project(self, parts=['data/train.txt'])
        self.path = self.root / 'some.txt'

    def read(self, data):
        self.path.write_bytes(data)
        return reading.read_text(self.path)

    def test_line_ends_become_newlines_as_in_path_read_text(self):
        for data in [b'a\r\nb\r\n', b'a\rb\r', b'a\nb\n']:
            with self.subTest(data=data):
                self.assertEqual(self.read(data), 'a\nb\n')
                self.assertEqual(self.read(data), self.path.read_text(encoding='utf-8'))

    def test_a_byte_order_mark_is_left_out(self):
        self.assertEqual(self.read(b'\xef\xbb\xbfQ: hi\n'), 'Q: hi\n')

    def test_a_byte_order_mark_alone_is_empty(self):
        with self.assertRaisesRegex(ValueError, 'is empty'):
            self.read(b'\xef\xbb\xbf')

    def test_the_byte_and_line_not_utf8_are_counted_after_a_byte_order_mark(self):
        with self.assertRaisesRegex(ValueError, r'byte 0xff, line 3\)'):
            self.read(b'\xef\xbb\xbfab\ncd\nef\xffgh\n')

    def test_korean_in_cp949_is_named_with_how_to_convert_it(self):
        self.path.write_bytes('Q: 안녕하세요\nA: 반갑습니다\n'.encode('cp949'))
        with self.assertRaisesRegex(ValueError, 'Korean in CP949 .*iconv -f cp949 -t utf-8'):
            reading.read_text(self.path)
        self.path.write_bytes('café\n'.encode('latin-1'))  # not Korean: the plain message
        with self.assertRaisesRegex(ValueError, r'not UTF-8 \(byte 0xe9, line 1\)'):
            reading.read_text(self.path)

    def test_utf16_is_refused_with_a_hint(self):
        for data in ['Q: hi\n'.encode('utf-16-le'), 'Q: hi\n'.encode('utf-16')]:
            with self.subTest(data=data[:4]), self.assertRaisesRegex(ValueError,
                                                                     'UTF-16|not UTF-8'):
                self.read(data)

    def test_a_stray_nul_is_named_with_its_line_not_taken_for_utf16(self):
        with self.assertRaisesRegex(ValueError, r'a NUL character \(\\x00\) on line 2: remove it'):
            self.read(b'Q: hi\nA: h\x00i\n')

    @unittest.skipUnless(hasattr(os, 'mkfifo'), 'needs named pipes')
    def test_a_pipe_or_a_device_is_refused_not_read_forever(self):
        fifo = self.root / 'fifo'
        os.mkfifo(fifo)
        for path in [fifo, Path('/dev/zero'), self.root]:
            with self.subTest(path=path), self.assertRaisesRegex(ValueError,
                                                                 'regular file|a folder'):
                reading.read_text(path)

    def test_a_file_larger_than_its_bound_is_refused(self):
        self.path.write_text('{"merges": 12}' + ' ' * 5000)
        with self.assertRaisesRegex(ValueError, 'larger than 4,096 bytes'):
            reading.read_merge_count(self.path)


class SaveTest(unittest.TestCase):
    def setUp(self):
        self.root = copy_project(self, parts=['data/train.txt'])
        self.path = self.root / 'out.json'
        self.path.write_text('old\n')

    def leftovers(self):
        return [p.name for p in self.root.iterdir() if p.name.endswith('.tmp')]

    def test_the_file_keeps_its_permissions(self):
        self.path.chmod(0o640)
        saving.save('new\n', self.path)
        self.assertEqual((self.path.read_text(), stat.S_IMODE(self.path.stat().st_mode)),
                         ('new\n', 0o640))

    def test_a_symlink_is_written_through_and_stays_a_link(self):
        link = self.root / 'link.json'
        link.symlink_to(self.path)
        saving.save('new\n', link)
        self.assertTrue(link.is_symlink())
        self.assertEqual(self.path.read_text(), 'new\n')

    def test_a_failing_write_leaves_the_old_file_and_no_temporary_one(self):
        with mock.patch.object(os, 'fsync', side_effect=OSError(28, 'No space left on device')):
            with self.assertRaisesRegex(ValueError,
                                        r'cannot write .*out.json \(No space left on device\)'):
                saving.save('new\n', self.path)
        self.assertEqual((self.path.read_text(), self.leftovers()), ('old\n', []))

    def test_files_saved_together_are_all_new_or_all_old(self):
        other = self.root / 'meta.json'
        other.write_text('old meta\n')
        real_fsync, calls = os.fsync, []

        def fsync_failing_second(fd):  # the second file meets a full disk
            calls.append(fd)
            if len(calls) == 2:
                raise OSError(28, 'No space left on device')
            real_fsync(fd)
        with mock.patch.object(os, 'fsync', side_effect=fsync_failing_second):
            with self.assertRaisesRegex(ValueError,
                                        r'cannot write .*meta.json \(No space left on device\)'):
                saving.save_together([('new\n', self.path), ('new meta\n', other)])
        files = [self.path, other]
        self.assertEqual([*(f.read_text() for f in files), *self.leftovers()],
                         ['old\n', 'old meta\n'])
        saving.save_together([('new\n', self.path), ('new meta\n', other)])
        self.assertEqual([*(f.read_text() for f in files), *self.leftovers()],
                         ['new\n', 'new meta\n'])

    @unittest.skipUnless(os.name == 'posix', 'sends itself SIGTERM')
    def test_sigterm_between_two_renames_waits_for_the_last_one(self):
        other = self.root / 'meta.json'
        other.write_text('old meta\n')
        real_replace = os.replace

        def replace_then_signal(source, target):  # SIGTERM arrives just after the first rename
            real_replace(source, target)
            if Path(target) == self.path:
                os.kill(os.getpid(), signal.SIGTERM)
        before = signal.signal(signal.SIGTERM, cli.terminated)
        self.addCleanup(signal.signal, signal.SIGTERM, before)
        with mock.patch.object(os, 'replace', side_effect=replace_then_signal):
            with self.assertRaises(cli.Terminated):  # taken once both are renamed, not between
                saving.save_together([('new\n', self.path), ('new meta\n', other)])
        self.assertEqual([self.path.read_text(), other.read_text(), *self.leftovers()],
                         ['new\n', 'new meta\n'])

    def test_ctrl_c_while_writing_leaves_the_old_file_and_no_temporary_one(self):
        with mock.patch.object(os, 'fsync', side_effect=KeyboardInterrupt):
            with self.assertRaises(KeyboardInterrupt):
                saving.save('new\n', self.path)
        self.assertEqual((self.path.read_text(), self.leftovers()), ('old\n', []))

    def test_one_file_given_twice_is_saved_with_its_last_data(self):
        link = self.root / 'link.json'
        link.symlink_to(self.path)
        saving.save_together([('one\n', self.path), ('two\n', link)])
        self.assertEqual((self.path.read_text(), self.leftovers()), ('two\n', []))

    def test_a_file_gone_right_after_its_rename_is_said_in_one_line(self):
        real_replace = os.replace

        def replace_then_gone(source, target):
            real_replace(source, target)
            os.unlink(target)  # another program took it away at once
        with mock.patch.object(os, 'replace', side_effect=replace_then_gone), \
                self.assertRaisesRegex(ValueError, 'was replaced by another program'):
            saving.save('new\n', self.path)

    def test_many_writers_at_once_leave_one_whole_file_and_only_its_writer_says_saved(self):
        texts = [str(n) * 50_000 for n in range(4)]

        def write(text):
            try:
                saving.save(text, self.path)
                return text
            except ValueError as e:
                self.assertIn('was replaced by another program while this one saved it', str(e))
                return None
        for _ in range(25):
            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                said_saved = [text for text in pool.map(write, texts) if text]
            self.assertIn(self.path.read_text(), texts)
            self.assertIn(self.path.read_text(), said_saved)  # the one on disk was said to be saved

    def test_a_writer_whose_file_is_replaced_right_after_its_rename_is_told(self):
        real_replace = os.replace

        def replace_then_another_writer(source, target):
            real_replace(source, target)
            other = self.path.with_name('other.tmp')
            other.write_text('theirs\n')
            real_replace(other, target)
        with mock.patch.object(os, 'replace', replace_then_another_writer), \
                self.assertRaisesRegex(ValueError, 'replaced by another program'):
            saving.save('ours\n', self.path)
        self.assertEqual(self.path.read_text(), 'theirs\n')

    @unittest.skipUnless(hasattr(signal, 'SIGKILL'), 'needs SIGKILL')
    def test_a_writer_killed_at_any_moment_leaves_the_old_or_the_new_file(self):
        code = ('import sys; from lab.plumbing import saving\n'
                'while True:\n    for mark in "AB": saving.save(mark * 400000, sys.argv[1])')
        wholes = {'old\n', 'A' * 400000, 'B' * 400000}
        kill_while_writing(self, code, [str(self.path)], locations.ROOT, self.path, wholes,
                           rounds=4, seed=9)


class CheckOutTest(unittest.TestCase):
    """check_output_path refuses an output the user cannot or should not mean,
    before any work is done."""

    def setUp(self):
        self.root = copy_project(self, parts=['data/train.txt'])
        self.tokenizer = self.root / 'tokenizer.json'
        self.tokenizer.write_text(json.dumps(BPE.train(TEXT, 3).state()))

    def refused(self, path, words, inputs=(), force=False):
        with self.assertRaisesRegex(ValueError, words):
            saving.check_output_path(path, 'tokenizer.json', TOKENIZER_JSON, inputs, force)

    def test_a_tokenizer_json_may_be_replaced(self):
        checked = saving.check_output_path(self.tokenizer, 'tokenizer.json', TOKENIZER_JSON)
        self.assertEqual(checked, self.tokenizer)

    def test_a_folder_is_refused(self):
        for path in [self.root, Path(''), Path('.'), Path('/')]:
            with self.subTest(path=str(path)):
                self.refused(path, 'is a folder')

    def test_a_device_or_a_pipe_is_refused(self):
        fifo = self.root / 'fifo'
        os.mkfifo(fifo)
        for path in [Path('/dev/null'), Path('/dev/full'), fifo]:
            with self.subTest(path=str(path)):
                self.refused(path, 'not a regular file')

    def test_a_read_only_file_is_refused(self):
        self.tokenizer.chmod(0o444)
        self.refused(self.tokenizer, 'is read-only')

    def test_an_output_that_is_an_input_is_refused(self):
        self.refused(self.root / 'data' / 'train.txt', 'is also what this reads',
                     inputs=[self.root / 'data' / 'train.txt'], force=True)

    def test_a_file_of_another_kind_is_refused_unless_forced(self):
        notes = self.root / 'notes.json'
        notes.write_text('{"my": "notes"}')
        self.refused(notes, 'is not a tokenizer.json: use --force')
        saving.check_output_path(notes, 'tokenizer.json', saving.json_with('vocab', 'merges'),
                                 force=True)

    def test_a_missing_folder_is_refused(self):
        self.refused(self.root / 'no' / 'such' / 'out.json', 'there is no folder')


class CommandLineOutTest(unittest.TestCase):
    """On the command line: the same refusals, one line each, and the input untouched."""

    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)
        trained(cls.root)

    def assert_refused(self, args, words, untouched):
        before = untouched.read_bytes()
        done = inside(self.root, args[0].removeprefix('lab.'), *args[1:])
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertEqual(len(messages(done.stderr)), 1, done.stderr)
        self.assertIn(words, done.stderr)
        self.assertEqual(untouched.read_bytes(), before)

    def test_fast_bpe_refuses_to_write_over_its_training_text(self):
        self.assert_refused(['lab.fast_bpe', '--out', 'data/train.txt'], 'is also what this reads',
                            self.root / 'data' / 'train.txt')

    def test_export_hf_refuses_to_write_over_the_tokenizer_it_exports(self):
        self.assert_refused(['lab.export_hf', '--out', 'data/tokenizer.json'],
                            'is also what this reads',
                            self.root / 'data' / 'tokenizer.json')

    def test_a_bad_out_is_reported_before_training(self):
        (self.root / 'big.txt').write_text('abcdefgh ' * 20_000)
        started = time.monotonic()
        self.assert_refused(['lab.fast_bpe', 'big.txt', '--merges', '100000', '--out',
                             'no/such/t.json'],
                            'there is no folder', self.root / 'big.txt')
        self.assertLess(time.monotonic() - started, 5)


class PrepareMetaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)
        trained(cls.root)
        assert inside(cls.root, 'prepare').returncode == 0

    def test_meta_json_describes_the_bins(self):
        data = self.root / 'data'
        meta = json.loads((data / 'meta.json').read_text())
        tok = kinds.load(data / 'tokenizer.json')
        self.assertEqual(meta['tokenizer_sha256'], kinds.fingerprint(tok))
        val = bins.from_bytes((data / 'val.bin').read_bytes(), 'H')
        self.assertEqual(bins.read_ids(data, 'val.bin'), val)

    def test_a_bin_that_does_not_match_meta_json_is_refused(self):
        data = self.root / 'data'
        good = (data / 'val.bin').read_bytes()
        self.addCleanup((data / 'val.bin').write_bytes, good)
        (data / 'val.bin').write_bytes(good[:-2])  # as if another run had written it
        with self.assertRaisesRegex(ValueError, 'not the file meta.json describes'):
            bins.read_ids(data, 'val.bin')

    def test_a_missing_out_folder_is_made(self):
        done = inside(self.root, 'prepare', '--out', 'new/folder')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(sorted(p.name for p in (self.root / 'new' / 'folder').iterdir()),
                         ['meta.json', 'train.bin', 'val.bin'])

    def test_an_out_that_is_a_file_is_refused_before_any_work(self):
        (self.root / 'afile').write_text('x')
        done = inside(self.root, 'prepare', '--out', 'afile')
        self.assertEqual(done.returncode, 1)
        self.assertIn('afile is not a folder', done.stderr)


if __name__ == '__main__':
    unittest.main()
