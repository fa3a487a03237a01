"""The tutor's fork server: one Python, started once for each hash seed, that forks the tutor's
children (runner.py asks for them).

Starting Python and importing the child's modules costs about a fifth of a second of CPU time; a
fork of a process that has done so, a few milliseconds. The tests check files in a few dozen
batches and the tutor's --watch checks a file at every save, so each asks this server instead
of starting a child anew. It never runs your code: only the children it forks do.

For each request (a length, then the request as JSON: the job folders and their rules, the
seconds, whether to look for slips, the secret, the mark; and three pipes: the answer pipe, the
child's stderr, and one to say the child's pid and then its end), it forks a waiter, which
forks the child and waits for it: the pid is written at once, and the pipe closes when the
child has ended. The server itself ends when the tutor closes its socket, or dies.
"""
import io
import json
import os
import signal
import socket
import sys

from lab.selfcheck import child
from lab.selfcheck.runner import descendants


def serve():
    """The server's main: argv[1] is the file descriptor of its end of the tutor's socket."""
    tutor = socket.socket(fileno=int(sys.argv[1]))
    while True:
        reap(os.WNOHANG)
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
    reap(0)  # the tutor has killed the children it waited for: their waiters end at once
    os._exit(0)


def reap(options):
    """Wait for the waiters that have ended (os.WNOHANG), or for all (0): waited for, the CPU
    time they and their children used is the server's, and the tutor's when it waits for it."""
    try:
        while os.waitpid(-1, options)[0]:
            pass
    except ChildProcessError:  # none left
        pass


def receive(tutor, size):
    data = b''
    while len(data) < size:
        more = tutor.recv(size - len(data))
        if not more:
            raise OSError('the tutor closed the socket')
        data += more
    return data


def wait_for_child(request, answer, stderr, status):
    """In the waiter: fork the child, say its pid, wait for it to end, kill what your code
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
        os.write(status, b'%d\n' % pid)
        os.waitpid(pid, 0)
        for _ in range(3):  # again, for a process that forked as it was found
            left = descendants(os.getpid())
            for below in left:
                try:
                    os.kill(below, signal.SIGKILL)
                except OSError:
                    pass
            if not left:
                break
        reap(0)  # what was killed: its CPU time is counted with the child's
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
        os.closerange(3, answer)
        os.closerange(answer + 1, max(answer + 2, os.sysconf('SC_OPEN_MAX')))
        reopen_standard_streams()
        sys.argv = sys.argv[:1]
        os.chdir(request['jobs'][0][0])
        os.environ.clear()
        os.environ.update(request['environment'], XSLM_TUTOR_CHILD=request['mark'])
        child.serve(answer, request['jobs'], request['seconds'], request['search'],
                    request['secret'])
    finally:
        os._exit(1)  # child.serve ends the process itself: here only if it failed to start


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
