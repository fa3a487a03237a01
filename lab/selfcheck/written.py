"""A line of a file written out as code, each name in it read through a renaming: how
compare.py reads a statement (or a compound statement's header) as one of the lesson's, and how
the slip's lines are shown in your names or the lesson's.

The tutor reads each line many times over, under several renamings (yours, the lesson's, every
local name blanked out): a node is written out once, cut where its names go, and each reading
puts the names in."""
import ast
import weakref


def code(node, rename):
    """node as Python code, each name in it read through rename: written out once, cut at its
    names, and put together on each call (writing the tree out on each call cost the tutor more
    than its rules)."""
    pieces, names = _WRITTEN.get(node) or _WRITTEN.setdefault(node, _cut_at_names(node))
    if names is None:  # marks cannot stand for its names: written out on each call
        names = _names_in(node)
        return _written_as(node, names, [rename(_name_of(n)) for n in names])
    out = [pieces[0]]
    for name, piece in zip(names, pieces[1:]):
        out += [rename(_name_of(name)), piece]
    return ''.join(out)


_WRITTEN = weakref.WeakKeyDictionary()  # {node: (its code cut at its names, those names)}
_MARK = '\0'  # around a name's number in the code cut at names


def _cut_at_names(node):
    """(the pieces of node's code between its names, the Name and arg nodes that go between them
    in the order written); None for both where the marks cannot stand for the names: the code
    holds a mark of its own (a NUL typed in an f-string), or a mark in an f-string inside another
    would be written with a backslash, which Python before 3.12 cannot write there."""
    names = _names_in(node)
    try:
        marked = _written_as(node, names, [f'{_MARK}{k}{_MARK}' for k in range(len(names))])
    except ValueError:
        return None, None
    cut = marked.split(_MARK)
    order = cut[1::2]
    if sorted(order) != sorted(str(k) for k in range(len(names))):
        return None, None
    return cut[0::2], [names[int(k)] for k in order]


def _names_in(node):
    return [n for n in ast.walk(node) if isinstance(n, (ast.Name, ast.arg))]


def _name_of(node):
    return node.id if isinstance(node, ast.Name) else node.arg


def _written_as(node, names, new):
    """node as code with its names (Name and arg nodes) written as new, changed in place for the
    moment it is written out."""
    kept = [_name_of(n) for n in names]
    try:
        for n, name in zip(names, new):
            setattr(n, 'id' if isinstance(n, ast.Name) else 'arg', name)
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
