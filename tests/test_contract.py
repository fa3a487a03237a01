"""The contract: outside tokenizer.py, nothing uses more of it than the lesson's own file has.

A learner types tokenizer.py from the lesson: merge, and BPE with vocab, merges, chars,
train, encode, decode and state. So the labs and the tests may import only merge and
BPE from it, and everything must work with a file that has nothing more.
"""
import ast
import json
import shutil
import subprocess
import sys
import unittest

from lab.learner import errors
from lab.plumbing import terminal
from lab.plumbing.measures import has_lines
from tests.project import (
    ENGLISH,
    LABS,
    LESSON_FILES,
    LESSON_LABS,
    ROOT,
    copy_project,
    import_statements,
    inside,
    lab_files,
    learners_tokenizer,
    ours_on_path,
    run_inside,
    script_inside,
    tokenizer_inside,
    use_lesson_files,
)

ALLOWED = {'merge', 'BPE'}
BEYOND = ROOT / 'tests' / 'test_beyond_lesson.py'  # the one place that tests what only ours has
# What every lab may import from lab/: the plumbing, the contract, the engine, the tokenizer kinds.
SHARED_LIBRARIES = {'plumbing', 'contract', 'fast', 'kinds', 'learner'}
LESSON_LINES = ['vocab: 40 merges: 12', 'roundtrip: OK [29, 13, 14, 1, 30]']


def imports_from_tokenizer(path):
    """(line, what) for each import of tokenizer in a Python file."""
    found = []
    for node in import_statements(path):
        if isinstance(node, ast.ImportFrom) and node.module == 'tokenizer':
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, 'import tokenizer') for alias in node.names
                      if alias.name == 'tokenizer']
    return found


class ContractTest(unittest.TestCase):
    def test_labs_and_tests_import_only_merge_and_bpe_from_tokenizer(self):
        files = sorted((ROOT / 'lab').rglob('*.py')) + sorted((ROOT / 'tests').glob('*.py'))
        files = [p for p in files if p != BEYOND]
        self.assertGreater(len(files), 20)
        for path in files:
            for line, name in imports_from_tokenizer(path):
                with self.subTest(f'{path.relative_to(ROOT)}:{line}'):
                    self.assertIn(name, ALLOWED)

    def test_a_lab_imports_no_other_lab_only_the_libraries_they_share(self):
        for lab, path in [(lab, path) for lab in LABS for path in lab_files(lab)]:
            for node in import_statements(path):
                if isinstance(node, ast.ImportFrom) and node.module == 'lab':
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and (node.module or '').startswith('lab.'):
                    names = [node.module.split('.')[1]]
                else:
                    continue
                with self.subTest(path.name, lab=lab, line=node.lineno):
                    # the libraries the labs share, and the lab's own package
                    self.assertLessEqual(set(names), SHARED_LIBRARIES | {lab})

    def test_the_lesson_files_follow_the_lesson(self):
        # they hold what the lesson's own file holds, and nothing more
        tree = ast.parse((LESSON_FILES / 'tokenizer.py').read_text(encoding='utf-8'))
        names = {node.name for node in tree.body
                 if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        self.assertEqual(names, {'merge', 'BPE'})


class LessonFilesInPlaceTest(unittest.TestCase):
    """A lesson-style tokenizer.py (and then the lesson's three labs) in place of ours, in a copy,
    with the prints a learner adds: one when it is imported, one at the end of its __main__."""

    @classmethod
    def setUpClass(cls):
        # the labs run here, from the project's lab/: the copy holds the three the tutor looks for
        cls.root = copy_project(cls, parts=['tokenizer.py', 'settings.json', 'data', *LESSON_LABS])
        use_lesson_files(cls.root)
        typed = (cls.root / 'tokenizer.py').read_text(encoding='utf-8')
        typed = typed.replace('import json\n', 'import json\nprint("tokenizer.py imported")\n', 1)
        typed += "    print('saved data/tokenizer.json')\n"
        (cls.root / 'tokenizer.py').write_text(typed, encoding='utf-8')
        cls.trained = tokenizer_inside(cls.root)
        with learners_tokenizer(cls.root):
            run_inside(cls.root, 'export_hf')  # what lab.import_hf reads by default

    def test_tokenizer_py_prints_the_lesson_lines(self):
        self.assertTrue(has_lines(self.trained.stdout, LESSON_LINES), self.trained.stdout)
        saved = json.loads((self.root / 'data' / 'tokenizer.json').read_text(encoding='utf-8'))
        self.assertEqual(sorted(saved), ['merges', 'vocab'])

    def test_every_lab_runs_on_the_defaults(self):
        # in this process: the labs import the lesson-style file
        with learners_tokenizer(self.root):
            for name in LABS:
                with self.subTest(name):
                    code, out, err = run_inside(self.root, name)
                    self.assertEqual(code, 0, err)

    def test_the_lesson_labs_typed_as_the_lesson_shows_print_the_same(self):
        with learners_tokenizer(self.root):
            ours = {name: run_inside(self.root, name)[1]
                    for name in ['bpe_trace', 'unknown', 'token_count']}
        root = copy_project(self, parts=['settings.json', 'data/train.txt'])
        use_lesson_files(root, labs=True)
        shutil.copy(self.root / 'tokenizer.py', root / 'tokenizer.py')  # with the same prints
        shutil.copy(self.root / 'data' / 'tokenizer.json', root / 'data')  # what it saved
        with learners_tokenizer(root):  # the lesson's labs are scripts: run as files, here
            theirs = {name: script_inside(root, f'lab/{name}.py') for name in ours}
        for name, printed in ours.items():
            with self.subTest(name):
                code, out, err = theirs[name]
                self.assertEqual((code, out), (0, printed), err)



KEEPS = "        self.vocab, self.merges = vocab, merges\n"  # the line of __init__ that keeps both


class LearnerBugSeenFromALabTest(unittest.TestCase):
    """A bug in the learner's tokenizer.py, met inside a lab: three lines, the
    tutor last, no traceback."""

    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls, parts=['settings.json', 'data/train.txt'])
        use_lesson_files(cls.root)
        cls.lesson = (cls.root / 'tokenizer.py').read_text(encoding='utf-8')
        assert tokenizer_inside(cls.root).returncode == 0
        cls.saved = (cls.root / 'data' / 'tokenizer.json').read_bytes()

    def typed_with(self, old, new):
        """tokenizer.py with one change, put back (with the saved tokenizer) when the test ends."""
        typed = self.lesson.replace(old, new)
        self.assertNotEqual(typed, self.lesson)
        (self.root / 'tokenizer.py').write_text(typed, encoding='utf-8')
        self.addCleanup((self.root / 'tokenizer.py').write_text, self.lesson, encoding='utf-8')
        self.addCleanup((self.root / 'data' / 'tokenizer.json').write_bytes, self.saved)

    def lab_with(self, old, new, lab, *args):
        self.typed_with(old, new)
        return self.lab(lab, *args)

    def lab(self, name, *args):
        with learners_tokenizer(self.root):  # in this process, with the learner's file imported
            return inside(self.root, name, *args)

    def test_an_error_raised_in_tokenizer_py_is_said_as_the_tutor_says_it_with_its_line(self):
        # labs of ours that show the learner's BPE: the lesson's own three may be the learner's
        for old, new, lab, said in [('enumerate(vocab)', 'enumerate(vocabs)', 'merge_order',
                                     "name 'vocabs'"),
                                    ('if len(c) == 1}', 'if len(cc) == 1}', 'vocab_curve',
                                     "name 'cc'")]:
            with self.subTest(new):
                done = self.lab_with(old, new, lab)
                line = next(n for n, text in enumerate(self.lesson.splitlines(), 1) if old in text)
                self.assertEqual(done.returncode, 1)
                self.assertNotIn('Traceback', done.stderr)
                lines = done.stderr.splitlines()
                self.assertIn(said, ' '.join(done.stderr.split()))
                self.assertIn(f'lab.{lab}: in tokenizer.py, line {line}, in ', done.stderr)
                self.assertIn(f'lab.{lab}: hint: ', done.stderr)
                self.assertIn('python3 -m lab.selfcheck', lines[-1])
                self.assertEqual([line for line in lines if terminal.width(line) > 80], [])

    def test_an_error_as_tokenizer_py_is_imported_is_said_in_the_locales_language(self):
        # before the lab's parser is made: its excepthook reads the locale, as the parser would
        self.typed_with('def merge(', 'def merg(')
        korean = ours_on_path({**ENGLISH, 'LANG': 'ko_KR.UTF-8'})
        done = subprocess.run([sys.executable, '-m', 'lab.merge_order'], cwd=self.root, env=korean,
                              capture_output=True, text=True, encoding='utf-8', timeout=60)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertNotIn('Traceback', done.stderr)
        self.assertIn('merge의 정의가 없습니다', done.stderr)

    def test_the_trace_lab_runs_on_a_file_typed_up_to_train_as_the_lessons_does(self):
        typed = self.lesson[:self.lesson.index('    def encode')]  # parts 0 to 3: no encode yet
        (self.root / 'tokenizer.py').write_text(typed, encoding='utf-8')
        self.addCleanup((self.root / 'tokenizer.py').write_text, self.lesson, encoding='utf-8')
        done = self.lab('bpe_trace')
        self.assertEqual((done.returncode, done.stderr), (0, ''))
        self.assertIn("'lo' + 'w' -> low| |low|e|r| |low|e|s|t 10", done.stdout)

    def test_a_saved_tokenizer_without_merges_points_to_the_tutor_not_to_training_again(self):
        self.typed_with("return {'vocab': self.vocab, 'merges': self.merges}",
                        "return {'vocab': self.vocab}")
        tokenizer_inside(self.root)
        done = self.lab('check')
        self.assertEqual(done.returncode, 1)
        self.assertIn('python3 -m lab.selfcheck', done.stderr)
        self.assertNotIn('Traceback', done.stderr)

    def test_a_bpe_that_keeps_no_chars_is_said_with_the_tutor_not_a_traceback_in_a_lab(self):
        self.typed_with('        self.chars = {', '        self.char = {')
        done = self.lab('merge_order')
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr.splitlines(), [  # tokenizer.py's to mend, not the file's
            'lab.merge_order: BPE in tokenizer.py keeps no self.chars (dict)',
            'lab.merge_order: python3 -m lab.selfcheck checks tokenizer.py rule by rule'])

    def test_the_librarys_labs_use_their_own_bpe_whatever_tokenizer_py_holds(self):
        self.typed_with(KEEPS, KEEPS + "        raise ValueError('no merges today')\n")
        for lab in ['check', 'audit', 'show']:
            with self.subTest(lab):
                self.assertEqual(self.lab(lab).returncode, 0)

    def test_an_error_tokenizer_py_raises_is_not_blamed_on_the_file_being_loaded(self):
        self.typed_with(KEEPS, KEEPS + "        raise ValueError('no merges today')\n")
        done = self.lab('merge_order')
        self.assertEqual((done.returncode, done.stderr), (1, 'lab.merge_order: no merges today\n'))

    def test_an_error_in_a_lab_itself_is_not_blamed_on_tokenizer_py(self):
        def lab_code():
            return {}['missing']
        try:
            lab_code()
        except KeyError as e:
            self.assertIsNone(errors.learners_error(e))


if __name__ == '__main__':
    unittest.main()
