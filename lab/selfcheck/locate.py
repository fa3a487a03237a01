"""Where the slip is: the line of your tokenizer.py that differs from the lesson's way of writing it.

A rule says what your code does wrong; this finds where. Each function of your file (merge,
BPE.__init__, train, ...) is set beside the same function as the lesson writes it (lesson/
tokenizer.py), or as it may be written as rightly in another way (lesson/other_ways.py),
whichever is closest, by structure, not by text (lab/selfcheck/compare.py): what is left
differs, a statement changed, moved, left out or added.

Among those, the slip is the one that ran in the failing case (the tutor's child traces
which lines of your file run while a rule fails), in a part whose rules do not all hold, and
of the changed ones the closest to the lesson's statement (one token changed is a slip; a
line written in another way of one's own is less likely the one). What differs inside it,
the smallest expression, is said too: `pair` here, `new_id` in the lesson.
"""
import ast
import contextlib
import functools
import os
import re
import sys
from pathlib import Path

from lab.learner import keyboard
from lab.selfcheck.compare import (
    ADDED,
    CHANGED,
    MISSING,
    MOVED,
    UNITS,
    Item,
    code,
    differences,
    first_line,
    items,
    moved,
    script_units,
    smallest_difference,
    units,
)

REFERENCE = Path(__file__).resolve().parent / 'lesson' / 'tokenizer.py'
OTHER_WAYS = REFERENCE.with_name('other_ways.py')  # the same functions, written as right in other ways
# the lesson's functions and the part that types each; the module's imports are part 0
def reference_source():
    return REFERENCE.read_text(encoding='utf-8')


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
            decorators(one) != decorators(other):
        one, other = decorator_item(one), decorator_item(other)  # @staticmethod for @classmethod
        line = one.lineno
    slip = {'what': what, 'line': line, 'unit': name, 'part': UNITS.get(name, 7),
            'yours': text_of(lines, one), 'lesson': text_of(lesson_lines, other)}
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
    """The line of the file an Item starts on, as typed, without its indentation ('' for none)."""
    return lines[item.lineno - 1].strip() if item and 0 < item.lineno <= len(lines) else ''


def decorators(item):
    return [code(d, str) for d in item.node.decorator_list]


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
            'look.merge_return': 'return ', 'look.merge_in_time': '.append(', 'look.train_return': 'return ',
            'look.encode_return': 'return '}
RETURNS = {'look.merge_return', 'look.train_return', 'look.encode_return'}


def said(lines, slip):
    """The lines of a failed rule with the slip among them: the line of your file beside the
    lesson's and what differs, before where to look; a look the slip makes wrong is left out."""
    if not slip:
        return lines
    where = {'file': slip['file']} if 'file' in slip else {}  # a lab's; else the report names tokenizer.py
    line = str(slip['line'])
    shown = [['slip_line', {'line': line, 'code': slip['yours'], **where}]] if slip['yours'] else []
    if slip['what'] == MOVED:
        shown.append(['slip_moved', {}])
    elif slip['what'] == CHANGED and slip['here'] == slip['there'] and slip['depth']:  # indented otherwise
        spaces = str(4 * abs(slip['depth']))
        shown.append(['slip_deeper' if slip['depth'] > 0 else 'slip_shallower', {'spaces': spaces}])
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
