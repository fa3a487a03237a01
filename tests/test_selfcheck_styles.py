"""The tutor finds the slip in a file written in a style of its own, not only in the lesson's.

tests/styles/ holds the lesson's tokenizer.py written as rightly in other ways the tutor was
never shown (type hints and f-strings; plain loops and a dict for Counter; docstrings, comments
and names of one's own). Each passes every rule as it is; with one token changed by rule (a
number one off, an operator for another, a name for another, a statement left out), the first
FAILED names the line that changed, at least 95 % of the time.

The files here are checked in one batch (check.check_many), once, by the first test that asks."""
import functools
import unittest
from pathlib import Path

from lab.selfcheck import check
from tests.project import RULE_SECONDS
from tests.test_selfcheck_slips import first_failed, named_line, single_token_changes

STYLES = {path.name: path.read_text(encoding='utf-8')
          for path in sorted((Path(__file__).parent / 'styles').glob('*.py'))}
EACH = 8  # changes a style: 24 in all, one batch of the tutor's
CHANGES = [(name, line, changed, changed.count('\n') < source.count('\n'))
           for name, source in STYLES.items() for line,
           changed in single_token_changes(source, 31, EACH)]


@functools.lru_cache(maxsize=None)
def checked():
    """(the answers for each style as it is, the answers for each change):
    once, when first asked."""
    readable = [check.readable_part(source)
                for source in [*STYLES.values(), *(c[2] for c in CHANGES)]]
    answers = check.check_many([text for text, _ in readable], check.lesson(),
                               [broken for _, broken in readable],
                               seconds=RULE_SECONDS, hash_seed=False)
    return answers[:len(STYLES)], answers[len(STYLES):]


def located(said, line, left_out):
    """Whether what a FAILED says names the changed line (for a statement left out, the line
    it is missing beside, or where Python stops reading)."""
    missing = [int(fields['line']) for key, fields in said if key == 'slip_missing']
    named = missing[0] if missing else named_line(said)
    return named == line or left_out and named in (line - 1, line + 1)


class StylesTest(unittest.TestCase):
    def test_each_style_passes_every_rule_as_it_is(self):
        for name, answers in zip(STYLES, checked()[0]):
            with self.subTest(name):
                self.assertEqual([rule
                                  for rule, (state, _) in answers.items() if state != 'passed'], [])

    def test_a_generated_slip_in_a_style_of_ones_own_is_located_at_its_line(self):
        caught, missed = 0, []
        for (name, line, _, left_out), answers in zip(CHANGES, checked()[1]):
            rule, said = first_failed(answers)
            if rule is None:  # a change that keeps every rule: nothing to find
                continue
            caught += 1
            if not located(said, line, left_out):
                missed.append(f'{name}:{line} {rule}')
        self.assertGreater(caught, len(CHANGES) * 2 // 3)
        self.assertGreaterEqual(1 - len(missed) / caught, 0.95, missed)


if __name__ == '__main__':
    unittest.main()
