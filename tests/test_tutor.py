"""The tutor first: tokenizer.py keeps every rule of the lesson the tutor checks.

With a file that does not, this is the one test that fails, with the tutor's first FAILED
(the line, the lesson's line, where to look); the tests that need that part are skipped
(tests/gate.py), so that the suite says it once, in seconds."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from lab.plumbing import terminal
from lab.selfcheck import check
from tests import gate
from tests.project import ENGLISH, LESSON_FILES, ROOT

LESSON = (LESSON_FILES / 'tokenizer.py').read_text(encoding='utf-8')


def suite_with_a_slip():
    """python3 -m unittest, as a learner runs it, on two of the suite's modules in a copy of the
    project whose tokenizer.py has a slip in merge: (exit status, what it printed)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for part in ['settings.json', 'data', 'lab', 'tests']:
            copy = shutil.copytree if (ROOT / part).is_dir() else shutil.copyfile
            copy(ROOT / part, root / part, **({'ignore': shutil.ignore_patterns('__pycache__')}
                                              if (ROOT / part).is_dir() else {}))
        lesson = (LESSON_FILES / 'tokenizer.py').read_text(encoding='utf-8')
        slip = lesson.replace('result.append(new_id)', 'result.append(pair)')
        (root / 'tokenizer.py').write_text(slip, encoding='utf-8')
        modules = ['tests.test_lesson_merge',
                   'tests.test_tutor.TutorFirstTest.'
                   'test_every_part_of_tokenizer_py_keeps_the_lessons_rules']
        environment = {**os.environ, **ENGLISH, 'XSLM_NO_SUITE_IN_SUITE': '1'}
        environment.pop(gate.VERDICT, None)  # its own tutor's verdict, on its own file
        done = subprocess.run([sys.executable, '-m', 'unittest', '-v', *modules], cwd=root,
                              capture_output=True, text=True, timeout=120, env=environment)
        return done.returncode, done.stderr


class TutorFirstTest(unittest.TestCase):
    def test_every_part_of_tokenizer_py_keeps_the_lessons_rules(self):
        answers, unusable = gate.verdict()
        if unusable:
            self.fail(gate.failure(answers))

    def test_its_failure_is_said_in_the_learners_language(self):
        slipped = LESSON.replace('result.append(new_id)', 'result.append(pair)')
        answers = check.check_many([slipped], check.lesson(), hash_seed=False)[0]
        korean = gate.failure(answers, {'LANG': 'ko_KR.UTF-8'}).splitlines()
        self.assertTrue(korean[0].startswith('도우미(python3 -m lab.selfcheck)가'), korean[0])
        self.assertTrue(any(line.startswith('FAILED  merge는') for line in korean), korean)
        self.assertIn('          tokenizer.py 10번째 줄: result.append(pair)', korean)
        self.assertLessEqual(max(terminal.width(line) for line in korean), 80)
        english = gate.failure(answers, {'LANG': 'C.UTF-8'}).splitlines()
        self.assertTrue(english[0].startswith('the tutor (python3 -m lab.selfcheck) finds'),
                        english[0])

    @unittest.skipIf(os.environ.get('XSLM_NO_SUITE_IN_SUITE'),
                     'run inside the suite run by the test below')
    def test_a_slip_fails_this_one_test_and_skips_the_tests_that_need_its_part(self):
        code, printed = suite_with_a_slip()
        self.assertEqual(code, 1, printed[-2000:])
        self.assertRegex(printed, r'FAILED \(failures=1, skipped=\d+\)')
        self.assertIn('tokenizer.py, line 10: result.append(pair)', printed)
        self.assertIn("part 1 of tokenizer.py fails the lesson's rules (python3 -m lab.selfcheck",
                      printed)
