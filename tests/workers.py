"""The work the tests give the processes of a parallel encode (tests/test_fast_bpe.py's
WorkerLifeTest): each says it is at work, in a file named by its pid, then waits or is killed.

A module of its own, importing no more than this, because a lab's process of its own imports it
too: importing the test module there cost a Python a sixth of a second of CPU more."""
import os
import signal
import time
from pathlib import Path

FOLDER = {}  # in each worker of WorkerLifeTest: where it says it has started


def stand_by(folder):
    FOLDER['path'] = folder


def say_at_work(block):
    """A worker says it is at work: a file named by its pid (workers_at_work reads them)."""
    (Path(FOLDER['path']) / str(os.getpid())).write_text(str(block))


def wait_long(block):
    """Work that never finishes in a test's time: it says its process is at work, then waits."""
    say_at_work(block)
    time.sleep(60)


def killed_at_work(block):
    """Work whose block 'a' is killed, as the kernel kills a process that takes too much memory,
    once both workers have said they are at work; block 'b' waits."""
    if block == 'a':
        say_at_work(block)
        workers_at_work(FOLDER['path'], 2)
        os.kill(os.getpid(), signal.SIGKILL)
    wait_long(block)


def workers_at_work(folder, count, seconds=20):
    """The pids of count workers, once each has said it is at work."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pids = [int(path.name) for path in Path(folder).iterdir()]
        if len(pids) >= count:
            return pids
        time.sleep(0.05)
    raise AssertionError(f'{count} workers did not start')
