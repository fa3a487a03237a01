"""Your code, run in a child process the tutor keeps bounded: the rules, then python3 tokenizer.py.

The tutor never runs the file you typed in its own process: a loop that never ends, a list
that grows until the memory is gone, a million prints or a file that deletes its own folder
would take the tutor down with it. It copies the file into a temporary folder beside the
lesson's settings.json and data/train.txt, and starts a child there that:
  - has at most MEMORY bytes and may write files of at most FILE_SIZE bytes;
  - runs each rule with a limit of CPU time (SECONDS; the timer fires again if your code
    swallows it), so that a busy machine changes no verdict, and a generous one of the clock's
    for code that sleeps; it stops at the first rule that does not finish: the rest would wait
    just as long;
  - runs tokenizer.py as python3 tokenizer.py does (its __main__ block), keeping only the
    first lines it prints;
  - writes its answers, one JSON line each, to a pipe of their own, so that nothing your
    code prints can be taken for one.
The tutor waits at most a few seconds a rule, keeps only the end of what the child writes
to stderr, and kills the child's whole process group when it is done, when time runs out,
or when the tutor itself is stopped (Ctrl-C, SIGTERM), then, on Linux, any process of the
child's that left the group: nothing of it outlives the tutor.
"""
import atexit
import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import types
from pathlib import Path

from lab.learner import catalogs, explain, parts
from lab.selfcheck import labs, locate, main_block, rules
from lab.selfcheck import trial as trial_run
from lab.selfcheck.trial import time_limit

SECONDS = 2  # of CPU time for one rule: the lesson's code needs a few milliseconds on these texts
MEMORY = 2 * 2**30  # bytes the child may use; the rules need a few dozen MB
FILE_SIZE = 2**26  # bytes a file the child writes may have (data/tokenizer.json: a few KB)
ANSWER = 2**16  # characters of one answer at most: the rules clip what they quote to a line
KEPT = 4096  # bytes of the child's stderr kept, for when it dies without an answer
ROOT = Path(__file__).resolve().parent.parent.parent
LIVE = {}  # the process groups of the children running now, and their marks: killed when the tutor exits
STOPPING = threading.Event()  # set by kill_all: a child started after it is killed at once


# In the tutor -----------------------------------------------------------------------------------

def run(jobs, seed='0', seconds=SECONDS):
    """[{rule: answer} for each job] for jobs [(folder, [rule names])], all in one child process
    started with PYTHONHASHSEED=seed, each rule given seconds. An answer is a verdict ['passed' |
    'failed' | 'not_checked', lines or value]; a rule the child never answered (it was killed, or
    ran out of time) is failed with the end of what it wrote to stderr."""
    read_end, write_end = os.pipe()
    secret = secrets.token_hex(16)
    child, mark = start_child(jobs, seed, seconds, write_end, secret)
    answers, tail = [], []
    readers = [threading.Thread(target=read_answers, args=(read_end, answers, secret), daemon=True),
               threading.Thread(target=read_tail, args=(child.stderr, tail), daemon=True)]
    for reader in readers:
        reader.start()
    late = not ended_in_time(child, mark, seconds * sum(len(names) + 3 for _, names in jobs))
    for reader in readers:
        reader.join(timeout=1)  # a process that left the group may hold the pipe: do not wait for it
    if not readers[1].is_alive():  # closing a pipe another thread still reads would wait with it
        child.stderr.close()
    last = 'no answer in time' if late else (b''.join(tail).decode('utf-8', 'replace').strip().splitlines()
                                             or ['?'])[-1]
    return by_job(jobs, answers, last)


def start_child(jobs, seed, seconds, write_end, secret):
    """(the child that answers for jobs, its mark): started in a session of its own, in the first
    job's folder, the answer pipe's write end its only file besides stderr, and the secret that
    marks its answers on its stdin, read before any of your code runs."""
    code = (f'import sys; sys.path.insert(1, {str(ROOT)!r}); '
            'from lab.selfcheck.runner import serve; serve()')
    mark = f'{os.getpid()}-{id(jobs)}-{seed}'  # inherited by every process the child starts
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONIOENCODING='utf-8', PYTHONDONTWRITEBYTECODE='1',
               XSLM_TUTOR_CHILD=mark)
    try:
        child = subprocess.Popen([sys.executable, '-c', code, str(write_end), json.dumps(jobs), str(seconds)],
                                 cwd=jobs[0][0], env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, pass_fds=(write_end,), start_new_session=True)
    finally:
        os.close(write_end)
    try:  # a pipe's buffer holds it: no wait for the child to read it
        child.stdin.write(secret.encode('ascii') + b'\n')
        child.stdin.close()
    except OSError:  # the child is gone already: it answers nothing, and says why on stderr
        pass
    LIVE[child.pid] = mark
    if STOPPING.is_set():  # Ctrl-C or SIGTERM came while it was starting
        kill(child.pid)
    return child, mark


def ended_in_time(child, mark, seconds):
    """Whether the child ended within seconds; either way it and whatever it left are killed then."""
    try:
        child.wait(timeout=seconds)
        return True
    except subprocess.TimeoutExpired:
        return False
    finally:
        kill(child.pid)
        child.wait()
        kill_strays(mark)


def by_job(jobs, answers, last):
    """{rule: answer} for each job from the child's answers [job, rule, answer]; a rule it never
    answered failed, with last, the last line it wrote to stderr."""
    found = [{} for _ in jobs]
    for n, name, answer in answers:
        if 0 <= n < len(jobs) and name in jobs[n][1]:
            found[n][name] = answer
    return [{name: found[n].get(name, ['failed', [['could_not_finish', {'last': last[-200:]}]]])
             for name in names} for n, (_, names) in enumerate(jobs)]


def read_answers(fd, answers, secret, most=2**22):
    """The child's answers, one JSON line each, kept as each comes (a process your code started
    and sent away may hold the pipe open after the child has ended), until the pipe closes or
    most bytes have come. A line that does not start with the secret is not the child's: your
    code can write to the pipe too, but it runs after the child has read the secret and put it
    away, and a line it writes without it is dropped."""
    with os.fdopen(fd, 'rb') as pipe:
        for line in iter(lambda: pipe.readline(most), b''):
            most -= len(line)
            if most <= 0:
                return
            try:
                said, n, name, answer = json.loads(line)
            except (ValueError, TypeError):
                continue
            if said != secret:
                continue
            if well_formed(answer):
                answers.append((n, name, answer))


def well_formed(answer):
    """Whether answer is of the shape the child writes: [state, lines], each line [a message the
    catalogs have, {field: text}] (the learner's code runs in the child, and may write anything to
    the pipe: what the tutor cannot say is not taken)."""
    states = ('passed', 'failed', 'not_checked')
    if not isinstance(answer, list) or len(answer) != 2 or answer[0] not in states:
        return False
    state, lines = answer
    if state == 'passed':
        return lines is None or isinstance(lines, str)  # rule_hash_seed's value
    known = catalogs.load('en')
    return isinstance(lines, list) and all(
        isinstance(line, list) and len(line) == 2 and line[0] in known and isinstance(line[1], dict) and
        all(isinstance(key, str) and isinstance(value, str) for key, value in line[1].items()) and
        (line[1].get('part', '0') in map(str, rules.PARTS)) for line in lines)


def read_tail(stream, tail):
    """Read stream to its end, keeping only its last KEPT bytes."""
    kept = b''
    for chunk in iter(lambda: stream.read(65536), b''):
        kept = (kept + chunk)[-KEPT:]
    tail.append(kept)


def kill(pid):
    """Kill the child pid and every process below it: those of its process group, and those that
    left it (os.setsid), which the child adopts as they are orphaned (adopt_orphans)."""
    for below in descendants(pid):
        try:
            os.kill(below, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    LIVE.pop(pid, None)


def descendants(pid):
    """The processes below pid, on Linux (from each /proc/PID/stat's parent); elsewhere none."""
    parents = {}
    for entry in Path('/proc').glob('[0-9]*') if sys.platform.startswith('linux') else []:
        try:  # the parent is the second field after the command's closing parenthesis
            parents[int(entry.name)] = int((entry / 'stat').read_text().rsplit(')', 1)[1].split()[1])
        except (OSError, ValueError, IndexError):  # gone already
            continue
    found, todo = [], [pid]
    while todo:
        children = [child for child, parent in parents.items() if parent == todo[-1]]
        todo.pop()
        found += children
        todo += children
    return found


def kill_strays(mark):
    """Kill the processes your code started that left the child's process group (os.setsid):
    on Linux they are found by the mark in their environment, which they inherited."""
    wanted = f'XSLM_TUTOR_CHILD={mark}'.encode()
    for entry in Path('/proc').glob('[0-9]*') if sys.platform.startswith('linux') else []:
        try:
            if wanted in (entry / 'environ').read_bytes().split(b'\0'):
                os.kill(int(entry.name), signal.SIGKILL)
        except (OSError, ValueError):  # gone already, or not ours to read
            continue


@atexit.register
def kill_all():
    """Kill every child and what it started, and any child still starting."""
    STOPPING.set()
    for pid, mark in list(LIVE.items()):
        kill(pid)
        kill_strays(mark)


# In the child -----------------------------------------------------------------------------------

def serve():
    """The child's main: argv is the answer pipe's fd, the jobs (as JSON) and a rule's seconds."""
    fd, jobs, seconds = int(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3])
    secret = sys.stdin.readline().strip()
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)  # your code's input() meets an empty stdin, as before
    limit_resources()
    adopt_orphans()
    out = os.fdopen(fd, 'w', encoding='utf-8', buffering=1)
    RUNNING.update(send=sender(out, secret), pid=os.getpid())
    del secret
    signal.signal(signal.SIGPROF, time_is_up)  # the rules' limit is CPU time: a busy machine changes nothing
    signal.signal(signal.SIGALRM, time_is_up)  # and the clock's, WALL times as long, for code that sleeps
    for n, (folder, names) in enumerate(jobs):
        RUNNING['job'] = n
        for name, answer in run_job(folder, names, seconds):
            RUNNING['send'](n, name, answer)
    out.close()
    end_child()


def sender(out, secret):
    """send(job, rule, answer): one answer written to out, a JSON line that starts with the secret
    (one over ANSWER characters, of values your code made grow without end, is said, not sent)."""
    def send(job, name, answer):
        line = json.dumps([secret, job, name, answer])
        if len(line) > ANSWER:
            grown = ['failed', [['could_not_finish', {'last': 'MemoryError'}]]]
            line = json.dumps([secret, job, name, grown])
        out.write(line + '\n')
    return send


def end_child():
    for below in descendants(os.getpid()):  # what your code started and left, adopted: it ends here
        try:
            os.kill(below, signal.SIGKILL)
        except OSError:
            pass
    os._exit(0)  # now: a thread your code started, and did not end, is not waited for


RUNNING = {}  # in the child: how it sends an answer, and the rule running now (what time_is_up needs)
SWALLOWED = 1  # times the time limit may fire in one rule: once more, and your code is holding on to it


def time_is_up(signum, frame):
    """The time limit of a rule: rules.TooLong where your code is. Code that catches it (a bare
    except in a loop) and goes on gets it again; then the child answers for that rule from where
    it is, says the rules after it are not checked, and ends (give_up)."""
    RUNNING['fired'] = RUNNING.get('fired', 0) + 1
    if RUNNING['fired'] > SWALLOWED and RUNNING.get('name') and RUNNING.get('pid') == os.getpid():
        give_up(frame)
    raise rules.TooLong


def give_up(frame):
    """The answer for the rule running now, a TimeoutError said where frame is, and not checked for
    the rules after it, written at once; then the child ends: nothing your code catches."""
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)
    trace = None
    while frame is not None:  # the traceback of where your code was, outermost first
        trace = types.TracebackType(trace, frame, frame.f_lasti, frame.f_lineno)
        frame = frame.f_back
    error = TimeoutError().with_traceback(trace)
    said = explain.explain(error, 'tokenizer.py', RUNNING['source'], RUNNING['limit'], RUNNING['settled'])
    send, job = RUNNING['send'], RUNNING.get('job', 0)
    send(job, RUNNING['name'], ['failed', said])
    for name in RUNNING['after']:
        send(job, name, ['not_checked', [['not_checked_stuck', {}]]])
    end_child()


def adopt_orphans():
    """Make the child the parent of any process your code starts and leaves (Linux's subreaper):
    then the tutor finds it below the child, whatever it did to its group or its environment."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # 36: PR_SET_CHILD_SUBREAPER
    except (ImportError, OSError, AttributeError):  # not Linux: the group and the mark still hold
        pass


def limit_resources():
    try:  # a loop that appends forever hits these, not the machine's memory or disk
        import resource
        for which, most in [(resource.RLIMIT_AS, MEMORY), (resource.RLIMIT_FSIZE, FILE_SIZE),
                            (resource.RLIMIT_CORE, 0)]:
            resource.setrlimit(which, (most, most))
    except (ImportError, ValueError, OSError):  # not on Windows: there only the tutor's limit holds
        pass


def run_job(folder, names, seconds=SECONDS):
    """(rule, answer) for each rule on the tokenizer.py in folder, in order, each given seconds
    (the command line twice as many), given as each is found; then, for a failed rule whose slip
    is found, its answer again, naming the slip: every slip is looked for in one fork (slips()),
    after all the rules, and an answer given is kept if the search runs out of the child's time."""
    os.chdir(folder)
    sys.modules.pop('tokenizer', None)
    sys.path[0] = folder  # as python3 tokenizer.py puts its own folder first
    rules.lesson_text.cache_clear()
    rules.lesson_text()  # read before your code runs: nothing it does to the folder changes it
    source = Path('tokenizer.py').read_text(encoding='utf-8', errors='replace')
    stuck = set()  # the parts whose code did not finish a rule: the rules that call them would wait too
    held, broke = set(), set()  # the parts with a rule that held, that did not
    answers, wanted = [], []
    for name in names:
        if rules.CALLS[name] & stuck:
            answers.append((name, ['not_checked', [['not_checked_stuck', {}]]]))
            yield answers[-1]
            continue
        limit = seconds * (2 if name == rules.COMMAND_LINE else 1)
        settled = held - broke - {rules.PART_OF[name]}  # the earlier parts whose rules all hold
        RUNNING.update(name=name, source=source, limit=limit, settled=settled, fired=0,
                       after=names[names.index(name) + 1:])
        answer, stopped = answer_for(name, folder, source, limit, settled)
        RUNNING['name'] = None
        stuck |= set(rules.PARTS) if name == 'rule_imports' and answer[0] == 'failed' else stopped
        before = {p for p in rules.CALLS[name] & broke if p < rules.PART_OF[name]}  # then it is not checked
        if answer[0] == 'failed' and name not in rules.LABS and not before:  # a lab names its own slip
            wanted.append((len(answers), name, limit, settled, stopped, rules.PART_OF[name] not in broke))
        (held if answer[0] == 'passed' else broke).add(rules.PART_OF[name])
        answers.append((name, answer))
        yield name, answer
    for (at, name, *_), slip in zip(wanted, slips(wanted, answers, names, folder, source)):
        if slip:
            yield name, [answers[at][1][0], locate.said(answers[at][1][1], slip)]


def slips(wanted, answers, names, folder, source):
    """The slip behind each failed rule of wanted (or None), all looked for in one fork of the
    child (trial.in_a_fork): the search runs changed copies of your code, and nothing they do
    may reach the child; each slip is kept as it is found."""
    if not wanted:
        return []
    locate.compared(source)  # worked out here once, for the fork to have

    def search():
        for at, name, limit, settled, stopped, first in wanted:
            try:
                yield slip_for(name, names, folder, source, limit, settled, stopped,
                               raised_at(answers[at][1][1]), first)
            except rules.TooLong:  # its search took too long: the rule's answer stands; on to the next
                yield None
            except Exception:  # a file of a shape the finder did not foresee: the rule's answer stands
                if os.environ.get('XSLM_TUTOR_RAISE'):  # for whoever works on the finder: its own error
                    raise
                yield None
    try:
        found = trial_run.in_a_fork(search, SEARCH * len(wanted))
    except OSError:  # no fork to be had (too many processes, no memory): the rules' answers stand
        found = []
    return found + [None] * (len(wanted) - len(found))


def answer_for(name, folder, source, limit, settled, ran=None):
    """(the answer for one rule, the parts whose code did not finish it: empty, or the one where
    time ran out). ran: a set to add the lines of tokenizer.py that run to, or None."""
    try:
        with time_limit(limit), locate.lines_run(ran) if ran is not None else contextlib.nullcontext():
            if name == rules.COMMAND_LINE:
                return main_block.command_line(source), set()
            if name in rules.LABS:
                lab = rules.LABS[name]
                printed = main_block.Printed
                return labs.check(lab, folder, printed, rules.lesson_text(), rules.LESSON_MERGES), set()
            return ['passed', rules.CHECKS[name]()], set()
    except rules.Wrong as e:
        return ['failed', returned_in_a_loop(e.args[0], rules.PART_OF[name], source)], set()
    except BaseException as e:  # the learner's code failed: say what and where, in their file
        # (a KeyboardInterrupt too: the child has a session of its own, so no Ctrl-C of the
        # terminal reaches it; one raised here is the learner's code's)
        stopped = set()
        if isinstance(e, rules.TooLong):  # said as the TimeoutError it is, where it was when time ran out
            e = TimeoutError().with_traceback(e.__traceback__)
            line, _ = explain.where(e, 'tokenizer.py', source, settled)
            stopped = {explain.part_of_line(source, line) if line else rules.PART_OF[name]}
        return ['failed', explain.explain(e, 'tokenizer.py', source, limit, settled)], stopped


def raised_at(lines):
    """The line of tokenizer.py an error was raised at, from the lines explain() says, or None."""
    return next((int(fields['line']) for key, fields in lines if key in ('at_line', 'at_line_only')), None)


def slip_for(name, names, folder, source, limit, settled, stopped, raised=None, first=True):
    """The slip behind a failed rule (locate.locate): the line of yours that, put back as the
    lesson writes it, makes the rule hold (tried on the rule, trial by trial, in this child),
    ranked by the lines that ran when the rule is run again, traced (run once untraced, a rule
    that holds costs no tracing); for a rule that did not finish, the part where time ran out.
    raised: the line an error of your code was raised at, which stands when no trial holds.
    first: the first rule of its part to fail: its slip is looked for; a later rule of the part
    is said to fail for the same slip when that slip's trial makes it hold too, else for none."""
    unsure = {rules.PART_OF[rule] for rule in rules.PART_OF if rule not in names}  # not all checked
    suspects = set(rules.PARTS) if name == 'rule_imports' else \
        ({rules.PART_OF[name]} | rules.CALLS[name]) - (settled - unsure)
    trial = trial_run.on_trial(name, source, min(limit, TRIAL))
    ran = None
    if not stopped:
        ran = set()
        answer_for(name, folder, source, limit, settled, ran)
    with trial_run.time_limit(SEARCH):
        return locate.locate(source, ran, stopped or suspects, holds=trial,
                             raised=None if stopped else raised, effort=first)


TRIAL = 0.3  # seconds of CPU time for the rule on one trial of your file: the lesson's code needs ms
SEARCH = 3  # seconds of CPU time for the search of one slip, all its trials together


def returned_in_a_loop(lines, part, source):
    """lines, looking at the return of the part's function when it stands inside a loop: that
    return, not the code the rule's own look names, is what to fix."""
    function = parts.FUNCTIONS.get(part)
    if function not in explain.returns_in_a_loop(source):
        return lines
    return [['look', {'where': f'look.{function}_return'}] if key == 'look' else [key, fields]
            for key, fields in lines]
