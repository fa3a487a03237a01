"""What the tutor says of a slip the search found (lab/selfcheck/locate.py): your statement as
typed, all its lines, beside the lesson's and what differs in it, put among the lines of the
rule that failed; a look of the rule that the slip makes wrong is left out.
"""
import ast
import re

from lab.learner import keyboard
from lab.learner.parts import UNITS
from lab.selfcheck.compare import CHANGED, MISSING, MOVED, Item, first_line
from lab.selfcheck.smallest import smallest_difference
from lab.selfcheck.written import code


class Token:
    """A line of yours, in a way of your own, where one token changed makes the rule hold."""
    what = 'token'

    def __init__(self, line, unit, statement, token):
        self.line, self.unit, self.statement, self.token = line, unit, statement, token

    def key(self):
        return self.what, self.line, self.unit


def slip_of(source, difference):
    """What the tutor says of a difference: its statement as typed (all its lines) and the
    lesson's, the line of yours that holds what differs, and what differs."""
    if isinstance(difference, Token):
        # as typed, whole
        item = Item(difference.statement, 0, lambda r: '', difference.statement.lineno)
        return {'what': 'token', 'line': difference.line, 'unit': difference.unit,
                'part': UNITS.get(difference.unit, 7),
                'yours': statement_text(source.splitlines(), item),
                'lesson': '', 'here': difference.token}
    what, one, other, line = difference.what, difference.one, difference.other, difference.line
    # a def of yours in place of the lesson's statement (a helper of your own) has no decorators
    # to compare with
    if what == CHANGED and isinstance(one.node, ast.FunctionDef) and \
            isinstance(other.node, ast.FunctionDef) and decorators(one) != decorators(other):
        one, other = decorator_item(one), decorator_item(other)  # @staticmethod for @classmethod
        line = one.lineno
    lines = source.splitlines()
    slip = {'what': what, 'line': line, 'unit': difference.unit,
            'part': UNITS.get(difference.unit, 7),
            'yours': statement_text(lines, one),
            'lesson': statement_text(difference.lesson_lines, other)}
    if what == CHANGED:
        slip['depth'] = one.depth - other.depth
        here, slip['there'], at = smallest_difference(one.node, other.node, difference.rename)
        slip['here'] = keyboard.as_typed(here, slip['yours'])  # ㅑ as typed, not as Python reads it
        at = getattr(difference, 'token_line', None) or at
        if at and one.lineno <= at <= one.lineno + slip['yours'].count('\n'):
            slip['line'] = at  # the line of a statement of several that holds the difference
    elif what == MISSING and one is None and difference.before is not None:
        before = difference.before.node
        slip['line'] = statement_end(difference.before)  # after the whole of the line before
        if isinstance(before, ast.FunctionDef) and \
                ast.get_docstring(before, clean=False) is not None:
            # the first line of a body comes after its docstring
            slip['line'] = before.body[0].end_lineno
    return slip


def statement_text(lines, item):
    """The statement an Item starts, as typed: all its lines (a call over two lines, a header to
    its ':'), without the indentation of its first ('' for no Item)."""
    if not item or not 0 < item.lineno <= len(lines):
        return ''
    typed = lines[item.lineno - 1:statement_end(item, len(lines))]
    margin = len(typed[0]) - len(typed[0].lstrip())
    return '\n'.join(line[margin:] if line[:margin].isspace() else line.lstrip()
                     for line in typed).rstrip()


def statement_end(item, most=None):
    """The last line of the statement an Item starts (a compound one's header: to its ':')."""
    node = item.node
    if item.key(str)[1] == 'else' or not isinstance(node, ast.stmt):
        return item.lineno
    header = {ast.If: ['test'], ast.While: ['test'], ast.For: ['target', 'iter'],
              ast.FunctionDef: ['args', 'returns']}.get(type(node))
    if header is None:
        end = getattr(node, 'end_lineno', None) or item.lineno
    else:
        parts = [getattr(node, field) for field in header if getattr(node, field, None) is not None]
        ends = [getattr(n, 'end_lineno', 0) or 0 for part in parts for n in ast.walk(part)]
        end = max([item.lineno, *ends])
    return min(end, most) if most else end


def decorator_item(item):
    """An Item for the decorators of a function, on the line of the first."""
    node = item.node
    return Item(node, item.depth, item.header, first_line(node)) if node.decorator_list else item


def decorators(item):
    return [code(d, str) for d in item.node.decorator_list]


# What the tutor says of a slip --------------------------------------------------------------------

# a rule's look that says why, not only where: kept beside the slip when the code it names is
# what your line lacks (the lesson's tuple() in a list-with-tuple compare), or when your line is
# the lesson's at another depth (a return inside the loop)
EXPLAINS = {'look.merge_list_tuple': 'tuple(', 'look.merge_list_pair': 'tuple(',
            'look.train_ids': 'ids = ',
            'look.merge_step': 'i += 2', 'look.unknown_once': "- {'", 'look.base_vocab': 'sorted(',
            'look.encode_unknown': '.get(', 'look.init_chars': 'len(',
            'look.new_piece': '[pair[0]] + ',
            'look.merge_return': 'return ', 'look.merge_in_time': '.append(',
            'look.train_return': 'return ',
            'look.encode_return': 'return '}
RETURNS = {'look.merge_return', 'look.train_return', 'look.encode_return'}


def said(lines, slip):
    """The lines of a failed rule with the slip among them: the line of your file beside the
    lesson's and what differs, before where to look; a look the slip makes wrong is left out."""
    if not slip:
        return lines
    # a lab's; else the report names tokenizer.py
    where = {'file': slip['file']} if 'file' in slip else {}
    line = str(slip['line'])
    shown = [['slip_line', {'line': line, 'code': slip['yours'], **where}]] if slip['yours'] else []
    if slip['what'] == MOVED:
        shown.append(['slip_moved', {}])
    elif slip['what'] == CHANGED and slip['here'] == slip['there'] and slip['depth']:
        # indented otherwise
        spaces = str(4 * abs(slip['depth']))
        shown.append(['slip_deeper' if slip['depth'] > 0 else 'slip_shallower', {'spaces': spaces}])
    elif slip['what'] == CHANGED:
        shown.append(['slip_lesson', {'code': slip['lesson']}])
        if slip['here'] != slip['there'] and max(len(slip['here']), len(slip['there'])) <= 40 and \
                len(slip['here']) < len(slip['yours'].rstrip(':')) - 6:  # else the two lines say it
            shown.append(['slip_differs', {'here': slip['here'], 'there': slip['there']}])
    elif slip['what'] == 'token':
        shown.append(['slip_token', {'here': slip['here']}])
    elif slip['what'] == MISSING:
        shown = [['slip_missing', {'line': str(slip['line']), 'code': slip['lesson']}]]
    else:
        shown = [['slip_added', {'line': str(slip['line']), 'code': slip['yours'], **where}]]
    typed = keyboard.jamo_name(next(iter(re.findall(r'\w*[ㄱ-ㆎ]\w*', slip['yours'])), ''),
                               slip['line'],
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
