"""A rule run again on a trial of your file, in the tutor's child: does it hold now?

To find the slip, the tutor changes your file one line or one token at a time (repair.py,
mutations.py) and runs the rule that failed again on each change. This runs one trial:
the change made to a copy of your module (a function swapped in its place, or the whole
file compiled anew when the change is at the top level or in the __main__ block), the rule
run under a limit of CPU time, the module put back as it was. It prints nothing and keeps
nothing: a trial that breaks something only says so.
"""
import ast
import contextlib
import functools
import gc
import io
import json
import os
import select
import signal
import sys
import time
import types
import warnings

from lab.learner import explain
from lab.selfcheck import locate, main_block, mutations, rules

# a limit by the clock, as a multiple of the CPU time's: only a backstop, for code that sleeps
WALL = 5
FLOOR = 0.02  # seconds of CPU time a trial may always take: a few clock ticks
# seconds of a trial of a file that ran out of time, at most: the lesson's rules take ms (the
# slowest, merge_in_time, 20-40 ms at the tutor's 2 s); a rule's trials get twenty times what
# the lesson's file takes on it (lessons_time), so that a way of one's own that is slower than
# the lesson's, once mended, still holds
LOOPING = 0.06


@contextlib.contextmanager
def time_limit(seconds):
    """rules.TooLong when the code in the block has used seconds of CPU time (again and again, if
    your code swallows it; the child's handlers raise it): CPU time, not the clock's, so that a
    busy machine changes no verdict. Inside another limit, the nearer of the two holds, and the
    outer one goes on after the block with what it had left."""
    outer = signal.getitimer(signal.ITIMER_PROF)[0]
    outer_clock = signal.getitimer(signal.ITIMER_REAL)[0]
    seconds = min(seconds, outer) if outer else seconds
    started, clock = time.process_time(), time.monotonic()
    signal.setitimer(signal.ITIMER_PROF, seconds, seconds)
    signal.setitimer(signal.ITIMER_REAL, seconds * WALL, seconds * WALL)  # a sleep uses no CPU time
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        if outer:  # what the outer limit has left (a little, at least: it fires, rather than never)
            left = max(outer - (time.process_time() - started), 0.001)
            signal.setitimer(signal.ITIMER_PROF, left, left)
        if outer_clock:
            left = max(outer_clock - (time.monotonic() - clock), 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, left)


def compiled(tree):
    """A trial tree (or source) compiled as Python compiles tokenizer.py, warnings left out. A
    node a trial made may have no line: it is given its parent's, only then (finding none
    missing walks the whole tree, and most trials are made of nodes read from a file)."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            return compile(tree, 'tokenizer.py', 'exec', dont_inherit=True)
        except TypeError:  # required field "lineno" (or "col_offset") missing
            if isinstance(tree, str):
                raise
            return compile(ast.fix_missing_locations(tree), 'tokenizer.py', 'exec',
                           dont_inherit=True)


def on_trial(name, source, seconds):
    """holds(trial): the rule name run on a trial of source, each given at most seconds of CPU
    time. A trial is None (the file as it is), a whole tree, or (the path to a statement of the
    file's tree, the statement to put there). Its answer: ['passed', None], ['failed', lines]
    or ['raised', the error's name]. None for a rule with nothing of tokenizer.py to try.
    A trial may take ten times the CPU time the file as it is took, at most seconds (a file that
    ran out of time: twenty times the lesson's file's, at most LOOPING): a change that loops is
    given up on at once. Run it in a fork (in_a_fork): a changed line may do what
    the file never did (close a file descriptor, write over a file), and none of it may reach
    the child."""
    if name in rules.LABS or name == 'rule_imports':
        return None
    tree = explain.tree_of(source)
    loaded = {'limit': seconds}

    def run(trial):
        kept = sys.modules.get('tokenizer')
        try:
            with time_limit(loaded['limit']), contextlib.redirect_stdout(io.StringIO()):
                if isinstance(trial, tuple) and swappable(tree, trial[0], trial[1]) and \
                        loaded.get('module'):
                    module = loaded['module']
                    with swapped(module, tree, *trial):
                        return run_rule(name, module, source, None)
                if isinstance(trial, tuple):
                    trial = replaced(tree, *trial)
                code = compiled(trial if trial is not None else source)
                return run_rule(name, load(code), source, code)
        except rules.Wrong as e:
            return ['failed', e.args[0]]
        except BaseException as e:  # the trial broke something else: not the slip
            return ['raised', type(e).__name__]
        finally:
            sys.modules['tokenizer'] = kept

    def holds(trial):
        if trial is not None:
            return run(trial)
        started = time.process_time()  # the file as it is: how long it takes sets the trials' limit
        answer = run(None)
        took = time.process_time() - started
        # a file that loops: a trial that mends it runs as the lesson's code does, in milliseconds
        looped = answer == ['raised', 'TooLong']
        loaded['limit'] = min(LOOPING, max(FLOOR, 20 * lessons_time(name))) if looped else \
            min(seconds, max(FLOOR, 10 * took))
        try:  # loaded once, for a trial to swap a function in: not once a trial
            with time_limit(seconds), contextlib.redirect_stdout(io.StringIO()):
                loaded['module'] = load(compiled(source))
        except BaseException:  # it ran as the rules imported it: then each trial loads it anew
            loaded['module'] = None
        return answer
    return holds


@functools.lru_cache(maxsize=None)
def lessons_time(name):
    """Seconds of CPU time the lesson's own file takes on the rule name, compiled and run as a
    trial is (once a search: in_a_fork); LOOPING if it cannot be run here. Measured with this
    thread's clock: the process's counts in ticks of a few ms while a limit is set."""
    kept = sys.modules.get('tokenizer')
    try:
        source = locate.reference_source()
        started = time.thread_time()
        with time_limit(LOOPING), contextlib.redirect_stdout(io.StringIO()):
            code = compiled(source)
            run_rule(name, load(code), source, code)
        return time.thread_time() - started
    except (Exception, rules.TooLong):  # the lesson's file not there, or its rule failing here
        return LOOPING
    finally:
        sys.modules['tokenizer'] = kept


def in_a_fork(work, seconds, folder):
    """What the generator work() yields, run in a fork of this process, in folder (scratch_folder),
    bounded by seconds of CPU time (and WALL times as long by the clock): a list of what it gave,
    through JSON, one line each as it comes, so that work that runs out of time keeps what it
    found. Where there is no fork, here, under the same limit."""
    found = []
    if not hasattr(os, 'fork'):
        try:
            with time_limit(seconds):
                found.extend(work())
        except rules.TooLong:
            pass
        return found
    read, write = os.pipe()
    # the objects there are now: the fork's collector leaves them, and their pages, alone
    gc.freeze()
    try:
        pid = os.fork()
    except OSError:  # said by the caller; the pipe is not left open
        os.close(read)
        os.close(write)
        raise
    if pid == 0:  # the fork: its answers on the pipe, then gone, whatever a trial did
        try:
            os.close(read)
            os.chdir(folder)
            with time_limit(seconds):
                for each in work():
                    said = json.dumps(each).encode('utf-8')
                    os.write(write, (said if len(said) < PIPE else b'null') + b'\n')
        finally:
            os._exit(0)
    gc.unfreeze()
    os.close(write)
    said = b''
    try:
        deadline = time.monotonic() + seconds * WALL + 1
        while len(said) <= PIPE * 64 and \
                select.select([read], [], [], max(deadline - time.monotonic(), 0))[0]:
            chunk = os.read(read, PIPE)
            if not chunk:
                break
            said += chunk
    finally:
        os.close(read)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    for line in said.split(b'\n')[:-1]:  # the last is cut, or empty
        try:
            found.append(json.loads(line))
        except ValueError:
            break
    return found


def scratch_folder(first_job):
    """The folder where the trials run, with the lesson's settings.json and data/train.txt (copied
    from the job folder the child is in): one a child, beside the folder of its first job, made
    at the first search. What one trial writes there, the next overwrites. One a child, not one
    a job: the tests check a few hundred files, and a file made costs much where many were
    removed lately (CONTRIBUTING.md: why a test makes few files)."""
    folder = os.path.join(os.path.dirname(first_job), f'trials-{os.path.basename(first_job)}')
    if not os.path.isdir(folder):
        os.makedirs(os.path.join(folder, 'data'))
        for name in ['settings.json', os.path.join('data', 'train.txt')]:
            with open(name, 'rb') as source, open(os.path.join(folder, name), 'wb') as copy_of:
                copy_of.write(source.read())
    return folder


PIPE = 2**20  # bytes of what a fork says at most: a slip is a few hundred


def load(code):
    """A new module tokenizer of code, run as an import runs it (not as __main__)."""
    module = types.ModuleType('tokenizer')
    module.__file__ = os.path.abspath('tokenizer.py')
    exec(code, module.__dict__)
    return module


def run_rule(name, module, source, code):
    sys.modules['tokenizer'] = module
    if name == rules.COMMAND_LINE:
        return main_block.command_line(source, code or compiled(source))
    rules.CHECKS[name]()
    return ['passed', None]


def swappable(tree, path, node):
    """Whether a trial is a function of the file (merge, or a method of a class at the top)
    changed in itself: then only that function need be compiled anew."""
    in_a_class = len(path) == 4 and isinstance(at(tree, path[:2]), ast.ClassDef)
    return isinstance(node, ast.FunctionDef) and (len(path) == 2 or in_a_class)


@contextlib.contextmanager
def swapped(module, tree, path, node):
    """module with the function at path replaced by node, compiled alone, while it lasts."""
    owner = module if len(path) == 2 else getattr(module, at(tree, path[:2]).name)
    name = at(tree, path).name
    defined = {}
    alone = ast.Module(body=[node], type_ignores=[])
    exec(compiled(alone), module.__dict__, defined)
    had = vars(owner).get(name, swapped)
    setattr(owner, node.name, defined[node.name])
    try:
        yield
    finally:
        if node.name != name:
            delattr(owner, node.name)
        if had is not swapped:
            setattr(owner, name, had)


def replaced(tree, path, node):
    """A copy of tree with the statement at path replaced by node (compiled gives a node made
    without a line its parent's)."""
    return mutations.copied_with(tree, tuple(path), node)


def at(tree, path):
    for step in path:
        tree = tree[step] if isinstance(step, int) else getattr(tree, step)
    return tree
