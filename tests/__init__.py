"""Tests that double as a self-check: each test name is a rule the tokenizer must keep.

The tutor checks tokenizer.py first (tests/gate.py): a part that does not keep the lesson's
rules is left out of the tests that would use it, and tests/test_tutor.py says which. Then
the test modules run in two processes at once (tests/parallel.py)."""
from tests import gate
from tests.parallel import load_tests  # noqa: F401  (unittest's hook for the package)

gate.install()
