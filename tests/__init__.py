"""The tests: python3 -m unittest. Each test module reads as a specification, one rule a test.

Tests of the lesson's rules use the learner's tokenizer.py only once the tutor finds the part
they need keeps them (tests/gate.py); tests/test_tutor.py fails, with the tutor's first FAILED,
when one does not."""
