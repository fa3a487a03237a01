"""The tutor's fork server: one Python, started once for each hash seed, that forks the tutor's
children (runner.py asks for them).

Starting Python and importing the child's modules costs about a fifth of a second of CPU time; a
fork of a process that has done so, a few milliseconds. The tests check files in a few dozen
batches and the tutor's --watch checks a file at every save, so each asks this server instead
of starting a child anew. It never runs your code: only the children it forks do.

For each request (a length, then the request as JSON: the job folders and their rules, the
seconds, whether to look for slips, the secret, the mark, the environment; and three pipes: the
answer pipe, the child's stderr, and one to say the pids and then the end), it forks a waiter,
which forks the child and waits for it: the two pids are written at once, and the pipe closes
when the child has ended and what it left (Linux) is killed. The server ends when the tutor
closes its socket, or dies. The CPU time of the children is the tutor's once the server has
ended and the tutor has waited for it (when it stops it: at exit).

Your code may stop or kill its waiter, or the server: the tutor waits for neither longer than a
few seconds, kills them, and starts another server. What your code leaves after killing its
waiter is the server's (Linux), killed when the server ends; every process forked here also
carries the server's mark in its environment, which the tutor kills by at exit. Not caught: a
chain of processes each of which starts a session of its own, forks and ends, faster than the
processes are listed (a namespace of its own for each child would end it; not done).
"""
import gc
import io
import json
import os
import socket
import sys
import time

from lab.selfcheck import child
from lab.selfcheck.runner import kill_below

REAP = 1  # seconds a waiter waits for what it killed to end, before it ends itself


def serve():
    """The server's main: argv[1] is the file descriptor of its end of the tutor's socket."""
    tutor = socket.socket(fileno=int(sys.argv[1]))
    # a process left by a child whose waiter your code killed is the server's (Linux): it is
    # killed when the server ends
    child.adopt_orphans()
    # what the server holds (the child's modules, imported): a child's collector leaves it, and
    # its pages, alone, rather than copying them as it goes over it (some 1,700 pages in a batch
    # of the tests)
    gc.freeze()
    while True:
        reap(time.monotonic())  # the waiters that have ended
        try:
            head, fds, _, _ = socket.recv_fds(tutor, 8, 3)
            request = json.loads(receive(tutor, int.from_bytes(head, 'big')))
        except (OSError, ValueError):  # the tutor is gone, or said something else
            break
        if len(head) < 8 or len(fds) != 3:
            break
        if os.fork() == 0:
            tutor.close()
            wait_for_child(request, *fds)
        for fd in fds:
            os.close(fd)
    kill_below(os.getpid())  # the tutor is gone: what is still below the server goes with it
    reap(time.monotonic() + REAP)
    os._exit(0)


def reap(until):
    """Wait for the processes of this one that end before the clock reaches until: waited for,
    the CPU time they and their children used is this process's, and the tutor's in the end."""
    while True:
        try:
            ended = os.waitpid(-1, os.WNOHANG)[0]
        except ChildProcessError:  # none left
            return
        if not ended:
            if time.monotonic() >= until:
                return
            time.sleep(0.01)
        elif time.monotonic() >= until + REAP:  # a process that forks and ends feeds it for ever
            return


def receive(tutor, size):
    data = b''
    while len(data) < size:
        more = tutor.recv(size - len(data))
        if not more:
            raise OSError('the tutor closed the socket')
        data += more
    return data


def wait_for_child(request, answer, stderr, status):
    """In the waiter: fork the child, say both pids, wait for it to end, kill what your code
    started and left behind it; then end, closing the status pipe, which tells the tutor it
    has ended."""
    try:
        # a process the child leaves is the waiter's when the child ends (Linux), wherever it
        # went (os.setsid): it ends here
        child.adopt_orphans()
        pid = os.fork()
        if pid == 0:
            os.close(status)
            start_child(request, answer, stderr)
        os.close(answer)
        os.close(stderr)
        os.write(status, b'%d %d\n' % (os.getpid(), pid))
        os.waitpid(pid, 0)
        kill_below(os.getpid())
        reap(time.monotonic() + REAP)  # what was killed: its CPU time is counted with the child's
    finally:
        os._exit(0)


def start_child(request, answer, stderr):
    """In the child: a session of its own (the tutor kills its group), stdin and stdout empty,
    stderr to the tutor, no other file of the server's open, in the first job's folder, with the
    tutor's environment and the mark its processes inherit; then the rules (child.serve)."""
    try:
        os.setsid()
        empty = os.open(os.devnull, os.O_RDWR)
        for fd, target in [(empty, 0), (empty, 1), (stderr, 2)]:
            os.dup2(fd, target)
        close_files_but(answer)
        reopen_standard_streams()
        sys.argv = sys.argv[:1]
        os.chdir(request['jobs'][0][0])
        os.environ.clear()
        os.environ.update(request['environment'], XSLM_TUTOR_CHILD=request['mark'])
        time.tzset()  # the tutor's TZ of now, not the server's
        child.serve(answer, request['jobs'], request['seconds'], request['search'],
                    request['secret'])
    finally:
        os._exit(1)  # child.serve ends the process itself: here only if it failed to start


def close_files_but(answer):
    """Close every file above stderr but the answer pipe: the server's socket among them, where
    your code could read the next request. The open ones are listed (Linux, macOS), not tried
    one by one up to a limit that may be a million."""
    try:
        listed = [int(fd) for fd in os.listdir('/proc/self/fd' if os.path.isdir('/proc/self/fd')
                                               else '/dev/fd')]
    except (OSError, ValueError):
        listed = range(3, 1024)
    for fd in listed:
        if fd > 2 and fd != answer:
            try:
                os.close(fd)
            except OSError:  # the listing's own, closed already
                pass


def reopen_standard_streams():
    """sys.stdin, stdout and stderr made anew on the files now at 0, 1 and 2, with the settings
    Python gave the server's: those were made on other files (a pipe cannot seek, as /dev/null
    can, and a stream keeps what it found)."""
    for name, fd in [('stdin', 0), ('stdout', 1), ('stderr', 2)]:
        old = getattr(sys, name)
        raw = io.FileIO(fd, 'r' if fd == 0 else 'w', closefd=False)
        stream = io.TextIOWrapper(io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw),
                                  encoding=old.encoding, errors=old.errors,
                                  line_buffering=old.line_buffering,
                                  write_through=old.write_through)
        setattr(sys, name, stream)
        setattr(sys, f'__{name}__', stream)
