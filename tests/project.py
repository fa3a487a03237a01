"""Run the project's commands end to end in a throwaway copy, so tests never touch the checkout."""
import ast
import concurrent.futures
import contextlib
import functools
import importlib.machinery
import importlib.util
import io
import os
import pickle
import random
import runpy
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import types
import unittest
import warnings
from pathlib import Path
from unittest import mock

from lab.plumbing import cli
from tests import gate

ROOT = Path(__file__).resolve().parent.parent
# what a copy of the project holds: what the labs read. A lab imports the project's own lab/:
# run inside a test's process, as it is; in a process of its own, found on the path it is given
# (ours_on_path). A copy of lab/ is a hundred files made and removed, and a file made costs the
# system the more time the more were removed lately (ext4 without a journal passes over them):
# only a test that changes lab/ copies it (tests/test_house.py's recipes)
PARTS = ['tokenizer.py', 'settings.json', 'data/train.txt', 'data/mixed.txt']
LESSON_FILES = ROOT / 'lab' / 'selfcheck' / 'lesson'  # what a learner types from the lesson
LESSON_LABS = ['lab/bpe_trace.py', 'lab/unknown.py', 'lab/token_count.py']
# seconds of CPU time the tutor gives a rule in the tests, not its two: a loop that never ends
# holds a child that long. The lesson's slowest rule needs under 10 ms here, and every answer
# of the tests' slips is the same at 0.02 s as at 0.2 s but the limit (and the number of ids
# merge_in_time tries) each names.
RULE_SECONDS = 0.05


def lesson_module():
    """The lesson's tokenizer.py as the lesson prints it (the tutor's copy), imported under a name
    of its own: what the library's tests compare with, whatever state the learner's file is in."""
    spec = importlib.util.spec_from_file_location('lesson_tokenizer', LESSON_FILES / 'tokenizer.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


LESSON_MODULE = lesson_module()
# What a lab is, for every test that walks the labs: a module of lab/ run as python3 -m lab.NAME.
# The package and the plumbing the labs share are not: a module added to lab/ that is not a
# lab is named here.
NOT_LABS = {'__init__'}
# A lab may also be a package of its own (lab/selfcheck/, run by its __main__.py); the plumbing, the
# contract, the engine and the kinds are packages too, but libraries: their __main__.py only says
# so.
LIBRARIES = {'plumbing', 'contract', 'fast', 'kinds'}
LABS = sorted([path.stem for path in (ROOT / 'lab').glob('*.py') if path.stem not in NOT_LABS]
              + [path.parent.name for path in (ROOT / 'lab').glob('*/__main__.py')
                 if path.parent.name not in LIBRARIES])


def lab_files(name):
    """The source files of a lab: lab/NAME.py, or every file of the package lab/NAME/."""
    return [ROOT / 'lab' / f'{name}.py'] if (ROOT / 'lab' / f'{name}.py').exists() else \
        sorted((ROOT / 'lab' / name).glob('*.py'))
# The labs that take each of the toolkit's shared arguments (tests/test_toolkit.py holds each
# lab's --help to this, and README.md lists the same).
TAKES = {
    'FILE': ['audit', 'byte_bpe', 'compare', 'compression', 'fast_bpe', 'import_hf', 'merge_order',
             'normalize', 'prepare', 'pretokenize', 'speed', 'token_count', 'vocab_curve',
             'word_bpe'],
    '--tokenizer': ['audit', 'batches', 'check', 'compression', 'export_hf', 'merge_order',
                    'prepare', 'show',
                    'special', 'unknown'],
    '--out': ['audit', 'byte_bpe', 'export_hf', 'fast_bpe', 'import_hf', 'prepare'],
}
# The labs whose FILE is a text (lab.import_hf's is a tokenizers file).
READS_TEXT = [name for name in TAKES['FILE'] if name != 'import_hf']
TEXT = (ROOT / 'data' / 'train.txt').read_text(encoding='utf-8')
MIXED = (ROOT / 'data' / 'mixed.txt').read_text(encoding='utf-8')  # Korean, code, URLs, numbers


def ours():
    """Whether the tokenizer.py and the lesson's three labs in place are this project's own, not
    typed by a learner from the lesson (then tests/test_beyond_lesson.py has nothing to test)."""
    # read, not imported (test_contract)
    ours_only = ['HERE = ', 'def read_text(', 'def save(', 'def main(']
    def held(path):  # a file not typed yet holds nothing
        return path.read_text(encoding='utf-8') if path.is_file() else ''
    typed, labs = held(ROOT / 'tokenizer.py'), [held(ROOT / lab) for lab in LESSON_LABS]
    return all(line in typed for line in ours_only) and all('cli.run(main)' in lab for lab in labs)


def copy_project(test, parts=PARTS):
    """A fresh copy of parts of the project (PARTS: without lab/, whose 86 files cost 70 ms of the
    system's time to copy), removed when the test (or, from setUpClass, the class) ends. A
    copy with the learner's tokenizer.py, while the tutor finds it wrong, skips the test instead
    (tests/gate.py): whatever it runs there may import that file."""
    if 'tokenizer.py' in parts:
        gate.skip_unless_the_file_holds()
    tmp = tempfile.TemporaryDirectory()
    (test.addClassCleanup if isinstance(test, type) else test.addCleanup)(tmp.cleanup)
    root = Path(tmp.name) / 'project'
    for part in parts:
        source, target = ROOT / part, root / part
        target.parent.mkdir(parents=True, exist_ok=True)
        # copyfile: the bytes only; copying each file's mode and times (shutil.copy2) made the
        # copies of lab/ five times slower, and the suite makes over a hundred of them
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns('__pycache__'),
                            copy_function=shutil.copyfile)
        else:
            shutil.copyfile(source, target)
    return root


def import_statements(path):
    """The import statements of a Python file, anywhere in it (at the top or inside a function),
    found once a version of it (its time and size): the house's tests and the contract's read
    those of every file of the project, some twice. Read as utf-8-sig: a learner's file saved by
    Notepad begins with a byte order mark."""
    info = os.stat(path)
    return _imports(str(path), info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=None)
def _imports(path, mtime_ns, size):
    return list(_import_nodes(ast.parse(Path(path).read_text(encoding='utf-8-sig')).body))


def _import_nodes(body):
    """The import statements of a list of statements and of those inside them: statements only,
    for an import is one (walking every expression too took a third as long as parsing)."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        for field in ('body', 'orelse', 'finalbody', 'handlers', 'cases'):
            for inner in getattr(node, field, None) or []:  # an except or a case: its body
                yield from _import_nodes([inner] if isinstance(inner, ast.stmt) else inner.body)


def started(function, *args, **kwargs):
    """function(*args, **kwargs), begun now in a thread of its own: a Future whose .result() a
    test takes later. For work that waits on a process, so that the process runs on the other
    core while the tests before it run on this one. The thread ends with the work."""
    future = concurrent.futures.Future()

    def work():
        try:
            future.set_result(function(*args, **kwargs))
        except BaseException as e:  # given to whoever takes the result
            future.set_exception(e)
    threading.Thread(target=work, daemon=True).start()
    return future


def as_a_terminal_starts_it():
    """For Popen(preexec_fn=...) of a process a test sends Ctrl-C: Python's own handling of it, as a
    terminal gives it. A shell starts a command put in the background (cmd &) with Ctrl-C
    ignored, and the process would inherit that: the test would wait on it for ever."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ours_on_path(env=None):
    """The environment (os.environ and env) of a process run in a copy of the project without
    lab/: the project on PYTHONPATH, after the folder the process runs in, whose tokenizer.py
    it imports."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get('PYTHONPATH')]))
    return {**os.environ, **(env or {}), 'PYTHONPATH': path}


def use_lesson_files(root, labs=False):
    """Put the lesson-style tokenizer.py (and, with labs, the lesson's three labs) in root."""
    shutil.copy(LESSON_FILES / 'tokenizer.py', root / 'tokenizer.py')
    for lab in LESSON_LABS if labs else []:
        (root / lab).parent.mkdir(exist_ok=True)  # a copy without the library's lab/
        shutil.copy(LESSON_FILES / lab, root / lab)


class Forked:
    """python3 -c code args, run in cwd by a fork of this process, with what a process of the
    subprocess module answers to (poll, kill, wait, returncode): the same work in a process
    of its own, without the cost of starting Python (the tokenizer module is imported anew,
    from cwd, as that Python would)."""

    def __init__(self, code, args, cwd):
        sys.stdout.flush()  # else what waits in this process's buffers is written twice
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:
            status = 1
            try:
                os.chdir(cwd)
                sys.argv, sys.path[0] = ['-c', *args], str(cwd)
                sys.modules.pop('tokenizer', None)
                exec(compile(code, '<string>', 'exec'), {'__name__': '__main__'})
                status = 0
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
            except BaseException:
                traceback.print_exc()  # as python3 -c would say it
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self):
        if self.returncode is None:
            self.returncode = os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        return self.returncode

    def kill(self):
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)


def in_a_fork(work, seconds):
    """What work() returns (or raises), done in a fork of this process: a process of its own, which
    is killed, and TimeoutError raised, when it has not answered within seconds (as a read of a pipe
    or a device that never ends would leave it)."""
    read, write = os.pipe()
    sys.stdout.flush()  # else what waits in this process's buffers is written twice
    sys.stderr.flush()
    # Python 3.12+ warns of a fork where a thread runs: a fork that waits on a lock is ended with
    # the rest
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            try:
                answer = (True, work())
            except BaseException as e:
                answer = (False, e)
            with os.fdopen(write, 'wb') as pipe:
                try:
                    said = pickle.dumps(answer)
                except Exception as e:  # what work() gave cannot leave the fork
                    said = pickle.dumps((False, RuntimeError(f'in_a_fork: {e}')))
                pipe.write(said)
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, 'rb') as pipe:
        answered = select.select([pipe], [], [], seconds)[0]
        try:
            if answered:
                done, value = pickle.load(pipe)
                if not done:
                    raise value
                return value
        finally:
            if not answered:
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    raise TimeoutError(f'no answer within {seconds} s')


def python_c(code, args, cwd):
    """A process that runs python3 -c code args in cwd: a fork of this one where there are forks
    and no other thread runs (a lock another thread holds would stay held in the fork)."""
    if hasattr(os, 'fork') and threading.active_count() == 1:
        return Forked(code, args, cwd)
    return subprocess.Popen([sys.executable, '-c', code, *args], cwd=cwd)


def kill_while_writing(test, code, args, cwd, path, wholes, rounds, seed, together=False):
    """Start a process that writes path again and again (code), kill it at a seeded random
    moment, and check that path holds one of wholes: never a torn file; rounds times. together:
    the rounds' processes all write side by side (a writer that refuses to replace what another
    has just written must not be run so), killed one by one."""
    rng = random.Random(seed)
    writers = []

    def version():  # a save renames a new file over the old: another inode, written at another time
        found = os.stat(path)
        return found.st_ino, found.st_mtime_ns, found.st_size
    try:
        for n in range(rounds):
            if n == 0 or not together:
                old = version()
                writers = [python_c(code, args, cwd) for _ in range(rounds if together else 1)]
                end = time.monotonic() + 20
                while version() == old and time.monotonic() < end:  # until one has saved: at work
                    time.sleep(0.005)
                test.assertNotEqual(version(), old, 'no writer saved: nothing was tried')
            writer = writers[n if together else 0]
            # a moment among some thirty saves (one takes about a millisecond): where in a save
            # it falls is what counts. Each save is a file made and one removed: not thousands
            time.sleep(rng.random() * (0.02 if together else 0.04))
            running = writer.poll() is None
            writer.kill()
            writer.wait()
            test.assertTrue(running, 'the writer ended before it was killed')
            test.assertIn(path.read_text(encoding='utf-8'), wholes)
    finally:  # none is left writing, whatever failed
        for writer in writers:
            writer.kill()
            writer.wait()


def run(root, *args, cwd=None, env=None, stdin=None, timeout=120):
    """Run python3 with args in the project copy; return the finished process (text mode). The
    learner's tokenizer.py, or a lab of theirs, is run only when the tutor finds it keeps the
    lesson's rules (tests/gate.py): else the test is skipped, saying so."""
    gate.skip_unless_the_file_holds(Path(root) / 'tokenizer.py')  # what it runs may import it
    lab = next((arg[4:] for arg in args if arg.startswith('lab.')), None)
    if lab and f'lab/{lab}.py' in LESSON_LABS:
        gate.skip_unless_holds(7, Path(root) / 'lab' / f'{lab}.py')
    # the locale English unless env says otherwise: a test of another language asks for it
    environment = {**os.environ, 'PYTHONIOENCODING': 'utf-8', **ENGLISH, **(env or {})}
    environment.pop('NO_COLOR', None)
    return subprocess.run([sys.executable, *args], cwd=cwd or root, env=environment, input=stdin,
                          capture_output=True, text=True, encoding='utf-8', timeout=timeout)


def messages(err):
    """The messages a lab wrote to stderr, each as one line: a message is wrapped at 80 columns,
    the lines after its first indented."""
    said = []
    for line in err.splitlines():
        if line.startswith('  ') and said:
            said[-1] += ' ' + line.strip()
        else:
            said.append(line)
    return said


def another_hash_seed():
    """A PYTHONHASHSEED under which a child hashes str otherwise than this process does."""
    return '1' if os.environ.get('PYTHONHASHSEED') == '0' else '0'


# the locale as a test sees it, whatever the machine's: lab.selfcheck speaks Korean on a Korean one
ENGLISH = {'LANGUAGE': '', 'LC_ALL': '', 'LC_MESSAGES': '', 'LANG': 'C.UTF-8'}


def run_inside(root, name, *args, encoding='utf-8', env=None, reader_gone=False):
    """(exit status, stdout, stderr) of python3 -m lab.NAME args, run in this process, in root:
    the same code as in a process of its own, without the cost of starting Python. env: more
    of the environment (the locale is English unless it says otherwise). reader_gone: stdout
    is a pipe whose reader has closed it, as | head leaves it (then nothing is read back)."""
    # a lab may import it; the tutor runs it in a child, whatever state it is in
    if name != 'selfcheck':
        gate.skip_unless_the_file_holds(Path(root) / 'tokenizer.py')
    if f'lab/{name}.py' in LESSON_LABS:
        gate.skip_unless_holds(7, Path(root) / 'lab' / f'{name}.py')
    out, err = io.BytesIO(), io.StringIO()
    if reader_gone:
        read, write = os.pipe()
        os.close(read)
        out = io.FileIO(write, 'w')  # writing to it raises BrokenPipeError, as in a lab's process
    stdout = io.TextIOWrapper(out, encoding=encoding, write_through=True)
    code = 0
    with contextlib.chdir(root) if hasattr(contextlib, 'chdir') else working_in(root), \
            mock.patch.object(sys, 'argv', [name, *args]), \
            mock.patch.object(sys, 'stdout', stdout), mock.patch.object(sys, 'stderr', err), \
            mock.patch.dict(os.environ, {**ENGLISH, **(env or {})}), \
            mock.patch.dict(cli._SPOKEN), labs_children_here(), \
            mock.patch.object(importlib.machinery.SourceFileLoader, 'get_code', compiled_once):
        # runpy warns when the module it runs as __main__ is imported already (by a test, say)
        imported = {module: sys.modules.pop(module)
                    for module in [f'lab.{name}', f'lab.{name}.__main__']
                    if module in sys.modules}
        try:
            runpy.run_module(f'lab.{name}', run_name='__main__', alter_sys=True)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
            if isinstance(e.code, str):
                err.write(e.code + '\n')
        finally:
            sys.modules.update(imported)
    if reader_gone:
        try:
            stdout.close()
        except OSError:  # what was left in its buffer has nowhere to go
            pass
        return code, '', err.getvalue()
    return code, out.getvalue().decode(encoding), err.getvalue()


def compiled_once(loader, fullname):
    """The code of a module's source file, compiled once for each text the file holds: where no
    bytecode is written (PYTHONDONTWRITEBYTECODE) runpy compiles a lab anew at every run, and
    the tests run each lab dozens of times. (Keyed by the text, not the file's time: a file
    rewritten within one tick of the clock keeps its time.)"""
    path = loader.get_filename(fullname)
    source = loader.get_data(path)
    if (path, source) not in COMPILED:
        COMPILED[path, source] = loader.source_to_code(source, path)
    return COMPILED[path, source]


COMPILED = {}


@contextlib.contextmanager
def labs_children_here():
    """While it lasts, a lab's child that is a lab itself (lab.speed measures each figure in a
    python3 -m lab.speed --child of its own, for its memory) runs in this process, by
    run_inside: what the labs print is the same, and no Python is started for it. The tests of
    the children as processes (tests/test_labs.py) start them for real."""
    from lab.plumbing import processes
    real = processes.run_bounded

    def run_here(argv, cwd, seconds, kept=65536):
        if argv[1:2] != ['-m'] or not argv[2].startswith('lab.'):
            return real(argv, cwd, seconds, kept)
        return run_inside(cwd, argv[2][len('lab.'):], *argv[3:])
    with mock.patch.object(processes, 'run_bounded', run_here), \
            mock.patch.object(processes, 'die_with_parent', lambda parent=None: None):
        yield


@contextlib.contextmanager
def working_in(folder):  # contextlib.chdir before Python 3.11
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)



def inside(root, name, *args, env=None):
    """run_inside, answered as run() answers: .returncode, .stdout, .stderr."""
    code, out, err = run_inside(root, name, *args, env=env)
    return types.SimpleNamespace(returncode=code, stdout=out, stderr=err)


def english_sentences(output):
    """The lines of output that are English words, not Korean: what a lab run with --lang ko
    should not print. Two words or more make a sentence; data it shows in quotes, file names,
    flags, lab names, special tokens, code points and names in capitals (NFC, UTF-8) are not
    words, and a line with Hangul in it is Korean."""
    import re
    # <eos>: a special token's name; {char,word}: an option's choices
    names = r"'[^']*'|<\w+>|\{[^}]*\}|\S+\.(bin|json|txt)|--\S+|lab\.\w+"
    # the lesson's own lines stay as it prints them
    lessons = r'vocab: \d+ merges: \d+$|roundtrip: '
    return [line for line in output.splitlines() if not re.search('[\uac00-\ud7a3]', line)
            and not re.match(lessons, line)
            and len(re.findall(r'\b[A-Za-z]*[a-z]{2,}[A-Za-z]*\b', re.sub(names, '', line))) >= 2]


@functools.lru_cache(maxsize=None)
def processes_start():
    """Whether the labs can start their processes here (fast.in_processes, asked for one): a
    machine may allow none (ulimit -u), or lack what multiprocessing needs."""
    from lab.fast.encoding import NoProcesses, in_processes
    try:
        return in_processes(bool, None, str, [1], 1) == ['1']
    except (NoProcesses, ImportError):
        return False


def skip_unless_processes_start():
    """SkipTest, with the reason, for a test of work done in processes where none can start."""
    if not processes_start():
        raise unittest.SkipTest('needs processes: none can start here')


def trained(root):
    """root, with the data/tokenizer.json python3 tokenizer.py writes there,
    written in this process."""
    from lab import kinds
    text = (root / 'data' / 'train.txt').read_text(encoding='utf-8')
    kinds.save(kinds.CharBPE.train(text, 12), root / 'data' / 'tokenizer.json')
    return root


@contextlib.contextmanager
def learners_tokenizer(root):
    """While it lasts, root/tokenizer.py (a learner's, say) is the tokenizer module of this
    process: labs run inside it (run_inside) import it instead of ours. What it prints as it
    is imported is kept out of the test's output. It is compiled from its text each time: a
    cached .pyc would be taken for a file rewritten within the same second at the same size."""
    import importlib.util
    path = root / 'tokenizer.py'
    spec = importlib.util.spec_from_file_location('tokenizer', path)
    module = importlib.util.module_from_spec(spec)
    ours = sys.modules.get('tokenizer')
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(path.read_bytes(), str(path), 'exec'), module.__dict__)
    sys.modules['tokenizer'] = module
    try:
        yield module
    finally:
        if ours is None:
            sys.modules.pop('tokenizer', None)
        else:
            sys.modules['tokenizer'] = ours


def script_inside(root, script, *args, env=None):
    """(exit status, stdout, stderr) of python3 SCRIPT args in root, run in this process (a lab
    typed from the lesson, say: a script, not a module of the lab package). env: more of the
    environment, while it runs. The streams are real text streams, as a process has: a
    learner's file may reconfigure stdout or write bytes to it."""
    out, err, code = io.BytesIO(), io.BytesIO(), 0
    stdout, stderr = [io.TextIOWrapper(stream, encoding='utf-8', write_through=True)
                      for stream in (out, err)]
    with contextlib.chdir(root) if hasattr(contextlib, 'chdir') else working_in(root), \
            mock.patch.object(sys, 'argv', [script, *args]), \
            mock.patch.dict(os.environ, env or {}), \
            mock.patch.object(sys, 'stdout', stdout), mock.patch.object(sys, 'stderr', stderr):
        try:
            runpy.run_path(str(Path(root) / script), run_name='__main__')
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
            if isinstance(e.code, str):
                stderr.write(e.code + '\n')
        finally:
            for stream in (stdout, stderr):
                if not stream.closed:  # the script may have closed it
                    stream.flush()
    return (code, out.getvalue().decode('utf-8', 'replace'),
            err.getvalue().decode('utf-8', 'replace'))


def tokenizer_inside(root, *args, env=None):
    """python3 tokenizer.py args in root, run in this process (script_inside): .returncode,
    .stdout, .stderr, as run() answers. Only for a tokenizer.py a test knows ends: this
    project's own, or a learner's the tutor found keeps every rule, python3 tokenizer.py's among
    them (else the test is skipped, as run() skips it)."""
    gate.skip_unless_the_file_holds(Path(root) / 'tokenizer.py')
    code, out, err = script_inside(root, 'tokenizer.py', *args, env=env)
    return types.SimpleNamespace(returncode=code, stdout=out, stderr=err)


def parent(pid):
    """The parent of process pid (Linux's /proc), or None when it is gone."""
    try:
        with open(f'/proc/{pid}/stat') as stat:
            return int(stat.read().rsplit(')', 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def still_alive(pids, seconds=10):
    """Those of pids that still run after up to seconds: a process killed takes a moment to go,
    and waiting for each to go is quicker than sleeping for the slowest."""
    end = time.monotonic() + seconds
    while True:
        left = [pid for pid in pids if alive(pid)]
        if not left or time.monotonic() > end:
            return left
        time.sleep(0.01)


def alive(pid):
    """Whether process pid still runs: one that has ended but not been waited for (a zombie,
    left to whichever process adopts it) does not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f'/proc/{pid}/stat') as stat:
            return ') Z ' not in stat.read()
    except OSError:  # no /proc (macOS): it answered the signal
        return True
