"""Tests that double as a self-check: each test name is a rule the tokenizer must keep.

The tutor checks tokenizer.py first (tests/gate.py): a part that does not keep the lesson's
rules is left out of the tests that would use it, and tests/test_tutor.py says which."""
from tests import gate

gate.install()
