"""Where the slip is: the line of your tokenizer.py that differs from the lesson's way of writing it.

A rule says what your code does wrong; this finds where. Each function of your file (merge,
BPE.__init__, train, ...) is set beside the same function of the lesson-style file in
lesson/tokenizer.py, statement by statement, by structure, not by text: spacing, quotes,
comments, a statement split over lines, other names for the local variables, and `a, b = x, y`
written as two assignments are not differences. What is left differs: a statement changed,
one left out, or one added.

Among those, the slip is the one that ran in the failing case (the tutor's child traces
which lines of your file run while a rule fails), in a part whose rules do not all hold, and
of the changed ones the closest to the lesson's statement (one token changed is a slip; a
line written in another way of one's own is less likely the one). What differs inside it,
the smallest expression, is said too: `pair` here, `new_id` in the lesson.
"""
import ast
import contextlib
import os
import difflib
import functools
import re
import sys
from pathlib import Path

from lab.learner import keyboard

REFERENCE = Path(__file__).resolve().parent / 'lesson' / 'tokenizer.py'
OTHER_WAYS = REFERENCE.with_name('other_ways.py')  # the same functions, written as right in other ways
# the lesson's functions and the part that types each; the module's imports are part 0
UNITS = {'<imports>': 0, 'merge': 1, 'BPE.__init__': 2, 'BPE.train': 3, 'BPE.encode': 4,
         'BPE.decode': 5, 'BPE.state': 5, '__main__': 6}
CHANGED, MOVED, MISSING, ADDED = 'changed', 'moved', 'missing', 'added'  # what a slip is, best first


def reference_source():
    return REFERENCE.read_text(encoding='utf-8')


def units(tree):
    """{unit name: (the statements, the names local to it)} of a module: each function of the
    lesson (a method by BPE.NAME, merge also when typed inside the class), the imports, and the
    __main__ block."""
    found = {'<imports>': ([n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], set())}
    others = []  # functions of other names: a lesson function typed with a slip in its name
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name != 'BPE' and len(classes) == 1:
            node = ast.copy_location(ast.ClassDef(name='BPE', bases=node.bases, keywords=node.keywords,
                                                  body=node.body, decorator_list=[]), node)
            node.typed = classes[0].name  # class Bpe: the one class, typed with another name
        if isinstance(node, ast.FunctionDef):
            (found.setdefault('merge', ([node], set())) if node.name == 'merge' else others.append(('', node)))
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
        left = [name for name in UNITS if name.startswith(prefix) and (prefix or name == 'merge') and
                (name not in found or name == 'BPE.__init__' and len(found[name][0]) == 1)]
        if left and left[0] == 'BPE.__init__':
            found[left[0]][0].append(node)
        elif left:
            found[left[0]] = ([node], set())
    if len(found.get('BPE.__init__', ([], set()))[0]) == 1:
        del found['BPE.__init__']  # the class, no __init__ typed yet
    for name, (body, local) in found.items():
        if name != '<imports>':
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
            if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and isinstance(node, ast.If):
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
            for target, value in zip(node.targets[0].elts, node.value.elts):
                one = ast.copy_location(ast.Assign(targets=[target], value=value, type_comment=None), node)
                out.append(Item(one, depth, lambda r, n=one: code(n, r), node.lineno))
        else:
            out.append(Item(node, depth, lambda r, n=node: code(n, r), node.lineno))
    return out


def is_docstring(node):
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def is_print(node):
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
        isinstance(node.value.func, ast.Name) and node.value.func.id == 'print'


def is_pair_assignment(node):
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple) \
        and isinstance(node.value, ast.Tuple) and len(node.targets[0].elts) == len(node.value.elts) \
        and all(isinstance(t, ast.Name) for t in node.targets[0].elts)


def first_line(function):
    return min([function.lineno, *(d.lineno for d in function.decorator_list)])


def code(node, rename):
    """node as Python code, each name in it read through rename: the node's own names are
    renamed in place for the moment it is written out (a copy of the tree for each line read,
    many times over, cost the tutor more than the rules)."""
    names = getattr(node, 'names_in_it', None)
    if names is None:
        names = node.names_in_it = [n for n in ast.walk(node) if isinstance(n, (ast.Name, ast.arg))]
    kept = [n.id if isinstance(n, ast.Name) else n.arg for n in names]
    try:
        for n, name in zip(names, kept):
            setattr(n, 'id' if isinstance(n, ast.Name) else 'arg', rename(name))
        return ast.unparse(node)
    finally:
        for n, name in zip(names, kept):
            setattr(n, 'id' if isinstance(n, ast.Name) else 'arg', name)


def function_header(node, rename):
    decorators = ''.join(f'@{code(d, rename)} ' for d in node.decorator_list)
    return f'{decorators}def {node.name}({code(node.args, rename)})'


def loop_header(node, rename):
    if isinstance(node, ast.For):
        return f'for {code(node.target, rename)} in {code(node.iter, rename)}'
    return f'{"if" if isinstance(node, ast.If) else "while"} {code(node.test, rename)}'


# Comparing a unit with the lesson's --------------------------------------------------------------

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
            for x, y in zip(names_in(one.node, set(my_local) | free), names_in(other.node, their_local)):
                votes[x, y] = votes.get((x, y), 0) + weight
    mapping = {}
    for (x, y), _ in sorted(votes.items(), key=lambda kv: -kv[1]):
        if x not in mapping and y not in mapping.values():
            mapping[x] = y
    for name in set(my_local) & set(their_local) - set(mapping) - set(mapping.values()):
        mapping[name] = name  # a name seen only where the lines differ: the same name, the same variable
    return mapping


def same(name):
    return name


def used_names(unit_items):
    return {n.id for item in unit_items for n in ast.walk(shallow(item.node))
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


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
    if isinstance(node, ClassHeader):
        return []
    shallow = node
    if isinstance(node, ast.FunctionDef):
        return [a.arg for a in node.args.args]
    if isinstance(node, (ast.If, ast.While)):
        shallow = node.test
    elif isinstance(node, ast.For):
        shallow = ast.Tuple(elts=[node.target, node.iter], ctx=ast.Load())
    elif isinstance(node, (ast.With, ast.Try)):
        return []
    order = sorted((n for n in ast.walk(shallow) if isinstance(n, ast.Name) and n.id in local),
                   key=lambda n: (n.lineno, n.col_offset))
    return [n.id for n in order]


def differences(mine, theirs, my_local, their_local):
    """[(what, your Item or None, the lesson's Item or None, your Item before it)] for one unit."""
    mapping = name_mapping(mine, theirs, my_local, their_local)
    # a name of yours that is no name of the lesson's is never the lesson's name of the same
    # spelling: ids typed for text reads as ids only where the lesson has ids
    rename = lambda n: mapping.get(n, '?' + n if n in their_local else n)  # noqa: E731
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
                   key=lambda k: difflib.SequenceMatcher(None, str(a[n]), str(b[k])).ratio())
        if best is None or difflib.SequenceMatcher(None, str(a[n]), str(b[best])).ratio() < 0.5:
            pairs.append((one, None))
            continue
        pairs += [(None, lesson) for lesson in lessons[j:best]]
        pairs.append((one, lessons[best]))
        j = best + 1
    return pairs + [(None, lesson) for lesson in lessons[j:]]


def ratio(a, b, one, other, mine, theirs):
    if not (one and other):
        return 0.0
    return difflib.SequenceMatcher(None, str(a[mine.index(one)]), str(b[theirs.index(other)])).ratio()


def script_units(tree):
    """The one unit of a script (a lab): all of it, from the top."""
    return {'<script>': (tree.body, set(bound_names(tree.body)))}


@functools.lru_cache(maxsize=8)
def lesson_ways(reference=None):
    """{unit: [(its Items, its local names, the lines of its file)]}: each way the tutor
    knows of writing each unit, the lesson's first (reference: a lab's, the one unit of a script)."""
    if reference is not None:
        tree = ast.parse(reference)
        body, local = script_units(tree)['<script>']
        return {'<script>': [(items(body, main=True), local, reference.splitlines())]}
    ways = {}
    for text in [reference_source(), OTHER_WAYS.read_text(encoding='utf-8')]:
        tree, lines = ast.parse(text), text.splitlines()
        pieces = [units(tree)] + [units(ast.Module(body=[node], type_ignores=[])) for node in tree.body
                                  if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.If))]
        for n, found in enumerate(pieces):
            for name, (body, local) in found.items():
                if n == 0 and name != '<imports>':
                    continue  # the whole file's: each def, class and block is taken on its own below
                ways.setdefault(name, []).append((items(body, main=name == '__main__'), local, lines))
    return ways


@functools.lru_cache(maxsize=16)
def compared(source, reference=None):
    """[(unit, its differences from the closest way of writing it, the renaming of your names that
    reads them as the lesson's, that way's lines)] for the units of source: the same for every
    rule that fails on one file, so worked out once."""
    tree = ast.parse(source)
    ways = lesson_ways(reference)
    out = []
    for name, (body, local) in (script_units(tree) if reference is not None else units(tree)).items():
        if name not in ways:
            continue
        main = name in ('__main__', '<script>')
        mine = items(body, main=main)
        each = []
        for their_items, their_local, their_lines in ways[name]:
            each.append((differences(mine, their_items, local, their_local), their_lines))
            if len(each[-1][0][0]) <= 1:
                break  # one line or none differs: no way can be closer
        (found, rename), lesson_lines = min(each, key=lambda c: len(c[0][0]))  # the closest way
        out.append((name, moved(found, rename), rename, lesson_lines))
    return out


def locate(source, ran=None, parts=None, reference=None):
    """The slip, or None: {'what', 'line', 'yours', 'lesson', 'here', 'there', 'unit'} for the
    statement of source most likely wrong, among the units of parts (None: all; 'script': a lab,
    compared with reference). ran: the lines of source that ran while the rule failed (None: not
    known; empty: none, as when a call to your function failed before its first line).
    here/there: the smallest expression that differs, yours and the lesson's. Each unit is
    compared with the way of writing it closest to yours: the one it differs from least."""
    script = parts == 'script'
    try:
        units_found = compared(source, reference if script else None)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    lines = source.splitlines()
    candidates = []
    for name, found, rename, lesson_lines in units_found:
        if not script and parts is not None and UNITS[name] not in parts:
            continue
        for what, one, other, before, similar in found:
            line = (one or before).lineno if (one or before) else None
            if line is None:
                continue
            did_run = ran is None or line in ran or any(n in ran for n in span(one or before)) and (
                what == MISSING or isinstance((one or before).node, ast.FunctionDef)) or renamed(one, other)
            rank = (not did_run, [CHANGED, MOVED, MISSING, ADDED].index(what), -similar, line)
            candidates.append((rank, what, line, one, other, name, rename, lesson_lines))
    if not candidates:
        return None
    rank, what, line, one, other, name, rename, lesson_lines = min(candidates, key=lambda c: c[0])
    if rank[0] and (what != CHANGED or rank[2] > -0.6):  # nothing that ran differs: say nothing unsure
        return None
    if what == CHANGED and isinstance(one.node, ast.FunctionDef) and \
            [code(d, str) for d in one.node.decorator_list] != [code(d, str) for d in other.node.decorator_list]:
        one, other = decorator_item(one), decorator_item(other)  # @staticmethod for @classmethod
        line = one.lineno
    slip = {'what': what, 'line': line, 'unit': name, 'part': UNITS.get(name, 7),
            'yours': text_of(lines, one) if one else '', 'lesson': text_of(lesson_lines, other) if other else ''}
    if what == CHANGED:
        slip['depth'] = one.depth - other.depth
        here, slip['there'] = smallest_difference(one.node, other.node, rename)
        slip['here'] = keyboard.as_typed(here, slip['yours'])  # ㅑ as typed, not as Python reads it
    return slip


def renamed(one, other):
    """Whether two Items are a function of the lesson typed with another name (which then never
    runs: the lesson's name is what is called)."""
    return bool(one and other) and isinstance(one.node, ast.FunctionDef) and \
        isinstance(other.node, ast.FunctionDef) and one.node.name != other.node.name


def decorator_item(item):
    """An Item for the decorators of a function, on the line of the first."""
    node = item.node
    return Item(node, item.depth, item.header, first_line(node)) if node.decorator_list else item


def span(item):
    """The lines of an Item's statement (a function's: all of it, from its first decorator)."""
    node = item.node
    first = first_line(node) if isinstance(node, ast.FunctionDef) else item.lineno
    return range(first, (getattr(node, 'end_lineno', None) or item.lineno) + 1)


def text_of(lines, item):
    """The line of the file an Item starts on, as typed, without its indentation."""
    return lines[item.lineno - 1].strip() if 0 < item.lineno <= len(lines) else ''


def smallest_difference(mine, theirs, rename):
    """(yours, the lesson's): the smallest expressions where two statements differ (yours read
    through rename, the lesson's names for yours), each in its own names; one too short to read
    alone (a number) is shown with what holds it."""
    parent_mine, parent_theirs = None, None
    while True:
        if type(mine) is not type(theirs):
            wrapped = parent_mine is not None and (code_of(theirs, str) in code_of(mine, str) or
                                                   code_of(mine, str) in code_of(theirs, str))
            if wrapped and isinstance(parent_mine, ast.expr):  # [0][0] for [0]: the whole is clearer
                mine, theirs = parent_mine, parent_theirs
            break
        children = [(x, y) for x, y in zip(child_nodes(mine), child_nodes(theirs))
                    if code_of(x, rename) != code_of(y, lambda n: n)]
        if len(list(child_nodes(mine))) != len(list(child_nodes(theirs))) or len(children) != 1 \
                or not same_fields(mine, theirs):
            break
        parent_mine, parent_theirs = mine, theirs
        mine, theirs = children[0]
    here, there = code_of(mine, lambda n: n), code_of(theirs, lambda n: n)
    if len(here) <= 2 and len(there) <= 2 and isinstance(parent_mine, (ast.expr, ast.stmt)):
        here, there = code_of(parent_mine, lambda n: n), code_of(parent_theirs, lambda n: n)
    return here, there


def child_nodes(node):
    for field in node._fields:
        value = getattr(node, field, None)
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, ast.AST) and not isinstance(one, (ast.expr_context, ast.operator, ast.cmpop,
                                                                   ast.unaryop, ast.boolop)):
                yield one


def same_fields(mine, theirs):
    """Whether two nodes of one type agree in all but their child nodes (an operator, a name)."""
    for field in mine._fields:
        x, y = getattr(mine, field, None), getattr(theirs, field, None)
        if field in ('id', 'arg', 'ctx') or isinstance(x, ast.AST) and not is_operator(x):
            continue  # a name is compared through the mapping, a child node on its own
        if isinstance(x, list):
            if len(x) != len(y) or [type(v) for v in x if is_operator(v)] != [type(v) for v in y if is_operator(v)]:
                return False
        elif is_operator(x) and type(x) is not type(y) or not is_operator(x) and x != y:
            return False
    return True


def is_operator(node):
    return isinstance(node, (ast.operator, ast.cmpop, ast.unaryop, ast.boolop))


def code_of(node, rename):
    if isinstance(node, ClassHeader):
        return f'class {node.name}'
    if isinstance(node, ast.arguments):
        return code(node, rename)
    if isinstance(node, ast.FunctionDef):
        return function_header(node, rename)
    if isinstance(node, (ast.If, ast.While, ast.For)):
        return loop_header(node, rename)
    try:
        return code(node, rename)
    except (AttributeError, TypeError, ValueError):  # a node ast.unparse cannot show alone
        return ast.dump(node)


@contextlib.contextmanager
def lines_run(ran, name='tokenizer.py'):
    """Add to ran the number of each line of the file name (tokenizer.py) that runs inside the
    with block."""
    def local(frame, event, _):
        if event in ('line', 'call'):
            ran.add(frame.f_lineno)
        return local

    def calls(frame, event, _):
        return local(frame, event, _) if os.path.basename(frame.f_code.co_filename) == name else None
    before = sys.gettrace()
    sys.settrace(calls)
    try:
        yield ran
    finally:
        sys.settrace(before)


# What the tutor says of a slip --------------------------------------------------------------------

# a rule's look that says why, not only where: kept beside the slip when the code it names is
# what your line lacks (the lesson's tuple() in a list-with-tuple compare), or when your line is
# the lesson's at another depth (a return inside the loop)
EXPLAINS = {'look.merge_list_tuple': 'tuple(', 'look.merge_list_pair': 'tuple(', 'look.train_ids': 'ids = ',
            'look.merge_step': 'i += 2', 'look.unknown_once': "- {'", 'look.base_vocab': 'sorted(',
            'look.encode_unknown': '.get(', 'look.init_chars': 'len(', 'look.new_piece': '[pair[0]] + ',
            'look.merge_return': 'return ', 'look.merge_in_time': '.append(', 'look.train_return': 'return ', 'look.encode_return': 'return '}
RETURNS = {'look.merge_return', 'look.train_return', 'look.encode_return'}


def said(lines, slip):
    """The lines of a failed rule with the slip among them: the line of your file beside the
    lesson's and what differs, before where to look; a look the slip makes wrong is left out."""
    if not slip:
        return lines
    where = {'file': slip['file']} if 'file' in slip else {}  # a lab's; else the report names tokenizer.py
    shown = [['slip_line', {'line': str(slip['line']), 'code': slip['yours'], **where}]] if slip['yours'] else []
    if slip['what'] == MOVED:
        shown.append(['slip_moved', {}])
    elif slip['what'] == CHANGED and slip['here'] == slip['there'] and slip['depth']:  # indented otherwise
        shown.append(['slip_deeper' if slip['depth'] > 0 else 'slip_shallower', {'spaces': str(4 * abs(slip['depth']))}])
    elif slip['what'] == CHANGED:
        shown.append(['slip_lesson', {'code': slip['lesson']}])
        if slip['here'] != slip['there'] and max(len(slip['here']), len(slip['there'])) <= 40 and \
                len(slip['here']) < len(slip['yours'].rstrip(':')) - 6:  # else the two lines say it
            shown.append(['slip_differs', {'here': slip['here'], 'there': slip['there']}])
    elif slip['what'] == MISSING:
        shown = [['slip_missing', {'line': str(slip['line']), 'code': slip['lesson']}]]
    else:
        shown = [['slip_added', {'line': str(slip['line']), 'code': slip['yours'], **where}]]
    typed = keyboard.jamo_name(next(iter(re.findall(r'\w*[ㄱ-ㆎ]\w*', slip['yours'])), ''), slip['line'],
                               slip['yours'])
    if typed and not any(line[0] == 'hint' and line[1]['text'] == typed[0] for line in lines):
        shown.append(['hint', {'text': typed[0], **typed[1]}])  # ㅑ for i, with nothing raised
    kept = [line for line in lines if line[0] != 'look' or explains(line[1]['where'], slip)]
    if not any(line[0] == 'look' for line in kept):
        kept.append(['look', {'where': f'part.{slip["part"]}'}])
    at = next((n for n, line in enumerate(kept) if line[0] in ('look', 'hint')), len(kept))
    return kept[:at] + shown + kept[at:]


def explains(where, slip):
    """Whether a rule's look, or the part it names, still says something true beside the slip."""
    if where.startswith('look.lab'):  # the lab's own file: the slip is in it
        return True
    if where.startswith('part.'):
        return int(where.split('.')[1]) == slip['part']
    if slip['what'] == CHANGED and slip['here'] == slip['there']:  # the same line, at another depth
        return where in RETURNS
    code = EXPLAINS.get(where)
    return bool(code) and code in slip['lesson'] and code not in slip['yours']
