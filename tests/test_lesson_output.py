"""The lesson's printed figures: with the shipped defaults, every command prints exactly them."""
import json
import unittest

from lab.plumbing.measures import has_lines
from tests import gate
from tests.project import ROOT, TEXT, copy_project, inside, tokenizer_inside

BPE = None  # the learner's, once the tutor finds parts 0 to 5 keep the lesson's rules


def setUpModule():
    global BPE
    BPE = gate.learners(5).BPE

# The lesson's printed figures, copied here so the project checks itself.
LESSON = {
    'tokenizer.py': 'vocab: 40 merges: 12\n'
                    'roundtrip: OK [29, 13, 14, 1, 30]\n',
    'lab.bpe_trace': "start: l|o|w| |l|o|w|e|r| |l|o|w|e|s|t 16\n"
                     "'l' + 'o' -> lo|w| |lo|w|e|r| |lo|w|e|s|t 13\n"
                     "'lo' + 'w' -> low| |low|e|r| |low|e|s|t 10\n"
                     "' ' + 'low' -> low| low|e|r| low|e|s|t 8\n"
                     "' low' + 'e' -> low| lowe|r| lowe|s|t 6\n",
    'lab.unknown': 'cat [9, 7, 23] [99, 97, 116]\n'
                   'Cat [0, 7, 23] [67, 97, 116]\n'
                   '안녕 [0, 0] [236, 149, 136, 235, 133, 149]\n'
                   '😀 [0] [240, 159, 152, 128]\n',
    'lab.token_count': 'merges 0 vocab 28 tokens 309\n'
                       'merges 6 vocab 34 tokens 242\n'
                       'merges 12 vocab 40 tokens 218\n'
                       'merges 24 vocab 52 tokens 186\n'
                       'merges 48 vocab 76 tokens 138\n',
}


class DefaultDataTest(unittest.TestCase):
    def test_settings_ask_for_12_merges(self):
        self.assertEqual(json.loads((ROOT / 'settings.json').read_text()), {'merges': 12})

    def test_training_text_has_309_characters_27_distinct(self):
        self.assertEqual(len(TEXT), 309)
        self.assertEqual(sorted(set(TEXT))[:6], ['\n', ' ', '.', ':', 'A', 'Q'])
        self.assertEqual(len(set(TEXT)), 27)

    def test_training_text_alternates_q_and_a_lines(self):
        self.assertTrue(TEXT.endswith('\n'))
        for n, line in enumerate(TEXT.splitlines()):
            speaker = 'Q' if n % 2 == 0 else 'A'  # a question first, then its answer
            self.assertTrue(line.startswith(f'{speaker}: '), line)

    def test_first_merges_are_colon_space_then_q_then_a(self):
        tok = BPE.train(TEXT, 12)
        self.assertEqual(tok.vocab[28:31], [': ', 'Q: ', 'A: '])
        self.assertEqual(len(tok.vocab), 40)

    def test_lesson_ids(self):
        tok = BPE.train(TEXT, 12)
        self.assertEqual([tok.chars[c] for c in 'abchit'], [7, 8, 9, 13, 14, 23])
        self.assertEqual(tok.encode('cat'), [9, 7, 23])
        self.assertEqual(tok.encode('Q: hi\nA: '), [29, 13, 14, 1, 30])


class LessonOutputTest(unittest.TestCase):
    """Each command runs in a fresh copy of the project, as a learner would run it, in this
    process (what a command is as a process is tests/test_beyond_lesson.py's)."""

    def assert_prints(self, done, name):
        """The lesson's lines are among what it prints, whole and in order: a learner's tokenizer.py
        may print more (the project's own prints exactly them: ../shared's check and
        test_beyond_lesson)."""
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(has_lines(done.stdout, LESSON[name].splitlines()), done.stdout)
        self.assertEqual(done.stderr, '')

    def test_tokenizer_py_prints_the_lesson_figures_and_saves(self):
        root = copy_project(self)
        # the lesson's lines on any locale
        on_korean = tokenizer_inside(root, env={'LANG': 'ko_KR.UTF-8'})
        self.assert_prints(on_korean, 'tokenizer.py')
        saved = (root / 'data' / 'tokenizer.json').read_text(encoding='utf-8')
        self.assertEqual(json.loads(saved), BPE.train(TEXT, 12).state())
        self.assertIn('\ufffd', saved)  # non-ASCII is written as itself, not as \uXXXX
        self.assertEqual(sorted(json.loads(saved)), ['merges', 'vocab'])

    def test_each_lab_prints_the_lesson_figures(self):
        root = copy_project(self)
        tokenizer_inside(root)
        # the lesson's lines are the lesson's on any locale
        korean = {'LANG': 'ko_KR.UTF-8', 'LC_ALL': ''}
        for name in ['bpe_trace', 'unknown', 'token_count']:
            with self.subTest(name):
                self.assert_prints(inside(root, name, env=korean), f'lab.{name}')


if __name__ == '__main__':
    unittest.main()
