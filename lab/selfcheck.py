"""A tutor for the tokenizer.py you type: does each part you have typed keep the lesson's rules?

    python3 -m lab.selfcheck [FILE] [--watch] [--lang ko|en]

The lesson has you type tokenizer.py part by part (merge, BPE.__init__, train, encode,
decode and state, the __main__ block) and run things in between. The tutor follows you:
for each part it prints the part's title from the lesson, then each of its rules as 'OK',
or 'FAILED' with what was called, what came back, what the lesson expects, the line of
your file and where to look. A part you have not typed yet is 'TODO', and the last line
names the next part to type. '--' marks a rule not checked until one above it is fixed.

The rules run on the lesson's own text and settings, never on your data/train.txt or
settings.json, so a correct file passes whatever you train on. Your code runs in a
separate Python process with a time limit: a loop that never ends is reported, not
waited for, and your prints are ignored. It speaks Korean on a Korean locale (LANGUAGE,
LC_ALL, LC_MESSAGES or LANG starting with ko) or with --lang ko; its words are in
lab/locale/, one file a language.

Exit status: 0 when every rule holds, 1 when a rule FAILED, 3 when nothing failed but
parts are not typed yet. --watch checks again each time the file is saved (Ctrl-C ends it).

Try next: make one mistake on purpose (step one instead of two in merge, forget
the sorted() of the base vocabulary) and see which rule catches it.
"""
import argparse
import ast
import concurrent.futures
import importlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

if not __package__:  # run as python3 lab/selfcheck.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.selfcheck')

from lab import common

SECONDS = 2  # for one rule: the lesson's code needs a few milliseconds on these texts
MEMORY = 2 * 2**30  # bytes the child may use; the rules need a few dozen MB
UNKNOWN = common.UNKNOWN
MARK = '@@selfcheck '  # starts the child's answer, so that a print in the learner's file is ignored
LESSON_TEXT = common.read_text(common.ROOT / 'lab' / 'lesson_train.txt')  # data/train.txt as shipped
LESSON_MERGES = 12  # settings.json as shipped
LOCALE = common.ROOT / 'lab' / 'locale'
NOT_CHECKED = [['not_checked', {}]]
TODO = 'todo'  # the answer of a rule whose part is not typed yet
EXIT_NOT_TYPED = 3  # nothing failed, but parts of the lesson are still to be typed

# The lesson's parts, in the order they are typed: 0 the imports, 1 merge, 2 BPE.__init__, 3 train,
# 4 encode, 5 decode and state, 6 the __main__ block. A rule belongs to one (RULES).
PARTS = range(7)


class Wrong(Exception):
    """A rule does not hold: up to four lines, each [message key, {field: text}]."""


# A reference that does not use the file under test --------------------------------------------

def reference_merge(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if ids[i:i + 2] == list(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def pair_counts(vocab, ids):
    """{pair: (count, first position)} of the pairs the lesson counts, in order of first position."""
    found = {}
    for at, pair in enumerate(zip(ids, ids[1:])):
        if '\n' not in vocab[pair[0]] + vocab[pair[1]]:
            count, first = found.get(pair, (0, at))
            found[pair] = (count + 1, first)
    return found


def reference_steps(text, count):
    """The lesson's training, step by step: (vocab, [(pair, its count, first position, all counts)])."""
    vocab = common.base_vocabulary(text)
    ids = [vocab.index(ch) for ch in text]
    steps = []
    for _ in range(count):
        found = pair_counts(vocab, ids)
        best = max(found, key=lambda p: (found[p][0], -found[p][1]), default=None)
        if best is None or found[best][0] < 2:
            break
        steps.append((best, *found[best], found))
        vocab.append(vocab[best[0]] + vocab[best[1]])
        ids = reference_merge(ids, best, len(vocab) - 1)
    return vocab, steps


def lesson_lines():
    """What python3 tokenizer.py prints with the lesson's defaults: its two lines."""
    vocab, steps = reference_steps(LESSON_TEXT, LESSON_MERGES)
    base = len(vocab) - len(steps)
    prompt = [vocab.index(ch) if ch in vocab[:base] else 0 for ch in 'Q: hi\nA: ']
    for n, (pair, *_) in enumerate(steps):
        prompt = reference_merge(prompt, pair, base + n)
    return [f'vocab: {len(vocab)} merges: {len(steps)}', f'roundtrip: OK {prompt}']


# The rules, as the child process checks them -------------------------------------------------

def expect(call, got, want, look, gave='gave'):
    """Wrong, with what was called and came back (said as the message gave), what the lesson
    expects and where to look."""
    if got != want:
        raise Wrong([[gave, {'call': call, 'got': repr(got)}], ['lesson', {'want': repr(want)}],
                     ['look', {'where': look}]])


def rule_imports():
    importlib.import_module('tokenizer')  # that it imports without an error is the rule


def rule_merge_copies():
    from tokenizer import merge
    for ids in [[2, 1], [5], [], [3, 4, 1], [2, 2, 1, 1]]:
        expect(f'merge({ids}, (1, 2), 9)', merge(list(ids), (1, 2), 9), ids, 'look.merge_copy')
    ids = [1, 2]
    merge(ids, (1, 2), 9)
    expect('merge(ids, (1, 2), 9)', ids, [1, 2], 'look.merge_new_list', 'gave_ids_after')


def expect_merged(call, got, ids, want, look):
    """As expect, but a merge that changed nothing is most often a list compared with a tuple."""
    expect(call, got, want, 'look.merge_list_tuple' if got == ids else look)


def rule_merge_replaces():
    from tokenizer import merge
    for ids, pair, want in [([1, 2, 3, 1, 2], (1, 2), [9, 3, 9]), ([7, 7, 7], (7, 7), [8, 7]),
                            ([7, 7, 7, 7], (7, 7), [8, 8]), ([7, 7, 7, 7, 7], (7, 7), [8, 8, 7])]:
        expect_merged(f'merge({ids}, {pair}, {want[0]})', merge(list(ids), pair, want[0]), ids, want,
                      'look.merge_step')


def rule_merge_list_pair():
    from tokenizer import merge
    expect_merged('merge([1, 2, 3], [1, 2], 9)', merge([1, 2, 3], [1, 2], 9), [1, 2, 3], [9, 3],
                  'look.merge_list_pair')


def rule_init():
    from tokenizer import BPE
    vocab, merges = [UNKNOWN, '\n', 'a', 'b', 'ab'], [[[2, 3], 4]]
    tok = BPE(list(vocab), [[[2, 3], 4]])
    call = "BPE(['\\ufffd', '\\n', 'a', 'b', 'ab'], [[[2, 3], 4]])"
    expect(f'{call}.vocab', tok.vocab, vocab, 'look.init')
    expect(f'{call}.merges', tok.merges, merges, 'look.init')
    expect(f'{call}.chars', tok.chars, {UNKNOWN: 0, '\n': 1, 'a': 2, 'b': 3}, 'look.init_chars')


def rule_base_vocab():
    from tokenizer import BPE
    expect("BPE.train('cab\\n', 0).vocab", BPE.train('cab\n', 0).vocab, [UNKNOWN, '\n', 'a', 'b', 'c'],
           'look.base_vocab')


def rule_unknown_once():
    from tokenizer import BPE
    expect("BPE.train('a\\ufffdb', 0).vocab", BPE.train('a\ufffdb', 0).vocab, [UNKNOWN, 'a', 'b'],
           'look.unknown_once')


def rule_count():
    from tokenizer import BPE
    text = 'the cat sat on the mat\n' * 3
    for count in [0, 1]:
        expect(f'len(BPE.train(text, {count}).merges)', len(BPE.train(text, count).merges), count,
               'look.count')


def first_merge(text):
    """The pieces of the first pair that BPE.train(text, 1) merges, or None."""
    from tokenizer import BPE
    tok = BPE.train(text, 1)
    return tuple(tok.vocab[i] for i in tok.merges[0][0]) if tok.merges else None


def expect_first_merge(cases, look):
    for text, want in cases:
        expect(f'BPE.train({text[-20:]!r}, 1)', first_merge(text), want, look, 'gave_merged')


def rule_most_frequent():
    expect_first_merge([('ab cdcdcd', ('c', 'd')), ('xyz xyz abababab', ('a', 'b'))], 'look.most_frequent')


def rule_ties():
    expect_first_merge([('yzab yzab yzab', ('y', 'z')), ('ba ab ba ab ba ab', ('b', 'a'))], 'look.ties')


def rule_newline():
    expect_first_merge([('x\n' * 20 + 'ab ab ab', ('a', 'b')), ('\nx' * 20 + 'ab ab ab', ('a', 'b'))],
                       'look.newline')


def rule_new_token():
    from tokenizer import BPE
    tok = BPE.train('ababab', 1)
    a, b = tok.vocab.index('a'), tok.vocab.index('b')
    expect("BPE.train('ababab', 1).merges", json.loads(json.dumps(tok.merges)), [[[a, b], 3]],
           'look.new_merge')
    expect("BPE.train('ababab', 1).vocab[3:]", tok.vocab[3:], ['ab'], 'look.new_piece')


def rule_early_stop():
    from tokenizer import BPE
    for text, want in [('abcdef', []), ('abab', ['ab']), ('\n\n\n\n', []), ('', [])]:
        tok = BPE.train(text, 10)
        expect(f'BPE.train({text!r}, 10)', [tok.vocab[new] for _, new in tok.merges], want,
               'look.early_stop', 'gave_learned')


def rule_hash_seed():
    from tokenizer import BPE
    tok = BPE.train(''.join(chr(0x61 + (n * 7) % 13) for n in range(300)) + '\nxyzzy plugh\n', 25)
    return json.dumps([tok.vocab, tok.merges])


def rule_lesson_text():
    from tokenizer import BPE
    tok = BPE.train(LESSON_TEXT, LESSON_MERGES)
    vocab, steps = reference_steps(LESSON_TEXT, LESSON_MERGES)
    theirs = [(tok.vocab[a], tok.vocab[b]) for (a, b), _ in tok.merges]
    ours = [(vocab[a], vocab[b]) for (a, b), _, _, _ in steps]
    for n, (want, got) in enumerate(zip(ours, theirs + [None] * len(ours))):  # the first that differs
        if got != want:
            found = steps[n][3]
            ids = {piece: i for i, piece in enumerate(vocab)}
            count, first = found.get((ids.get(got[0]), ids.get(got[1])), (0, None)) if got else (0, None)
            yours = {'n': str(n + 1), 'got': repr(got), 'count': str(count), 'first': str(first)}
            lesson = {'want': repr(want), 'count': str(steps[n][1]), 'first': str(steps[n][2])}
            raise Wrong([['lesson_text_yours' if count else 'lesson_text_none', yours],
                         ['lesson_text_lesson', lesson], ['look', {'where': 'look.most_frequent'}]])
    if len(theirs) > len(ours):
        raise Wrong([['lesson_text_more', {'got': str(len(theirs)), 'want': str(len(ours))}],
                     ['look', {'where': 'look.early_stop'}]])


def hand_made():
    """l, o, w and two merges, 'l'+'o' then 'lo'+'w': the second needs the first."""
    from tokenizer import BPE
    return BPE([UNKNOWN, 'l', 'o', 'w', 'lo', 'low'], [[[1, 2], 4], [[4, 3], 5]])


def rule_encode_unknown():
    expect("encode('wCo😀')", hand_made().encode('wCo😀'), [3, 0, 2, 0], 'look.encode_unknown')


def rule_encode_order():
    tok = hand_made()
    for text, want in [('low', [5]), ('lolow', [4, 5]), ('owl', [2, 3, 1])]:
        expect(f'encode({text!r})', tok.encode(text), want, 'look.encode_order')


def rule_decode():
    expect('decode([5, 3, 0, 4])', hand_made().decode([5, 3, 0, 4]), 'loww\ufffdlo', 'look.decode')


def rule_state():
    from tokenizer import BPE
    tok = BPE.train('the cat sat on the mat\n' * 2, 6)
    state = tok.state()
    expect('sorted(state())', sorted(state), ['merges', 'vocab'], 'look.state')
    again = BPE(**json.loads(json.dumps(state, ensure_ascii=False)))
    for text in ['the cat', 'mat\nthe', 'Cat!']:
        expect(f'BPE(**state()).encode({text!r})', again.encode(text), tok.encode(text), 'look.state_again')


# (part, what must be typed for it to run, the rule) in the order the lesson teaches them; a rule's
# words are 'rule.NAME' in the catalogs
RULES = [
    (0, set(), rule_imports),
    (1, {'merge'}, rule_merge_copies),
    (1, {'merge'}, rule_merge_replaces),
    (1, {'merge'}, rule_merge_list_pair),
    (2, {'BPE.__init__'}, rule_init),
    (3, {'BPE.train'}, rule_base_vocab),
    (3, {'BPE.train'}, rule_unknown_once),
    (3, {'BPE.train'}, rule_count),
    (3, {'BPE.train'}, rule_most_frequent),
    (3, {'BPE.train'}, rule_ties),
    (3, {'BPE.train'}, rule_newline),
    (3, {'BPE.train'}, rule_new_token),
    (3, {'BPE.train'}, rule_early_stop),
    (3, {'BPE.train'}, rule_hash_seed),
    (3, {'BPE.train'}, rule_lesson_text),
    (4, {'BPE.encode'}, rule_encode_unknown),
    (4, {'BPE.encode'}, rule_encode_order),
    (5, {'BPE.decode'}, rule_decode),
    (5, {'BPE.train', 'BPE.encode', 'BPE.state'}, rule_state),
]
CHECKS = {check.__name__: check for _, _, check in RULES}
COMMAND_LINE = 'rule_command_line'  # part 6: python3 tokenizer.py, run by the parent
PART_OF = {**{check.__name__: part for part, _, check in RULES}, COMMAND_LINE: 6}
# where an error was raised, as the part of the lesson that typed that function
PART_OF_FUNCTION = {'merge': 1, '__init__': 2, 'train': 3, 'encode': 4, 'decode': 5, 'state': 5,
                    '<module>': 6}
# the errors the catalogs say in words, as 'error.NAME'
KNOWN_ERRORS = ['AttributeError', 'IndentationError', 'IndexError', 'KeyError', 'NameError', 'RecursionError',
                'SyntaxError', 'TimeoutError', 'TypeError', 'UnboundLocalError', 'ValueError',
                'ZeroDivisionError', 'MemoryError']


# What an error in the learner's code means, in words ------------------------------------------

def explain(kind, detail, line=None, function=None):
    """Lines that say what an exception (its type name and message) means and where it was."""
    said = [['raised', {'error': f'{kind}: {detail}' if detail else kind or '?'}]]
    if line:
        said.append(['at_line', {'line': str(line), 'function': function}] if function else
                    ['at_line_only', {'line': str(line)}])
    if kind == 'TypeError' and 'train() missing 1 required positional argument' in detail:
        said.append(['hint', {'text': 'hint.classmethod'}])
        function = 'train'
    elif kind == 'KeyError' and function == 'encode':
        said.append(['hint', {'text': 'hint.chars_get'}])
    elif kind in KNOWN_ERRORS:
        said.append(['hint', {'text': f'error.{kind}'}])
    if function in PART_OF_FUNCTION:
        said.append(['look', {'where': f'part.{PART_OF_FUNCTION[function]}'}])
    return said


def explain_error(error):
    """explain() for an exception raised in this process: the last place in tokenizer.py."""
    mine = os.path.realpath('tokenizer.py')
    if isinstance(error, SyntaxError) and os.path.realpath(error.filename or '') == mine:
        return explain(type(error).__name__, error.msg, error.lineno, None)
    frames = [f for f in traceback.extract_tb(error.__traceback__) if os.path.realpath(f.filename) == mine]
    # the function, not the list comprehension inside it (Python before 3.12 names that <listcomp>)
    named = [f.name for f in frames if not f.name.startswith('<')] or [None]
    detail = f'{SECONDS} s' if isinstance(error, TimeoutError) else str(error)
    return explain(type(error).__name__, detail, frames[-1].lineno if frames else None, named[-1])


def child(*names):
    """Run rules in this process (the child), each with its own time limit, printing one
    answer a line: {"value": ...} when it holds, {"lines": [...]} when it does not."""
    def too_long(*_):
        raise TimeoutError
    timer = hasattr(signal, 'setitimer')  # not on Windows: there only the parent's limit holds
    try:  # a loop that appends forever hits this, not the machine's memory
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    except (ImportError, ValueError, OSError):
        pass
    if timer:
        signal.signal(signal.SIGALRM, too_long)
    stuck = False
    for name in names:
        if stuck:  # the rules that follow call the same code: they would fail or wait just as long
            print(MARK + json.dumps({name: {'lines': NOT_CHECKED}}), flush=True)
            continue
        try:
            if timer:
                signal.setitimer(signal.ITIMER_REAL, SECONDS)
            answer = {'value': CHECKS[name]()}
        except Wrong as e:
            answer = {'lines': e.args[0]}
        except BaseException as e:  # the learner's code failed: say what and where, in their file
            if isinstance(e, KeyboardInterrupt):
                raise
            answer = {'lines': explain_error(e)}
            stuck = isinstance(e, TimeoutError) or name == 'rule_imports'
        finally:
            if timer:
                signal.setitimer(signal.ITIMER_REAL, 0)
        print(MARK + json.dumps({name: answer}), flush=True)


# The parent: what is typed, the child processes, python3 tokenizer.py ---------------------------

def typed_names(source):
    """The names of the lesson's parts that the file has: 'merge', 'BPE', 'BPE.train', ...,
    '__main__'. A SyntaxError when it does not parse."""
    names = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
            names.update(f'{node.name}.{item.name}' for item in node.body
                         if isinstance(item, ast.FunctionDef))
        elif isinstance(node, ast.If) and '__main__' in ast.dump(node.test):
            names.add('__main__')
    return names


def run_rules(folder, names, seed='0'):
    """{name: answer} for the rules, run in one child process in folder."""
    code = (f'import sys; sys.path.insert(1, {str(common.ROOT)!r}); '
            'from lab.selfcheck import child; child(*sys.argv[1:])')
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONIOENCODING='utf-8', PYTHONDONTWRITEBYTECODE='1')
    try:
        done = subprocess.run([sys.executable, '-c', code, *names], cwd=folder, env=env,
                              capture_output=True, text=True, encoding='utf-8', errors='replace',
                              timeout=SECONDS * (len(names) + 1), stdin=subprocess.DEVNULL)
        out, err = done.stdout, done.stderr
    except subprocess.TimeoutExpired as e:
        out, err = e.stdout or '', 'no answer'
        out = out.decode('utf-8', 'replace') if isinstance(out, bytes) else out
    answers = {}
    for line in out.splitlines():
        if line.startswith(MARK):
            answers.update(json.loads(line[len(MARK):]))
    last = (err.strip().splitlines() or ['?'])[-1]
    return {name: answers.get(name, {'lines': [['could_not_finish', {'last': last}]]}) for name in names}


def error_in_output(stderr, folder):
    """explain() for the traceback python3 tokenizer.py printed, with the line in tokenizer.py."""
    lines = stderr.strip().splitlines() or ['?']
    at = re.findall(r'File "(?:[^"]*[/\\])?tokenizer\.py", line (\d+), in (\S+)', stderr)
    kind, _, detail = lines[-1].partition(': ')
    if not re.fullmatch(r'[A-Za-z_.]*(Error|Exception|Interrupt|Exit)', kind):
        kind, detail = '', lines[-1].replace(str(folder) + os.sep, '')
    return explain(kind.rsplit('.', 1)[-1], detail, *(at[-1] if at else (None, None)))


def check_command_line(folder):
    """python3 tokenizer.py in folder, with the lesson's defaults: its lines among what it prints,
    in order, and a data/tokenizer.json as the lesson's. None when it holds, else the lines."""
    saved = folder / 'data' / 'tokenizer.json'
    saved.unlink(missing_ok=True)
    try:
        done = subprocess.run([sys.executable, 'tokenizer.py'], cwd=folder, capture_output=True, text=True,
                              encoding='utf-8', errors='replace', timeout=SECONDS * 2,
                              env=dict(os.environ, PYTHONIOENCODING='utf-8'), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return explain('TimeoutError', f'{SECONDS * 2} s')
    if done.returncode:
        return [['command_failed', {}], *error_in_output(done.stderr, folder)]
    want = lesson_lines()
    if not common.has_lines(done.stdout, want):
        printed = [common.shown(line) for line in done.stdout.splitlines()[:4]]
        return [['command_printed', {'got': repr(printed)}], ['lesson', {'want': repr(want)}],
                ['look', {'where': 'look.command_print'}]]
    if not saved.exists():
        return [['no_tokenizer_json', {}], ['look', {'where': 'look.command_save'}]]
    raw = saved.read_text(encoding='utf-8', errors='replace')
    try:
        state = json.loads(raw)
    except ValueError:
        state = None
    if not isinstance(state, dict) or sorted(state) != ['merges', 'vocab'] or UNKNOWN not in raw:
        return [['tokenizer_json_keys', {}], ['look', {'where': 'look.command_save'}]]
    return None


def copy_for_check(file, folder):
    """A folder with the file as tokenizer.py beside the lesson's settings.json and data/train.txt."""
    shutil.copy(file, folder / 'tokenizer.py')
    (folder / 'data').mkdir(exist_ok=True)
    (folder / 'settings.json').write_text(json.dumps({'merges': LESSON_MERGES}), encoding='utf-8')
    (folder / 'data' / 'train.txt').write_text(LESSON_TEXT, encoding='utf-8')


def check(path):
    """{rule name: None when it holds, 'todo' when its part is not typed, or its lines}."""
    source = common.read_text(path, 'give the tokenizer.py you typed')
    try:
        typed = typed_names(source)
    except (SyntaxError, ValueError):
        typed = None  # the child's import reports where
    runnable = [check.__name__ for _, needs, check in RULES if typed is not None and needs <= typed]
    answers = {name: TODO for name in PART_OF}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        copy_for_check(path, folder)
        with concurrent.futures.ThreadPoolExecutor(1) as pool:  # a second process, alongside
            again = pool.submit(run_rules, folder, ['rule_imports', 'rule_hash_seed'], '12345') \
                if 'rule_hash_seed' in runnable else None
            found = run_rules(folder, runnable or ['rule_imports'])
            for name, answer in found.items():
                answers[name] = answer.get('lines')
            stuck = typed is None or any(answer == NOT_CHECKED for answer in answers.values())
            if typed is not None and '__main__' in typed:  # not while a loop never ends: it would too
                answers[COMMAND_LINE] = NOT_CHECKED if stuck else check_command_line(folder)
            if again and not answers['rule_hash_seed'] and \
                    again.result()['rule_hash_seed'] != found['rule_hash_seed']:
                answers['rule_hash_seed'] = [['hash_seed', {}], ['look', {'where': 'look.hash_seed'}]]
            if typed is None:
                answers = {name: answer if name == 'rule_imports' else NOT_CHECKED
                           for name, answer in answers.items()}
    return answers


# Showing the answers, in the learner's language -------------------------------------------------

def language(argv, environ):
    """'ko' or 'en': --lang when given, else the locale as gettext reads it."""
    for n, arg in enumerate(argv):
        if arg.startswith('--lang='):
            return arg.split('=', 1)[1]
        if arg == '--lang' and n + 1 < len(argv):
            return argv[n + 1]
    for name in ['LANGUAGE', 'LC_ALL', 'LC_MESSAGES', 'LANG']:
        if environ.get(name):
            return 'ko' if environ[name].startswith('ko') else 'en'
    return 'en'


def catalog(lang):
    """The tutor's words in one language, from lab/locale/LANG.json; a list is lines of text."""
    words = json.loads((LOCALE / f'{lang}.json').read_text(encoding='utf-8'))
    return {key: '\n'.join(value) if isinstance(value, list) else value for key, value in words.items()}


def render(words, key, fields):
    """One message: its text in the catalog, the fields filled in (a field that names another
    message, as 'look.merge_step' does, is that message's text)."""
    filled = {name: words[value] if name in ('where', 'text') else value for name, value in fields.items()}
    return words[key].format(**filled)


def report(words, answers, shown_file):
    """The lines a person reads, part by part, and the exit status."""
    out = [render(words, 'heading', {'file': shown_file}), '']
    for part in PARTS:
        names = [name for name, its in PART_OF.items() if its == part]
        title = render(words, 'part_title', {'n': str(part), 'title': words[f'part.{part}']})
        for marker, answer in [('TODO', TODO), ('--', NOT_CHECKED)]:
            if names and all(answers[name] == answer for name in names):  # the part on one line
                out.append(common.fill(title, f'{marker:<8}', ' ' * 8))
                break
        else:
            out.append(title)
            before = None
            for name in names:
                same = answers[name] == before and before not in (None, TODO, NOT_CHECKED)
                out += rule_lines(words, name, [['same_as_above', {}]] if same else answers[name], shown_file)
                before = answers[name]
    held = sum(answer is None for answer in answers.values())
    typed = sum(answer != TODO for answer in answers.values())
    failed = [name for name, answer in answers.items() if answer not in (None, TODO, NOT_CHECKED)]
    todo = sorted({PART_OF[name] for name, answer in answers.items() if answer == TODO})
    out += ['', render(words, 'summary', {'held': str(held), 'typed': str(typed)})]
    if failed:
        out.append(common.fill(render(words, 'fix_first', {'rule': words[f'rule.{failed[0]}']}), '', '  '))
        return out, 1
    if todo:
        out.append(render(words, 'next_part', {'n': str(todo[0]), 'title': words[f'part.{todo[0]}']}))
        return out, EXIT_NOT_TYPED
    out.append(words['all_hold'])
    return out, 0


def rule_lines(words, name, answer, shown_file):
    """'OK', 'FAILED' with its lines, '--' or 'TODO', then the rule, within 80 columns."""
    marker = ('OK' if answer is None else 'TODO' if answer == TODO else '--' if answer == NOT_CHECKED
              else 'FAILED')
    lines = [common.fill(words[f'rule.{name}'], f'{marker:<8}', ' ' * 8)]
    for key, fields in answer if marker == 'FAILED' else []:
        text = common.shown(render(words, key, dict(fields, file=shown_file)))
        lines.append(common.fill(text, ' ' * 10, ' ' * 12))
    return lines


def parser(words):
    """The command line, in the learner's language: --help is the catalog's own text."""
    parse = argparse.ArgumentParser(prog='python3 -m lab.selfcheck', usage=words['usage'], add_help=False)
    common.escape_errors(parse)
    parse.add_argument('file', nargs='?', type=Path, default=common.ROOT / 'tokenizer.py', metavar='FILE')
    parse.add_argument('--watch', action='store_true')
    parse.add_argument('--lang', choices=['en', 'ko'])
    parse.add_argument('-h', '--help', action='store_true')
    return parse


def run_once(path, words, shown_file):
    lines, status = report(words, check(path), shown_file)
    print('\n'.join(lines), flush=True)
    return status


def watch(path, words, shown_file):
    """Check again each time the file is saved, until Ctrl-C: on a terminal the screen is drawn
    anew, elsewhere each run is printed once."""
    seen = None
    while True:
        try:
            info = os.stat(path)
            now = (info.st_mtime_ns, info.st_size)
        except OSError:
            now = None
        if now != seen:
            seen = now
            if sys.stdout.isatty():
                print('\x1b[H\x1b[2J', end='')  # to the top left, then clear the screen
            try:
                run_once(path, words, shown_file)
            except ValueError as e:  # a file being saved may be empty or missing for a moment
                print(common.shown(str(e)), flush=True)
            print(words['watching'], flush=True)
        time.sleep(0.5)  # twice a second: quick enough to feel instant, idle otherwise


def main():
    lang = language(sys.argv[1:], os.environ)
    words = catalog(lang if lang in ('en', 'ko') else 'en')
    args = parser(words).parse_args()
    if args.help:
        print(words['help'])
        return
    shown_file = common.shown(args.file.name)
    if args.watch:
        watch(args.file, words, shown_file)
    status = run_once(args.file, words, shown_file)
    if status:
        sys.exit(status)


if __name__ == '__main__':
    common.run(main)
