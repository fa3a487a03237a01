"""The house: what may import what (CONTRIBUTING.md, "The layers"), imports inside functions too.

Each file of the project belongs to a layer; a file imports only from its own layer or the
layers below it, and no imports run in a circle. So the plumbing knows nothing of the
tokenizers, the explainer of a learner's error nothing of the tutor, and the tutor and the
labs stand on the same floor.
"""
import ast
import functools
import json
import tempfile
import unittest
from pathlib import Path

from lab.plumbing import terminal
from tests import gate
from tests.project import (ROOT, copy_project, import_statements, run, tokenizer_inside,
                           use_lesson_files)

# bottom first: a file may import from its own layer and from those before it
LAYERS = [
    ('the learner\'s file', ['tokenizer.py']),
    ('the package', ['lab/__init__.py']),
    ('what a learner\'s code did, in words', ['lab/learner/']),
    ('the plumbing', ['lab/plumbing/']),
    ('the contract of a tokenizer file', ['lab/contract/']),
    ('the engine', ['lab/fast/']),
    ('the kinds', ['lab/kinds/']),
    ('the tutor', ['lab/selfcheck/']),
    ('the labs', ['lab/']),
]


def project_files():
    labs = (path for path in (ROOT / 'lab').rglob('*.py') if '__pycache__' not in path.parts)
    return sorted([ROOT / 'tokenizer.py', *labs])


def layer_of(path):
    relative = path.relative_to(ROOT).as_posix()
    def holds(place):
        return relative == place or place.endswith('/') and relative.startswith(place)
    return next(n for n, (_, places) in enumerate(LAYERS) if any(holds(place) for place in places))


def module_file(name):
    """The project's file for a module name (lab.kinds.byte,
    lab.plumbing.cli, tokenizer), or None."""
    base = ROOT.joinpath(*name.split('.'))
    for candidate in (base.with_suffix('.py'), base / '__init__.py'):
        if candidate.is_file():
            return candidate
    return None


def imports(path, root=ROOT):
    """The project's files path imports, anywhere in it (at the top or inside a function)."""
    package = path.relative_to(root).parent.parts
    found = set()
    try:
        statements = import_statements(path)
    except SyntaxError:  # the learner's file, half typed: the tutor says so, not the house
        if path != root / 'tokenizer.py':
            raise
        return found
    for node in statements:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            base = '.'.join([*package[:len(package) - node.level + 1],
                             node.module or '']).strip('.') \
                if node.level else node.module or ''
            names = [f'{base}.{alias.name}' for alias in node.names] + [base]
        found |= {module_file(name) for name in names}
    return found - {None, path}


class LayersTest(unittest.TestCase):
    def test_every_file_of_the_project_has_a_layer(self):
        for path in project_files():
            with self.subTest(str(path.relative_to(ROOT))):
                self.assertIsNotNone(layer_of(path))

    def test_a_file_imports_only_from_its_layer_or_below(self):
        for path in project_files():
            for imported in imports(path):
                with self.subTest(f'{path.relative_to(ROOT)} imports {imported.relative_to(ROOT)}'):
                    self.assertLessEqual(layer_of(imported), layer_of(path),
                                         LAYERS[layer_of(imported)][0])

    def test_the_library_never_imports_the_learners_file(self):
        library = [path for path in project_files() if 2 <= layer_of(path) <= 6]  # learner to kinds
        self.assertTrue(library)
        self.assertEqual([path.relative_to(ROOT).as_posix() for path in library
                          if ROOT / 'tokenizer.py' in imports(path)], [])

    def test_no_imports_run_in_a_circle(self):
        graph = {path: imports(path) for path in project_files()}
        for start in graph:
            seen, todo = set(), list(graph[start])
            while todo:
                path = todo.pop()
                if path not in seen:
                    seen.add(path)
                    todo += graph.get(path, ())
            with self.subTest(str(start.relative_to(ROOT))):
                self.assertNotIn(start, seen)

    def test_a_learners_file_saved_by_notepad_or_half_typed_is_read_without_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            lesson = (ROOT / 'lab' / 'selfcheck' / 'lesson' / 'tokenizer.py').read_text('utf-8')
            notepad = b'\xef\xbb\xbf' + lesson.replace('\n', '\r\n').encode('utf-8')  # a BOM, CRLF
            (root / 'tokenizer.py').write_bytes(notepad)
            # the standard library only
            self.assertEqual(imports(root / 'tokenizer.py', root), set())
            half = 'def merge(ids, pair, new_id):\n    result, i = [],'  # typed this far
            (root / 'tokenizer.py').write_text(half, encoding='utf-8')
            self.assertEqual(imports(root / 'tokenizer.py', root), set())

    def test_the_layers_are_the_ones_contributing_md_states(self):
        said = (ROOT / 'CONTRIBUTING.md').read_text(encoding='utf-8')
        for name, places in LAYERS:
            with self.subTest(name):
                self.assertTrue(all(f'`{place}`' in said for place in places), places)


class StyleTest(unittest.TestCase):
    def test_no_line_of_the_library_or_the_tests_is_wider_than_100_columns(self):
        # tokenizer.py is the learner's to type, and lesson/ the lesson's files as printed
        lesson = ROOT / 'lab' / 'selfcheck' / 'lesson'
        files = [path for path in [*project_files(), *(ROOT / 'tests').rglob('*.py')]
                 if path != ROOT / 'tokenizer.py' and lesson not in path.parents]
        for path in files:
            lines = path.read_text(encoding='utf-8').splitlines()
            wide = [n for n, line in enumerate(lines, 1) if terminal.width(line) > WIDEST]
            with self.subTest(str(path.relative_to(ROOT))):
                self.assertEqual(wide, [], 'lines wider than 100 columns (Hangul takes two)')


WIDEST = 100  # columns of a line of code, as pyproject.toml tells ruff


class AddingTest(unittest.TestCase):
    """CONTRIBUTING.md's "Adding a ..." sections, each done once as written: the one file added,
    the one list touched, in a copy of the project, and the addition then run."""

    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls, parts=['settings.json', 'data', 'lab', 'tests'])
        # what is typed here, right or wrong, is not the point
        use_lesson_files(cls.root, labs=True)
        cls.env = gate.holding(cls.root)
        done = tokenizer_inside(cls.root)  # the lesson's file: data/tokenizer.json for lab.hello
        assert done.returncode == 0, done.stderr

    @classmethod
    def edit(cls, name, old, new):
        path = cls.root / name
        text = path.read_text(encoding='utf-8')
        if old not in text:
            raise AssertionError(
                f'{name} no longer holds {old!r}: CONTRIBUTING.md\'s recipe needs it')
        path.write_text(text.replace(old, new, 1), encoding='utf-8')

    def test_a_lab(self):
        check = (self.root / 'lab' / 'check.py').read_text(encoding='utf-8')
        (self.root / 'lab' / 'hello.py').write_text(  # the file to add: a copy of lab/check.py
            check.replace('lab.check', 'lab.hello').replace('Check a saved', 'Greet a saved'),
            encoding='utf-8')
        self.edit('tests/project.py', "'--tokenizer': ['audit',",
                  "'--tokenizer': ['hello', 'audit',")
        # in the copy: the new lab run as the tests run a lab, then the toolkit's test of every lab
        toolkit = ("import unittest\nfrom tests.project import LABS, ROOT, run_inside\n"
                   "assert 'hello' in LABS, LABS\ncode, out, err = run_inside(ROOT, 'hello')\n"
                   "assert code == 0, err\nprint(out.splitlines()[0])\n"
                   "unittest.main(module=None, argv=['-', 'tests.test_toolkit', '-k', "
                   "'test_help_exits_0'])")
        done = run(self.root, '-c', toolkit, env=self.env)
        self.assertEqual(done.returncode, 0, done.stderr[-2000:])
        self.assertEqual(done.stdout.splitlines()[0],
                         'data/tokenizer.json: sound, a char tokenizer')
        self.assertIn('Ran 1 test', done.stderr)

    def test_a_kind(self):
        char = (self.root / 'lab' / 'kinds' / 'char.py').read_text(encoding='utf-8')
        (self.root / 'lab' / 'kinds' / 'upper.py').write_text(  # the file to add: a copy of char.py
            char.replace('class CharBPE', 'class UpperBPE')
                .replace("kind = 'char'", "kind = 'upper'"),
            encoding='utf-8')
        # the list, and the import above it
        self.edit('lab/kinds/__init__.py', "'special': SpecialBPE}",
                  "'special': SpecialBPE, 'upper': UpperBPE}")
        self.edit('lab/kinds/__init__.py', 'from lab.kinds.word import WordBPE\n',
                  'from lab.kinds.upper import UpperBPE\nfrom lab.kinds.word import WordBPE\n')
        code = (
            'import runpy, sys\nfrom lab import kinds\n'
            'tok = kinds.KINDS["upper"].train("abab ab", 3)\n'
            'kinds.save(tok, "u.json")\nprint(kinds.load("u.json").kind)\n'
            'sys.argv = ["lab.compare", "data/mixed.txt", "--merges", "20"]\n'
            'runpy.run_module("lab.compare", run_name="__main__")')
        done = run(self.root, '-c', code)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.splitlines()[0], 'upper')  # saved and loaded as its kind
        self.assertRegex(done.stdout, r'\nupper +20 ')  # and in lab.compare's table

    @classmethod
    @functools.lru_cache(maxsize=None)
    def tutor_with_a_rule_and_a_language(cls):
        """The tutor run in the copy once a rule and a language are added, speaking the language:
        (its exit status, what it printed). Each addition is done as its recipe says; one run
        of the tutor shows both."""
        rule = ('def rule_throwaway():\n'  # the function to add, before RULES
                '    call = "merge([4, 4, 4], [4, 4], 7)"\n'
                '    got = _merged(call, [4, 4, 4], [4, 4], 7)\n'
                '    _expect_merged(call, got, [4, 4, 4], [7, 4], "look.merge_replace")\n'
                '\n\n')
        place = 'class Rule(NamedTuple):'
        cls.edit('lab/selfcheck/rules.py', place, rule + place)
        cls.edit('lab/selfcheck/rules.py',  # the list
                 '    Rule(1, {\'merge\'}, {0, 1}, rule_merge_in_time),\n',
                 '    Rule(1, {\'merge\'}, {0, 1}, rule_merge_in_time),\n'
                 '    Rule(1, {\'merge\'}, {0, 1}, rule_throwaway),\n')
        locale = cls.root / 'lab' / 'locale'
        catalog = json.loads((locale / 'en.json').read_text(encoding='utf-8'))
        catalog['rule.rule_throwaway'] = 'a throwaway rule: three 4s merge as 7 4'
        (locale / 'en.json').write_text(json.dumps(catalog), encoding='utf-8')
        # a language: a catalog of its own
        catalog['rule.rule_decode'] = 'decode: ids back to text, in the throwaway language'
        (locale / 'xx.json').write_text(json.dumps(catalog), encoding='utf-8')
        done = run(cls.root, '-m', 'lab.selfcheck', '--lang', 'xx')
        return done.returncode, done.stdout + done.stderr

    def test_a_rule_of_the_tutor(self):
        code, said = self.tutor_with_a_rule_and_a_language()
        self.assertEqual(code, 0, said[-2000:])
        self.assertRegex(said, r'OK +a throwaway rule: three 4s merge as 7 4')

    def test_a_language(self):
        code, said = self.tutor_with_a_rule_and_a_language()
        self.assertEqual(code, 0, said[-2000:])
        self.assertIn('decode: ids back to text, in the throwaway language', said)


if __name__ == '__main__':
    unittest.main()
