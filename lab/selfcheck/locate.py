"""Where the slip is: the line of your tokenizer.py that differs from the
lesson's way of writing it.

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
import functools
import itertools
import re
from pathlib import Path

from lab.learner import explain
from lab.learner.parts import UNITS
from lab.selfcheck import mutations, repair
from lab.selfcheck.compare import (
    ADDED,
    CHANGED,
    MISSING,
    MOVED,
    differences,
    first_line,
    items,
    moved,
    parse,
    script_units,
    units,
)
from lab.selfcheck.slip_lines import Token, slip_of

REFERENCE = Path(__file__).resolve().parent / 'lesson' / 'tokenizer.py'
# the same functions, written as right in other ways
OTHER_WAYS = REFERENCE.with_name('other_ways.py')


def reference_source():
    return REFERENCE.read_text(encoding='utf-8')


@functools.lru_cache(maxsize=8)
def lesson_ways(reference=None):
    """{unit: [(its Items, its local names, the lines of its file)]}: each way the tutor knows of
    writing each unit, the lesson's first (reference: a lab's, the one unit of a script)."""
    if reference is not None:
        tree = parse(reference)
        body, local = script_units(tree)['<script>']
        return {'<script>': [(items(body, main=True), local, reference.splitlines())]}
    ways = {}
    for text in [reference_source(), OTHER_WAYS.read_text(encoding='utf-8')]:
        tree, lines = parse(text), text.splitlines()
        pieces = [units(tree)] + [units(ast.Module(body=[node], type_ignores=[]))
                                  for node in tree.body
                                  if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.If))]
        for n, found in enumerate(pieces):
            for name, (body, local) in found.items():
                if n == 0 and name != '<imports>':
                    # the whole file's: each def, class and block is taken on its own below
                    continue
                way = (items(body, main=name == '__main__'), local, lines)
                ways.setdefault(name, []).append(way)
    return ways


@functools.lru_cache(maxsize=16)
def compared(source, reference=None):
    """[(unit, its differences from the closest way of writing it, the renaming of your names that
    reads them as the lesson's, that way's lines)] for the units of source: the same for every
    rule that fails on one file, so worked out once."""
    tree = parse(source)
    ways = lesson_ways(reference)
    out = []
    found_units = script_units(tree) if reference is not None else units(tree)
    for name, (body, local) in found_units.items():
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


class Difference:
    """One line that differs from the closest way of writing its unit, as compare.py found it."""

    def __init__(self, what, one, other, before, similar, unit, rename, lesson_lines):
        self.what, self.one, self.other = what, one, other
        self.before, self.similar = before, similar
        self.unit, self.rename, self.lesson_lines = unit, rename, lesson_lines
        self.line = (one or before).lineno

    def key(self):
        return self.what, self.line, self.unit

    def whole_key(self):
        """key() and the way's line: two lines left out after the same line share a key."""
        return self.key(), self.other.lineno if self.other is not None else None

    def changes(self):
        """[(change, back)]: the ways of putting it back (repair.py), each with the lesson's names
        read as yours."""
        back = self.rename.back()
        return [(change, back)
                for change in repair.changes(self.what, self.one, self.other, self.before)]


TRIALS = 24  # differences tried, one at a time: a unit in another style differs in a few lines
MUTATIONS = 80  # one-token changes tried at most, in the lines that differ from the closest way
WITNESSES = {}  # {source: the key of the difference whose trial made a rule hold}, tried first next
TOKENS = {}  # {source: the Token whose trial made a rule hold}, to try it again
# {source: (the whole key of that difference, the trees of its trial)}: tried again as they
# are, not made anew (a trial runs a tree, never changes it)
HELD = {}
PAIRS = 5  # of those that changed the rule's answer, tried two at a time: two slips at once


def forget():
    """What was learned of the slips of one file, forgotten before another's are looked for."""
    WITNESSES.clear()
    TOKENS.clear()
    HELD.clear()


def locate(source, ran=None, parts=None, reference=None, holds=None, raised=None, effort=True):
    """The slip, or None: {'what', 'line', 'yours', 'lesson', 'here', 'there', 'unit'} for the
    statement of source most likely wrong, among the units of parts (None: all; 'script': a lab,
    compared with reference). ran: the lines of source that ran while the rule failed (None: not
    known; empty: none, as when a call to your function failed before its first line).
    here/there: the smallest expression that differs, yours and the lesson's. Each unit is
    compared with the way of writing it closest to yours: the one it differs from least.

    holds: a function that runs the rule that failed on a trial tree (repair.py) and gives its
    answer, ['passed', None] when it holds; None for the file as it is. With it, the slip is the
    difference whose trial makes the rule hold (two at once, when no one alone does); a
    difference whose trial changes nothing the rule says is never named. raised: the line an error
    of your code was raised at (None: none was); unless a trial holds, no other line is named.
    effort: whether to look for the slip (the first rule of a part that fails), or only to try
    again the slip found for a rule before (a later rule, which most often fails for it too)."""
    script = parts == 'script'
    try:
        units_found = compared(source, reference if script else None)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    candidates = []
    for name, found, rename, lesson_lines in units_found:
        if not script and parts is not None and UNITS[name] not in parts:
            continue
        for what, one, other, before, similar in found:
            if (one or before) is None:
                continue
            difference = Difference(what, one, other, before, similar, name, rename, lesson_lines)
            candidates.append((rank(difference, ran), difference))
    candidates = [difference for _, difference in sorted(candidates, key=lambda c: c[0])]
    if not candidates:
        return None
    if holds is not None:
        found = tried(source, candidates, holds, ran) if effort else \
            again(source, candidates, holds)
        if found is not None:
            return slip_of(source, found)
        # one that could not be tried, and is near the way's line (a class header, a moved line),
        # may yet be named; a line added or left out in a way of your own is no slip by itself
        candidates = [c for c in candidates if getattr(c, 'untried', False) and
                      (c.what == MOVED or c.what == CHANGED and c.similar >= 0.6)]
    if raised is not None:  # the error's own line says where: another, unproven, would mislead
        candidates = [c for c in candidates if c.line == raised]
    if not candidates:
        return None
    best = candidates[0]
    guess = rank(best, ran)
    # nothing that ran differs: say nothing unsure
    if guess[0] and (best.what != CHANGED or guess[2] > -0.6):
        return None
    return slip_of(source, best)


def rank(difference, ran):
    """How likely a difference is the slip, smallest first: it ran while the rule failed, a line
    changed (before moved, missing, added), most like the lesson's, first in the file."""
    what, one, other, before = difference.what, difference.one, difference.other, difference.before
    line = difference.line
    # ran as the file was imported
    header = what == CHANGED and isinstance(one.node, ast.FunctionDef)
    did_run = ran is None or header or line in ran or \
        any(n in ran for n in span(one or before)) and \
        (what == MISSING or isinstance((one or before).node, ast.FunctionDef)) or \
        renamed(one, other)
    return not did_run, [CHANGED, MOVED, MISSING, ADDED].index(what), -difference.similar, line


def tried(source, candidates, holds, ran=None, most=MUTATIONS):
    """The difference (or Token) whose trial makes the rule hold, or None; marks each difference
    that could not be tried (.untried). In this order: a name typed otherwise (a line that reads
    a name nothing gives a value to, or gives one nothing reads: one end of the name is the
    slip, and a line of the lesson's in your names would hide it), each difference put back as
    the way writes it, two of them at once, then one token at a time in any line that ran."""
    failing = holds(None)
    if failing[0] == 'passed':  # the rule holds when run here again: nothing to find
        return None
    words = words_of(failing)
    found = one_token(source, candidates, holds, None, names_only=True) or \
        put_back(source, candidates, holds, ran, failing) or \
        one_token(source, candidates, holds, ran, words, most)
    if found is not None:
        WITNESSES[source] = found.key()
    return found


def again(source, candidates, holds):
    """The slip found for a rule before, when its trial makes this rule hold too; else None."""
    witness = WITNESSES.get(source)
    if witness is None:
        return None
    found = next((c for c in candidates if c.key() == witness), None)
    if found is not None:
        key, made = HELD.get(source, (None, None))
        trials = made if key == found.whole_key() else \
            (repair.apply(source, [change]) for change in found.changes())
        return found if any(tree is not None and holds(tree)[0] == 'passed'
                            for tree in trials) else None
    token = TOKENS.get(source)
    if token is not None and holds(token.trial)[0] == 'passed':
        return token
    return None


def put_back(source, candidates, holds, ran, failing):
    """The difference whose trial, put back as the way writes it, makes the rule hold (alone, or
    with another whose trial changed what the rule says), or None. A line that did not run while
    the rule failed is not tried: it cannot be what made the rule fail."""
    witness = WITNESSES.get(source)  # the slip of the rule before: most often this rule's too
    candidates = sorted(candidates, key=lambda d: d.key() != witness)
    changed = []
    for n, difference in enumerate(candidates):
        idle = ran is not None and rank(difference, ran)[0] and difference.what != MISSING
        made = [repair.apply(source, [change]) for change in difference.changes()] \
            if n < TRIALS and not idle else []
        made = [tree for tree in made if tree is not None]
        difference.untried = not made and not idle
        for tree in made:
            answer = holds(tree)
            if answer[0] == 'passed':
                HELD[source] = difference.whole_key(), made
                return difference
            if answer[0] == 'failed' and answer != failing:  # a value changed: it matters here
                changed.append(difference)
                break
    for first, second in itertools.combinations(changed[:PAIRS], 2):
        for one, other in itertools.product(first.changes(), second.changes()):
            tree = repair.apply(source, [one, other])
            if tree is not None and holds(tree)[0] == 'passed':
                return min(first, second, key=lambda d: d.line)  # the first slip of the two
    return None


def words_of(answer):
    """The words the lesson's answer has and yours lacks, in what a failed rule said (a line
    printed, say: 'roundtrip' where yours printed only the vocab line): a line of yours that
    holds one of them is tried first."""
    if answer[0] != 'failed':
        return set()
    said = {key: ' '.join(map(str, fields.values())) for key, fields in answer[1]}
    words = lambda text: set(re.findall(r'[A-Za-z_]{3,}', text))  # noqa: E731
    want = words(' '.join(text for key, text in said.items() if key.startswith('lesson')))
    return want - words(' '.join(text
                                 for key, text in said.items() if not key.startswith('lesson')))


def one_token(source, candidates, holds, ran, words=(), most=MUTATIONS, names_only=False):
    """The difference, or a Token, where one token changed makes the rule hold (mutations.py):
    in the lines that ran of the units the candidates are in and differ from the closest way;
    first the lines that hold a word of what the rule said
    (names_only: only one end of a name typed otherwise renamed to the other, in any line)."""
    tree = explain.tree_of(source)
    units = {c.unit for c in candidates}
    differing = [c.line for c in candidates if c.one is not None]
    lines_of = source.splitlines()
    tried, budget = 0, most
    witness = WITNESSES.get(source, (None, None))[1]
    for path, function, unit in functions(tree):
        if unit not in units or not budget:
            continue
        span = range(first_line(function) if hasattr(function, 'decorator_list')
                     else function.lineno,
                     function.end_lineno + 1)
        lines = [n for n in span if (ran is None or n in ran) and (n in differing or n == witness)]
        lines.sort(key=lambda n: (n != witness, not any(word in lines_of[n - 1]
                                                        for word in words), n not in differing, n))
        # a trial of it trains: ten times the cost
        most = budget if unit != '__main__' else budget // 4
        made_copies = mutations.renamed_copies(function, tree) if names_only else \
            mutations.changed_copies(function, lines, tree)
        held = []  # (line, copy, token) whose trial holds
        for line, made, token in made_copies:
            if names_only and sum((line, token) == (h[0], h[2]) for h in held) >= SPOT:
                # that end renamed holds already, a few ways: the other end is the one to try
                continue
            tried += 1
            if tried > most or len(held) == RENAMES:
                break
            if holds((path, made))[0] == 'passed':
                held.append((line, made, token))
                if not names_only:
                    break
        if held:  # a name renamed at either end holds: the end the lesson's way names otherwise
            line, made, token = min(held, key=lambda h: distance(tree, path, h[1], unit))
            statement = statement_at(function, line)
            found = next((c for c in candidates if c.what == CHANGED
                          and c.line == statement.lineno), None)
            if found is None:
                found = TOKENS[source] = Token(line, unit, statement, token)
                found.trial = (path, made)
            else:
                found.token_line = line  # in a statement of several lines, the one the token is on
            return found
        if tried > most:
            return None
    return None


RENAMES = 6  # renames whose trial holds, of one name typed otherwise: its two ends, a few ways each
SPOT = 3  # of them at one end: a rule that never runs the line holds whatever name is there


def distance(tree, path, made, unit):
    """How many lines of the unit differ from the closest way of writing it once the function at
    path is made: of two trials that both hold, the one that leaves your file nearer the
    lesson's undoes the slip (`count` renamed back, not the parameter renamed to the slip)."""
    found = units(mutations.copied_with(tree, tuple(path), made), only=unit).get(unit)
    if found is None or unit not in lesson_ways():
        return 0
    mine = items(found[0], main=unit == '__main__')
    each = [differences(mine, theirs, found[1], local) for theirs, local, _ in lesson_ways()[unit]]
    # then how many of your names are not the way's: a name renamed alike at both ends is no
    # difference to compare.py, but the end that has the lesson's name is the one typed right
    return min((len(lines), sum(x != y for x, y in rename.mapping.items()))
               for lines, rename in each)


def functions(tree):
    """(path, node, unit) for each function of the file and its __main__ block."""
    for n, node in enumerate(tree.body):
        if isinstance(node, ast.FunctionDef):
            yield ('body', n), node, 'merge' if node.name == 'merge' else node.name
        elif isinstance(node, ast.ClassDef):
            for k, method in enumerate(node.body):
                if isinstance(method, ast.FunctionDef):
                    yield ('body', n, 'body', k), method, f'BPE.{method.name}'
        elif isinstance(node, ast.If) and "id='__name__'" in ast.dump(node.test):
            yield ('body', n), node, '__main__'


def statement_at(function, line):
    """The innermost statement of function whose lines hold line."""
    # line, and not in a body of its own: the header of a loop holds its header only
    def holds(node):
        body = getattr(node, 'body', None) if node is not function else None
        return node.lineno <= line <= (node.end_lineno or node.lineno) and \
            (not body or body[0].lineno > line)
    return max((node for node in ast.walk(function) if isinstance(node, ast.stmt) and holds(node)),
               key=lambda node: node.lineno)


def renamed(one, other):
    """Whether two Items are a function of the lesson typed with another name (which then never
    runs: the lesson's name is what is called)."""
    return bool(one and other) and isinstance(one.node, ast.FunctionDef) and \
        isinstance(other.node, ast.FunctionDef) and one.node.name != other.node.name


def span(item):
    """The lines of an Item's statement (a function's: all of it, from its first decorator)."""
    node = item.node
    first = first_line(node) if isinstance(node, ast.FunctionDef) else item.lineno
    return range(first, (getattr(node, 'end_lineno', None) or item.lineno) + 1)
