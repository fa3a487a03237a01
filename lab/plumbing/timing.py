"""How long work takes, and the most memory a process has held: what lab.speed and lab.compare
measure a tokenizer by."""
import sys
import time

try:
    import resource  # not on Windows
except ImportError:
    resource = None


def seconds(work, *args):
    """(what work(*args) gives, the seconds by the clock it took)."""
    start = time.perf_counter()
    result = work(*args)
    return result, time.perf_counter() - start


def peak_mb(children=False):
    """The most memory this process has held (children: the largest of its children that
    ended), in MB; None where the system does not say (Windows)."""
    if resource is None:
        return None
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    peak = resource.getrusage(who).ru_maxrss
    return peak / 2**20 if sys.platform == 'darwin' else peak / 2**10  # bytes on macOS, else KiB
