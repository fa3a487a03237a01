"""Tests that double as a self-check: each test name is a rule the tokenizer must keep.

The tutor checks tokenizer.py first (tests/gate.py): a part that does not keep the lesson's
rules is left out of the tests that would use it, and tests/test_tutor.py says which. Then
the test modules run in two processes at once (tests/parallel.py)."""
import signal

from tests import gate
from tests.parallel import load_tests  # noqa: F401  (unittest's hook for the package)

# A shell starts a command put in the background (cmd &) with Ctrl-C and SIGQUIT ignored, and every
# process the tests start would inherit that: the tests that stop a child with Ctrl-C would wait on
# it for ever. Python's own handling, as a terminal gives it, for this process and its children.
for number, handler in [(signal.SIGINT, signal.default_int_handler),
                        (getattr(signal, 'SIGQUIT', None), signal.SIG_DFL)]:
    if number is not None and signal.getsignal(number) == signal.SIG_IGN:
        signal.signal(number, handler)

gate.install()
