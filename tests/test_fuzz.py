"""Seeded fuzzing: on hundreds of random texts, training and encoding keep every invariant."""
import json
import random
import unittest

from lab.contract.checks import UNKNOWN, problem_with
from tests.project import LESSON_MODULE

BPE = LESSON_MODULE.BPE  # the lesson's own, which the library is held to

# Small alphabets force ties and overlapping pairs; the rest bring astral characters,
# runs of newlines and the unknown character itself into the text.
ALPHABETS = ['ab', 'abc\n', 'aab\n\n\n', 'xy ', '가나다\n', '😀😁a\n', 'a\ufffd\n',
             'Q: hi\nA: hello.', 'abcdefghijklmnopqrstuvwxyz \n']


def fuzz_texts(count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        alphabet = rng.choice(ALPHABETS) + rng.choice(ALPHABETS)
        yield ''.join(rng.choice(alphabet) for _ in range(rng.randint(1, 120)))


class FuzzTest(unittest.TestCase):
    def test_invariants_on_random_texts(self):
        rng = random.Random(7)
        for text in fuzz_texts(300, seed=7):
            for count in [0, 1, rng.randint(2, 10), 200]:
                tok = BPE.train(text, count)
                with self.subTest(text=text, count=count):
                    self.check_invariants(tok, text, count)

    def check_invariants(self, tok, text, count):
        self.assertLessEqual(len(tok.merges), count)
        self.assertEqual(len(tok.vocab), 1 + len(set(text) - {UNKNOWN}) + len(tok.merges))
        self.assertIsNone(problem_with(json.loads(json.dumps(tok.state()))))
        for _, new_id in tok.merges:
            self.assertNotIn('\n', tok.vocab[new_id])
        self.assertEqual(tok.decode(tok.encode(text)), text)
        probe = text[::-1] + 'Z'  # 'Z' is in no alphabet: it must come back as UNKNOWN
        self.assertEqual(tok.decode(tok.encode(probe)), text[::-1] + UNKNOWN)
        again = BPE(**json.loads(json.dumps(tok.state())))
        self.assertEqual(again.encode(probe), tok.encode(probe))


if __name__ == '__main__':
    unittest.main()
