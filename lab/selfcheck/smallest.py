"""The smallest expression where two statements differ: what the tutor says differs inside
the line of yours it names (`pair` here, `new_id` in the lesson), each side in its own names.
"""
import ast

from lab.selfcheck.compare import ClassHeader
from lab.selfcheck.written import code, function_header, loop_header


def smallest_difference(mine, theirs, rename):
    """(yours, the lesson's, the line of yours it is on): the smallest expressions where two
    statements differ (yours read through rename, the lesson's names for yours), each in its own
    names; one too short to read alone (a number) is shown with what holds it."""
    parent_mine, parent_theirs = None, None
    while True:
        if type(mine) is not type(theirs):
            wrapped = parent_mine is not None and (code_of(theirs, str) in code_of(mine, str) or
                                                   code_of(mine, str) in code_of(theirs, str))
            # [0][0] for [0]: the whole is clearer
            if wrapped and isinstance(parent_mine, ast.expr):
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
    return here, there, getattr(mine, 'lineno', None)


def child_nodes(node):
    for field in node._fields:
        value = getattr(node, field, None)
        for one in value if isinstance(value, list) else [value]:
            if isinstance(one, ast.AST) and not isinstance(one, (
                    ast.expr_context, ast.operator, ast.cmpop, ast.unaryop, ast.boolop)):
                yield one


def same_fields(mine, theirs):
    """Whether two nodes of one type agree in all but their child nodes (an operator, a name)."""
    for field in mine._fields:
        x, y = getattr(mine, field, None), getattr(theirs, field, None)
        if field in ('id', 'arg', 'ctx') or isinstance(x, ast.AST) and not is_operator(x):
            continue  # a name is compared through the mapping, a child node on its own
        if isinstance(x, list):
            if len(x) != len(y) or [type(v) for v in x if is_operator(v)] != \
                    [type(v) for v in y if is_operator(v)]:
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
