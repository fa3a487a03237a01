"""The house: what may import what (CONTRIBUTING.md, "The layers"), imports inside functions too.

Each file of the project belongs to a layer; a file imports only from its own layer or the
layers below it, and no imports run in a circle. So the plumbing knows nothing of the
tokenizers, the explainer of a learner's error nothing of the tutor, and the tutor and the
labs stand on the same floor.
"""
import ast
import unittest

from tests.project import ROOT

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
    """The project's file for a module name (lab.kinds.byte, lab.plumbing.cli, tokenizer), or None."""
    base = ROOT.joinpath(*name.split('.'))
    for candidate in (base.with_suffix('.py'), base / '__init__.py'):
        if candidate.is_file():
            return candidate
    return None


def imports(path):
    """The project's files path imports, anywhere in it (at the top or inside a function)."""
    package = path.relative_to(ROOT).parent.parts
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = '.'.join([*package[:len(package) - node.level + 1], node.module or '']).strip('.') \
                if node.level else node.module or ''
            names = [f'{base}.{alias.name}' for alias in node.names] + [base]
        else:
            continue
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
                    self.assertLessEqual(layer_of(imported), layer_of(path), LAYERS[layer_of(imported)][0])

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

    def test_the_layers_are_the_ones_contributing_md_states(self):
        said = (ROOT / 'CONTRIBUTING.md').read_text(encoding='utf-8')
        for name, places in LAYERS:
            with self.subTest(name):
                self.assertTrue(all(f'`{place}`' in said for place in places), places)


if __name__ == '__main__':
    unittest.main()
