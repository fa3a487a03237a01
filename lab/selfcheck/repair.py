"""Trial files: your tokenizer.py with one line put back as the lesson's way writes it.

compare.py finds every line of your function that differs from the way of writing it closest
to yours. Often more than one differs (a name of your own, a loop where the lesson has a
comprehension) and only one of them is the slip. locate.py tells them apart by trying: each
difference put back, alone, in a copy of your file, and the rule that failed run again on
it (in the tutor's child, lab/selfcheck/child.py). The line whose trial makes the rule hold
is the slip; a line whose trial changes nothing is not.

This module makes the trials, as trees Python compiles: a changed line replaced by the
lesson's (in your names: the lesson's `result` written as your `out`), a missing one put in,
an added one taken out, a line indented otherwise moved to the lesson's depth. Your other
lines are left as they are, with their line numbers.
"""
import ast
import copy

from lab.selfcheck.compare import ADDED, CHANGED, MISSING, parse

# the statements whose header compare reads
COMPOUND = (ast.If, ast.While, ast.For, ast.FunctionDef)
# the column of a line put in: never the place of one of yours, where the next change looks
PUT_IN = 999


def changes(what, mine, theirs, before):
    """The ways of putting one difference back, each a function of (a fresh tree, back): what
    is the kind of difference (compare.CHANGED, ...), mine and theirs your Item and the way's
    (either None), before your Item before the difference. Empty when it cannot be put back (a
    class header, a moved line: the tutor says those by comparing only)."""
    return _changes(what, mine, theirs, before)


def apply(source, done):
    """A tree of source with each change of done [(change, back)] made, back being {the lesson's
    name: yours}; None when one cannot be made there (its line is not where it was read). Each
    node put in has its line and column (a pass put in has no end, which compile takes from its
    start); one without would get its parent's in trial.compiled, when compile asks for it."""
    tree = parse(source)
    for change, back in done:
        try:
            if change(tree, back) is False:
                return None
        except (LookupError, ValueError, AttributeError):
            return None
    return tree


def _changes(what, mine, theirs, before):
    """The ways of putting one difference back, each a function of (a fresh tree, back)."""
    if what == CHANGED and mine.key(str)[1] == theirs.key(str)[1]:
        return [lambda tree, back: _move(tree, mine, mine.depth - theirs.depth)]
    if what == CHANGED and _plain(mine) and _plain(theirs):
        return [lambda tree, back: _replace(tree, mine, theirs, back)]
    if what == MISSING and _plain(theirs) and before is not None:
        return [lambda tree, back: _insert(tree, before, theirs, back)]
    if what == MISSING and _is_else(theirs) and before is not None:
        return [lambda tree, back: _add_else(tree, before, theirs, back)]
    if what == ADDED and _plain(mine):
        return [lambda tree, back: _remove(tree, mine, unwrap=False),
                lambda tree, back: _remove(tree, mine, unwrap=True)]
    return []


def _plain(item):
    """Whether an Item is a whole statement or a header this module can put back (not a class
    header, an else, a with or a try)."""
    node = item.node
    return isinstance(node, ast.stmt) and not _is_else(item) and \
        not isinstance(node, (ast.With, ast.Try)) and type(node).__name__ != 'ClassHeader'


def _is_else(item):
    return item.key(str)[1] == 'else'


# Finding a line in a fresh tree
# ---------------------------------------------------------------------

def _blocks(tree):
    """(the statement that owns it, the list) for every list of statements in tree."""
    for node in ast.walk(tree):
        for field in ('body', 'orelse', 'finalbody'):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield node, block


def _find(tree, node):
    """(owner, block, index) of the statement of tree at node's place (line and column)."""
    for owner, block in _blocks(tree):
        for n, statement in enumerate(block):
            if (statement.lineno, statement.col_offset) == (node.lineno, node.col_offset):
                return owner, block, n
    raise LookupError(node.lineno)


def _owner_of(tree, owner):
    """(owner, block, index) of the compound statement owner itself (LookupError at the top)."""
    return _find(tree, owner)


# Putting a line back
# --------------------------------------------------------------------------------

def _yours(node, back, line):
    """A copy of the way's node (or list of nodes: a function's decorators) in your names, placed
    on your line."""
    if isinstance(node, list):
        return [_yours(each, back, line) for each in node]
    node = copy.deepcopy(node)
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            inner.id = back.get(inner.id, inner.id)
        elif isinstance(inner, ast.arg):
            inner.arg = back.get(inner.arg, inner.arg)
        if 'lineno' in inner._attributes:
            inner.lineno = inner.end_lineno = line
            inner.col_offset = inner.end_col_offset = PUT_IN
    return node


def _replace(tree, mine, theirs, back):
    owner, block, n = _find(tree, mine.node)
    statement, line = block[n], mine.node.lineno
    if hasattr(mine.node, 'split_from'):  # one name of a, b = x, y: that name's part only
        k = mine.node.split_from
        statement.targets[0].elts[k] = _yours(theirs.node.targets[0], back, line)
        statement.value.elts[k] = _yours(theirs.node.value, back, line)
        return True
    if type(statement) is type(theirs.node) and isinstance(statement, COMPOUND):  # the header only
        fields = {ast.If: ['test'], ast.While: ['test'], ast.For: ['target', 'iter'],
                  ast.FunctionDef: ['name', 'args', 'decorator_list']}[type(statement)]
        for field in fields:
            setattr(statement, field, _yours(getattr(theirs.node, field), back, line)
                    if field != 'name' else theirs.node.name)
        return True
    block[n] = _yours(theirs.node, back, line)  # a whole statement, a compound one with its body
    return True


def _insert(tree, before, theirs, back):
    """The way's statement put in after your line before, at the way's depth."""
    owner, block, n = _find(tree, before.node)
    node = _yours(theirs.node, back, before.node.lineno)
    if isinstance(block[n], COMPOUND) and theirs.depth > before.depth:  # the first line of its body
        block[n].body.insert(0, node)
        return True
    for _ in range(before.depth - theirs.depth):  # out of the blocks before ends
        owner, block, n = _owner_of(tree, owner)
    block.insert(n + 1, node)
    return True


def _add_else(tree, before, theirs, back):
    """The way's else (and its lines) given to your if or loop that ends with the line before."""
    owner, block, n = _find(tree, before.node)
    for _ in range(before.depth - theirs.depth - 1):
        owner, block, n = _owner_of(tree, owner)
    if not isinstance(owner, (ast.If, ast.For, ast.While)) or owner.orelse:
        return False
    owner.orelse = [_yours(statement, back, before.node.lineno) for statement in theirs.node.orelse]
    return True


def _remove(tree, mine, unwrap):
    """Your line taken out (unwrap: a compound statement's header only, its body kept)."""
    owner, block, n = _find(tree, mine.node)
    if unwrap and not isinstance(block[n], (ast.If, ast.For, ast.While)):
        return False
    block[n:n + 1] = block[n].body if unwrap else []
    if not block:
        block.append(ast.Pass(lineno=mine.node.lineno, col_offset=0))
    return True


def _move(tree, mine, depth):
    """Your line moved to the way's depth: depth levels out (after the block it is in), or, for
    a negative depth, into the end of the block just before it."""
    owner, block, n = _find(tree, mine.node)
    statement = block.pop(n)
    if depth > 0:
        for _ in range(depth):
            owner, block, n = _owner_of(tree, owner)
        block.insert(n + 1, statement)
        return True
    for _ in range(-depth):
        if n == 0 or not isinstance(block[n - 1], (ast.If, ast.For, ast.While)):
            return False
        inside = block[n - 1]
        block = inside.orelse or inside.body
        n = len(block)
    block.append(statement)
    return True
