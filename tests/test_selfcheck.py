"""lab.selfcheck, the tutor: it follows a learner typing tokenizer.py part by part, catches
every rule of the lesson broken on its own, names it first, blames the right part, and says
it in their language.

Most files here are checked together, with the tutor's own check_many: one child process
for all of them (and one for the hash seed), as the tests' way to keep to a few processes;
the command line itself is run where the command is the point."""
import functools
import json
import keyword
import os
import re
import signal
import string
import subprocess
import sys
import tempfile
import threading
import time
import types
import unittest
from pathlib import Path
from unittest import mock

from lab.contract import lessons
from lab.learner import catalogs, errors, explain
from lab.plumbing import cli, measures, terminal
from lab.selfcheck import __main__ as command
from lab.selfcheck import check, child, report, rules, runner
from tests.project import (
    ENGLISH,
    LESSON_FILES,
    LESSON_LABS,
    PARTS,
    ROOT,
    RULE_SECONDS,
    as_a_terminal_starts_it,
    copy_project,
    inside,
    messages,
    ours_on_path,
    run_inside,
    started,
    still_alive,
    working_in,
)

LESSON = (LESSON_FILES / 'tokenizer.py').read_text(encoding='utf-8')
# (a typing mistake as a change to the lesson-style file, the rule its first FAILED must be)
MISTAKES = [
    ('            i += 2', '            i += 1', 'rule_merge_replaces'),
    ('    while i < len(ids):', '    while i < len(ids) - 1:', 'rule_merge_copies'),
    ('tuple(ids[i:i + 2]) == tuple(pair)', 'tuple(ids[i:i + 2]) == pair', 'rule_merge_list_pair'),
    ('self.vocab, self.merges = vocab, merges', 'self.vocab, self.merges = vocab, []', 'rule_init'),
    ('if len(c) == 1}', 'if len(c) >= 1}', 'rule_init'),
    ("sorted(set(text) - {'\\ufffd'})", "list(set(text) - {'\\ufffd'})", 'rule_base_vocab'),
    ("['\\ufffd'] + sorted(set(text) - {'\\ufffd'})", "['\\ufffd'] + sorted(set(text))",
     'rule_unknown_once'),
    ('for _ in range(count):', 'for _ in range(count - 1):', 'rule_count'),
    ('pairs.most_common(1)[0]', 'max(pairs.items())', 'rule_most_frequent'),
    ('pairs.most_common(1)[0]', 'sorted(pairs.items(), key=lambda kv: kv[1])[-1]', 'rule_ties'),
    ("if '\\n' not in vocab[a] + vocab[b]", "if vocab[b] != '\\n'", 'rule_newline'),
    ("if '\\n' not in vocab[a] + vocab[b]", "if vocab[a] != '\\n'", 'rule_newline'),
    ('if frequency < 2:', 'if frequency <= 2:', 'rule_early_stop'),
    ('vocab.append(vocab[pair[0]] + vocab[pair[1]])',
     'vocab.append(vocab[pair[1]] + vocab[pair[0]])',
     'rule_new_token'),
    ('self.chars.get(c, 0)', 'self.chars.get(c, 1)', 'rule_encode_unknown'),
    ('for pair, new_id in self.merges:', 'for pair, new_id in reversed(self.merges):',
     'rule_encode_order'),
    ("''.join(self.vocab[i] for i in ids)", "''.join(self.vocab[i] for i in reversed(ids))",
     'rule_decode'),
    ("return ''.join(self.vocab[i] for i in ids)", 'return list(range(300_000))', 'rule_decode'),
    ("{'vocab': self.vocab, 'merges': self.merges}",
     "{'vocab': self.vocab, 'merges': self.merges[:1]}",
     'rule_state'),
    ('ensure_ascii=False', 'ensure_ascii=True', 'rule_command_line'),
    ("print('roundtrip: OK',", "print('roundtrip:',", 'rule_command_line'),
    # a set of str iterates in another order under another hash seed
    ('        return cls(vocab, merges)',
     '        if count > 20:\n            vocab.append(next(iter(set(text))))\n'
     '        return cls(vocab, merges)',
     'rule_hash_seed'),
]
# state, the last method, typed as a function of its own after the class
STATE_IN_CLASS = "    def state(self):\n        return {'vocab'"
STATE_OUTSIDE = "def state(self):\n    return {'vocab'"
# (a common slip, as a change to the lesson-style file, the words its first FAILED must hold)
SLIPS = [
    ('    @classmethod\n', '', 'hint.classmethod'),
    ('self.chars.get(c, 0)', 'self.chars[c]', 'hint.chars_get'),
    ('new_id = len(vocab)', 'new_idx = len(vocab)', 'error.NameError'),
    ('tuple(ids[i:i + 2]) == tuple(pair)', 'ids[i:i + 2] == pair', 'look.merge_list_tuple'),
    ('    result, i = [], 0', '    return merge(ids, pair, new_id)', 'error.RecursionError'),
    ('            i += 1\n    return result', '            i += 0\n    return result',
     'hint.loop_merge'),
    (('        for _ in range(count):', '            ids = merge(ids, pair, new_id)\n'),
     # the ids never change: the same pair again and again; time runs out in train or in the
     # merge it calls
     ('        while True:', '            merge(ids, pair, new_id)\n'),
     'hint.loop_train'),
    # what merge gives back is dropped
    ('            ids = merge(ids, pair, new_id)\n        return cls',
     '            merge(ids, pair, new_id)\n        return cls', 'same_pair_again'),
    ('        return ids\n', "        return ' '.join(map(str, ids))\n", 'gave_not_list'),
    ("Path('settings.json')", "Path('setting.json')", 'error.FileNotFoundError'),
    ('from collections import Counter\n', '', 'hint.missing_import'),
    ('pair, frequency = pairs.most_common(1)[0]', 'pair, frequency = pairs.most_common(1)',
     'hint.most_common'),
    ('    return result\n', '\n', 'look.merge_return'),
    ('        return cls(vocab, merges)\n', '        cls(vocab, merges)\n', 'look.train_return'),
    ('            i += 1\n    return result', '            i += 1\n        return result',
     'look.merge_return'),  # the return inside the while: merge gives back its first step
    ('            ids = merge(ids, pair, new_id)\n        return ids',
     '            ids = merge(ids, pair, new_id)\n            return ids', 'look.encode_return'),
    ('            ids = merge(ids, pair, new_id)\n        return cls(vocab, merges)',
     '            ids = merge(ids, pair, new_id)\n            return cls(vocab, merges)',
     'look.train_return'),
    ('    assert tokenizer.decode(tokenizer.encode(text)) == text',
     "    assert tokenizer.decode(tokenizer.encode(text)) == text + '.'", 'error.AssertionError'),
    ('            i += 2', '\t    i += 2', 'error.TabError'),
    ('    def __init__', '    def __int__', 'hint.misspelled'),
    (STATE_IN_CLASS, STATE_OUTSIDE, 'hint.outside_class'),
    ('            ids = merge(ids, pair, new_id)\n        return ids',
     # return out of encode
     '            ids = merge(ids, pair, new_id)\n    return ids', 'hint.outside'),
    ('self.chars.get(c, 0)', 'chars.get(c, 0)', 'hint.self'),
    ('self.chars = {', 'chars = {', 'hint.self_attribute'),
    ("    tokenizer = BPE.train(text, settings['merges'])",
     "    tokenizer = BPE([], [])\n    tokenizer.train(text, settings['merges'])",
     'hint.train_result'),
    # typed, but it never runs
    ("if __name__ == '__main__':", "if __name__ == 'main':", 'hint.main_name'),
    ("if __name__ == '__main__':", 'if __name__ == __main__:', 'hint.main_name'),
    # the while typed, its body not yet: typing the if's body, not there yet
    ('        if tuple(ids[i:i + 2]) == tuple(pair):\n            result.append(new_id)\n'
     '            i += 2\n'
     '        else:\n            result.append(ids[i])\n            i += 1\n',
     '        # the body, next\n',
     'hint.body'),
]
# where a learner stops typing, part by part: (the line that starts the next part, its number)
PART_STARTS = [('def merge', 0), ('class BPE:', 1), ('    @classmethod', 2), ('    def encode', 3),
               ('    def decode', 4), ("if __name__ == '__main__':", 5)]


def lesson_with(old, new):
    """The lesson-style file with old changed to new (or each of several olds to its new)."""
    typed, olds, news = LESSON, *(([old], [new]) if isinstance(old, str) else (old, new))
    for one, other in zip(olds, news):
        assert one in typed, one
        typed = typed.replace(one, other, 1)
    return typed


# a SyntaxError in part 4
UNCLOSED = LESSON.replace('        ids = [self.chars.get(c, 0) for c in text]',
                          '        ids = [self.chars.get(c, 0) for c in text')
# mistakes whose slips are looked for too
ONE_OFF = lesson_with('            i += 2', '            i += 1')
HUGE = lesson_with("return ''.join(self.vocab[i] for i in ids)", 'return list(range(300_000))')
# the prints a learner adds: without a newline, the tutor's own mark, Korean written as bytes
# after the reconfigure a Windows console needs
PRINTS = lesson_with(
    ['import json\n', '        for _ in range(count):\n', "if __name__ == '__main__':\n"],
    ["import json\nprint('loading...', end=' ')\nprint('@@selfcheck [1]')\n",
     "        for _ in range(count):\n            print('.', end='')\n",
     "if __name__ == '__main__':\n    import sys\n    sys.stdout.reconfigure(encoding='utf-8')\n"
     "    sys.stdout.buffer.write('안녕\\n'.encode('utf-8'))\n"])
# python3 tokenizer.py fails
FAILING = lesson_with("print('vocab:'", "print(undefined_name, 'vocab:'")
# the files whose tests ask where the slip is, and those whose tests ask what the rules answer
SEARCHED = [lesson_with(old, new) for old, new, _ in SLIPS] + [ONE_OFF, HUGE]
RULES_ONLY = ([lesson_with(old, new) for old, new, _ in MISTAKES]
              + [LESSON[:LESSON.index(start)] for start, _ in PART_STARTS]
              + ['', LESSON, UNCLOSED, PRINTS, FAILING])


@functools.lru_cache(maxsize=None)
def checked(search):
    """The tutor's answers for SEARCHED (search) or RULES_ONLY: once, when first asked, each
    rule given RULE_SECONDS. The rules' files are the ones compared under another hash seed:
    the lesson's is among them."""
    readable = [check.readable_part(source) for source in (SEARCHED if search else RULES_ONLY)]
    return check.check_many([source for source, _ in readable], check.lesson(),
                            [broken for _, broken in readable], seconds=RULE_SECONDS,
                            hash_seed=not search, search=search)


def answers_for(text):
    """The tutor's answers for a file holding text, with its slip looked for where its tests ask."""
    if text in SEARCHED:
        return checked(True)[SEARCHED.index(text)]
    return checked(False)[RULES_ONLY.index(text)]


def first_failing(answers):
    return next((name for name in [check.SYNTAX, *rules.PART_OF]
                 if answers.get(name, ['todo'])[0] == 'failed'), None)


def said(answers):
    """Every word the failures hold: their message keys and the messages their fields name."""
    return {value for answer in answers.values() if answer[0] == 'failed'
            for key, fields in answer[1]
            for value in [key, *fields.values()]}


def render_title(part):
    words = catalogs.catalog('en')
    return catalogs.render(words, 'part_title', {'n': str(part), 'title': words[f'part.{part}']})


def wider_than_80(text):
    return [line for line in text.splitlines() if terminal.width(line) > 80]


class RulesTest(unittest.TestCase):
    def test_a_file_that_follows_the_lesson_passes_every_rule(self):
        answers = answers_for(LESSON)
        self.assertEqual({state for state, _ in answers.values()}, {'passed'})

    def test_each_mistake_is_caught_and_its_rule_is_the_first_to_fail(self):
        for old, new, rule in MISTAKES:
            with self.subTest(new):
                self.assertEqual(first_failing(answers_for(lesson_with(old, new))), rule)

    def test_each_common_slip_is_named_by_its_own_words(self):
        for old, new, words in SLIPS:
            with self.subTest(words):
                answers = answers_for(lesson_with(old, new))
                self.assertIn(words, said(answers))

    def test_a_rule_that_calls_a_failing_earlier_part_is_not_checked_and_names_that_part(self):
        # train is wrong
        answers = answers_for(lesson_with('if frequency < 2:', 'if frequency <= 2:'))
        for name in ['rule_state', rules.COMMAND_LINE]:
            self.assertEqual(answers[name], ['not_checked', [['not_checked_part', {'part': '3'}]]])
        self.assertEqual(answers['rule_encode_order'][0], 'passed')  # encode does not call train

    def test_the_lessons_text_says_a_line_end_pair_and_too_few_merges_for_what_they_are(self):
        inside_the_loop = ('            ids = merge(ids, pair, new_id)\n'
                           '            return cls(vocab, merges)')
        for old, new, key in [("if '\\n' not in vocab[a] + vocab[b]", "if vocab[b] != '\\n'",
                               # the pair is there, but the lesson never counts it
                               'lesson_text_newline'),
                              (inside_the_loop.replace('    return', 'return'), inside_the_loop,
                               'lesson_text_fewer')]:  # one merge learned, then returned
            with self.subTest(key):
                self.assertEqual(answers_for(lesson_with(old, new))['rule_lesson_text'][1][0][0],
                                 key)

    def test_a_missing_import_points_to_the_imports(self):
        answers = answers_for(lesson_with('from collections import Counter\n', ''))
        lines = answers[first_failing(answers)][1]
        self.assertIn(['look', {'where': 'part.0'}], lines)
        hint = {'text': 'hint.missing_import', 'line': 'from collections import Counter'}
        self.assertIn(['hint', hint], lines)

    def test_an_endless_loop_in_train_points_at_its_line_in_train(self):
        typed = lesson_with(*SLIPS[6][:2])
        answers = answers_for(typed)
        lines = answers[first_failing(answers)][1]
        where = next(fields for key, fields in lines if key == 'at_line')
        self.assertEqual(where['function'], 'train')
        loop = typed.splitlines().index('        while True:') + 1
        end = typed.splitlines().index('        return cls(vocab, merges)') + 1
        self.assertIn(int(where['line']), range(loop, end))  # in the loop, never in merge
        self.assertIn(['hint', {'text': 'hint.loop_train'}], lines)

    def test_a_comprehension_is_named_by_its_function_on_every_python(self):
        typed = lesson_with('self.chars.get(c, 0)', 'self.chars[c]')
        lines = answers_for(typed)['rule_encode_unknown'][1]
        self.assertIn(['at_line', {'line': str(typed.splitlines().index(
            '        ids = [self.chars[c] for c in text]') + 1), 'function': 'encode'}], lines)

    def test_a_syntax_error_is_filed_under_its_part_and_only_the_parts_before_it_are_checked(self):
        answers = answers_for(UNCLOSED)
        self.assertEqual(check.syntax_part(answers), 4)
        states = {part: {answers[name][0] for name, its in rules.PART_OF.items()
                         if its == part and name in answers}
                  for part in rules.PARTS}
        # no labs beside it
        self.assertEqual([states[part] for part in rules.PARTS if states[part]],
                         [{'passed'}] * 4 + [{'not_checked'}] * 3)  # typed: never TODO

    def test_a_body_typed_at_the_margin_is_filed_under_the_part_of_its_header(self):
        # the line at the margin after class BPE seems to start part 6: cut there, the class or
        # the method would be left without a body, and the rest of the tutor could not read it
        for old, new, part in [('    def __init__', 'def __init__', 2),
                               ('        self.vocab, self.merges', 'self.vocab, self.merges', 2),
                               ('        vocab = [', 'vocab = [', 3)]:
            with self.subTest(new):
                source, broken = check.readable_part(lesson_with(old, new))
                compile(source, 'tokenizer.py', 'exec')
                self.assertEqual(broken[0], part)
                self.assertIn(['look', {'where': f'part.{part}'}], broken[1])
                self.assertIn('merge', check.typed_names(source))  # what the tutor reads next

    def test_parts_not_typed_yet_are_todo_and_the_next_is_named(self):
        for start, typed_up_to in PART_STARTS:
            with self.subTest(part=typed_up_to):
                answers = answers_for(LESSON[:LESSON.index(start)])
                self.assertIsNone(first_failing(answers))
                lines, status = report.report(catalogs.catalog('en'), answers, 'typed.py')
                self.assertEqual(status, report.EXIT_NOT_TYPED)
                title = catalogs.catalog('en')[f'part.{typed_up_to + 1}']
                self.assertEqual(lines[-1], f'next: type part {typed_up_to + 1}, {title}')

    def test_a_child_asked_for_a_value_alone_looks_for_no_slip(self):
        # the hash seed's child: its answer is compared, never shown, and a slip search costs a fork
        searched = checked(True)[SEARCHED.index(ONE_OFF)]['rule_merge_replaces']
        alone = checked(False)[RULES_ONLY.index(ONE_OFF)]['rule_merge_replaces']
        self.assertEqual((searched[0], alone[0]), ('failed', 'failed'))
        self.assertIn('slip_line', [key for key, _ in searched[1]])
        self.assertNotIn('slip_line', [key for key, _ in alone[1]])

    def test_only_the_first_failure_of_a_part_says_where_to_look(self):
        # i += 1 in merge: the rule after the first fails for the same reason, not where its look
        # says
        answers = answers_for(ONE_OFF)
        self.assertEqual([answers[name][0]
                          for name in ['rule_merge_replaces', 'rule_merge_list_pair']],
                         ['failed', 'failed'])
        lines, _ = report.report(catalogs.catalog('en'), answers, 'typed.py')
        merge = lines[lines.index(render_title(1)) + 1:lines.index(render_title(2))]
        self.assertEqual(sum(line.strip().startswith('look at:') for line in merge), 1, merge)

    def test_a_huge_value_your_code_gives_is_shown_by_its_start(self):
        answers = answers_for(HUGE)  # with its slip's lines too
        lines, _ = report.report(catalogs.catalog('en'), answers, 'typed.py')
        self.assertLess(len(lines), 80)
        self.assertEqual(wider_than_80('\n'.join(lines)), [])
        self.assertIn('...]', '\n'.join(lines))

    def test_an_empty_file_is_every_part_todo_and_next_is_part_0(self):
        lines, status = report.report(catalogs.catalog('en'), answers_for(''), 'tokenizer.py')
        self.assertEqual(status, report.EXIT_NOT_TYPED)
        self.assertTrue(lines[-1].startswith('next: type part 0, '), lines[-1])
        self.assertNotIn('OK', '\n'.join(lines))


class ExplainTest(unittest.TestCase):
    def test_each_line_belongs_to_the_part_it_is_in(self):
        lines = LESSON.splitlines()
        for text, part in [('from collections import Counter', 0), ('    result, i = [], 0', 1),
                           ('        self.chars = {', 2), ('        for _ in range(count):', 3),
                           ('        ids = [self.chars.get(c, 0) for c in text]', 4),
                           ("        return {'vocab'", 5), ("    settings = json.loads", 6)]:
            line = next(n for n, code in enumerate(lines, 1) if code.startswith(text))
            self.assertEqual(explain.part_of_line(LESSON, line), part, text)

    def test_a_lab_meeting_an_error_in_tokenizer_py_says_it_as_the_tutor_does(self):
        try:
            exec(compile('def encode():\n    return {}["C"]\nencode()', 'tokenizer.py', 'exec'), {})
        except KeyError as error:
            said = explain.explain(error, 'tokenizer.py', 'def encode():\n    return {}["C"]\n')
        self.assertEqual(said[:3], [['raised', {'error': "KeyError: 'C'"}],
                                    ['at_line', {'line': '2', 'function': 'encode'}],
                                    ['hint', {'text': 'hint.chars_get'}]])


class LabsMeetAnUnfinishedFileTest(unittest.TestCase):
    """A lab calls BPE as the lesson does; the learner's file may not have it all yet."""

    def said_by_a_lab(self, typed, call, stop=Exception, say=errors.learners_error):
        """The lines a lab says when call(tokenizer module) fails on the file typed."""
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        path = os.path.join(folder.name, 'tokenizer.py')
        with open(path, 'w', encoding='utf-8') as file:
            file.write(typed)
        module = types.ModuleType('tokenizer')
        module.__file__ = path
        exec(compile(typed, path, 'exec'), module.__dict__)
        with mock.patch.dict(sys.modules, tokenizer=module):
            try:  # not assertRaises: it drops the traceback, where the lines are found
                call(module)
            except stop as error:
                return say(error)
            self.fail(f'{stop.__name__} not raised')

    def test_a_method_not_typed_yet_is_named_with_its_part(self):
        typed = LESSON[:LESSON.index('    def encode')]
        said = self.said_by_a_lab(typed, lambda module: module.BPE.train('aab', 1).encode('ab'))
        self.assertIn('hint: BPE has no encode yet: type it (part 4) inside class BPE', said)
        self.assertEqual(said[-1], errors.SELFCHECK)

    def test_a_method_typed_outside_the_class_is_said_so(self):
        typed = lesson_with(STATE_IN_CLASS, STATE_OUTSIDE)
        said = self.said_by_a_lab(typed, lambda module: module.BPE.train('aab', 1).state())
        self.assertTrue(any('state is typed outside class BPE' in line for line in said), said)

    def test_a_classmethod_left_out_is_said_where_the_lab_calls_train(self):
        typed = lesson_with('    @classmethod\n', '')
        said = self.said_by_a_lab(typed, lambda module: module.BPE.train('aab', 1))
        self.assertTrue(any('the line above def train must be @classmethod' in line
                            for line in said), said)

    def test_ctrl_c_in_a_loop_that_never_ends_says_where_it_was(self):
        typed = lesson_with('            i += 1\n    return result', '            i += 1\n'
                            '        if i > 3:\n            raise KeyboardInterrupt\n    '
                            'return result')
        code, said, _ = self.said_by_a_lab(typed, lambda module: module.BPE.train('aaaab', 1),
                                           KeyboardInterrupt, cli.ending)
        line = typed.splitlines().index('            raise KeyboardInterrupt') + 1
        train = typed.splitlines().index('            ids = merge(ids, pair, new_id)') + 1
        self.assertEqual((code, said[0], said[-1]), (130, 'interrupted', errors.SELFCHECK))
        self.assertEqual(said[1],
                         f'it was in tokenizer.py, line {train} in train, then line {line} '
                         'in merge: does each of these loops end?')

    def test_a_lab_speaking_korean_says_the_learners_error_and_where_ctrl_c_was_in_korean(self):
        stopped = lesson_with('            i += 1\n    return result', '            i += 1\n'
                              '        if i > 3:\n            raise KeyboardInterrupt\n    '
                              'return result')
        undefined = lesson_with('    result, i = [], 0', '    result, i = [], undefined')
        korean = catalogs.catalog('ko')
        with mock.patch.dict(cli._SPOKEN, words=korean):  # as a lab run with --lang ko has it
            for typed, error in [(stopped, KeyboardInterrupt), (undefined, NameError)]:
                with self.subTest(error.__name__):
                    train = lambda module: module.BPE.train('aaaab', 1)  # noqa: E731
                    _, said, _ = self.said_by_a_lab(typed, train, error, cli.ending)
                    self.assertEqual(said[-1], korean['errors.selfcheck'])
                    self.assertEqual([line for line in said if not measures.HANGUL.search(line)],
                                     [])

    def test_what_train_gives_back_used_as_a_tokenizer_is_said_as_the_tutor_says_it(self):
        for return_line, said in [('        cls(vocab, merges)\n', 'hint: a value is None'),
                                  ('        return vocab, merges\n',
                                   'hint: a tuple where a tokenizer')]:
            with self.subTest(return_line):
                typed = lesson_with('        return cls(vocab, merges)\n', return_line)
                lines = self.said_by_a_lab(typed, lambda module: module.BPE.train('aab', 1).vocab)
                self.assertTrue(any(line.startswith(said) for line in lines), lines)

    def test_an_encode_that_gives_no_list_is_one_line_in_a_lab(self):
        typed = lesson_with('        return ids\n', '\n')
        said = self.said_by_a_lab(typed,
                                  lambda module: lessons.encoded(module.BPE.train('aab', 1), 'ab'),
                                  ValueError, str)
        self.assertEqual(said, 'encode gave None, not a list of ids: python3 -m lab.selfcheck')

    def test_a_lab_that_needs_a_part_not_typed_yet_names_it(self):
        typed = LESSON[:LESSON.index('class BPE:')]
        lines = self.said_by_a_lab(typed, lambda module: exec('from tokenizer import BPE'))
        self.assertEqual(lines, ['tokenizer.py has no BPE yet: the lesson types it in part 2',
                                 errors.SELFCHECK])

    def test_ctrl_c_at_the_top_level_of_the_file_says_its_line(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        path = os.path.join(folder.name, 'tokenizer.py')
        module = types.ModuleType('tokenizer')
        module.__file__ = path
        # as a loop that never ends, stopped
        typed = 'import json\nwhile True: raise KeyboardInterrupt\n'
        with open(path, 'w', encoding='utf-8') as file:
            file.write(typed)
        try:
            exec(compile(typed, path, 'exec'), {})
        except KeyboardInterrupt as error:
            with mock.patch.dict(sys.modules, tokenizer=module):
                said = cli.ending(error)[1]
        self.assertEqual(said[1],
                         'it was in tokenizer.py, line 2 at the top level: does that loop end?')

    def test_an_error_of_the_labs_own_is_not_blamed_on_the_learner(self):
        said = self.said_by_a_lab(LESSON, lambda module: module.BPE.train('aab', 1).no_such_thing())
        self.assertIsNone(said)


def after_main(code):
    """The lesson's file with code run at the end of its __main__ block, as python3 tokenizer.py."""
    return LESSON + ''.join(f'    {line}\n' for line in code.splitlines())


MAIN_BLOCKS = [  # a thread that never ends, an atexit function that never ends, one that ends
    LESSON + ('    import threading, time\n'
              '    forever = lambda: [time.sleep(0.01) for _ in iter(int, 1)]\n'
              '    threading.Thread(target=forever).start()\n'),
    LESSON + ('    import atexit\n    @atexit.register\n    def forever():\n'
              '        while True:\n            pass\n'),
    LESSON + "    import atexit\n    atexit.register(print, 'bye')\n",
    # and a thread started as the file is imported, left asleep for a minute
    LESSON.replace('import json\n', 'import json\nimport threading\nimport time\n'
                   'threading.Thread(target=time.sleep, args=(60,)).start()\n', 1),
]


@functools.lru_cache(maxsize=None)
def main_blocks_that_may_not_end():
    """(the answers for MAIN_BLOCKS, checked together, the seconds that took by the clock): once."""
    started = time.monotonic()
    # 0.1 s a rule: the lesson's main block trains in milliseconds, the atexit loop burns it all
    # (at 0.05 s, the main block with a thread asleep is stopped before it is found never to end)
    answers = check.check_many(MAIN_BLOCKS, check.lesson(), seconds=0.1, hash_seed=False)
    return answers, time.monotonic() - started


@unittest.skipUnless(os.name == 'posix', 'needs POSIX processes')
class HostileLearnerFileTest(unittest.TestCase):
    """The tutor runs code nobody reviewed: whatever it does, the tutor answers in bounded time
    and memory, and nothing it started is left running."""

    @classmethod
    def setUpClass(cls):
        folder = tempfile.TemporaryDirectory()
        cls.addClassCleanup(folder.cleanup)
        cls.pids = os.path.join(folder.name, 'pids')  # of the processes that left the child's group
        # files that end, checked together in one child (no second for the hash seed: not what is
        # tested)
        together = {
            'fifo': after_main("import os\nos.remove('data/tokenizer.json')\n"
                               "os.mkfifo('data/tokenizer.json')"),
            'zero': after_main("import os\nos.remove('data/tokenizer.json')\n"
                               "os.symlink('/dev/zero', 'data/tokenizer.json')"),
            # a million characters as it is imported: far past the 64 KB of each end kept
            'prints': LESSON.replace('import json\n', "import json\nprint('x' * 2**20)\n", 1),
            'huge': LESSON.replace('    result, i = [], 0\n', "    raise ValueError('z' * 2**20)\n",
                                   1),
            'interrupted': LESSON.replace('    result, i = [], 0\n',
                                          '    raise KeyboardInterrupt\n', 1),
            'leaves': (f'import os, time\nif os.fork() == 0:\n    os.setsid()\n'
                       f'    open({cls.pids!r}, "a").write(f"{{os.getpid()}}\\n")\n    '
                       f'time.sleep(60)\n'
                       '    os._exit(0)\n') + LESSON,
            # last: the child has no folder to go on in after it
            'deletes': LESSON.replace('import json\n', 'import json\nimport os\nimport shutil\n'
                                      "shutil.rmtree(os.getcwd(), ignore_errors=True)\n", 1),
        }
        started = time.monotonic()
        answers = check.check_many(list(together.values()), check.lesson(), hash_seed=False)
        cls.answers = dict(zip(together, answers))
        cls.seconds = time.monotonic() - started

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name

    def test_answers_the_learners_code_forges_into_the_answer_pipe_are_not_taken(self):
        # well-formed answers, every rule passed, written to every file the child has open, the
        # answer pipe among them: without the secret it was given before the file ran, none is
        # taken
        passed = ''.join(f'["{"0" * 32}", 0, "{name}", ["passed", null]]\\n'
                         for name in rules.PART_OF)
        forged = LESSON.replace('import json\n', 'import json\nimport os\n'
                                'for fd in range(3, 256):\n'
                                '    try:\n'
                                f"        os.write(fd, b'{passed}')\n"
                                '    except OSError:\n'
                                '        pass\n'
                                'os._exit(0)\n', 1)
        answers = check.check_many([forged], check.lesson(), hash_seed=False)[0]
        self.assertNotIn('passed', {state for state, _ in answers.values()})
        self.assertEqual(answers['rule_imports'][1][0][0], 'could_not_finish')

    @unittest.skipUnless(sys.platform.startswith('linux'), 'finds processes in /proc')
    def test_a_grandchild_in_a_session_of_its_own_with_no_environment_is_killed(self):
        pid_file = Path(self.folder) / 'pid'
        escapes = LESSON.replace('import json\n',
                                 'import json\nimport os\nimport sys\nimport time\n'
                                 'if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n'
                                 f'        open({str(pid_file)!r}, "w").write(str(os.getpid()))\n'
                                 "        os.execve('/bin/sleep', ['sleep', '60'], {})\n    "
                                 "os._exit(0)\n"
                                 'time.sleep(0.5)\n', 1)
        check.check_many([escapes], check.lesson(), hash_seed=False)
        self.assertTrue(pid_file.exists())
        self.assertEqual(still_alive([int(pid_file.read_text())]), [])

    def test_a_message_of_a_megabyte_and_a_keyboardinterrupt_are_said_as_errors_of_the_code(self):
        said = self.answers['huge']['rule_merge_copies'][1][0]
        self.assertEqual(said[0], 'raised')
        self.assertLess(len(said[1]['error']), 400)
        raised = self.answers['interrupted']['rule_merge_copies'][1]
        self.assertEqual(raised[0], ['raised', {'error': 'KeyboardInterrupt'}])
        self.assertEqual(self.answers['interrupted']['rule_init'][0], 'passed')  # on to part 2

    def test_a_thread_the_learner_leaves_running_is_not_waited_for_and_the_command_line_fails(self):
        answers, seconds = main_blocks_that_may_not_end()
        answers = answers[-1]
        self.assertLess(seconds, 20)
        self.assertEqual({name for name, (state, _) in answers.items() if state != 'passed'},
                         {'rule_command_line'})  # which would wait a minute for it as it ends
        self.assertEqual(answers['rule_command_line'][1][0], ['command_never_ends', {}])

    def test_a_tokenizer_json_that_is_a_pipe_or_a_device_is_not_waited_for(self):
        for name in ['fifo', 'zero']:
            answer = self.answers[name][rules.COMMAND_LINE]
            self.assertEqual(answer[0], 'failed')
            self.assertIn(['no_tokenizer_json', {}], answer[1])
        self.assertLess(self.seconds, 30)

    def test_a_million_prints_cost_the_tutor_nothing(self):
        self.assertEqual({state for state, _ in self.answers['prints'].values()}, {'passed'})

    def test_a_file_that_deletes_its_own_folder_gets_an_answer_for_every_rule(self):
        answers = self.answers['deletes']
        # an answer for every rule but the labs' (no labs beside it), of any state but todo
        self.assertEqual(set(answers), set(rules.PART_OF) - set(rules.LABS))
        self.assertLessEqual({state for state, _ in answers.values()},
                             {'passed', 'failed', 'not_checked'})

    def test_a_process_that_leaves_the_childs_group_is_not_waited_for_and_is_killed(self):
        self.assertLess(self.seconds, 30)  # not the child's whole time limit
        self.assertEqual({state for state, _ in self.answers['leaves'].values()}, {'passed'})
        with open(self.pids) as file:
            left = [int(pid) for pid in file.read().split()]
        self.assertTrue(left)
        self.assertEqual(still_alive(left), [])

    def test_a_main_block_that_never_ends_as_python_ends_it_fails_part_6(self):
        answers, _ = main_blocks_that_may_not_end()
        said = [answer['rule_command_line'] for answer in answers]
        at_exit = MAIN_BLOCKS[1]
        self.assertEqual(said[0][1][0], ['command_never_ends', {}])
        self.assertEqual(said[1][0], 'failed')
        # stopped in the loop, and said so: on its `while` line, or on `pass` (Python 3.9 says that)
        loop = at_exit.splitlines().index('        while True:') + 1
        at = [fields for key, fields in said[1][1] if key == 'at_line']
        self.assertIn(at,
                      [[{'line': str(line), 'function': 'forever'}] for line in (loop, loop + 1)])
        self.assertEqual(said[2], ['passed', None])

    def test_code_that_swallows_the_timer_is_ended_by_the_tutor(self):
        typed = LESSON.replace('    result, i = [], 0\n', '    while True:\n        try:\n'
                               '            time.sleep(1)\n        except BaseException:\n'
                               '            pass\n', 1)
        typed = typed.replace('import json\n', 'import json\nimport time\n', 1)
        started = time.monotonic()
        # 0.03 s a rule: the limit fires, is swallowed, fires again: the child answers from there
        answers = check.check_many([typed], check.lesson(), seconds=0.03, hash_seed=False)[0]
        self.assertLess(time.monotonic() - started, 15)
        state, said = answers['rule_merge_copies']
        self.assertEqual(state, 'failed')
        loop = typed.splitlines().index('            time.sleep(1)') + 1
        # where it held on
        self.assertIn(['at_line', {'line': str(loop), 'function': 'merge'}], said)
        self.assertEqual(answers['rule_merge_replaces'],
                         ['not_checked', [['not_checked_stuck', {}]]])

    def test_an_expression_too_deep_for_python_is_one_line(self):
        path = os.path.join(self.folder, 'tokenizer.py')
        with open(path, 'w', encoding='utf-8') as file:
            file.write('x = 1' + ' + 1' * 3000 + '\n' + 'y = ' + '-' * 100_000 + '1\n')
        with self.assertRaises(check.Unreadable) as raised:
            check.check(path)
        self.assertEqual(raised.exception.args[0][0], 'file_too_deep')

    def test_sigterm_ends_the_tutor_at_once_and_its_children_with_it(self):
        # its children run code that swallows their own timer: only the tutor can end them
        path = os.path.join(self.folder, 'swallows.py')
        with open(path, 'w', encoding='utf-8') as file:
            file.write(LESSON.replace('    result, i = [], 0\n', '    while True:\n        try:\n'
                                      '            sum(range(10**6))\n        except '
                                      'BaseException:\n'
                                      '            pass\n', 1))
        english = dict(os.environ, **ENGLISH)
        tutor = subprocess.Popen([sys.executable, '-m', 'lab.selfcheck', path], cwd=ROOT, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=english)
        below = []
        deadline = time.monotonic() + 20
        # the fork server, the waiter and the rules' child (the hash seed's comes after)
        while len(below) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
            below = runner.descendants(tutor.pid)
        started = time.monotonic()
        tutor.send_signal(signal.SIGTERM)
        out, err = tutor.communicate(timeout=60)
        self.assertLess(time.monotonic() - started, 5)  # not the children's time limit
        self.assertEqual((tutor.returncode, err), (143, 'lab.selfcheck: terminated\n'))
        self.assertEqual(len(below), 3)
        self.assertEqual(still_alive(below), [])

    def test_the_lessons_text_moved_away_is_one_line_saying_how_to_get_it_back(self):
        with mock.patch.object(check, 'LESSON', Path(self.folder) / 'lesson_train.txt'):
            code, out, err = run_inside(ROOT, 'selfcheck', '--lang', 'en')
        self.assertEqual((code, out), (1, ''))
        self.assertEqual(err,
                         'lab.selfcheck: lab/lesson_train.txt is missing: git checkout '
                         'restores it\n')

    def test_a_file_to_check_that_is_a_pipe_is_one_line(self):
        path = os.path.join(self.folder, 'tokenizer.py')
        os.mkfifo(path)
        with self.assertRaises(check.Unreadable) as raised:
            check.read(path)
        self.assertEqual(raised.exception.args[0][0], 'file_not_regular')


class BatchFoldersTest(unittest.TestCase):
    def test_the_jobs_of_a_batch_link_the_lessons_files_of_the_first_and_hold_their_own_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            first, second = Path(tmp) / '0', Path(tmp) / '1'
            check.copy_for_check(LESSON, first, 'the text\n')
            check.copy_for_check('# mine\n', second, 'the text\n', like=first)
            for name in ['settings.json', 'data/train.txt']:
                self.assertTrue((first / name).samefile(second / name), name)
            self.assertEqual((second / 'data' / 'train.txt').read_text(encoding='utf-8'),
                             'the text\n')
            self.assertEqual((second / 'tokenizer.py').read_text(encoding='utf-8'), '# mine\n')
            self.assertEqual(json.loads((second / 'settings.json').read_text(encoding='utf-8')),
                             {'merges': rules.LESSON_MERGES})


class SlipsInOneForkTest(unittest.TestCase):
    @unittest.skipUnless(hasattr(os, 'fork'), 'the search runs in the child itself without fork')
    def test_a_fork_a_trial_ends_is_followed_by_another_from_the_next_rule(self):
        def slip_for(name, *_):
            if name == 'ends':  # a trial of the learner's code that ends its process
                os._exit(0)
            return {'rule': name}
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.join(tmp, '0')  # a job's folder, as check_many makes it
            check.copy_for_check(LESSON, Path(folder), check.lesson())
            failed = [(name, ['failed', []], 1, set(), set(), True, [])
                      for name in ['a', 'ends', 'b']]
            with mock.patch.object(child, 'slip_for', slip_for), \
                    mock.patch.object(child.slip_lines, 'said', lambda lines, slip: slip), \
                    working_in(Path(folder)):
                named = list(child.named_slips([(0, folder, LESSON, None, failed)]))
        self.assertEqual(named, [(0, 'a', ['failed', {'rule': 'a'}]),
                                 (0, 'b', ['failed', {'rule': 'b'}])])

    def test_the_trials_of_every_job_of_a_child_run_in_one_folder_beside_the_jobs(self):
        def slip_for(name, names, folder, *_):
            return {'job': os.path.basename(folder), 'in': os.getcwd()}
        with tempfile.TemporaryDirectory() as tmp:
            searches = []
            for job in range(3):
                folder = os.path.join(tmp, str(job))  # as check_many makes them
                check.copy_for_check(LESSON, Path(folder), check.lesson())
                searches.append((job, folder, LESSON, None,
                                 [('a', ['failed', []], 1, set(), set(), True, [])]))
            with mock.patch.object(child, 'slip_for', slip_for), \
                    mock.patch.object(child.slip_lines, 'said', lambda lines, slip: slip), \
                    working_in(Path(tmp)):
                named = list(child.named_slips(searches))
            self.assertEqual([(job, said['job'], said['in']) for job, _, (_, said) in named],
                             [(job, str(job), os.path.join(tmp, 'trials-0')) for job in range(3)])
            self.assertEqual(sorted(os.listdir(tmp)), ['0', '1', '2', 'trials-0'])


class CommandLineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # the lesson's three labs, which the tutor checks beside the file; the rest of lab/ is
        # ours, imported from the path even by the tutor's own process (ours_on_path)
        cls.root = copy_project(cls, PARTS + LESSON_LABS)
        # the run that waits on the tutor's children, begun now, taken by its test
        cls.runs = {'watch': started(watch_a_learner_typing, cls.root)}

    def test_a_correct_file_passes_with_prints_of_any_kind_in_it(self):
        self.assertEqual({state for state, _ in answers_for(PRINTS).values()}, {'passed'})

    def test_a_failing_command_line_names_the_file_not_a_temporary_folder(self):
        # the child runs python3 tokenizer.py in a temporary folder of its own
        lines, code = report.report(catalogs.catalog('ko'), answers_for(FAILING), 'failing.py')
        out = '\n'.join(lines)
        self.assertEqual(code, 1)
        self.assertIn("NameError: name 'undefined_name' is not", out)
        self.assertIn('failing.py', out)
        self.assertNotIn(tempfile.gettempdir(), out)
        self.assertEqual(wider_than_80(out), [])

    def test_a_file_that_is_not_there_or_not_utf8_is_one_line_in_the_learners_language(self):
        (self.root / 'cp949.py').write_bytes('# 한국어\n'.encode('cp949'))
        for name, said in [('nope.py', 'nope.py 파일이 없습니다'),
                           ('cp949.py', 'UTF-8이 아닙니다 (1번째 줄)'), ('data', '폴더입니다')]:
            with self.subTest(name):
                # no child: nothing to run
                done = inside(self.root, 'selfcheck', name, '--lang', 'ko')
                self.assertEqual((done.returncode, len(messages(done.stderr))), (1, 1), done.stderr)
                self.assertIn(said, done.stderr)
                self.assertEqual(wider_than_80(done.stderr), [])

    def test_an_unknown_argument_or_language_is_said_in_the_learners_language(self):
        for args, said in [(['--bogus'], '알 수 없는 인자입니다: --bogus'),
                           (['--lang', 'jp'], '--lang에는')]:
            with self.subTest(args):
                done = inside(self.root, 'selfcheck', *args, env={'LANG': 'ko_KR.UTF-8'})
                self.assertEqual(done.returncode, 2)
                self.assertIn(said, done.stderr)
                self.assertIn('사용법:', done.stderr)

    def test_a_terminal_that_cannot_show_korean_gets_english_and_a_line_saying_why(self):
        code, out, err = run_inside(self.root, 'selfcheck', '--lang', 'ko', encoding='ascii')
        done = types.SimpleNamespace(returncode=code, stdout=out, stderr=err)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("encoding, ascii, cannot show Korean", done.stdout.splitlines()[0])
        self.assertIn('checking tokenizer.py against the lesson', done.stdout)
        # no Korean as escapes: the rules' own \ufffd only
        self.assertNotRegex(done.stdout, r'\\u(?!fffd)')
        self.assertEqual(wider_than_80(done.stdout), [])

    def test_help_is_the_catalogs_within_80_columns_and_says_what_each_exit_status_means(self):
        help_ko = inside(self.root, 'selfcheck', '--help', '--lang', 'ko').stdout
        self.assertEqual(help_ko, catalogs.catalog('ko')['help'] + '\n')
        for lang in catalogs.languages():
            with self.subTest(lang):
                shown = catalogs.catalog(lang)['help']
                self.assertEqual(wider_than_80(shown), [])
                for status in ['0', '1', '3']:
                    self.assertIn(status, shown[shown.index('--help'):])

    @unittest.skipUnless(hasattr(signal, 'SIGINT') and os.name == 'posix', 'needs POSIX signals')
    def test_watch_checks_again_when_the_file_is_saved_and_ctrl_c_ends_it(self):
        seen, code, err = self.runs['watch'].result(timeout=300)
        words = catalogs.catalog('ko')
        nexts = [line for line in seen if line.startswith(words['next_part'].split(':')[0])]
        self.assertEqual([line.split('.')[0][-1] for line in nexts], ['0'])
        self.assertIn(words['all_hold'], seen)
        self.assertEqual((code, err), (130, f"lab.selfcheck: {words['interrupted']}\n"))


def watch_a_learner_typing(root):
    """(the lines the tutor showed, its exit status, its stderr) while a learner, watched with
    --watch, starts with an empty file (nothing to run: no child), saves the whole file and
    presses Ctrl-C."""
    path = root / 'watched.py'
    path.write_text('', encoding='utf-8')
    command_line = [sys.executable, '-m', 'lab.selfcheck', 'watched.py', '--watch', '--lang', 'ko']
    process = subprocess.Popen(command_line, cwd=root, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE,
                               text=True, env=ours_on_path({'PYTHONIOENCODING': 'utf-8'}),
                               preexec_fn=as_a_terminal_starts_it)
    seen = []
    watching = catalogs.catalog('ko')['watching']
    # a tutor that goes silent is ended, and the test fails
    stuck = threading.Timer(120, process.kill)
    stuck.start()

    def read_through(last):
        """The lines shown, up to and with last (the tutor watching again); an error, not a wait
        without end, when the tutor has ended instead."""
        while last not in seen[-1:]:
            line = process.stdout.readline()
            if not line:
                process.kill()
                raise AssertionError(f'the tutor ended: {process.communicate()[1][-1000:]}')
            seen.append(line.rstrip('\n'))
    try:
        read_through(watching)  # the check of the empty file has ended
        time.sleep(0.05)
        path.write_text(LESSON, encoding='utf-8')
        seen.append(process.stdout.readline().rstrip('\n'))
        read_through(watching)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        stuck.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
    return seen, process.returncode, err


# the course's material, where it sits beside us
SHARED_CODE = ROOT.parent / 'shared' / 'lesson' / 'code'


class WatchTest(unittest.TestCase):
    def test_saving_a_lab_of_the_lesson_is_seen_as_saving_the_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'tokenizer.py'
            path.write_text(LESSON, encoding='utf-8')
            before = command.saved(command.watched(path))
            (Path(tmp) / 'lab').mkdir()
            typed = 'from tokenizer import BPE\n'
            (Path(tmp) / 'lab' / 'unknown.py').write_text(typed, encoding='utf-8')
            after = command.saved(command.watched(path))
            self.assertNotEqual(before, after)
            self.assertEqual(after, command.saved(command.watched(path)))  # nothing saved: the same


    def test_a_file_checked_again_unchanged_gets_the_same_answers_without_a_child(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / 'tokenizer.py'
            path.write_text(LESSON, encoding='utf-8')
            (Path(tmp) / 'settings.json').write_text('{"merges": 12}', encoding='utf-8')
            every_rule_held = {name: ['passed', None] for name in rules.PART_OF}
            with mock.patch.object(check, 'check_many',
                                   return_value=[every_rule_held]) as children, \
                    mock.patch.dict(check.CHECKED, clear=True):
                first = check.check(path)
                # what a caller does to its answers stays its own
                first['rule_imports'][0] = 'failed'
                self.assertEqual(check.check(path), every_rule_held)
                self.assertEqual(children.call_count, 1)
                path.write_text(LESSON + '# saved again\n', encoding='utf-8')
                check.check(path)
                self.assertEqual(children.call_count, 2)

class LessonCopyTest(unittest.TestCase):
    @unittest.skipUnless(SHARED_CODE.is_dir(), "the course's material is not beside the project")
    def test_the_tutors_lesson_is_the_lessons_four_files_byte_for_byte(self):
        # what the tutor quotes as the lesson's way of writing a line must be what the lesson prints
        for name in ['tokenizer.py', 'lab/bpe_trace.py', 'lab/unknown.py', 'lab/token_count.py']:
            with self.subTest(name):
                self.assertEqual((LESSON_FILES / name).read_bytes(),
                                 (SHARED_CODE / name).read_bytes())

    def test_the_other_ways_of_writing_are_other_ways_not_the_lessons_own(self):
        other = (LESSON_FILES / 'other_ways.py').read_text(encoding='utf-8')
        self.assertNotIn(LESSON[LESSON.index('    @classmethod'):LESSON.index('    def encode')],
                         other)


class LanguageTest(unittest.TestCase):
    def test_the_language_is_the_last_lang_else_the_locale_as_gettext_reads_it(self):
        korean = 'ko_KR.UTF-8'
        for env, args, language in [
                ({'LANG': korean}, [], 'ko'), ({'LC_ALL': korean, 'LANG': 'C'}, [], 'ko'),
                ({'LC_MESSAGES': korean}, [], 'ko'), ({'LANGUAGE': 'en', 'LANG': korean}, [], 'en'),
                ({'LANGUAGE': '', 'LANG': korean}, [], 'ko'), ({'LANGUAGE': 'ko:en'}, [], 'ko'),
                ({'LANGUAGE': 'fr:ko'}, [], 'ko'), ({'LANGUAGE': 'kok_IN'}, [], 'en'),
                ({'LANG': 'kok_IN.UTF-8'}, [], 'en'), ({'LANG': korean}, ['--lang', 'en'], 'en'),
                ({'LANG': 'C'}, ['--lang=ko'], 'ko'), ({}, ['--lang=ko', '--lang=en'], 'en'),
                ({}, [], 'en'),
                ({}, ['--lang', 'KO'], 'ko'), ({}, ['--lang', 'ko_KR.UTF-8'], 'ko'),
                ({}, ['--lang', 'ko-KR'], 'ko'), ({'LANG': 'KO_KR.UTF-8'}, [], 'ko')]:
            with self.subTest(env=env, args=args):
                self.assertEqual(catalogs.language(args, env), language)

    def test_the_languages_are_the_files_of_lab_locale(self):
        files = (ROOT / 'lab' / 'locale').glob('*.json')
        self.assertEqual(catalogs.languages(), sorted(p.stem for p in files))


class CatalogTest(unittest.TestCase):
    def test_every_message_exists_in_every_language_with_the_same_fields(self):
        en = catalogs.load('en')
        for lang in catalogs.languages():
            words = catalogs.load(lang)
            self.assertEqual(sorted(words), sorted(en), lang)
            for key in en:
                with self.subTest(lang, key=key):
                    fields = [sorted({f for _, f, _, _ in string.Formatter().parse(text[key]) if f})
                              for text in (en, words)]
                    self.assertEqual(fields[0], fields[1])

    def test_every_key_the_tutor_names_has_its_words(self):
        en = catalogs.load('en')
        keys = [f'rule.{name}' for name in [*rules.PART_OF, check.SYNTAX]]
        keys += [f'part.{p}' for p in rules.PARTS]
        keys += [f'error.{kind}' for kind in explain.KNOWN_ERRORS]
        for path in (ROOT / 'lab' / 'selfcheck').glob('*.py'):
            keys += re.findall(r"'((?:look|hint)\.\w+)'", path.read_text(encoding='utf-8'))
        self.assertEqual([key for key in keys if key not in en], [])

    def test_no_english_sentence_is_left_in_korean(self):
        # a Korean message without Hangul is code: every word in it is a name the code uses
        code = set(keyword.kwlist) | set(dir(__builtins__)) | set(re.findall(r'\w+', LESSON))
        code |= {'python3', 'PYTHONHASHSEED', 'ensure_ascii', 'json', 'dumps', 'ko', 'en', 'ufffd',
                 'n'}
        for key, text in catalogs.load('ko').items():
            # the fields filled in (argparse's: %s)
            text = re.sub(r'\{\w+\}|%\(\w+\)[sr]|%[sr]', '', text)
            if not measures.HANGUL.search(text):
                with self.subTest(key):
                    words = re.findall(r'[A-Za-z_]\w*', text)
                    self.assertEqual([word for word in words if word not in code], [])

    def test_a_damaged_catalog_falls_back_to_english_for_what_it_lacks(self):
        locale = self.locale_copy()
        ko = json.loads((locale / 'ko.json').read_text(encoding='utf-8'))
        del ko['summary']
        ko['heading'] = ['fine', 3]  # a wrong type
        # with a byte order mark, as Notepad saves
        saved = '\ufeff' + json.dumps(ko, ensure_ascii=False)
        (locale / 'ko.json').write_text(saved, encoding='utf-8')
        with mock.patch.object(catalogs, 'LOCALE', locale):
            words = catalogs.catalog('ko')
            every_rule_held = {name: ['passed', None] for name in rules.PART_OF}
            lines, status = report.report(words, every_rule_held, 'tokenizer.py')
        self.assertEqual(status, 0)
        every = len(rules.PART_OF)  # the project's own files: every rule holds, the labs' too
        # the summary in English, as the catalog has it
        self.assertIn(f'{every} of the {every} rules of the parts you typed hold', lines)
        self.assertEqual(words['part.1'], ko['part.1'])  # Korean for the rest

    def test_a_catalog_that_cannot_be_read_is_one_line_naming_it(self):
        locale = self.locale_copy()
        (locale / 'en.json').write_text('{"heading": ', encoding='utf-8')
        with mock.patch.object(catalogs, 'LOCALE', locale):
            code, out, err = run_inside(ROOT, 'selfcheck')
        self.assertEqual((code, len(messages(err))), (1, 1), err)
        self.assertIn('en.json', err)

    def locale_copy(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        locale = Path(folder.name)
        for path in catalogs.LOCALE.glob('*.json'):
            (locale / path.name).write_bytes(path.read_bytes())
        return locale


if __name__ == '__main__':
    unittest.main()
