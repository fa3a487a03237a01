"""One-token changes of a function: the slips a learner makes, undone one at a time.

Most slips are one token: a name for another (`text` for `ids`), a number one off, `<=`
for `<`, `+` for `-`, a slice's ends swapped. compare.py finds them when your function is
written like one of the ways the tutor knows; when it is written in a way of your own, the
tutor tries the other side: each token of each line of yours that ran, changed for another
of its kind (a name for another name of your file, a number for its neighbours, an operator
for its kin). A change that makes the failing rule hold points at the slip, in any style.

The likeliest changes come first, so that a slip is found in a few dozen trials: a name
read that nothing gives a value to, or one given a value that nothing reads (the two ends
of a name typed otherwise), before any other name.
"""
import ast
import builtins
import copy

COMPARE = [ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq]
KIN = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Add], ast.FloorDiv: [ast.Mod],
       ast.And: [ast.Or], ast.Or: [ast.And], ast.In: [ast.NotIn], ast.NotIn: [ast.In],
       ast.Is: [ast.IsNot, ast.Eq], ast.IsNot: [ast.Is, ast.NotEq], ast.Not: [ast.UAdd],
       **{op: [other for other in COMPARE if other is not op] for op in COMPARE}}
MOST = 12  # other names tried in one place: the likeliest first
SHORT = 40  # characters of a string of the file tried in place of another: a docstring is none


class Names:
    """What a token of a function may be changed for."""

    def __init__(self, tree, function):
        nodes, inside = list(ast.walk(tree)), list(ast.walk(function))  # each walked once
        own = [n.id if isinstance(n, ast.Name) else n.arg for n in inside
               if isinstance(n, (ast.Name, ast.arg))]
        every = [n.id for n in nodes if isinstance(n, ast.Name)]
        every += [n.name for n in nodes if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        bound = {n.id for n in inside if _stored(n)}
        bound |= {n.arg for n in inside if isinstance(n, ast.arg)}
        read = {n.id for n in inside if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        # the file's own functions and classes, and what it imports
        known = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        known |= {a.asname or a.name.split('.')[0] for n in nodes
                  if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
        known |= {n.id for top in tree.body
                  if not isinstance(top, (ast.FunctionDef, ast.ClassDef, ast.If))
                  for n in ast.walk(top) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
        # (what the __main__ block gives a value to is no name a function has when imported)
        loops = {n.id for loop in inside
                 if isinstance(loop, (ast.For, ast.comprehension))
                 for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        # read before any line gives it a value (an UnboundLocalError): as good as never given one
        first = {}  # a statement reads what it reads before it gives a value: ids = merge(ids, ...)
        found = [((statement.lineno, _stored(n), n.col_offset), n)
                 for statement in inside if isinstance(statement, ast.stmt)
                 for _, n in _walk(statement, (), shallow=True)
                 if isinstance(n, (ast.Name, ast.arg))]
        for _, n in sorted(found, key=lambda f: f[0]):
            first.setdefault(n.id if isinstance(n, ast.Name) else n.arg,
                             isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
        early = {name for name, is_read in first.items() if is_read} - loops
        self.unbound = [n for n in dict.fromkeys(own) if n in (read - bound | early & read) - known
                        and not hasattr(builtins, n)]
        unread = [n for n in dict.fromkeys(own) if n in bound - read
                  and n not in ('_', 'self', 'cls')]
        # a loop's own name last: often unread
        self.unread = sorted(unread, key=lambda n: n in loops)
        self.bound = bound
        self.names = list(dict.fromkeys(own + every))
        self.called = list(dict.fromkeys(n.func.id for n in nodes
                                         if isinstance(n, ast.Call)
                                         and isinstance(n.func, ast.Name)))
        self.attributes = list(dict.fromkeys(n.attr for n in nodes
                                             if isinstance(n, ast.Attribute)))
        self.strings = list(dict.fromkeys(n.value for n in nodes
                                          if isinstance(n, ast.Constant) and
                                          isinstance(n.value, str) and len(n.value) <= SHORT))

    def instead_of(self, name, bound, called=False):
        """The names to try for name: where it is given a value, a name read and never given
        one; where it is read, one given a value and never read; where it is called, a name
        called elsewhere; then the others."""
        first = self.unbound if bound else self.unread + (self.called if called else [])
        return [n for n in dict.fromkeys(first + self.names) if n != name][:MOST]

    def suspect(self, statement):
        """Whether a statement holds (on its own line, not in its body) one end of a name typed
        otherwise."""
        ends = self.unbound + self.unread
        return any(isinstance(n, ast.Name) and n.id in ends or isinstance(n, ast.arg)
                   and n.arg in self.unread
                   for _, n in _walk(statement, (), shallow=True))


def renamed_copies(function, tree):
    """(the line, a copy of function with one name renamed, that name) for a name typed
    otherwise, in any line (one that never ran too: a name typed otherwise may stop the
    function before it gets there), likeliest first:
      - a name given a value and never read, renamed where it is given the value to a name read
        and never given one: the two ends of one name;
      - a name read and never given one (or read before it is), renamed to a name the function
        gives a value to;
      - a name given a value (text = [] for merges = []), renamed to a name read and never given
      one;
      - a parameter renamed to a name read and never given one;
      - a name read, renamed to one given a value and never read."""
    names = Names(tree, function)
    bound = [n for n in names.names if n in names.bound and n not in ('self', 'cls')]
    places = list(_walk(function, ()))
    stores = [(path, node, 'arg' if isinstance(node, ast.arg) else 'id') for path, node in places
              if isinstance(node, ast.arg) or _stored(node)]
    reads = [(path, node, 'id') for path, node in places if _read(node)]
    steps = [(stores, lambda name: name in names.unread, names.unbound),
             (reads, lambda name: name in names.unbound,
              names.unread + [n for n in bound if n not in names.unread]),
             ([s for s in stores if s[2] == 'id'], lambda name: name not in names.unread,
              names.unbound),
             ([s for s in stores if s[2] == 'arg'], lambda name: name not in ('self', 'cls'),
              names.unbound),
             (reads, lambda name: name not in names.unread, names.unread)]
    for where, which, wanted in steps:
        for path, node, field in where:
            name = getattr(node, field)
            if not which(name):
                continue
            for other in wanted:
                if other != name:
                    yield node.lineno, copied_with(function, path + (field,), other), name


def changed_copies(function, lines, tree, names_only=False):
    """(the line of the token, a copy of function with one token changed on the statement that
    starts on a line of lines, that token as code) for each change that may undo a slip
    there: the lines that hold one end of a name typed otherwise first, then the others, in the
    order given (names_only: only the names of the first)."""
    names = Names(tree, function)
    statements = {}
    for path, node in _walk(function, ()):
        if isinstance(node, ast.stmt) and node.lineno in lines:
            statements.setdefault(node.lineno, []).append(path)
    suspect = {n for n in lines
               if any(names.suspect(_at(function, p)) for p in statements.get(n, []))}
    lines = sorted(lines, key=lambda n: n not in suspect)
    found = []  # (line, path, the values to try there), line by line
    for line in lines:
        if names_only and line not in suspect:
            break
        for start in statements.get(line, []):
            for path, alternatives in places(_at(function, start), start, names):
                if names_only and path[-1] not in ('id', 'arg'):
                    continue
                found.append((line, path, alternatives))
    # an operator, a number or a string first, in every line: a few values each, where a name has
    # a dozen; then the names (the lines that hold one end of a name typed otherwise came first)
    found.sort(key=lambda f: f[1][-1] in ('id', 'arg', 'attr') and f[0] not in suspect)
    for line, path, alternatives in found:
        shown, at = _shown(function, path)
        for other in alternatives:
            yield at or line, copied_with(function, path, other), shown


def places(statement, path, names):
    """[(a path to a field, the values to try there)] for the tokens of one statement (its own,
    not those of the body of a loop or an if it starts; for a def, its parameters)."""
    found = []
    callees = {id(n.func)
               for _, n in _walk(statement, path, shallow=True) if isinstance(n, ast.Call)}
    for at, node in _walk(statement, path, shallow=True):
        if isinstance(node, ast.Name):
            found.append((at + ('id',),
                          names.instead_of(node.id, not isinstance(node.ctx, ast.Load),
                                           id(node) in callees)))
        elif isinstance(node, ast.arg):
            found.append((at + ('arg',), names.instead_of(node.arg, True)))
        elif isinstance(node, ast.Attribute):
            found.append((at + ('attr',), [a for a in names.attributes if a != node.attr][:MOST]))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            near = dict.fromkeys((node.value - 1, node.value + 1, 0, 1, 2))  # one off first
            found.append((at + ('value',), [v for v in near if v >= 0 and v != node.value][:3]))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                len(node.value) <= SHORT:
            found.append((at + ('value',), [s for s in names.strings if s != node.value][:MOST]))
        elif isinstance(node, ast.Slice) and (node.lower is not None or node.upper is not None):
            found.append((at, [ast.Slice(lower=node.upper, upper=node.lower, step=node.step)]))
        elif isinstance(node, (ast.BinOp, ast.AugAssign, ast.BoolOp, ast.UnaryOp)):
            found.append((at + ('op',), [other() for other in KIN.get(type(node.op), [])]))
        elif isinstance(node, ast.Compare):
            found += [(at + ('ops', n), [other() for other in KIN.get(type(op), [])])
                      for n, op in enumerate(node.ops)]
    # the ends of a name typed otherwise first
    found.sort(key=lambda place: not names.suspect(_holder(statement, place[0][len(path):])))
    return [(at, alternatives) for at, alternatives in found if alternatives]


def _shown(function, path):
    """(the code of the token at path as typed: a name, a number, a string, a slice, or for an
    operator the expression it joins; the line it is on)."""
    if path[-1] == 'op':
        node = _at(function, path[:-1])
    elif isinstance(path[-1], int) and path[-2] == 'ops':
        node = _at(function, path[:-2])
    elif path[-1] in ('id', 'arg', 'attr', 'value'):
        node = _at(function, path[:-1])
    else:
        node = _at(function, path)
    text = node.arg if isinstance(node, ast.arg) else ast.unparse(node)
    return text, getattr(node, 'lineno', None)


def _holder(node, path):
    """The node a token at path belongs to (a name's Name, an operator's expression)."""
    if path and path[-1] in ('id', 'arg', 'attr', 'value', 'op'):
        path = path[:-1]
    elif len(path) > 1 and path[-2] == 'ops':
        path = path[:-2]
    return _at(node, path)


def _stored(node):
    return isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)


def _read(node):
    return isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)


def _at(node, path):
    for step in path:
        node = node[step] if isinstance(step, int) else getattr(node, step)
    return node


def _walk(node, path, shallow=False):
    """(path, node) for node and every node below it, a path being the fields and indexes to it
    (shallow: not into the statements of a body, which are lines of their own)."""
    yield path, node
    for field, value in ast.iter_fields(node):
        if shallow and field in ('body', 'orelse', 'finalbody', 'handlers', 'decorator_list'):
            continue
        if isinstance(value, list):
            for n, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _walk(item, path + (field, n), shallow)
        elif isinstance(value, ast.AST):
            yield from _walk(value, path + (field,), shallow)


def copied_with(node, path, value):
    """A copy of node with value at path: the nodes and lists on the path are copied, the rest
    is shared (a trial compiles the copy and changes none of it; a copy of the whole function
    a trial cost more than the trial)."""
    if not path:
        return value
    step, rest = path[0], path[1:]
    copied = list(node) if isinstance(node, list) else copy.copy(node)
    inner = node[step] if isinstance(step, int) else getattr(node, step)
    if isinstance(step, int):
        copied[step] = copied_with(inner, rest, value)
    else:
        setattr(copied, step, copied_with(inner, rest, value))
    return copied

