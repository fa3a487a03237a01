"""lab.selfcheck, the tutor: it follows a learner typing tokenizer.py part by part, catches
every rule of the lesson broken on its own, names it first, and says it in their language."""
import concurrent.futures
import os
import re
import signal
import string
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

from lab import common, selfcheck
from tests.project import LESSON_FILES, copy_project, run
from tests.test_toolkit import ENGLISH

LESSON = (LESSON_FILES / 'tokenizer.py').read_text(encoding='utf-8')
# (a typing mistake as a change to the lesson-style file, the rule its first FAILED must be)
MISTAKES = [
    ('            i += 2', '            i += 1', 'rule_merge_replaces'),
    ('    while i < len(ids):', '    while i < len(ids) - 1:', 'rule_merge_copies'),
    ('tuple(ids[i:i + 2]) == tuple(pair)', 'tuple(ids[i:i + 2]) == pair', 'rule_merge_list_pair'),
    ('self.merges = merges', 'self.merges = []', 'rule_init'),
    ('if len(t) == 1}', 'if len(t) >= 1}', 'rule_init'),
    ("sorted(set(text) - {'\\ufffd'})", "list(set(text) - {'\\ufffd'})", 'rule_base_vocab'),
    ("['\\ufffd'] + sorted(set(text) - {'\\ufffd'})", "['\\ufffd'] + sorted(set(text))", 'rule_unknown_once'),
    ('for _ in range(count):', 'for _ in range(count - 1):', 'rule_count'),
    ('pairs.most_common(1)[0]', 'max(pairs.items())', 'rule_most_frequent'),
    ('pairs.most_common(1)[0]', 'sorted(pairs.items(), key=lambda kv: kv[1])[-1]', 'rule_ties'),
    ("if '\\n' not in vocab[p[0]] + vocab[p[1]]", "if vocab[p[1]] != '\\n'", 'rule_newline'),
    ("if '\\n' not in vocab[p[0]] + vocab[p[1]]", "if vocab[p[0]] != '\\n'", 'rule_newline'),
    ('if n < 2:', 'if n <= 2:', 'rule_early_stop'),
    ('vocab.append(vocab[pair[0]] + vocab[pair[1]])', 'vocab.append(vocab[pair[1]] + vocab[pair[0]])',
     'rule_new_token'),
    ('self.chars.get(c, 0)', 'self.chars.get(c, 1)', 'rule_encode_unknown'),
    ('for pair, new_id in self.merges:', 'for pair, new_id in reversed(self.merges):', 'rule_encode_order'),
    ("''.join(self.vocab[i] for i in ids)", "''.join(self.vocab[i] for i in reversed(ids))", 'rule_decode'),
    ("{'vocab': self.vocab, 'merges': self.merges}", "{'vocab': self.vocab, 'merges': self.merges[:1]}",
     'rule_state'),
    ('ensure_ascii=False', 'ensure_ascii=True', 'rule_command_line'),
    ("print('roundtrip: OK',", "print('roundtrip:',", 'rule_command_line'),
]
# (a common mistake, the hint or words its FAILED lines must hold)
HINTS = [(LESSON.replace('    @classmethod\n', ''), 'hint.classmethod'),
         (LESSON.replace('self.chars.get(c, 0)', 'self.chars[c]'), 'hint.chars_get'),
         (LESSON.replace('new_id = len(vocab)', 'new_idx = len(vocab)'), 'error.NameError'),
         (LESSON.replace('tuple(ids[i:i + 2]) == tuple(pair)', 'ids[i:i + 2] == pair'),
          'look.merge_list_tuple'),
         (LESSON.replace('    out, i = [], 0', '    return merge(ids, pair, new_id)'),
          'error.RecursionError'),
         (LESSON.replace('            i += 1\n    return out', '            i += 0\n    return out'),
          'error.TimeoutError')]
# where a learner stops typing, part by part: (the line that starts the next part, its number)
PART_STARTS = [('class BPE:', 2), ('    @classmethod', 3), ('    def encode', 4), ('    def decode', 5),
               ("if __name__ == '__main__':", 6)]


def checked(text):
    """The tutor's answers for a tokenizer.py holding text, {rule: None or its lines}: the rules in one
    child process, and python3 tokenizer.py when they all hold (selfcheck.check also runs a second
    child with another hash seed: the command-line tests go through all of it)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / 'typed.py').write_text(text, encoding='utf-8')
        selfcheck.copy_for_check(folder / 'typed.py', folder)
        found = selfcheck.run_rules(folder, [check.__name__ for _, _, check in selfcheck.RULES])
        answers = {name: answer.get('lines') for name, answer in found.items()}
        if not any(answers.values()):
            answers[selfcheck.COMMAND_LINE] = selfcheck.check_command_line(folder)
        return answers


def first_failing(answers):
    return next((name for name in selfcheck.PART_OF if answers.get(name)), None)


def wider_than_80(text):
    return [line for line in text.splitlines() if common.width(line) > 80]


class SelfcheckTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)
        # every typed mistake checked at once, two at a time: most of it is starting processes,
        # and the endless loop's two seconds overlap the others
        typed = [LESSON.replace(old, new, 1) for old, new, _ in MISTAKES] + [text for text, _ in HINTS]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(checked, typed))
        cls.mistakes, cls.hints = answers[:len(MISTAKES)], answers[len(MISTAKES):]

    def check(self, text, *args, name='typed.py', env=None):
        (self.root / name).write_text(text, encoding='utf-8')
        return run(self.root, '-m', 'lab.selfcheck', name, *args, timeout=60, env={**ENGLISH, **(env or {})})

    def test_a_file_that_follows_the_lesson_passes_every_rule(self):
        done = self.check(LESSON)
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertNotIn('FAILED', done.stdout)
        self.assertNotIn('TODO', done.stdout)

    def test_each_mistake_is_caught_and_its_rule_is_the_first_fail(self):
        for (old, new, rule), answers in zip(MISTAKES, self.mistakes):
            with self.subTest(new):
                self.assertIn(old, LESSON)
                self.assertEqual(first_failing(answers), rule)

    def test_common_mistakes_get_a_hint_of_their_own(self):
        for (_, hint), answers in zip(HINTS, self.hints):
            with self.subTest(hint):
                said = [value for lines in answers.values() if lines for _, fields in lines
                        for value in fields.values()]
                self.assertIn(hint, said)

    def test_parts_not_typed_yet_are_todo_not_failed_and_exit_3(self):
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            def check(case):
                return self.check(LESSON[:LESSON.index(case[0])], name=f'part{case[1]}.py')
            done = list(pool.map(check, PART_STARTS))
        for (_, part), result in zip(PART_STARTS, done):
            with self.subTest(part=part):
                self.assertEqual(result.returncode, selfcheck.EXIT_NOT_TYPED, result.stdout)
                self.assertNotIn('FAILED', result.stdout)
                self.assertIn(f'TODO    {part}. ', result.stdout)
                title = selfcheck.catalog('en')[f'part.{part}']
                self.assertEqual(result.stdout.splitlines()[-1], f'next: type part {part}, {title}')

    def test_a_part_typed_and_wrong_fails_even_when_later_parts_are_missing(self):
        typed = LESSON[:LESSON.index('    def encode')].replace('if n < 2:', 'if n <= 2:')
        done = self.check(typed)
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn('TODO    4. ', done.stdout)

    def test_a_file_cut_in_the_middle_of_a_line_names_the_line(self):
        cut = LESSON[:LESSON.index('    def decode')] + '    def decode(self, ids):\n'
        cut += '        return "".join(\n'
        done = self.check(cut)
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertIn('SyntaxError', done.stdout)
        self.assertIn(f'line {cut.count(chr(10))}', done.stdout)  # the open bracket's line, wording aside
        failed = [line for line in done.stdout.splitlines() if line.startswith('FAILED')]
        self.assertEqual(len(failed), 1, done.stdout)

    def test_an_error_in_the_learners_code_names_its_line_and_function(self):
        done = self.check(LESSON.replace('    out, i = [], 0', '    out, i = [], 0\n    i = ids[99]'))
        self.assertIn('IndexError: list index out of range', done.stdout)
        self.assertIn('in typed.py, line 8, in merge', done.stdout)
        self.assertIn('look at: merge', done.stdout)

    def test_the_learners_own_text_and_settings_are_not_used(self):
        root = copy_project(self)
        (root / 'data' / 'train.txt').write_text('Q: my own text\nA: yes\n' * 60_000, encoding='utf-8')
        (root / 'settings.json').write_text('{"merges": 200')  # not even JSON
        (root / 'typed.py').write_text(LESSON, encoding='utf-8')
        started = time.monotonic()
        done = run(root, '-m', 'lab.selfcheck', 'typed.py', env=ENGLISH)
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertLess(time.monotonic() - started, 20)  # a few seconds: nothing trains on the 1 MB

    def test_prints_in_the_learners_file_are_allowed(self):
        done = self.check(LESSON.replace('import json', 'import json\nprint("hello from tokenizer.py")')
                          + "    print('saved data/tokenizer.json')\n")
        self.assertEqual(done.returncode, 0, done.stdout)

    def test_a_failing_command_line_names_the_file_not_a_temporary_folder(self):
        done = self.check(LESSON.replace("print('vocab:'", "print(undefined_name, 'vocab:'"))
        self.assertEqual(done.returncode, 1)
        self.assertIn("NameError: name 'undefined_name' is not defined", done.stdout)
        self.assertIn('typed.py, line', done.stdout)
        self.assertNotIn(tempfile.gettempdir(), done.stdout)

    def test_korean_from_the_locale_as_gettext_reads_it_or_from_lang(self):
        korean = 'ko_KR.UTF-8'
        cases = [({'LANG': korean}, [], 'ko'), ({'LC_ALL': korean, 'LANG': 'C'}, [], 'ko'),
                 ({'LC_MESSAGES': korean}, [], 'ko'), ({'LANGUAGE': 'en', 'LANG': korean}, [], 'en'),
                 ({'LANGUAGE': '', 'LANG': korean}, [], 'ko'), ({'LANGUAGE': 'ko:en'}, [], 'ko'),
                 ({'LANG': korean}, ['--lang', 'en'], 'en'), ({'LANG': 'C'}, ['--lang=ko'], 'ko'),
                 ({}, [], 'en')]
        for env, args, language in cases:
            with self.subTest(env=env, args=args):
                self.assertEqual(selfcheck.language(args, env), language)
        done = self.check(LESSON, env={'LANG': 'ko_KR.UTF-8'})  # and the command speaks it
        self.assertEqual(done.stdout.splitlines()[0],
                         selfcheck.render(selfcheck.catalog('ko'), 'heading', {'file': 'typed.py'}))

    def test_every_line_fits_80_columns_and_the_markers_are_the_same_in_both_languages(self):
        typed = [LESSON.replace('    @classmethod\n', ''),
                 LESSON.replace('tuple(ids[i:i + 2]) == tuple(pair)', 'ids[i:i + 2] == pair'),
                 LESSON.replace("print('vocab:'", "print(undefined_name, 'vocab:'"),
                 LESSON[:LESSON.index('    def encode')].replace('if n < 2:', 'if n <= 2:')]
        runs = [(lang, n, text) for n, text in enumerate(typed) for lang in ['en', 'ko']]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            def check(run):
                return self.check(run[2], '--lang', run[0], name=f'wide-{run[0]}{run[1]}.py')
            done = list(pool.map(check, runs))
        for (lang, n, _), result in zip(runs, done):
            with self.subTest(lang=lang, file=n):
                self.assertEqual(result.returncode, 1)
                self.assertEqual(wider_than_80(result.stdout + result.stderr), [])
        for n in range(len(typed)):  # OK, FAILED, TODO and -- start the same lines in both
            with self.subTest(markers=n):
                en, ko = ([line[:8] for line in result.stdout.splitlines()
                           if line[:8].rstrip() in ('OK', 'FAILED', 'TODO', '--')]
                          for result in done[2 * n:2 * n + 2])
                self.assertEqual(en, ko)
                self.assertIn('FAILED  ', en)

    def test_help_is_the_catalogs_within_80_columns_and_says_what_each_exit_status_means(self):
        help_ko = self.check(LESSON, '--help', '--lang', 'ko').stdout
        self.assertEqual(help_ko, selfcheck.catalog('ko')['help'] + '\n')
        for lang in ['en', 'ko']:
            with self.subTest(lang):
                shown = selfcheck.catalog(lang)['help']
                self.assertEqual(wider_than_80(shown), [])
                joined = ' '.join(shown.split())
                after = joined[joined.index('--help'):]  # the exit statuses follow the options
                for status in ['0', '1', '3']:
                    self.assertIn(status, after)

    @unittest.skipUnless(hasattr(signal, 'SIGINT') and os.name == 'posix', 'needs POSIX signals')
    def test_watch_checks_again_when_the_file_is_saved_and_ctrl_c_ends_it(self):
        path = self.root / 'watched.py'
        path.write_text(LESSON[:LESSON.index('class BPE:')], encoding='utf-8')
        command = [sys.executable, '-m', 'lab.selfcheck', 'watched.py', '--watch', '--lang', 'en']
        process = subprocess.Popen(command,
                                   cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=dict(os.environ, PYTHONIOENCODING='utf-8'))
        seen = []
        watching = selfcheck.catalog('en')['watching']
        for saved in [LESSON[:LESSON.index('    def encode')], LESSON]:
            while watching not in seen[-1:]:  # the run before this save has ended
                seen.append(process.stdout.readline().rstrip('\n'))
            time.sleep(0.05)
            path.write_text(saved, encoding='utf-8')
            seen.append(process.stdout.readline().rstrip('\n'))
        while watching not in seen[-1:]:
            seen.append(process.stdout.readline().rstrip('\n'))
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        nexts = [line for line in seen if line.startswith('next: type part')]
        self.assertEqual([line.split(',')[0] for line in nexts], ['next: type part 2', 'next: type part 4'])
        self.assertIn(selfcheck.catalog('en')['all_hold'], seen)
        self.assertEqual((process.returncode, err), (130, 'lab.selfcheck: interrupted\n'))


class CatalogTest(unittest.TestCase):
    def test_every_message_exists_in_both_languages_with_the_same_fields(self):
        en, ko = selfcheck.catalog('en'), selfcheck.catalog('ko')
        self.assertEqual(sorted(en), sorted(ko))
        for key in en:
            with self.subTest(key):
                fields = [sorted({f for _, f, _, _ in string.Formatter().parse(words[key]) if f})
                          for words in (en, ko)]
                self.assertEqual(fields[0], fields[1])

    def test_every_rule_part_and_error_has_its_words(self):
        en = selfcheck.catalog('en')
        keys = [f'rule.{name}' for name in selfcheck.PART_OF]
        keys += [f'part.{part}' for part in selfcheck.PARTS]
        keys += [f'error.{kind}' for kind in selfcheck.KNOWN_ERRORS]
        source = (common.ROOT / 'lab' / 'selfcheck.py').read_text(encoding='utf-8')
        keys += re.findall(r"'((?:look|hint)\.\w+)'", source)
        self.assertEqual([key for key in keys if key not in en], [])


if __name__ == '__main__':
    unittest.main()
