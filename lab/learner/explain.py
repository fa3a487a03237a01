"""What an error raised by your tokenizer.py means, in words: one explainer for
the tutor and the labs.

Python's traceback names the error, the files and the lines. For a learner the useful
part is shorter: what the error means, the line of their own file, which part of the
lesson that line belongs to, and, for the usual slips, a hint (a @classmethod left out,
chars[c] for a character never seen, an import forgotten, a loop that never ends). The
tutor's child says it for each rule (lab/selfcheck/child.py); a lab that meets an error in
tokenizer.py says it through lab/learner/errors.py. Both call explain(); the lines it returns are
[message key, {field: text}], put in words by lab/learner/catalogs.py.

A part is found by the line: parts_by_line() reads where each part of the lesson starts in
the file (def merge, class BPE, def train, ...), so a SyntaxError, which stops Python
before any function exists, is still filed under the part being typed.
"""
import ast
import difflib
import functools
import os
import re
import sys
import traceback

from lab.learner import keyboard, pasted
from lab.learner.parts import METHODS, STARTS

DETAIL = 300  # characters of an error's own message that are said
# The errors the catalogs say in words, as 'error.NAME'
KNOWN_ERRORS = ['AssertionError', 'AttributeError', 'FileNotFoundError', 'ImportError',
                'IndentationError',
                'IndexError', 'KeyError', 'MemoryError', 'NameError', 'RecursionError',
                'SyntaxError',
                'TabError',
                'TimeoutError', 'TypeError', 'UnboundLocalError', 'ValueError', 'ZeroDivisionError']
# a name the lesson imports, left out of the first lines: the line that imports it
IMPORTS = {'json': 'import json', 'Counter': 'from collections import Counter',
           'Path': 'from pathlib import Path',
           'os': 'import os', 'sys': 'import sys', 'collections': 'import collections',
           're': 'import re'}
# the hints that name another line than the one Python stopped at: the line to mend
MENDED_ELSEWHERE = {'hint.dedented', 'hint.pasted_prompt', 'hint.pasted_numbers',
                    'hint.pasted_output'}
# an endless loop, by the function it was in when time ran out
LOOPS = {'merge': 'hint.loop_merge', 'train': 'hint.loop_train'}
ATTRIBUTES = ['vocab', 'merges', 'chars']  # set in __init__ as self.NAME
# Python's words for a BPE (the class or one made of it) without an attribute
NO_ATTRIBUTE = re.compile(r"(?:'BPE' object|type object 'BPE') has no attribute '(\w+)'")


@functools.lru_cache(maxsize=8)  # asked once a rule, of the same file
def parts_by_line(source):
    """[(first line, part)] of the parts the source has, in the order of their lines: where a line
    starts each (parts.STARTS), and part 6 at the first line after class BPE's body that is not
    indented, whatever it is (the lesson's: if __name__ == ...)."""
    starts, in_class = {}, False
    for number, line in enumerate(source.splitlines(), 1):
        line = pasted.unpasted(line)  # a part pasted with >>> or line numbers is still typed
        code = line.split('#', 1)[0].rstrip()
        if not code:
            continue
        for part, pattern in STARTS:
            if part not in starts and pattern.match(code):
                starts[part] = number
        if in_class and not line[0].isspace() and 6 not in starts:
            starts[6] = number  # the first line after the class that is not part of it
        in_class = in_class or code.startswith('class BPE')
    return sorted((line, part) for part, line in starts.items())


def part_of_line(source, line):
    """The part of the lesson that line of source belongs to (0, the imports, before any)."""
    return max([part for first, part in parts_by_line(source) if first <= line], default=0)


def where(error, path, source='', settled=()):
    """(line, function) of the last place in the file at path that error passed through, or
    (None, None). The function is the one written in the file: a comprehension inside it
    (<listcomp>, <genexpr> before Python 3.12) is named by the function around it. Places in
    the settled parts (whose rules all hold) are passed over while another is left: train that
    never ends is found in train, not in the merge it happened to be calling then."""
    mine = os.path.realpath(path)
    if isinstance(error, SyntaxError) and os.path.realpath(error.filename or '') == mine:
        return error.lineno, None
    # a line of None: 3.11, stopped mid-line
    frames = [f for f in traceback.extract_tb(error.__traceback__)
              if f.lineno and real_path(f.filename) == mine]
    unsettled = [f for f in frames if part_of_line(source, f.lineno) not in settled]
    frames = frames[:frames.index(unsettled[-1]) + 1] if settled and unsettled else frames
    if not frames:
        return None, None
    named = [f.name for f in frames if not f.name.startswith('<') or f.name == '<module>']
    return frames[-1].lineno, (named or [None])[-1]


def real_path(filename):
    """os.path.realpath, kept for a code object's absolute file name (the library's files, and
    Python's, are met in every traceback): one that is relative depends on the folder."""
    return _real_path(filename) if os.path.isabs(filename) else os.path.realpath(filename)


_real_path = functools.lru_cache(maxsize=256)(os.path.realpath)


def explain(error, path, source, seconds=None, settled=()):
    """Lines that say what error, raised by the file at path (holding source), means: the error,
    its line and function, a hint for the usual slips, and the part of the lesson to look at
    (settled: the parts whose rules all hold, where an error that passed through them is not
    looked for first)."""
    kind = type(error).__name__
    detail = f'{seconds} s' if isinstance(error, TimeoutError) and seconds else \
        error.msg if isinstance(error, SyntaxError) else str(error)
    # Python's own, the tutor's copy: noise
    for folder in (os.path.dirname(os.__file__), os.getcwd()):
        detail = detail.replace(os.path.join(folder, ''), '')
    if len(detail) > DETAIL:  # an error's message may be a megabyte: a few lines of it say enough
        detail = detail[:DETAIL - 3] + '...'
    line, function = where(error, path, source, settled)
    typed = keyboard_slip(error, kind, detail, source, line)
    if typed and 'typed' in typed[1]:  # a name in NFKC form: said as typed
        fields = dict(typed[1])
        detail = detail.replace(fields.pop('typed'), fields['char'])
        typed = typed[0], fields
    said = [['raised', {'error': f'{kind}: {detail}' if detail else kind}]]
    if isinstance(error, TimeoutError) and seconds:  # nothing was raised: the tutor stopped it
        said = [['stopped', {'seconds': str(seconds)}]]
    hint = typed or hint_for(error, kind, detail, function, source_line(source, line), source)
    if hint and hint[0] in MENDED_ELSEWHERE:  # Python stopped at the line after the one to mend
        line = int(re.match(r'\d+', hint[1].get('line') or hint[1]['lines']).group())
    if line:
        in_function = function and function != '<module>'
        said.append(['at_line', {'line': str(line), 'function': function}] if in_function
                    else ['at_line_only', {'line': str(line)}])
    if (not hint or hint[0] == f'error.{kind}') and discards_training(source):
        hint = 'hint.train_result', {'part': '6'}
    if hint:
        said.append(['hint', {'text': hint[0], **hint[1]}])
    if hint and 'part' in hint[1]:  # the hint knows better than the line where to look
        part = hint[1]['part']
    elif hint and hint[0] == 'hint.missing_import':
        part = 0
    else:
        part = part_of_line(source, line) if line else None
    if part is not None:
        said.append(['look', {'where': f'part.{part}'}])
    return said


def keyboard_slip(error, kind, detail, source, line):
    """The hint for a character a keyboard typed in code (a full-width colon, a curly quote, a
    Hangul letter in a name), or None: Python's own words name it only by its code."""
    if isinstance(error, SyntaxError):
        return keyboard.invalid_character(error, source)
    named = re.search(r"'(\w+)'", detail) if kind in ('NameError', 'UnboundLocalError') else None
    if not named or not line:
        return None
    text = source_line(source, line)
    typed = keyboard.typed_name(named.group(1), text)
    hint = keyboard.jamo_name(typed, line, text)
    return (hint[0], dict(hint[1], typed=named.group(1))) if hint else None


@functools.lru_cache(maxsize=8)
def tree_of(source):
    """source as a tree, parsed once for all that read it: the tutor's list of the parts typed,
    the hints here, every trial of every rule that fails on it. Shared, and never changed (a
    trial changes a copy: lab/selfcheck/mutations.py's copied_with)."""
    return ast.parse(source)


@functools.lru_cache(maxsize=8)  # asked once a rule, of the same file
def discards_training(source):
    """Whether source calls something.train(...) as a statement of its own: train makes a new
    tokenizer and returns it, so one that is not kept is lost."""
    try:
        tree = tree_of(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and
               isinstance(node.value.func, ast.Attribute) and node.value.func.attr == 'train'
               for node in ast.walk(tree))


@functools.lru_cache(maxsize=8)  # asked once a rule, of the same file
def returns_in_a_loop(source):
    """The names of the functions of source with a return inside a for or while loop: the
    lesson's merge, train and encode return after theirs, and one inside gives back the first
    round's result."""
    try:
        tree = tree_of(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    found = set()
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef):
            loops = [node for node in ast.walk(function) if isinstance(node, (ast.For, ast.While))]
            if any(isinstance(inner, ast.Return) for loop in loops for inner in ast.walk(loop)):
                found.add(function.name)
    return found


@functools.lru_cache(maxsize=8)  # asked once a rule, of the same file
def main_guard_slip(source):
    """Whether source's if __name__ == ... compares with something other than '__main__' (then
    python3 tokenizer.py runs none of it)."""
    try:
        tree = tree_of(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        test = node.test if isinstance(node, ast.If) else None
        if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and \
                test.left.id == '__name__':
            other = test.comparators[0]
            return not (isinstance(other, ast.Constant) and other.value == '__main__')
    return False


def source_line(source, line):
    lines = source.splitlines()
    return lines[line - 1] if line and 0 < line <= len(lines) else ''


def hint_for(error, kind, detail, function, code, source=''):
    """(hint key, its fields) for the usual slips, or the words for the error's kind, or None."""
    if kind == 'TypeError' and 'train() missing 1 required positional argument' in detail:
        return 'hint.classmethod', {}
    if kind == 'KeyError' and (function == 'encode' or 'chars[' in code):
        return 'hint.chars_get', {}
    missing = re.match(r"name '(\w+)' is not defined", detail) if kind == 'NameError' else None
    if missing and missing.group(1) in IMPORTS:
        return 'hint.missing_import', {'line': IMPORTS[missing.group(1)]}
    if kind == 'ValueError' and 'values to unpack' in detail:
        return ('hint.most_common' if 'most_common' in code else 'hint.unpack'), {}
    if kind == 'ValueError' and 'is not in list' in detail:
        return 'hint.index', {}
    if kind == 'AttributeError' and detail.startswith("'NoneType' object") or \
            kind == 'TypeError' and "'NoneType'" in detail:
        return 'hint.none', {}
    given = re.match(r"'(tuple|list|dict)' object has no attribute '(\w+)'", detail)
    if kind == 'AttributeError' and given and given.group(2) in [*METHODS, *ATTRIBUTES]:
        return 'hint.not_a_tokenizer', {'type': given.group(1), 'name': given.group(2), 'part': '3'}
    if kind == 'NameError' and missing and missing.group(1) in ('__main__', 'main'):
        return 'hint.main_name', {'part': '6'}
    lacking = NO_ATTRIBUTE.match(detail) if kind == 'AttributeError' else None
    if lacking or kind == 'TypeError' and detail.startswith('BPE() takes no arguments'):
        name = lacking.group(1) if lacking else '__init__'
        found = misplaced(source, name) or missing_from_bpe(name)
        if found:
            return found
    if kind == 'NameError' and function in METHODS and function != 'train' and missing and \
            missing.group(1) in ATTRIBUTES:  # train, a classmethod, has vocab and merges of its own
        return 'hint.self', {'name': missing.group(1)}
    if kind == 'ImportError' and "cannot import name 'merge'" in detail and \
            misplaced(source, 'merge'):
        return misplaced(source, 'merge')
    if kind == 'ImportError' and "cannot import name 'merge'" in detail:
        inside = merge_in_class()
        if inside:
            return 'hint.merge_in_class', {'line': str(inside), 'part': '1'}
    io_call = re.search(r'\b(open|read_text|write_text)\(', code)
    if kind in ('UnicodeEncodeError', 'UnicodeDecodeError') and io_call and 'encoding' not in code:
        # the locale's encoding (EUC-KR, ASCII), not UTF-8
        return 'hint.encoding', {'codec': getattr(error, 'encoding', '') or '?'}
    if 'null bytes' in detail:  # a NUL character, pasted in: Python reads no file that holds one
        return 'hint.null', {}
    if kind in ('SyntaxError', 'IndentationError') and isinstance(error, SyntaxError):
        found = pasted.pasted(source, error.lineno or 0) or dedented(source, error)
        if found:
            return found
    if kind in ('SyntaxError', 'IndentationError') and 'outside' in detail:  # a return or break
        return 'hint.outside', {}
    if kind == 'IndentationError' and detail.startswith('expected an indented block'):
        return 'hint.body', {}
    if kind == 'TimeoutError':
        return LOOPS.get(function, 'error.TimeoutError'), {}
    if kind in KNOWN_ERRORS:
        return f'error.{kind}', {}
    return None


@functools.lru_cache(maxsize=8)  # asked once a rule, of the same file
def defs_in(source):
    """[(name, line, column, where, the column it belongs at)] for each def of source: where is
    'top' (at the margin), 'class' (a method of class BPE), 'main' (inside the if __name__ block),
    or the name of the def it is typed inside."""
    try:
        tree = tree_of(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    methods = [item.col_offset for node in tree.body if isinstance(node, ast.ClassDef)
               for item in node.body if isinstance(item, ast.FunctionDef)]
    method_column = min(methods, default=4)
    found = []

    def walk(body, where):
        for node in body:
            if isinstance(node, ast.FunctionDef):
                belongs = 0 if node.name == 'merge' else method_column
                found.append((node.name, node.lineno, node.col_offset, where, belongs))
                walk(node.body, node.name)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, 'class' if where == 'top' else where)
            elif isinstance(node, ast.If) and "id='__name__'" in ast.dump(node.test) and \
                    where == 'top':
                walk(node.body + node.orelse, 'main')
            elif isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                walk(getattr(node, 'body', []) + getattr(node, 'orelse', []), where)
    walk(tree.body, 'top')
    return found


def misplaced(source, name):
    """(hint key, fields) when def name is typed only in a place Python does not take it from:
    inside another def (indented too far), or inside the if __name__ block; else None."""
    places = [d for d in defs_in(source) if d[0] == name]
    right = 'top' if name == 'merge' else 'class'
    if not places or any(where == right for _, _, _, where, _ in places):
        return None
    _, line, column, where, belongs = places[0]
    part = str(1 if name == 'merge' else METHODS.get(name, 2))
    if where == 'main':
        return 'hint.def_in_main', {'name': name, 'line': str(line), 'part': part,
                                    'where': 'place.margin' if name == 'merge' else 'place.class'}
    if where in ('top', 'class'):
        return None  # a method at the margin, merge in the class: the hints of their own say it
    return 'hint.def_inside', {'name': name, 'line': str(line), 'inside': where,
                               'spaces': str(max(column - belongs, 0)), 'part': part}


def dedented(source, error):
    """The hint for a line indented less than the lines around it (merges = [] one level out):
    Python names the line after it, 'unexpected indent', where the line to mend is this one."""
    if not isinstance(error, IndentationError) or \
            not (error.msg or '').startswith('unexpected indent'):
        return None
    lines = source.splitlines()
    code = [(n, line) for n, line in enumerate(lines[:(error.lineno or 1) - 1], 1)
            if line.strip() and not line.lstrip().startswith('#')]
    if len(code) < 2 or not 0 < (error.lineno or 0) <= len(lines):
        return None
    depth = lambda text: len(text) - len(text.lstrip())  # noqa: E731
    (_, before), (n, line) = code[-2], code[-1]
    after = depth(lines[error.lineno - 1])
    if depth(line) < after <= depth(before) + 4 * before.rstrip().endswith(':') and \
            not line.rstrip().endswith(':'):
        return 'hint.dedented', {'line': str(n), 'spaces': str(after - depth(line))}
    return None


def merge_in_class():
    """The line of def merge when tokenizer.py has it inside class BPE (indented with the methods),
    else None."""
    bpe = getattr(sys.modules.get('tokenizer'), 'BPE', None)
    function = vars(bpe).get('merge') if isinstance(bpe, type) else None
    return getattr(getattr(function, '__code__', None), 'co_firstlineno', None)


def missing_from_bpe(name):
    """(hint key, fields) for a name the lesson's BPE has and the one in tokenizer.py lacks: typed
    outside the class, typed with a slip, not typed yet, or an attribute set without self."""
    module = sys.modules.get('tokenizer')
    bpe = getattr(module, 'BPE', None)
    if name in ATTRIBUTES:
        return 'hint.self_attribute', {'name': name, 'part': '2'}
    if name not in METHODS or not isinstance(bpe, type):
        return None
    part = str(METHODS[name])
    if callable(vars(module).get(name)) or isinstance(vars(module).get(name),
                                                      (classmethod, staticmethod)):
        return 'hint.outside_class', {'name': name, 'part': part}
    # the methods typed under a name the lesson has not: a lesson's method is not a slip for another
    typed = [key for key, value in vars(bpe).items() if key not in METHODS and
             (callable(value) or isinstance(value, classmethod))]
    close = difflib.get_close_matches(name, typed, 1, 0.7)
    if close:
        return 'hint.misspelled', {'name': name, 'typed': close[0], 'part': part}
    return 'hint.not_typed', {'name': name, 'part': part}
