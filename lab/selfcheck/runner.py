"""Your code, run in a child process the tutor keeps bounded: the rules, then python3 tokenizer.py.

The tutor never runs the file you typed in its own process: a loop that never ends, a list
that grows until the memory is gone, a million prints or a file that deletes its own folder
would take the tutor down with it. It copies the file into a temporary folder beside the
lesson's settings.json and data/train.txt, and has a child forked there (by its fork server,
forks.py: a Python started once, not for every check) that:
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
child's that left the group: nothing of it outlives the tutor. This file is the tutor's side;
what runs in the child is lab/selfcheck/child.py, and the fork server is lab/selfcheck/forks.py.
"""
import atexit
import json
import os
import secrets
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from lab.learner import catalogs
from lab.selfcheck import rules

SECONDS = 2  # of CPU time for one rule: the lesson's code needs a few milliseconds on these texts
MEMORY = 2 * 2**30  # bytes the child may use; the rules need a few dozen MB
FILE_SIZE = 2**26  # bytes a file the child writes may have (data/tokenizer.json: a few KB)
ANSWER = 2**16  # characters of one answer at most: the rules clip what they quote to a line
KEPT = 4096  # bytes of the child's stderr kept, for when it dies without an answer
ROOT = Path(__file__).resolve().parent.parent.parent
# the process groups of the children running now, and their marks: killed when the tutor exits
LIVE = {}
STOPPING = threading.Event()  # set by kill_all: a child started after it is killed at once
# (seed and environment) -> (the fork server's process, the tutor's end of its socket)
SERVERS = {}
STARTUP = {'LC_ALL', 'LC_CTYPE', 'LANG'}  # besides PYTHON...: what Python's encodings start from
SERVER_LOCK = threading.RLock()  # (kill_all may come as Ctrl-C while this thread holds it)
SERVER_MARK = secrets.token_hex(8)  # in the environment of every process a server forks
STARTING = 10  # seconds a server's pids are waited for at most (a few ms, as a rule)
ENDING = 3  # seconds a waiter is given to end after its child (it waits a second at most)


class NoChild(OSError):
    """No server forked a child for a check, twice (too many processes, no memory)."""


# In the tutor -----------------------------------------------------------------------------------

def run(jobs, seed='0', seconds=SECONDS, search=True):
    """[{rule: answer} for each job] for jobs [(folder, [rule names])], all in one child process
    started with PYTHONHASHSEED=seed, each rule given seconds. An answer is a verdict ['passed' |
    'failed' | 'not_checked', lines or value]; a rule the child never answered (it was killed, or
    ran out of time) is failed with the end of what it wrote to stderr. search: whether the child
    looks for the slip behind each rule that failed (a child asked for one value need not)."""
    read_end, write_end = os.pipe()
    secret = secrets.token_hex(16)
    try:
        pid, waiter, status, stderr, mark = start_child(jobs, seed, seconds, write_end, secret,
                                                        search)
    except OSError:
        os.close(read_end)
        raise
    answers, tail = [], []
    readers = [threading.Thread(target=read_answers, args=(read_end, answers, secret), daemon=True),
               threading.Thread(target=read_tail, args=(stderr, tail), daemon=True)]
    for reader in readers:
        reader.start()
    late = not ended_in_time(pid, waiter, status, mark,
                             seconds * sum(len(names) + 3 for _, names in jobs))
    for reader in readers:
        # a process that left the group may hold the pipe: do not wait for it
        reader.join(timeout=1)
    if not readers[1].is_alive():  # closing a pipe another thread still reads would wait with it
        stderr.close()
    said = b''.join(tail).decode('utf-8', 'replace').strip().splitlines()
    last = 'no answer in time' if late else (said or ['?'])[-1]
    return by_job(jobs, answers, last)


def start_child(jobs, seed, seconds, write_end, secret, search=True):
    """(the child's pid, its waiter's, the pipe that closes when it ends, its stderr, its mark): a
    child forked for jobs by the fork server of seed (forks.py), in a session of its own, in the
    first job's folder, the answer pipe's write end its only file besides stderr, and the secret
    that marks its answers given to it before any of your code runs. A server that gives no
    pids in time (your code stopped it, say) is killed, and another is asked, once."""
    mark = f'{os.getpid()}-{id(jobs)}-{seed}'  # inherited by every process the child starts
    environment = dict(os.environ, PYTHONHASHSEED=seed, PYTHONIOENCODING='utf-8',
                       PYTHONDONTWRITEBYTECODE='1')
    request = json.dumps({'jobs': jobs, 'seconds': seconds, 'search': search, 'secret': secret,
                          'mark': mark, 'environment': environment}).encode()
    try:
        for _ in range(2):
            stderr, stderr_end = os.pipe()
            status, status_end = os.pipe()
            pids = None
            try:
                try:
                    key, asked = ask_fork_server(environment, request,
                                                 [write_end, stderr_end, status_end])
                finally:  # the server has its copies: EOF on status is the waiter's alone
                    os.close(stderr_end)
                    os.close(status_end)
                pids = pids_said(status)
            finally:
                if not pids:
                    os.close(status)
                    os.close(stderr)
            if pids:
                break
            with SERVER_LOCK:
                if SERVERS.get(key) is asked:  # (not one another thread has started since)
                    stop_fork_server(key, at_once=True)
        else:
            raise NoChild('the tutor could not start a child')
    finally:
        os.close(write_end)
    waiter, pid = pids
    LIVE[pid] = mark
    if STOPPING.is_set():  # Ctrl-C or SIGTERM came while it was starting
        kill(pid)
    return pid, waiter, status, os.fdopen(stderr, 'rb'), mark


def pids_said(status):
    """(the waiter's pid, the child's), as the waiter writes them at once; None if it closes the
    pipe first or says nothing within STARTING seconds."""
    said, deadline = b'', time.monotonic() + STARTING
    while not said.endswith(b'\n'):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([status], [], [], left)[0]:
            return None
        more = os.read(status, 64)
        if not more:
            return None
        said += more
    waiter, pid = map(int, said.split())
    return waiter, pid


def ask_fork_server(environment, request, fds):
    """Send request, and the pipes fds, to the fork server for this environment: one for each
    hash seed and what else Python reads as it starts (STARTUP), started on first use, and again
    if the one there is gone. The rest of the environment is the child's own, set as it starts.
    Returns the server's key and the server asked."""
    # (a variable set empty is one not set, to Python as it starts)
    key = tuple(sorted((name, value) for name, value in environment.items()
                       if value and (name.startswith('PYTHON') or name in STARTUP)))
    with SERVER_LOCK:
        for attempt in range(2):
            if key not in SERVERS:
                SERVERS[key] = start_fork_server(environment)
            server, tutor = SERVERS[key]
            try:
                socket.send_fds(tutor, [len(request).to_bytes(8, 'big')], fds)
                tutor.sendall(request)
                return key, SERVERS[key]
            except OSError:
                if attempt:
                    raise
                stop_fork_server(key, at_once=True)


def start_fork_server(environment):
    """(the server's process, the tutor's end of its socket): a Python of its own session (no
    Ctrl-C of the terminal reaches it), which ends when the socket closes, and which marks all
    it forks with SERVER_MARK."""
    tutor, its_end = socket.socketpair()
    code = (f'import sys; sys.path.insert(1, {str(ROOT)!r}); '
            'from lab.selfcheck.forks import serve; serve()')
    try:
        server = subprocess.Popen([sys.executable, '-c', code, str(its_end.fileno())], cwd=ROOT,
                                  env=dict(environment, XSLM_TUTOR_SERVER=SERVER_MARK),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, pass_fds=(its_end.fileno(),),
                                  start_new_session=True)
    finally:
        its_end.close()
    return server, tutor


def stop_fork_server(key, at_once=False):
    """Close the server's socket: it waits for its waiters, whose children are killed, and ends
    (killed if it does not within seconds, or at once)."""
    server, tutor = SERVERS.pop(key)
    tutor.close()
    try:
        server.wait(timeout=0 if at_once else 2)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def ended_in_time(pid, waiter, status, mark, seconds):
    """Whether the child ended within seconds (its status pipe closed); either way it and
    whatever it left are killed then, and its waiter too if it does not end within seconds."""
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            if select.select([status], [], [], min(end - time.monotonic(), 0.5))[0]:
                return True
            if not running(pid):  # ended, and its waiter (stopped by your code, say) silent
                return True
        return False
    finally:
        kill(pid)
        deadline = time.monotonic() + ENDING
        while True:  # the waiter closes it once the child is reaped
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([status], [], [], left)[0]:
                os.kill(waiter, signal.SIGKILL)  # stopped by your code, say
                break
            if not os.read(status, 64):
                break
        os.close(status)
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
        isinstance(line, list) and len(line) == 2 and line[0] in known
        and isinstance(line[1], dict) and
        all(isinstance(key, str) and isinstance(value, str) for key, value in line[1].items()) and
        (line[1].get('part', '0') in map(str, rules.PARTS)) for line in lines)


def read_tail(stream, tail):
    """Read stream to its end, keeping only its last KEPT bytes."""
    kept = b''
    for chunk in iter(lambda: stream.read(65536), b''):
        kept = (kept + chunk)[-KEPT:]
    tail.append(kept)


def running(pid):
    """Whether process pid runs: not gone, and not ended waiting to be waited for (Linux's
    /proc; elsewhere a process that answers a signal runs)."""
    try:
        os.kill(pid, 0)
        with open(f'/proc/{pid}/stat') as stat:
            return stat.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except ProcessLookupError:
        return False
    except (OSError, IndexError):  # no /proc (macOS), or not ours to signal
        return True


def kill(pid):
    """Kill the child pid and every process below it: those of its process group, and those that
    left it (os.setsid), which the child adopts as they are orphaned (child.adopt_orphans)."""
    kill_below(pid)
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
            after_command = (entry / 'stat').read_text().rsplit(')', 1)[1]
            parents[int(entry.name)] = int(after_command.split()[1])
        except (OSError, ValueError, IndexError):  # gone already
            continue
    found, todo = [], [pid]
    while todo:
        children = [child for child, parent in parents.items() if parent == todo[-1]]
        todo.pop()
        found += children
        todo += children
    return found


def kill_strays(mark, name='XSLM_TUTOR_CHILD'):
    """Kill the processes your code started that left the child's process group (os.setsid):
    on Linux they are found by the mark in their environment, which they inherited."""
    wanted = f'{name}={mark}'.encode()

    def marked():
        found = []
        for entry in Path('/proc').glob('[0-9]*') if sys.platform.startswith('linux') else []:
            try:
                if wanted in (entry / 'environ').read_bytes().split(b'\0'):
                    found.append(int(entry.name))
            except (OSError, ValueError):  # gone already, or not ours to read
                continue
        return found
    kill_while_found(marked)


def kill_below(pid):
    """Kill every process below pid (descendants)."""
    kill_while_found(lambda: descendants(pid))


def kill_while_found(find):
    """Kill the processes find() lists, each with its whole group, which a process that forks and
    ends, again and again, cannot leave as it is killed; and list them again while it finds some
    (three times at most)."""
    for _ in range(3):
        found = find()
        for pid in found:
            kill_with_group(pid)
        if not found:
            return


def kill_with_group(pid):
    """SIGKILL to pid and to its process group, unless that group is the tutor's own."""
    try:
        group = os.getpgid(pid)
        if group != os.getpgrp():
            os.killpg(group, signal.SIGKILL)
        os.kill(pid, signal.SIGKILL)
    except OSError:  # gone already
        pass


@atexit.register
def kill_all():
    """Kill every child and what it started, and any child still starting; then the fork
    servers."""
    STOPPING.set()
    for pid, mark in list(LIVE.items()):
        kill(pid)
        kill_strays(mark)
    with SERVER_LOCK:
        for key in list(SERVERS):
            stop_fork_server(key)
    # what your code forked and left after killing its waiter: it has the server's mark
    kill_strays(SERVER_MARK, 'XSLM_TUTOR_SERVER')
