"""A user's mistake gets one clear line and exit status 1, and a good tokenizer.json survives it."""
import json
import os
import random
import signal
import subprocess
import sys
import time
import unittest
from pathlib import Path
from unittest import mock

import tokenizer
from tests.project import copy_project, run


class CommandLineErrorTest(unittest.TestCase):
    """Each case breaks one file in a copy of the project that already has a good tokenizer.json."""

    def setUp(self):
        self.root = copy_project(self)
        self.assertEqual(run(self.root, 'tokenizer.py').returncode, 0)
        self.saved = (self.root / 'data' / 'tokenizer.json').read_bytes()

    def assert_refused(self, *words):
        """tokenizer.py fails with one line naming words, and the saved tokenizer is untouched."""
        done = run(self.root, 'tokenizer.py')
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertEqual(done.stdout, '')
        self.assertNotIn('Traceback', done.stderr)
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        for word in words:
            self.assertIn(word, done.stderr)
        self.assertEqual((self.root / 'data' / 'tokenizer.json').read_bytes(), self.saved)
        self.assertEqual(list((self.root / 'data').glob('*.tmp')), [])  # no half-written file is left
        return done.stderr

    def write_settings(self, text):
        (self.root / 'settings.json').write_text(text, encoding='utf-8')

    def test_missing_settings(self):
        (self.root / 'settings.json').unlink()
        self.assert_refused('settings.json', 'No such file', '{"merges": 12}')

    def test_settings_that_are_not_json(self):
        self.write_settings('{"merges": 12')
        self.assert_refused('settings.json', 'not valid JSON', 'line 1')

    def test_settings_that_are_not_an_object(self):
        self.write_settings('[12]')
        self.assert_refused('settings.json', '"merges" must be a whole number')

    def test_settings_without_merges(self):
        self.write_settings('{"merge": 12}')
        self.assert_refused('settings.json', '"merges" must be a whole number')

    def test_merges_that_are_not_a_whole_number_of_zero_or_more(self):
        for value in ['"12"', '-1', '1.5', 'true', 'null', '1e3']:
            with self.subTest(value):
                self.write_settings('{"merges": %s}' % value)
                self.assert_refused('settings.json', '"merges" must be a whole number')

    def test_missing_training_text(self):
        (self.root / 'data' / 'train.txt').unlink()
        self.assert_refused('train.txt', 'No such file', 'put your training text there')

    def test_empty_training_text(self):
        (self.root / 'data' / 'train.txt').write_bytes(b'')
        self.assert_refused('train.txt', 'is empty')

    def test_training_text_that_is_not_utf8_names_the_first_bad_byte(self):
        (self.root / 'data' / 'train.txt').write_bytes('Q: hi\nA: caf\xe9\n'.encode('latin-1'))
        self.assert_refused('train.txt', 'not UTF-8', 'byte 0xe9', 'line 2', 'save it as UTF-8')

    def test_training_text_that_is_a_folder(self):
        (self.root / 'data' / 'train.txt').unlink()
        (self.root / 'data' / 'train.txt').mkdir()
        done = run(self.root, 'tokenizer.py')
        self.assertEqual(done.returncode, 1)
        self.assertIn('cannot read', done.stderr)
        self.assertEqual((self.root / 'data' / 'tokenizer.json').read_bytes(), self.saved)

    def test_fewer_merges_than_asked_are_reported(self):
        self.write_settings('{"merges": 100000}')
        done = run(self.root, 'tokenizer.py')
        self.assertEqual(done.returncode, 0, done.stderr)
        made = len(json.loads((self.root / 'data/tokenizer.json').read_text(encoding='utf-8'))['merges'])
        self.assertIn(f'asked for 100000 merges; no pair occurs twice after {made}', done.stdout)
        self.assertTrue(done.stdout.endswith(']\n'))

    def test_zero_merges_is_allowed(self):
        self.write_settings('{"merges": 0}')
        done = run(self.root, 'tokenizer.py')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(done.stdout.startswith('vocab: 28 merges: 0\n'))


class SaveTest(unittest.TestCase):
    """save() writes a temporary file and renames it, so tokenizer.json is old or new, never half."""

    def setUp(self):
        self.root = copy_project(self)
        self.path = self.root / 'data' / 'tokenizer.json'
        self.path.write_text('{"old": true}\n', encoding='utf-8')

    def assert_old_file_survives(self):
        self.assertEqual(self.path.read_text(encoding='utf-8'), '{"old": true}\n')
        self.assertEqual(list(self.path.parent.glob('*.tmp')), [])

    def test_save_replaces_the_file(self):
        tokenizer.save('new\n', self.path)
        self.assertEqual(self.path.read_text(encoding='utf-8'), 'new\n')

    def test_save_writes_bytes_too(self):
        tokenizer.save(b'\x00\x01', self.path)
        self.assertEqual(self.path.read_bytes(), b'\x00\x01')

    def test_a_write_that_fails_halfway_leaves_the_old_file(self):
        real_write = Path.write_bytes

        def write_half_then_fail(path, data):
            real_write(path, data[:len(data) // 2])
            raise OSError(28, 'No space left on device')

        with mock.patch.object(Path, 'write_bytes', write_half_then_fail):
            with self.assertRaisesRegex(ValueError, r'cannot write .*json \(No space left on device\)'):
                tokenizer.save('{"vocab": [], "merges": []}\n', self.path)
        self.assert_old_file_survives()

    def test_a_failing_rename_leaves_the_old_file(self):
        with mock.patch.object(os, 'replace', side_effect=OSError(13, 'Permission denied')):
            with self.assertRaisesRegex(ValueError, r'cannot write .*\(Permission denied\)'):
                tokenizer.save('new\n', self.path)
        self.assert_old_file_survives()

    def test_a_folder_that_does_not_exist_is_one_line_on_the_command_line(self):
        done = run(self.root, '-m', 'lab.fast_bpe', '--out', 'no/such/folder/tokenizer.json')
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr, 'lab.fast_bpe: cannot write no/such/folder/tokenizer.json '
                                      '(No such file or directory)\n')

    def test_ctrl_c_while_saving_leaves_the_old_file(self):
        with mock.patch.object(os, 'replace', side_effect=KeyboardInterrupt):
            with self.assertRaises(KeyboardInterrupt):
                tokenizer.save('new\n', self.path)
        self.assert_old_file_survives()

    def test_ctrl_c_while_training_leaves_the_old_file(self):
        paths = {'SETTINGS': self.root / 'settings.json', 'TRAIN': self.root / 'data/train.txt',
                 'SAVED': self.path}
        with mock.patch.multiple(tokenizer, **paths):
            with mock.patch.object(tokenizer.BPE, 'train', side_effect=KeyboardInterrupt):
                with self.assertRaises(KeyboardInterrupt):
                    tokenizer.main()
        self.assert_old_file_survives()

    def test_ctrl_c_on_the_command_line_is_one_line(self):
        # a SIGINT sent to python3 tokenizer.py while it trains on a large text
        rng = random.Random(0)  # random text keeps the lesson's trainer busy for minutes
        text = ''.join(rng.choice('abcdefghijklmnop ') for _ in range(200_000))
        (self.root / 'data' / 'train.txt').write_text(text, encoding='utf-8')
        (self.root / 'settings.json').write_text('{"merges": 100000}', encoding='utf-8')
        process = subprocess.Popen([sys.executable, 'tokenizer.py'], cwd=self.root, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.0)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        self.assertEqual(process.returncode, 1)
        self.assertEqual(err, 'tokenizer.py: interrupted; data/tokenizer.json is as it was\n')
        self.assert_old_file_survives()


class TokenizerJsonTest(unittest.TestCase):
    def test_tokenizer_json_is_byte_identical_across_hash_seeds(self):
        files = set()
        for seed in ['0', '1', '4242']:
            root = copy_project(self)
            done = run(root, 'tokenizer.py', env={'PYTHONHASHSEED': seed})
            self.assertEqual(done.returncode, 0, done.stderr)
            files.add((root / 'data' / 'tokenizer.json').read_bytes())
        self.assertEqual(len(files), 1)


if __name__ == '__main__':
    unittest.main()
