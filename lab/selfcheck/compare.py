"""Two versions of a function set side by side, statement by statement, by structure, not by text.

Each function of a file (merge, BPE.__init__, train, ...) is a unit; each unit is read as a
list of Items, one a statement (a compound statement's header, then its body, one deeper).
Two units are compared with the names of one read as the other's (found by majority over the
statements that agree with every local name blanked out), so that spacing, quotes, comments,
a statement split over lines, other names for the local variables, and `a, b = x, y`
written as two assignments are no differences. What is left differs: a statement changed,
moved, left out or added (inside a changed one, the smallest expression that differs is
lab/selfcheck/smallest.py's). lab/selfcheck/locate.py uses it to find the line of a slip.
"""
import ast
import difflib
import functools
import weakref

from lab.learner.parts import UNITS
from lab.selfcheck.written import code, function_header, loop_header

# what a slip is, best first
CHANGED, MOVED, MISSING, ADDED = 'changed', 'moved', 'missing', 'added'


def parse(source):
    """source as a tree, its type hints left out: def encode(self, text: str) -> list[int] is
    the lesson's def encode(self, text), and ids: list[int] = [] its ids = []."""
    tree = ast.parse(source)
    _unhint(tree.body)
    return tree


def _unhint(body):
    """The hints of a list of statements and of those inside them, left out. Statements only:
    a hint is on a def or an assignment, and visiting every expression as well took longer than
    parsing (the tutor parses your file again for each line it tries)."""
    for n, node in enumerate(body):
        if isinstance(node, ast.AnnAssign) and node.value is not None and node.simple:
            body[n] = ast.copy_location(ast.Assign(targets=[node.target], value=node.value,
                                                   type_comment=None), node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if isinstance(node, ast.FunctionDef):
                node.returns = None
            arguments = node.args
            for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                        arguments.vararg, arguments.kwarg]:
                if arg is not None:
                    arg.annotation = None
        for field in ('body', 'orelse', 'finalbody', 'handlers', 'cases'):
            inner = getattr(node, field, None) or []
            if inner and isinstance(inner[0], ast.stmt):
                _unhint(inner)
            else:
                for part in inner:  # an except or a case: its body
                    _unhint(part.body)


def units(tree, only=None):
    """{unit name: (the statements, the names local to it)} of a module: each function of the
    lesson (a method by BPE.NAME, merge also when typed inside the class), the imports, and the
    __main__ block (only: the names local to that unit alone are found, the others' left empty:
    finding them walks every statement)."""
    found = {'<imports>': ([n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))],
                           set())}
    others = []  # functions of other names: a lesson function typed with a slip in its name
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name != 'BPE' and len(classes) == 1:
            node = ast.copy_location(ast.ClassDef(name='BPE', bases=node.bases,
                                                  keywords=node.keywords,
                                                  body=node.body, decorator_list=[]), node)
            node.typed = classes[0].name  # class Bpe: the one class, typed with another name
        if isinstance(node, ast.FunctionDef) and node.name == 'merge':
            found.setdefault('merge', ([node], set()))
        elif isinstance(node, ast.FunctionDef):
            others.append(('', node))
        elif isinstance(node, ast.ClassDef) and node.name == 'BPE':
            found['BPE.__init__'] = ([ClassHeader(node)], set())
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    name = 'merge' if item.name == 'merge' else f'BPE.{item.name}'
                    if name == 'BPE.__init__' and len(found[name][0]) == 1:
                        found[name][0].append(item)
                    elif name in UNITS and name not in found:
                        found[name] = ([item], set())
                    else:
                        others.append(('BPE.', item))
        elif isinstance(node, ast.If) and 'id=\'__name__\'' in ast.dump(node.test):
            found['__main__'] = (node.body, set())
    for prefix, node in others:  # in the lesson's order, the first unit of its place not typed
        left = [name for name in UNITS if name.startswith(prefix) and (prefix or name == 'merge')
                and (name not in found or name == 'BPE.__init__' and len(found[name][0]) == 1)]
        if left and left[0] == 'BPE.__init__':
            found[left[0]][0].append(node)
        elif left:
            found[left[0]] = ([node], set())
    if len(found.get('BPE.__init__', ([], set()))[0]) == 1:
        del found['BPE.__init__']  # the class, no __init__ typed yet
    for name, (body, local) in found.items():
        if name != '<imports>' and only in (None, name):
            local.update(bound_names(body))
    return found


def bound_names(body):
    """The names a function (or the __main__ block) binds: its parameters and every name it
    assigns, loops over or imports, in the order they come."""
    names = []
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.arg):
                names.append(node.arg)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.append(node.id)
    return list(dict.fromkeys(names))


class ClassHeader(ast.stmt):
    """The line class BPE: of a file, compared as the first line of BPE.__init__."""
    _fields = ()

    def __init__(self, node):
        super().__init__()
        self.name, self.lineno = getattr(node, 'typed', node.name), node.lineno
        self.end_lineno = node.lineno


class Item:
    """One line of a unit as compared: a simple statement, or the header of a compound one."""

    def __init__(self, node, depth, header, lineno):
        self.node, self.depth, self.header, self.lineno = node, depth, header, lineno

    def key(self, rename, tag=None):
        """(depth, the line as code with its names read through rename); kept under tag, for a
        renaming used again (the lesson's own, or every local name blanked out)."""
        if tag is None:
            return self.depth, self.header(rename)
        kept = self.__dict__.setdefault('keys', {})
        if tag not in kept:
            kept[tag] = self.depth, self.header(rename)
        return kept[tag]


def items(body, depth=0, main=False):
    """The Items of a body, in order: a compound statement's header, then its body one deeper."""
    out = []
    for node in body:
        if is_docstring(node) or not main and is_print(node):
            continue  # a docstring or a debug print is not part of what the lesson's code does
        if isinstance(node, ClassHeader):
            out.append(Item(node, depth, lambda r, n=node: f'class {n.name}', node.lineno))
        elif isinstance(node, ast.FunctionDef):
            out.append(Item(node, depth, lambda r, n=node: function_header(n, r), node.lineno))
            out += items(node.body, depth + 1, main)
        elif isinstance(node, (ast.If, ast.While, ast.For)):
            out.append(Item(node, depth, lambda r, n=node: loop_header(n, r), node.lineno))
            out += items(node.body, depth + 1, main)
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and \
                    isinstance(node, ast.If):
                out += items(node.orelse, depth, main)  # elif: an if at the same depth
            elif node.orelse:
                out.append(Item(node, depth, lambda r: 'else', node.orelse[0].lineno - 1))
                out += items(node.orelse, depth + 1, main)
        elif isinstance(node, (ast.With, ast.Try)):
            out.append(Item(node, depth, lambda r, n=node: type(n).__name__, node.lineno))
            for part in ('body', 'handlers', 'orelse', 'finalbody'):
                for inner in getattr(node, part, []):
                    out += items(inner.body if isinstance(inner, ast.ExceptHandler) else [inner],
                                 depth + 1, main)
        elif is_pair_assignment(node):  # a, b = x, y: the same as two assignments
            for k, (target, value) in enumerate(zip(node.targets[0].elts, node.value.elts)):
                one = ast.copy_location(ast.Assign(targets=[target], value=value,
                                                   type_comment=None), node)
                one.split_from = k  # the kth of the names the statement assigns
                out.append(Item(one, depth, lambda r, n=one: code(n, r), node.lineno))
        else:
            out.append(Item(node, depth, lambda r, n=node: code(n, r), node.lineno))
    return out


def is_docstring(node):
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and \
        isinstance(node.value.value, str)


def is_print(node):
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
        isinstance(node.value.func, ast.Name) and node.value.func.id == 'print'


def is_pair_assignment(node):
    target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
    return isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and \
        len(target.elts) == len(node.value.elts) and \
        all(isinstance(t, ast.Name) for t in target.elts)


def first_line(function):
    return min([function.lineno, *(d.lineno for d in function.decorator_list)])


def name_mapping(mine, theirs, my_local, their_local):
    """{a local name of yours: the lesson's name for it}, by majority over the statements that are
    the same with every local name blanked out; a parameter also by its position."""
    # a name you use and never bind, which the lesson binds (result, in merge typed with text, i =
    # [], 0), is the lesson's own name: then only the line that should bind it differs
    free = (used_names(mine) - set(my_local)) & set(their_local)
    votes = {(name, name): float('inf') for name in free}
    hide_mine = lambda n: '_' if n in my_local or n in free else n  # noqa: E731
    hide_theirs = lambda n: '_' if n in their_local else n  # noqa: E731
    a = [item.key(hide_mine) for item in mine]
    b = [item.key(hide_theirs, 'blank') for item in theirs]
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != 'equal':
            continue
        for one, other in zip(mine[i1:i2], theirs[j1:j2]):
            # a parameter by its position, but a name used throughout the body by its use: a
            # parameter typed with another name is then the one that differs
            weight = 1.5 if isinstance(one.node, ast.FunctionDef) else 1
            for x, y in zip(names_in(one.node, set(my_local) | free),
                            names_in(other.node, their_local)):
                votes[x, y] = votes.get((x, y), 0) + weight
    mapping = {}
    for (x, y), _ in sorted(votes.items(), key=lambda kv: -kv[1]):
        if x not in mapping and y not in mapping.values():
            mapping[x] = y
    for name in set(my_local) & set(their_local) - set(mapping) - set(mapping.values()):
        # a name seen only where the lines differ: the same name, the same variable
        mapping[name] = name
    return mapping


def same(name):
    return name


class Renaming:
    """Your local names read as the lesson's (called on a name: the lesson's name for it). A name
    of yours that is no name of the lesson's is never the lesson's name of the same spelling:
    ids typed for text reads as ids only where the lesson has ids."""

    def __init__(self, mapping, their_local):
        self.mapping, self.their_local = mapping, their_local

    def __call__(self, name):
        return self.mapping.get(name, '?' + name if name in self.their_local else name)

    def back(self):
        """{the lesson's name: yours}: to write a line of the lesson's in your names."""
        return {theirs: yours for yours, theirs in self.mapping.items()}


def used_names(unit_items):
    """The names the statements read (their headers only, for compound ones)."""
    return {n.id for item in unit_items for n in header_names(item.node)
            if isinstance(n.ctx, ast.Load)}


def header_names(node):
    """The Name nodes of a statement (its header only, for a compound one), in the order they are
    written; kept for the node, not on it (a copy of a node would carry them, and a trial's copy
    holds other names): the lesson's statements are asked again and again."""
    found = _HEADER_NAMES.get(node)
    if found is None:
        found = _HEADER_NAMES[node] = sorted((n for n in ast.walk(shallow(node))
                                              if isinstance(n, ast.Name)),
                                             key=lambda n: (n.lineno, n.col_offset))
    return found


_HEADER_NAMES = weakref.WeakKeyDictionary()  # {node: its Name nodes, in the order written}


def shallow(node):
    """What a statement holds itself: a compound statement's header, not its body."""
    if isinstance(node, ast.FunctionDef):
        return node.args
    if isinstance(node, (ast.If, ast.While)):
        return node.test
    if isinstance(node, ast.For):
        return ast.Tuple(elts=[node.target, node.iter], ctx=ast.Load())
    if isinstance(node, (ast.With, ast.Try, ClassHeader)):
        return ast.Pass()
    return node


def names_in(node, local):
    """The local names a statement uses, in order (its header only, for a compound one)."""
    if isinstance(node, ast.FunctionDef):
        return [a.arg for a in node.args.args]
    return [n.id for n in header_names(node) if n.id in local]  # none for a class, a with, a try


def differences(mine, theirs, my_local, their_local):
    """[(what, your Item or None, the lesson's Item or None, your Item before it)] for one unit."""
    if len(mine) == len(theirs) and set(my_local) == set(their_local) and \
            [item.key(same, 'same') for item in mine] == \
            [item.key(same, 'same') for item in theirs]:
        # written as this way writes it, name for name (most units of a file with one slip): the
        # renaming is each name its own, and nothing differs
        return [], Renaming({name: name for name in my_local}, their_local)
    rename = Renaming(name_mapping(mine, theirs, my_local, their_local), their_local)
    a = [item.key(rename) for item in mine]
    b = [item.key(same, 'same') for item in theirs]
    found = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == 'equal':
            continue
        yours, lessons = mine[i1:i2], theirs[j1:j2]
        paired = pair_up(yours, lessons, a[i1:i2], b[j1:j2])
        for one, other in paired:
            what = CHANGED if one and other else ADDED if one else MISSING
            before = one or (mine[i1 - 1] if i1 else (mine[0] if mine else None))
            found.append((what, one, other, before, ratio(a, b, one, other, mine, theirs)))
    return found, rename


def moved(found, rename):
    """found, with a line added here and left out there that is the same line said once: moved."""
    lacking = {other.key(str): other for what, _, other, _, _ in found if what == MISSING}
    out, taken = [], set()
    for what, one, other, before, similar in found:
        key = one.key(rename) if what == ADDED else None
        if key in lacking and key not in taken:
            taken.add(key)
            out.append((MOVED, one, lacking[key], before, 1.0))
        elif not (what == MISSING and other.key(str) in taken):
            out.append((what, one, other, before, similar))
    return [f for f in out if not (f[0] == MISSING and f[2].key(str) in taken)]


def pair_up(yours, lessons, a, b):
    """Your items and the lesson's of one changed stretch, each of yours with the lesson's item
    most like it (in order), the rest on their own."""
    if len(yours) == len(lessons) == 1:
        return [(yours[0], lessons[0])]  # one line for one: that line, changed however much
    pairs, j = [], 0
    for n, one in enumerate(yours):
        best = max(range(j, len(lessons)), default=None,
                   key=lambda k: similarity(str(a[n]), str(b[k])))
        if best is None or similarity(str(a[n]), str(b[best])) < 0.5:
            pairs.append((one, None))
            continue
        pairs += [(None, lesson) for lesson in lessons[j:best]]
        pairs.append((one, lessons[best]))
        j = best + 1
    return pairs + [(None, lesson) for lesson in lessons[j:]]


def ratio(a, b, one, other, mine, theirs):
    if not (one and other):
        return 0.0
    return similarity(str(a[mine.index(one)]), str(b[theirs.index(other)]))


@functools.lru_cache(maxsize=4096)
def similarity(line, other):
    """How alike two lines are, as difflib measures it (1.0: the same): kept, for the tutor asks
    it of the same two lines again for each trial of a file, and for each file a batch holds."""
    return difflib.SequenceMatcher(None, line, other).ratio()


def script_units(tree):
    """The one unit of a script (a lab): all of it, from the top."""
    return {'<script>': (tree.body, set(bound_names(tree.body)))}
