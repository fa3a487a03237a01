"""lab.selfcheck catches every rule of the lesson broken on its own, and names it first."""
import concurrent.futures
import tempfile
import unittest
from pathlib import Path

from lab import selfcheck
from tests.project import LESSON_FILES, copy_project, run

LESSON = (LESSON_FILES / 'tokenizer.py').read_text(encoding='utf-8')
# (a typing mistake as a change to the lesson-style file, the rule its first FAILED must name)
MISTAKES = [
    ('            i += 2', '            i += 1', 'merge replaces the pair left to right'),
    ('    while i < len(ids):', '    while i < len(ids) - 1:', 'merge copies the ids'),
    ('tuple(ids[i:i + 2]) == tuple(pair)', 'tuple(ids[i:i + 2]) == pair', 'merge takes the pair as a list'),
    ("sorted(set(text) - {'\\ufffd'})", "list(set(text) - {'\\ufffd'})", 'the base vocabulary'),
    ("['\\ufffd'] + sorted(set(text) - {'\\ufffd'})", "['\\ufffd'] + sorted(set(text))",
     'not added to the vocabulary twice'),
    ('for _ in range(count):', 'for _ in range(count - 1):', 'makes count merges'),
    ('pairs.most_common(1)[0]', 'max(pairs.items())', 'the most frequent pair'),
    ('pairs.most_common(1)[0]', 'sorted(pairs.items(), key=lambda kv: kv[1])[-1]', 'on a tie'),
    ("if '\\n' not in vocab[p[0]] + vocab[p[1]]", "if vocab[p[1]] != '\\n'", "never merged across '\\n'"),
    ("if '\\n' not in vocab[p[0]] + vocab[p[1]]", "if vocab[p[0]] != '\\n'", "never merged across '\\n'"),
    ('if n < 2:', 'if n <= 2:', 'training stops when'),
    ('vocab.append(vocab[pair[0]] + vocab[pair[1]])', 'vocab.append(vocab[pair[1]] + vocab[pair[0]])',
     'a merge adds'),
    ('self.chars.get(c, 0)', 'self.chars.get(c, 1)', 'encode turns an unknown character into id 0'),
    ('for pair, new_id in self.merges:', 'for pair, new_id in reversed(self.merges):',
     'encode applies the merges in the order'),
    ("''.join(self.vocab[i] for i in ids)", "''.join(self.vocab[i] for i in reversed(ids))", 'decode joins'),
    ("{'vocab': self.vocab, 'merges': self.merges}", "{'vocab': self.vocab, 'merges': self.merges[:1]}",
     'BPE(**state())'),
    ('ensure_ascii=False', 'ensure_ascii=True', "prints the lesson's two lines"),
    ('            i += 1\n    return out', '            i += 0\n    return out', 'merge copies the ids'),
]


def first_failing_rule(text):
    """The name of the first rule that lab.selfcheck finds broken in a tokenizer.py holding text:
    its rules, run in a child process as the command runs them, then python3 tokenizer.py."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / 'typed.py').write_text(text, encoding='utf-8')
        selfcheck.copy_for_check(folder / 'typed.py', folder)
        answers = selfcheck.run_rules(folder, [check.__name__ for _, check in selfcheck.RULES], 'typed.py')
        broken = [name for name, check in selfcheck.RULES if 'lines' in answers[check.__name__]]
        if broken:
            return broken[0]
        if selfcheck.check_command_line(folder, 'typed.py'):
            return "python3 tokenizer.py prints the lesson's two lines"
        return None


class SelfcheckTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)

    def check(self, text, name='typed.py'):
        (self.root / name).write_text(text, encoding='utf-8')
        return run(self.root, '-m', 'lab.selfcheck', name, timeout=60)

    def test_a_file_that_follows_the_lesson_passes_every_rule(self):
        done = self.check(LESSON)
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertNotIn('FAILED', done.stdout)

    def test_each_mistake_is_caught_and_its_rule_is_the_first_fail(self):
        with concurrent.futures.ThreadPoolExecutor(2) as pool:  # each is one short process
            typed = [LESSON.replace(old, new, 1) for old, new, _ in MISTAKES]
            results = list(pool.map(first_failing_rule, typed))
        for (old, new, rule), first in zip(MISTAKES, results):
            with self.subTest(new):
                self.assertIn(old, LESSON)
                self.assertIn(rule, first)

    def test_an_error_in_the_learners_code_names_its_line(self):
        done = self.check(LESSON.replace('    out, i = [], 0', '    out, i = [], 0\n    i = ids[99]'))
        self.assertIn('IndexError: list index out of range (typed.py, line 8, in merge)', done.stdout)

    def test_a_file_that_does_not_import_is_one_fail(self):
        done = self.check(LESSON.replace('class BPE:', 'class BPE'))
        self.assertEqual(done.returncode, 1)
        self.assertIn("SyntaxError: expected ':' (typed.py, line 18)", done.stdout)
        self.assertEqual(done.stdout.count('FAILED'), 1)
        self.assertIn('1 rule of the lesson does not hold', done.stderr)


if __name__ == '__main__':
    unittest.main()
