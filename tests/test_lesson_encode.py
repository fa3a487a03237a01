"""The lesson's rules for encode, decode and state: what a trained tokenizer promises."""
import json
import random
import unicodedata
import unittest

from tests import gate
from tests.project import TEXT, another_hash_seed, copy_project, run

BPE = merge = None  # the learner's, once the tutor finds parts 0 to 5 keep the lesson's rules


def setUpModule():
    global BPE, merge
    tokenizer = gate.learners(5)
    BPE, merge = tokenizer.BPE, tokenizer.merge

UNKNOWN = '\ufffd'  # id 0
ODD = {
    'empty': '',
    'lone surrogates': 'a\ud800b\udfffc',
    'windows line ends': 'Q: hi\r\nA: hello.\r\n',
    'NFD Korean': unicodedata.normalize('NFD', '안녕하세요 한국어'),
    'emoji': '😀 👍🏽 👨‍👩‍👧 🇰🇷',
    'replacement character': 'a\ufffdb\ufffd',
    'astral and control': '\x00\x1b[31m\U0010ffff\u200b',
}


def random_texts(alphabet, count, seed, longest=80):
    """Seeded random texts drawn from alphabet: the same texts on every run."""
    rng = random.Random(seed)
    return [''.join(rng.choice(alphabet) for _ in range(rng.randint(0, longest)))
            for _ in range(count)]


class EncodeDecodeTest(unittest.TestCase):
    def setUp(self):
        self.tok = BPE.train(TEXT, 12)

    def test_round_trip_of_the_training_text(self):
        self.assertEqual(self.tok.decode(self.tok.encode(TEXT)), TEXT)

    def test_round_trip_of_random_texts_from_the_training_alphabet(self):
        for text in random_texts(sorted(set(TEXT)), 300, seed=1):
            self.assertEqual(self.tok.decode(self.tok.encode(text)), text)

    def test_encode_applies_merges_in_the_learned_order(self):
        ids = [self.tok.chars[ch] for ch in TEXT]
        for pair, new_id in self.tok.merges:
            ids = merge(ids, pair, new_id)
        self.assertEqual(self.tok.encode(TEXT), ids)

    def test_encoding_is_shorter_after_merges(self):
        self.assertLess(len(self.tok.encode(TEXT)), len(TEXT))

    def test_unknown_characters_become_id_0(self):
        self.assertEqual(self.tok.encode('C😀'), [0, 0])

    def test_id_0_decodes_as_the_replacement_character(self):
        self.assertEqual(self.tok.decode([0, self.tok.chars['a']]), UNKNOWN + 'a')

    def test_unknown_characters_are_never_fused_with_known_ones(self):
        ids = self.tok.encode('Cat')
        self.assertEqual(ids[0], 0)
        self.assertEqual(self.tok.decode(ids[1:]), 'at')

    def test_empty_text_encodes_to_no_ids(self):
        self.assertEqual(self.tok.encode(''), [])
        self.assertEqual(self.tok.decode([]), '')

    def test_chars_maps_every_one_character_token_to_its_id(self):
        for i, piece in enumerate(self.tok.vocab):
            if len(piece) == 1:
                self.assertEqual(self.tok.chars[piece], i)


class StateTest(unittest.TestCase):
    def test_state_holds_exactly_vocab_and_merges(self):
        self.assertEqual(sorted(BPE.train(TEXT, 12).state()), ['merges', 'vocab'])

    def test_rebuilt_from_state_encodes_identically(self):
        tok = BPE.train(TEXT, 24)
        again = BPE(**json.loads(json.dumps(tok.state(), ensure_ascii=False)))
        for text in [TEXT, 'Q: hi\nA: ', 'Cat 안녕'] + random_texts(sorted(set(TEXT)), 50, seed=2):
            self.assertEqual(again.encode(text), tok.encode(text))

    def test_same_result_in_a_fresh_interpreter_with_another_hash_seed(self):
        here = json.dumps(BPE.train(TEXT + 'xyzzy plugh 42', 40).state())
        code = ('import json; from tokenizer import BPE; '  # marked: tokenizer.py may print too
                't = BPE.train(open("data/train.txt", encoding="utf-8").read() + "xyzzy '
                'plugh 42", 40); '
                'print("@@state", json.dumps(t.state()))')
        done = run(copy_project(self), '-c', code, env={'PYTHONHASHSEED': another_hash_seed()})
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split('@@state ', 1)[-1], here + '\n')



class AnyStringTest(unittest.TestCase):
    def test_unknown_characters_of_any_kind_come_back_as_the_replacement_character(self):
        tok = BPE.train(TEXT, 12)
        for name, text in ODD.items():
            with self.subTest(name):
                ids = tok.encode(text)
                known = ''.join(ch if ch in tok.chars else UNKNOWN for ch in text)
                self.assertEqual(tok.decode(ids), known)

    def test_a_tokenizer_trained_on_odd_text_round_trips_it(self):
        for name, text in ODD.items():
            with self.subTest(name):
                tok = BPE.train(text * 3, 20)
                self.assertEqual(tok.decode(tok.encode(text)), text)

    def test_replacement_character_in_the_text_is_id_0_and_round_trips(self):
        tok = BPE.train('ab\ufffdab\ufffd', 5)
        self.assertEqual(tok.vocab.count(UNKNOWN), 1)
        self.assertEqual(tok.decode(tok.encode('ab\ufffd')), 'ab\ufffd')

    def test_a_hundred_thousand_of_one_repeated_character(self):
        tok = BPE.train(TEXT, 12)
        text = 'a' * 100_000
        self.assertEqual(tok.decode(tok.encode(text)), text)


if __name__ == '__main__':
    unittest.main()
