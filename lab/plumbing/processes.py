"""Time bounds: child processes that run code nobody reviewed, bounded in time and output and
never left running after the process that started them; and a block of this process's own
code, bounded by the clock (clock_limit)."""
import contextlib
import os
import signal
import sys
import threading

from lab.plumbing import cli


@contextlib.contextmanager
def clock_limit(seconds, error=TimeoutError):
    """error raised in the block once seconds have passed by the clock, in the main thread (in
    another, no limit: Python runs signal handlers in the main thread only). Python's re checks
    for signals as it matches, so a match that backtracks without end is stopped too."""
    if threading.current_thread() is not threading.main_thread() or \
            not hasattr(signal, 'setitimer'):
        yield
        return

    def ring(*_):
        raise error
    before = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.01))  # 0 would set no timer at all
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)


def run_bounded(argv, cwd, seconds, kept=65536):
    """(exit status, the last kept bytes of stdout, of stderr, as text) of a child that runs
    code nobody reviewed (tokenizer.py is imported in it): at most seconds long, its output
    never held whole (a million prints cost nothing), and it and every process it started in
    its group killed when it ends. ValueError when it cannot start or takes too long."""
    import subprocess
    import threading
    try:  # XSLM_PARENT: the child's die_with_parent knows whose child it is
        child = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True,
                                 env={**os.environ, 'XSLM_PARENT': str(os.getpid())})
    except OSError as e:  # no more processes allowed (ulimit -u), or no memory for one
        raise ValueError(cli.message('processes.cannot_start', why=cli.os_error(e))) from None
    tails = {}

    def keep_end(name, stream):
        end = b''
        for chunk in iter(lambda: stream.read(65536), b''):
            end = (end + chunk)[-kept:]
        tails[name] = end.decode('utf-8', 'replace')
    readers = [threading.Thread(target=keep_end, args=(name, stream), daemon=True)
               for name, stream in [('out', child.stdout), ('err', child.stderr)]]
    for reader in readers:
        reader.start()
    try:
        child.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        raise ValueError(cli.message('processes.too_long', seconds=f'{seconds:,}')) from None
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        child.wait()
        for reader, stream in zip(readers, [child.stdout, child.stderr]):
            reader.join(timeout=1)  # a process that left the group may hold a pipe: not waited for
            if not reader.is_alive():
                stream.close()
    return child.returncode, tails.get('out', ''), tails.get('err', '')


def die_with_parent(parent=None):
    """In a child of run_bounded, or a worker of lab.fast's processes: end when the parent ends,
    even killed (SIGKILL runs none of its clean-up): on Linux the kernel is asked to
    (PR_SET_PDEATHSIG), and a parent gone already (not the pid parent, or XSLM_PARENT) is seen
    at once. Elsewhere the parent's own clean-up is all there is."""
    if not sys.platform.startswith('linux'):
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (ImportError, OSError, AttributeError):
        return
    if str(parent or os.environ.get('XSLM_PARENT', os.getppid())) != str(os.getppid()):
        os._exit(1)  # the parent ended before the kernel was asked
