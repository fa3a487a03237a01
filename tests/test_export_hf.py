"""lab.export_hf: the Hugging Face file holds the same tokenizer and gives the same ids."""
import ast
import json
import random
import unittest

from lab import fast
from lab.common import problem_with
from lab.export_hf import from_hf, to_hf
from tests.project import MIXED, TEXT, copy_project, run
from tests.test_fuzz import fuzz_texts
from tokenizer import BPE

try:
    from tokenizers import Tokenizer
except ImportError:  # optional: .ci/run installs it so that the differential test runs there
    Tokenizer = None

# 'abc' is made twice, as 'ab' + 'c' and as 'a' + 'bc': a sound state, but not a string-to-id map
TWICE = {'vocab': ['\ufffd', 'a', 'b', 'c', 'ab', 'bc', 'abc', 'abc'],
         'merges': [[[1, 2], 4], [[2, 3], 5], [[4, 3], 6], [[1, 5], 7]]}


def trained_tokenizers():
    """(name, BPE, texts to try): the default data and seeded random texts."""
    rng = random.Random(5)
    yield 'default', BPE.train(TEXT, 48), [TEXT, 'Q: hi\nA: ', 'Cat 안녕 😀\n', '', MIXED]
    yield 'mixed', fast.train(MIXED, 300), [MIXED, TEXT, MIXED[::-1]]
    for n, text in enumerate(fuzz_texts(60, seed=5)):
        probes = [text] + [''.join(rng.choice(text + 'Z\n ') for _ in range(50)) for _ in range(3)]
        yield f'random {n}', fast.train(text, rng.choice([1, 5, 30, 300])), probes


class ExportTest(unittest.TestCase):
    def test_round_trip_through_the_hugging_face_structure(self):
        for name, tok, _ in trained_tokenizers():
            with self.subTest(name):
                self.assertEqual(from_hf(json.loads(json.dumps(to_hf(tok)))).state(), tok.state())

    def test_nothing_the_lesson_does_not_do(self):
        data = to_hf(BPE.train(TEXT, 12))
        self.assertIsNone(data['normalizer'])
        self.assertIsNone(data['pre_tokenizer'])
        self.assertEqual(data['decoder'], {'type': 'Fuse'})
        self.assertEqual((data['model']['unk_token'], data['model']['fuse_unk']), ('\ufffd', False))

    def test_merges_are_string_pairs_in_learned_order(self):
        data = to_hf(BPE.train(TEXT, 12))
        self.assertEqual(data['model']['merges'][:3], [[':', ' '], ['Q', ': '], ['A', ': ']])

    def test_a_string_under_two_ids_is_refused_naming_both(self):
        self.assertIsNone(problem_with(TWICE))
        with self.assertRaisesRegex(ValueError, r"'abc' is in the vocabulary twice, as ids 6 and 7"):
            to_hf(BPE(**TWICE))

    def test_from_hf_refuses_what_the_lesson_cannot_reproduce(self):
        good = to_hf(BPE.train(TEXT, 12))
        for change, words in [(lambda d: d.update(pre_tokenizer={'type': 'Whitespace'}), 'pre_tokenizer'),
                              (lambda d: d['model'].update(type='WordPiece'), 'BPE'),
                              (lambda d: d['model'].update(unk_token='<unk>'), 'unknown token'),
                              (lambda d: d['model']['merges'].append(['Q', 'zz']), '"merges"'),
                              (lambda d: d['model']['merges'].reverse(), 'makes id')]:
            data = json.loads(json.dumps(good))
            change(data)
            with self.subTest(words), self.assertRaisesRegex(ValueError, words):
                from_hf(data)

    def test_command_line_writes_utf8_and_reads_back(self):
        root = copy_project(self)
        run(root, 'tokenizer.py')
        done = run(root, '-m', 'lab.export_hf')
        self.assertEqual(done.returncode, 0, done.stderr)
        raw = (root / 'data' / 'tokenizer.hf.json').read_text(encoding='utf-8')
        self.assertIn('"unk_token": "\ufffd"', raw)  # written as itself
        self.assertEqual(from_hf(json.loads(raw)).state(), BPE.train(TEXT, 12).state())

    def test_the_load_hint_is_valid_python_for_a_path_with_a_quote(self):
        root = copy_project(self)
        run(root, 'tokenizer.py')
        done = run(root, '-m', 'lab.export_hf', '--out', "it's.json")
        self.assertEqual(done.returncode, 0, done.stderr)
        hint = done.stdout.splitlines()[-1]
        call = ast.parse(hint.split('load it with: ', 1)[1]).body[0].value
        self.assertEqual(ast.literal_eval(call.args[0]), "it's.json")

    def test_command_line_refuses_a_vocab_with_a_string_twice_in_one_line(self):
        root = copy_project(self)
        (root / 'data' / 'tokenizer.json').write_text(json.dumps(TWICE), encoding='utf-8')
        done = run(root, '-m', 'lab.export_hf')
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr.count('\n'), 1, done.stderr)
        self.assertFalse((root / 'data' / 'tokenizer.hf.json').exists())


@unittest.skipIf(Tokenizer is None, 'needs the tokenizers package (pip install tokenizers)')
class HuggingFaceTest(unittest.TestCase):
    """The exported file, loaded by the Rust library, gives the same ids and the same text."""

    def test_same_ids_and_text_as_bpe(self):
        folder = copy_project(self)
        for name, tok, texts in trained_tokenizers():
            path = folder / 'hf.json'
            path.write_text(json.dumps(to_hf(tok), ensure_ascii=False), encoding='utf-8')
            hf = Tokenizer.from_file(str(path))
            for text in texts:
                with self.subTest(name, text=text):
                    ids = hf.encode(text).ids
                    self.assertEqual(ids, tok.encode(text))
                    self.assertEqual(hf.decode(ids), tok.decode(ids))

    def test_merges_that_use_the_unknown_id(self):
        tok = BPE.train('a\ufffd\na\ufffd\nb', 5)  # learns 'a' + '\ufffd'
        hf = Tokenizer.from_str(json.dumps(to_hf(tok)))
        for text in ['a\ufffd', 'aZ', 'Za', 'a\ufffd\nb']:
            self.assertEqual(hf.encode(text).ids, tok.encode(text), text)


if __name__ == '__main__':
    unittest.main()
