"""A tutor for the tokenizer.py you typed: does it keep every rule of the lesson?

    python3 -m lab.selfcheck [FILE]

It checks FILE (default: tokenizer.py in the project folder) rule by rule, in the order
the lesson teaches them: merge, the base vocabulary, the most frequent pair, ties, the
newline rule, the early stop, the new token, the number of merges, encode, decode,
saving and loading, the same ids on every run, the merges it learns from
data/train.txt, and python3 tokenizer.py itself. Each rule prints 'OK', or 'FAILED' with
what was called, what came back, what the lesson expects, and where to look; '--'
marks a rule not checked until one above it is fixed (an import, an endless loop).

Your code runs in a separate Python process with a time limit, so a loop that never
ends is reported instead of waited for, and an error in it is one line that names
the line of your file. The merges are compared with a small reference written here,
which does not use your file, and the first one that differs is shown with both
pairs, their counts, and where each occurs first.

Try next: make one mistake on purpose (step one instead of two in merge, forget
the sorted() of the base vocabulary) and see which rule catches it.
"""
import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import traceback
from pathlib import Path

if not __package__:  # run as python3 lab/selfcheck.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.selfcheck')

from lab import common

SECONDS = 2  # for one rule: the lesson's code needs a few milliseconds on these texts
NOT_CHECKED = 'not checked: fix the rule above first'
MEMORY = 2 * 2**30  # bytes the child may use; the rules need a few dozen MB
UNKNOWN = '\ufffd'
MARK = '@@selfcheck '  # starts the child's answer, so that a print in the learner's file is ignored


class Wrong(Exception):
    """A rule does not hold: up to three short lines that say how."""


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
    vocab = [UNKNOWN] + sorted(set(text) - {UNKNOWN})
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


# The rules, as the child process checks them -------------------------------------------------

def expect(call, got, want, look):
    if got != want:
        raise Wrong([f'{call} gave {got!r}', f'the lesson: {want!r}', f'look at: {look}'])


def rule_imports():
    try:
        from tokenizer import BPE, merge  # noqa: F401 (importing them is the check)
    except ImportError as e:
        raise Wrong([str(e).split(' (')[0], 'the lesson names them merge and BPE']) from None


def rule_merge_copies():
    from tokenizer import merge
    for ids in [[2, 1], [5], [], [3, 4, 1], [2, 2, 1, 1]]:
        expect(f'merge({ids}, (1, 2), 9)', merge(list(ids), (1, 2), 9), ids,
               'merge: copy what is not the pair')
    ids = [1, 2]
    merge(ids, (1, 2), 9)
    expect('merge(ids, (1, 2), 9) left ids as', ids, [1, 2], 'merge: it returns a new list')


def rule_merge_replaces():
    from tokenizer import merge
    for ids, pair, want in [([1, 2, 3, 1, 2], (1, 2), [9, 3, 9]), ([7, 7, 7], (7, 7), [8, 7]),
                            ([7, 7, 7, 7], (7, 7), [8, 8]), ([7, 7, 7, 7, 7], (7, 7), [8, 8, 7])]:
        expect(f'merge({ids}, {pair}, {want[0]})', merge(ids, pair, want[0]), want,
               'merge: after a match, step past both tokens')


def rule_merge_list_pair():
    from tokenizer import merge
    expect('merge([1, 2, 3], [1, 2], 9)', merge([1, 2, 3], [1, 2], 9), [9, 3],
           'merge: a pair read back from JSON is a list')


def rule_base_vocab():
    from tokenizer import BPE
    tok = BPE.train('cab\n', 0)
    expect("BPE.train('cab\\n', 0).vocab", tok.vocab, [UNKNOWN, '\n', 'a', 'b', 'c'], 'BPE.train: the vocab')
    expect("BPE.train('cab\\n', 0).chars", tok.chars, {UNKNOWN: 0, '\n': 1, 'a': 2, 'b': 3, 'c': 4},
           'BPE.__init__: chars')


def rule_unknown_once():
    from tokenizer import BPE
    expect("BPE.train('a\\ufffdb', 0).vocab", BPE.train('a\ufffdb', 0).vocab, [UNKNOWN, 'a', 'b'],
           "BPE.train: set(text) - {'\\ufffd'}")


def rule_count():
    from tokenizer import BPE
    text = 'the cat sat on the mat\n' * 3
    for count in [0, 1]:
        expect(f'BPE.train(text, {count}) made', f'{len(BPE.train(text, count).merges)} merges',
               f'{count} merges', 'BPE.train: for _ in range(count)')


def first_merge(text):
    """The pieces of the first pair that BPE.train(text, 1) merges, or None."""
    from tokenizer import BPE
    tok = BPE.train(text, 1)
    return tuple(tok.vocab[i] for i in tok.merges[0][0]) if tok.merges else None


def expect_first_merge(cases, look):
    for text, want in cases:
        expect(f'BPE.train({text[-20:]!r}, 1) merged', first_merge(text), want, look)


def rule_most_frequent():
    expect_first_merge([('ab cdcdcd', ('c', 'd')), ('xyz xyz abababab', ('a', 'b'))],
                       'BPE.train: counting pairs and taking the most frequent')


def rule_ties():
    expect_first_merge([('yzab yzab yzab', ('y', 'z')), ('ba ab ba ab ba ab', ('b', 'a'))],
                       'BPE.train: on a tie, the pair that occurs first wins')


def rule_newline():
    expect_first_merge([('x\n' * 20 + 'ab ab ab', ('a', 'b')), ('\nx' * 20 + 'ab ab ab', ('a', 'b'))],
                       "BPE.train: a pair whose pieces joined hold '\\n' is not counted")


def rule_new_token():
    from tokenizer import BPE
    tok = BPE.train('ababab', 1)
    a, b = tok.vocab.index('a'), tok.vocab.index('b')
    expect("BPE.train('ababab', 1).merges", json.loads(json.dumps(tok.merges)), [[[a, b], 3]],
           'BPE.train: merges.append([list(pair), new_id]) with new_id = len(vocab)')
    expect("BPE.train('ababab', 1).vocab[3:]", tok.vocab[3:], ['ab'],
           'BPE.train: the new piece is vocab[a] + vocab[b], in that order')


def rule_early_stop():
    from tokenizer import BPE
    for text, want in [('abcdef', []), ('abab', ['ab']), ('\n\n\n\n', []), ('', [])]:
        tok = BPE.train(text, 10)
        expect(f'BPE.train({text!r}, 10) learned', [tok.vocab[new] for _, new in tok.merges], want,
               'BPE.train: stop when no pair is left or the best occurs fewer than 2 times')


def hand_made():
    """l, o, w and two merges, 'l'+'o' then 'lo'+'w': the second needs the first."""
    from tokenizer import BPE
    return BPE([UNKNOWN, 'l', 'o', 'w', 'lo', 'low'], [[[1, 2], 4], [[4, 3], 5]])


def rule_encode_unknown():
    expect("encode('wCo😀')", hand_made().encode('wCo😀'), [3, 0, 2, 0],
           'encode: self.chars.get(ch, 0)')


def rule_encode_order():
    tok = hand_made()
    for text, want in [('low', [5]), ('lolow', [4, 5]), ('owl', [2, 3, 1])]:
        expect(f'encode({text!r}) with merges lo, then low', tok.encode(text), want,
               'encode: apply the merges in the order they were learned')


def rule_decode():
    tok = hand_made()
    expect('decode([5, 3, 0, 4])', tok.decode([5, 3, 0, 4]), 'loww\ufffdlo', 'decode: join the pieces')


def rule_state():
    from tokenizer import BPE
    tok = BPE.train('the cat sat on the mat\n' * 2, 6)
    state = tok.state()
    expect('sorted(state())', sorted(state), ['merges', 'vocab'], 'state')
    again = BPE(**json.loads(json.dumps(state, ensure_ascii=False)))
    for text in ['the cat', 'mat\nthe', 'Cat!']:
        expect(f'BPE(**state()).encode({text!r})', again.encode(text), tok.encode(text),
               'BPE.__init__ and state: a saved tokenizer must encode the same')


def rule_hash_seed():
    from tokenizer import BPE
    tok = BPE.train(''.join(chr(0x61 + (n * 7) % 13) for n in range(300)) + '\nxyzzy plugh\n', 25)
    return json.dumps(tok.state())


def rule_train_txt():
    from tokenizer import BPE
    text = common.read_text(common.TRAIN)
    count = common.read_merge_count()
    tok = BPE.train(text, count)
    vocab, steps = reference_steps(text, count)
    theirs = [(tok.vocab[a], tok.vocab[b]) for (a, b), _ in tok.merges]
    ours = [(vocab[a], vocab[b]) for (a, b), _, _, _ in steps]
    for n, (want, got) in enumerate(zip(ours, theirs + [None] * len(ours))):  # the first that differs
        if got != want:
            found = steps[n][3]
            ids = {piece: i for i, piece in enumerate(vocab)}
            other = found.get((ids.get(got[0]), ids.get(got[1])), (0, None)) if got else None

            def where(count, first):
                return f'{count} times, first at token {first}' if first is not None else 'not a pair then'
            return_lines = [f'merge {n + 1} on data/train.txt: yours {got!r}' +
                            (f' ({where(*other)})' if got else ' (none)'),
                            f'the lesson: {want!r} ({where(steps[n][1], steps[n][2])})',
                            'look at: BPE.train, how the best pair is chosen']
            raise Wrong(return_lines)
    if len(theirs) > len(ours):
        raise Wrong([f'{len(theirs)} merges on data/train.txt; the lesson stops after {len(ours)}',
                     'look at: BPE.train, the early stop'])


RULES = [  # (name, check) in the order the lesson teaches them
    ('tokenizer.py imports and has merge and BPE', rule_imports),
    ('merge copies the ids that are not the pair', rule_merge_copies),
    ('merge replaces the pair left to right, without overlap: a a a -> aa a', rule_merge_replaces),
    ('merge takes the pair as a list too, as JSON gives it back', rule_merge_list_pair),
    ('the base vocabulary: id 0 is \\ufffd, then the sorted characters', rule_base_vocab),
    ('a \\ufffd in the text is not added to the vocabulary twice', rule_unknown_once),
    ('train(text, count) makes count merges', rule_count),
    ('the most frequent pair is merged', rule_most_frequent),
    ('on a tie, the pair that occurs first in the sequence wins', rule_ties),
    ("a pair is never merged across '\\n', on either side", rule_newline),
    ('a merge adds [[a, b], len(vocab)] and the piece vocab[a] + vocab[b]', rule_new_token),
    ('training stops when the best pair occurs fewer than 2 times', rule_early_stop),
    ('encode turns an unknown character into id 0', rule_encode_unknown),
    ('encode applies the merges in the order they were learned', rule_encode_order),
    ('decode joins the pieces of the ids', rule_decode),
    ('BPE(**state()) rebuilds a tokenizer that encodes the same', rule_state),
    ('the same text gives the same tokenizer under any PYTHONHASHSEED', rule_hash_seed),
    ('the merges learned from data/train.txt are the lesson\'s', rule_train_txt),
]
CHECKS = {check.__name__: check for _, check in RULES}


def child(shown_file, *names):
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
        if stuck:  # the rules that follow call the same code: they would wait just as long
            print(MARK + json.dumps({name: {'lines': [NOT_CHECKED]}}), flush=True)
            continue
        try:
            if timer:
                signal.setitimer(signal.ITIMER_REAL, SECONDS)
            answer = {'value': CHECKS[name]()}
        except TimeoutError:
            answer = {'lines': [f'no answer in {SECONDS} s: a loop that never ends?']}
            stuck = True
        except Wrong as e:
            answer = {'lines': e.args[0]}
        except Exception as e:  # the learner's code failed: one line, pointing into their file
            answer = {'lines': [raised(e, shown_file)]}
        finally:
            if timer:
                signal.setitimer(signal.ITIMER_REAL, 0)
        if name == 'rule_imports' and 'lines' in answer:
            stuck = True  # nothing else can be checked
        print(MARK + json.dumps({name: answer}), flush=True)


def raised(error, shown_file):
    """'TypeError: ... (tokenizer.py, line 12, in merge)': the last place in the learner's file."""
    mine = str(Path('tokenizer.py').resolve())
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == mine]
    if isinstance(error, SyntaxError) and error.filename == mine:
        return f'SyntaxError: {error.msg} ({shown_file}, line {error.lineno})'
    where = f' ({shown_file}, line {frames[-1].lineno}, in {frames[-1].name})' if frames else ''
    return f'{type(error).__name__}: {error}{where}'


# The parent: one child process for each rule -------------------------------------------------

def run_rules(folder, names, shown_file, seed='0'):
    """{name: answer} for the rules, run in one child process in folder."""
    code = (f'import sys; sys.path.insert(1, {str(common.ROOT)!r}); '
            'from lab.selfcheck import child; child(*sys.argv[1:])')
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONIOENCODING='utf-8', PYTHONDONTWRITEBYTECODE='1')
    try:
        done = subprocess.run([sys.executable, '-c', code, shown_file, *names], cwd=folder, env=env,
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
    last = (err.strip().splitlines() or ['it stopped'])[-1]
    return {name: answers.get(name, {'lines': [f'the check could not finish: {last}']}) for name in names}


def check_command_line(folder, shown_file):
    """python3 tokenizer.py in the copy: the two lines, and a tokenizer.json as the lesson's."""
    text = common.read_text(folder / 'data' / 'train.txt')
    vocab, steps = reference_steps(text, common.read_merge_count(folder / 'settings.json'))
    prompt = [vocab.index(ch) if ch in vocab[:len(vocab) - len(steps)] else 0 for ch in 'Q: hi\nA: ']
    for (pair, *_), new in zip(steps, range(len(vocab) - len(steps), len(vocab))):
        prompt = reference_merge(prompt, pair, new)
    want = f'vocab: {len(vocab)} merges: {len(steps)}\nroundtrip: OK {prompt}\n'
    (folder / 'data' / 'tokenizer.json').unlink(missing_ok=True)
    try:
        done = subprocess.run([sys.executable, 'tokenizer.py'], cwd=folder, capture_output=True, text=True,
                              encoding='utf-8', errors='replace', timeout=SECONDS * 2,
                              env=dict(os.environ, PYTHONIOENCODING='utf-8'), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return [f'python3 {shown_file} gave no answer in {SECONDS * 2} s']
    if done.returncode:
        return [f'python3 {shown_file} failed: {(done.stderr.strip().splitlines() or ["no message"])[-1]}']
    if done.stdout.splitlines()[:2] != want.splitlines():
        return [f'python3 {shown_file} printed {done.stdout.splitlines()[:2]!r}',
                f'the lesson: {want.splitlines()!r}', 'look at: the end of your file']
    saved = folder / 'data' / 'tokenizer.json'
    if not saved.exists():
        return ['no data/tokenizer.json was written', "look at: json.dumps(tok.state(), ensure_ascii=False)"]
    raw = saved.read_text(encoding='utf-8')
    state = json.loads(raw)
    if sorted(state) != ['merges', 'vocab'] or UNKNOWN not in raw:
        return ['data/tokenizer.json must hold exactly vocab and merges, with non-ASCII as itself',
                "look at: json.dumps(tok.state(), ensure_ascii=False)"]
    return None


def copy_for_check(file, folder):
    """A folder with the file as tokenizer.py beside the project's settings.json and data."""
    shutil.copy(file, folder / 'tokenizer.py')
    (folder / 'data').mkdir()
    for part in ['settings.json', 'data/train.txt']:
        shutil.copy(common.ROOT / part, folder / part)


def report(name, problem):
    if problem == [NOT_CHECKED]:
        print(f'--      {name}'[:80])
        return
    print(f'OK      {name}'[:80] if not problem else f'FAILED  {name}'[:80])
    for line in problem or []:  # wrapped, not cut: the end of a line may be what matters
        print(textwrap.fill(common.shown(line), 80, initial_indent=' ' * 10, subsequent_indent=' ' * 12,
                            break_on_hyphens=False))


def main():
    parser = common.parser(__doc__)
    parser.add_argument('file', nargs='?', type=Path, default=common.ROOT / 'tokenizer.py', metavar='FILE',
                        help='the tokenizer.py to check (default: tokenizer.py)')
    path = parser.parse_args().file
    common.read_text(path, 'give the tokenizer.py you typed')
    shown_file = common.shown(path.name)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        copy_for_check(path, folder)
        print(f'checking {shown_file} against the lesson\'s rules, in the order it teaches them\n')
        with concurrent.futures.ThreadPoolExecutor(3) as pool:  # three processes, side by side
            again = pool.submit(run_rules, folder, ['rule_imports', 'rule_hash_seed'], shown_file, '12345')
            command_line = pool.submit(check_command_line, folder, shown_file)
            answers = run_rules(folder, [check.__name__ for _, check in RULES], shown_file)
            problems = [answers[check.__name__].get('lines') for _, check in RULES]
            seeded = [check for _, check in RULES].index(rule_hash_seed)
            if not problems[seeded] and again.result()['rule_hash_seed'] != answers['rule_hash_seed']:
                problems[seeded] = ['PYTHONHASHSEED=0 and =12345 learned other merges',
                                    'look at: BPE.train, a set or a dict used where order matters']
            stuck = any(NOT_CHECKED in (problem or []) for problem in problems)
            problems.append([NOT_CHECKED] if stuck else command_line.result())
    command = f"python3 {shown_file} prints the lesson's two lines, saves tokenizer.json"
    names = [name for name, _ in RULES] + [command]
    for name, problem in zip(names, problems):
        report(name, problem)
    unchecked = sum(problem == [NOT_CHECKED] for problem in problems)
    failed = sum(bool(problem) for problem in problems) - unchecked
    print(f'\n{len(names) - failed - unchecked} of {len(names)} rules hold'
          + (f', {unchecked} not checked' if unchecked else ''))
    if failed:
        raise ValueError(f'{failed} rule{"s" * (failed > 1)} of the lesson do{"es" * (failed == 1)} not hold '
                         f'in {shown_file}; fix the first that FAILED first')


if __name__ == '__main__':
    common.run(main)
