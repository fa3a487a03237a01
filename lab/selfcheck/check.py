"""The tutor's verdict on a tokenizer.py, made in one place: one answer for each rule.

An answer is [state, lines], the state one of
  passed       the rule holds;
  failed       it does not: lines say what was called, what came back, what the lesson
               expects and where to look, or what error your code raised and where;
  todo         its part is not typed yet;
  not_checked  it was not run: a rule of an earlier part whose code it calls fails (lines
               name that part: fix it first), or your code did not finish a rule before it.
check() reads the file, finds which parts are typed, runs the rules of those parts in a
child (lab/selfcheck/runner.py) and puts the child's answers and what is typed together.
A file Python cannot read is checked up to the part it cannot read: the parts before it
get their rules, that part fails with the SyntaxError, the parts typed after it wait for it.
"""
import ast
import concurrent.futures
import difflib
import json
import os
import shlex
import tempfile
import warnings
from pathlib import Path

from lab.learner import explain
from lab.plumbing import reading
from lab.selfcheck import labs, rules, runner
from lab.selfcheck.rules import PART_OF

TYPED_LIMIT = 2**20  # bytes: the lesson's file is about 2,500; nobody types a megabyte
SYNTAX = 'rule_syntax'  # not a rule the child runs: Python could not read the part
LESSON = Path(__file__).resolve().parent.parent / 'lesson_train.txt'


class Unreadable(Exception):
    """The file to check cannot be read: [message key, {field: text}]."""


def typed_names(source):
    """The names of the lesson's parts that source has: 'merge', 'BPE', 'BPE.train', ...,
    '__main__'. A SyntaxError when it does not parse. A method typed outside class BPE, or
    with a slip in its name (__int__), counts as typed: its rules run and their hint says so."""
    tree = explain.tree_of(source)
    names = {'<file>'} if tree.body else set()  # anything typed at all: the imports' rule can run
    functions, methods = set(), set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and not stub(node):
            names.add(node.name)
            functions.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            if node.name == 'BPE':
                methods.update(item.name for item in node.body if isinstance(item, ast.FunctionDef)
                               and not stub(item))
                if 'merge' in methods:
                    names.add('merge')  # typed, inside the class: its rules say where it belongs
        elif isinstance(node, ast.If) and "id='__name__'" in ast.dump(node.test):
            # '__main__', or a slip
            names.add('__main__')
    # typed in the wrong place: its rules say where
    for name, _, _, where, _ in explain.defs_in(source):
        if where not in ('top', 'class') and (name == 'merge' or name in explain.METHODS):
            (names if name == 'merge' else methods).add(name)
    if 'BPE' in names:
        own = methods - set(explain.METHODS)  # encode is not a slip for decode
        slips = {name for name in explain.METHODS if name not in methods and
                 (name in functions or difflib.get_close_matches(name, own, 1, 0.7))}
        names.update(f'BPE.{name}' for name in methods | slips)
    return names


def stub(function):
    """Whether a def has no code yet, only pass, ... or a docstring: a part to type, not a slip."""
    def placeholder(node):  # pass, ..., or a docstring
        value = getattr(getattr(node, 'value', None), 'value', None)
        return isinstance(node, ast.Pass) or isinstance(node, ast.Expr) and \
            isinstance(node.value, ast.Constant) and (value is Ellipsis or isinstance(value, str))
    return all(placeholder(node) for node in function.body)


def read(path):
    """The text of the file to check; Unreadable when it is missing, not a regular file (a pipe
    or a device could keep the tutor waiting for ever), larger than anyone types, or not UTF-8."""
    try:
        if os.path.isdir(path):
            raise IsADirectoryError
        # as reading.read_bytes: a pipe with no writer is not waited for
        data = reading.read_typed(path, TYPED_LIMIT + 1)
        if data is None:
            raise Unreadable(['file_not_regular', {'file': str(path)}])
    except IsADirectoryError:
        raise Unreadable(['file_folder', {'file': str(path)}]) from None
    except FileNotFoundError as e:
        folder = Path(path).parent
        found = labs.misplaced(folder, Path(path).stem, Path(path)) if folder.is_dir() else None
        # saved as tokenizer.py.txt, or in lab/: the file is there, by another name
        if found is not None:
            shown = os.path.relpath(found)
            command = f'mv {shlex.quote(shown)} {shlex.quote(str(path))}'
            raise Unreadable(['file_misplaced',
                              {'file': str(path), 'found': shown, 'command': command}])
        raise Unreadable(['file_missing',
                          {'file': str(path), 'why': e.strerror or str(e)}]) from None
    except OSError as e:
        raise Unreadable(['file_unreadable',
                          {'file': str(path), 'why': e.strerror or str(e)}]) from None
    if len(data) > TYPED_LIMIT:
        raise Unreadable(['file_too_large', {'file': str(path), 'most': f'{TYPED_LIMIT:,}'}])
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError as e:
        line = e.object.count(b'\n', 0, e.start) + 1
        raise Unreadable(['file_not_utf8', {'file': str(path), 'line': str(line)}]) from None


def readable_part(source):
    """(the part of source Python can read, None or (the part holding the SyntaxError, its lines,
    the parts typed after it)): a file that does not compile is cut where that part starts.
    Compiled, not only parsed: a return outside its function is found here, in its part."""
    try:
        compiled(source)
        return source, None
    except (SyntaxError, ValueError) as raised:  # also IndentationError and TabError
        error = raised
        # no file with a NUL is read (a ValueError before 3.12), and none says where
        if '\x00' in source:
            error = SyntaxError('source code string cannot contain null bytes',
                                ('tokenizer.py', source[:source.index('\x00')].count('\n') + 1,
                                 None, None))
        elif not isinstance(error, SyntaxError):
            raise
        part, first = cut_before(source, error.lineno or 1)
        said = [item for item in explain.explain(error, error.filename or '', source)
                if item[0] != 'look']
        said.append(['look', {'where': f'part.{part}'}])  # where its part begins, the file is cut
        later = sorted({p for _, p in explain.parts_by_line(source) if p > part})  # typed, not read
        return ''.join(source.splitlines(keepends=True)[:first - 1]), (part, said, later)


def compiled(source):
    """source compiled as Python compiles tokenizer.py, its warnings left to Python's own run
    of it ('bool' object is not callable, ...): the tutor's screen is for the rules."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return compile(source, 'tokenizer.py', 'exec', dont_inherit=True)


def cut_before(source, line):
    """(part, its first line): the part of source that holds line, moved back until the lines
    before it compile. A method's body typed at the margin seems to start part 6 (nothing but
    part 6 follows the class there); cut there, the method would be left with no body."""
    lines = source.splitlines(keepends=True)
    while True:
        part = explain.part_of_line(source, line)
        first = min([n for n, p in explain.parts_by_line(source) if p == part and n <= line],
                    default=1)
        try:
            compiled(''.join(lines[:first - 1]))
            return part, first
        except (SyntaxError, ValueError) as error:  # the error is earlier: so is the part to blame
            line = min(getattr(error, 'lineno', None) or 1, first - 1)


CHECKED = {}  # the answers for the last files checked, by what the child was given: the same again
KEPT = 8  # files, of a few KB each: a run of the tests checks several by turns


def check(path, lesson_text=None):
    """{rule name: answer} for the tokenizer.py at path, in the order the lesson teaches them; the
    lesson's labs too, when a lab/ folder is beside it (as in the project). The same file, labs
    and lesson text checked again in this process get the same answers, without a child."""
    source = read(path)
    lesson_text = lesson_text or lesson()
    try:
        checked, broken = readable_part(source)
    except (RecursionError, MemoryError):  # Python's own parser gives up: 3,000 terms in a sum, say
        raise Unreadable(['file_too_deep', {'file': str(path)}]) from None
    root = Path(path).resolve().parent
    typed_labs = labs.find(root) if (root / 'lab').is_dir() else None  # None: no labs to check here
    key = json.dumps([checked, broken, typed_labs, lesson_text])
    if key not in CHECKED:
        CHECKED[key] = check_many([checked], lesson_text, [broken], typed_labs=[typed_labs])[0]
        while len(CHECKED) > KEPT:
            del CHECKED[next(iter(CHECKED))]  # the first kept goes first
    answers = json.loads(json.dumps(CHECKED[key]))  # a copy: the caller may change it
    wrong = settings_said(root / 'settings.json')
    # settings.json is not the lesson's, yet the command line held: the rules ran on the lesson's
    if wrong and answers.get(rules.COMMAND_LINE, [''])[0] == 'passed':
        answers[rules.COMMAND_LINE] = ['failed', [wrong, ['look', {'where': 'look.settings'}]]]
    return answers


def settings_said(path):
    """What is wrong with your settings.json, as python3 tokenizer.py would stop on it, or None.
    The rules run on the lesson's settings: yours are read here, as the lesson's file reads them."""
    try:
        settings = json.loads(path.read_text(encoding='utf-8'))
    except FileNotFoundError:
        return ['settings_missing', {}]
    except json.JSONDecodeError as e:
        why = reading.JSON_SAYS.get(e.msg, 'json.other')
        return ['settings_json', {'line': str(e.lineno), 'column': str(e.colno), 'text': why}]
    except (OSError, ValueError):  # not UTF-8, not a file
        return ['settings_json', {'line': '1', 'column': '1', 'text': 'json.other'}]
    merges = settings.get('merges') if isinstance(settings, dict) else None
    if type(merges) is not int or merges < 0:  # a str "12" trains as range("12"): a TypeError
        return ['settings_merges', {}]
    return None


def lesson():
    try:
        return LESSON.read_text(encoding='utf-8')
    except OSError:
        raise Unreadable(['lesson_missing', {'file': 'lab/lesson_train.txt'}]) from None


def check_many(sources, lesson_text, broken=None, children=1, seconds=runner.SECONDS,
               typed_labs=None, hash_seed=True, search=True):
    """check() for many readable sources at once, in that many children run side by side (each
    followed by one for the hash seed, where a file's rule_hash_seed held), each rule given
    seconds: what the tests use, to start a few processes, not two a file. typed_labs: for each
    source, the labs typed beside it (labs.find), or None where the lesson's labs are not checked
    (no lab/ folder beside the file). hash_seed: whether rule_hash_seed is compared with a child
    under another seed (a test of something else may save that process). search: whether the
    child looks for the slip behind each rule that failed (a test of the rules' answers alone
    may save that time). A child looks for the slips after all its files' rules, in one fork:
    what one file's code does to the process (a module changed, a limit set) reaches the
    searches of the files before it, so a hostile file is checked in a batch of its own."""
    broken = broken or [None] * len(sources)
    typed_labs = typed_labs or [None for _ in sources]
    with tempfile.TemporaryDirectory() as tmp:
        jobs, typed = [], []
        for n, (source, found) in enumerate(zip(sources, typed_labs)):
            folder = Path(tmp) / str(n)
            copy_for_check(source, folder, lesson_text, like=Path(tmp) / '0' if n else None)
            names = typed_names(source)
            for lab, (text, _) in (found or {}).items():
                if text is not None:
                    (folder / 'lab').mkdir(exist_ok=True)
                    (folder / 'lab' / f'{lab}.py').write_text(text, encoding='utf-8')
                    names.add(f'lab/{lab}.py')
            typed.append(names)
            jobs.append((str(folder), [name for name in PART_OF if rules.NEEDS[name] <= names]))
        runnable = [(folder, names) for folder, names in jobs if names]
        answers = [None] * len(runnable)
        groups = [runnable[n::children] for n in range(children)]  # every children-th job in each
        pool = concurrent.futures.ThreadPoolExecutor(children)
        try:
            running = [pool.submit(run_children, group, seconds, hash_seed, search)
                       for group in groups]
            while concurrent.futures.wait(running, timeout=0.2).not_done:
                pass  # waited in short turns: a signal another thread received is handled here too
            for n, done in enumerate(running):
                answers[n::children] = done.result()
        except KeyboardInterrupt:
            # Ctrl-C or SIGTERM (cli.Terminated): the children first, or the pool would wait for
            # them
            runner.kill_all()
            raise
        finally:
            pool.shutdown()
        found = iter(answers)
    return [misplaced_labs(verdicts(names, next(found) if job[1] else {}, wrong), labs_typed)
            for names, job, wrong, labs_typed in zip(typed, jobs, broken, typed_labs)]


def misplaced_labs(answers, found):
    """answers, with a lab saved under another name or in another folder failed: where it is, and
    the command that puts it where python3 -m lab.NAME finds it."""
    if found is None:  # no labs here to check: the answers are tokenizer.py's alone
        return {name: answer for name, answer in answers.items() if name not in rules.LABS}
    for name, lab in rules.LABS.items():
        where = found.get(lab, (None, None))[1]
        if where and answers[name][0] == 'todo':
            answers[name] = ['failed', [['lab_misplaced', {'lab': lab, 'found': where}],
                                        ['lab_move', {'command': f'mv {where} lab/{lab}.py'}]]]
    return answers


def run_children(jobs, seconds=runner.SECONDS, hash_seed=True, search=True):
    """The child's answers for jobs, with rule_hash_seed compared with a second child's, under
    another PYTHONHASHSEED, started after the first for the files whose rule_hash_seed held
    there: for the others there is nothing to compare, and no second Python is started."""
    if not jobs:
        return []
    answers = runner.run(jobs, '0', seconds, search)
    held = [(job, found) for job, found in zip(jobs, answers)
            if hash_seed and found.get('rule_hash_seed', [''])[0] == 'passed']
    # the other seed's child gives rule_hash_seed's value to compare: no slip is looked for there
    seeded = [(folder, ['rule_imports', 'rule_hash_seed']) for (folder, _), _ in held]
    for (_, found), other in zip(held,
                                 runner.run(seeded, '12345', seconds, False) if seeded else []):
        theirs = other['rule_hash_seed']
        if theirs[0] == 'passed' and theirs[1] != found['rule_hash_seed'][1]:
            found['rule_hash_seed'] = ['failed',
                                       [['hash_seed', {}], ['look', {'where': 'look.hash_seed'}]]]
    return answers


def copy_for_check(source, folder, lesson_text, like=None):
    """A folder with source as tokenizer.py beside the lesson's settings.json and data/train.txt;
    like: a folder made so before, whose two lesson's files are linked, not copied. For the
    jobs of a batch: the tests check a few hundred files, and a file made costs much where many
    were removed lately (CONTRIBUTING.md: why a test makes few files). A file's code that writes
    over them reaches the jobs after it: such a file is checked in a batch of its own
    (check_many)."""
    (folder / 'data').mkdir(parents=True)
    (folder / 'tokenizer.py').write_text(source, encoding='utf-8')
    lessons = {'settings.json': f'{{"merges": {rules.LESSON_MERGES}}}',
               'data/train.txt': lesson_text}
    for name, text in lessons.items():
        if like is None or not _linked(like / name, folder / name):
            (folder / name).write_text(text, encoding='utf-8')


def _linked(existing, new):
    """Whether new was made a hard link to existing (a file system may have none)."""
    try:
        os.link(existing, new)
        return True
    except OSError:
        return False


def verdicts(typed, found, broken=None):
    """One answer for each rule: the child's, unless its part is not typed (todo) or a rule of an
    earlier part it calls has failed (not_checked, naming that part); a part Python could not
    read fails (SYNTAX), and its rules and those of the parts typed after it are not checked;
    a part not typed at all is todo."""
    answers, failed_parts, todo_parts = {}, set(), set()
    for name, part in PART_OF.items():
        # typed, but Python could not read it
        if broken and (part == broken[0] or part in broken[2]):
            answers[name] = ['not_checked', [['not_checked_syntax', {'part': str(broken[0])}]]]
            continue
        if broken and part >= broken[0] or not rules.NEEDS[name] <= typed:
            answers[name] = ['todo', None]
            todo_parts.add(part)
            continue
        before = sorted(p for p in rules.CALLS[name] & failed_parts if p < part)
        if before:
            answers[name] = ['not_checked', [['not_checked_part', {'part': str(before[0])}]]]
            continue
        untyped = sorted(p for p in rules.CALLS[name] & todo_parts if p < part)
        if untyped:  # a part typed after one left out (def decode(self, ids): pass, say)
            answers[name] = ['not_checked', [['not_checked_todo', {'part': str(untyped[0])}]]]
            continue
        answers[name] = found.get(name, ['todo', None])
        if answers[name][0] == 'failed':
            failed_parts.add(part)
    if broken:
        answers[SYNTAX] = ['failed', broken[1]]
    return answers


def syntax_part(answers):
    """The part Python could not read (its SYNTAX answer looks there), or None."""
    if SYNTAX not in answers:
        return None
    looks = [fields['where'] for key, fields in answers[SYNTAX][1] if key == 'look']
    return int(looks[0].split('.')[1]) if looks else 0
