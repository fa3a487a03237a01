"""The tutor reads a file in any state of typing: code typed in the wrong place, a line indented
less than its neighbours, a body not typed yet, what a terminal or a web page pasted along
with the code, two slips at once; and the files around it: tokenizer.py saved under another
name, a settings.json python3 tokenizer.py cannot read, a lab that prints more than the
lesson's. Each is named with its line, or its file, and what to do about it.

The files here are checked in one batch (check.check_many), once, by the first test that asks."""
import functools
import os
import tempfile
import unittest
from pathlib import Path

from lab.selfcheck import check, labs, rules
from tests.project import LESSON_FILES, RULE_SECONDS

LESSON = (LESSON_FILES / 'tokenizer.py').read_text(encoding='utf-8')
LINES = LESSON.splitlines(keepends=True)
MAIN = LESSON.index('\n\nif __name__')
STATE = LESSON[LESSON.index('    def state'):MAIN]
DECODE = "        return ''.join(self.vocab[i] for i in ids)"


def shifted(first, last, spaces):
    """The lesson's file with its lines first..last (counted from 1) indented spaces more."""
    return ''.join(' ' * spaces + line if first <= n <= last and line.strip() else line
                   for n, line in enumerate(LINES, 1))


def line_changed(n, change):
    """The lesson's file with its line n given to change."""
    return ''.join(change(line) if i == n else line for i, line in enumerate(LINES, 1))


TYPED = {
    'encode inside train': shifted(42, 46, 4),
    'state inside decode': shifted(51, 52, 4),
    'state inside the main block': LESSON[:LESSON.index('    def state')] + LESSON[MAIN + 2:] + '\n'
    + STATE.rstrip('\n') + '\n',
    'merges = [] dedented': line_changed(27, lambda line: line[4:]),
    'decode typed as pass': LESSON.replace(DECODE, '        pass'),
    'decode typed as ...': LESSON.replace(DECODE, '        ...'),
    'encode pasted with prompts': ''.join(
        ('>>> ' if n == 42 else '... ') + line if 42 <= n <= 46 else line
        for n, line in enumerate(LINES, 1)),
    'line numbers pasted': ''.join(f'{n} {line}' for n, line in enumerate(LINES, 1)),
    'output pasted': LESSON + 'vocab: 100 merges: 72\nroundtrip: OK [1, 2]\n',
    'a BOM inside': line_changed(27, lambda line: line[:8] + '\ufeff' + line[8:]),
    'two slips': LESSON.replace('            i += 2', '            i += 1')
                       .replace('vocab[pair[0]] + vocab[pair[1]]',
                                'vocab[pair[0]] + vocab[pair[0]]'),
    'the second of two slips': LESSON.replace('vocab[pair[0]] + vocab[pair[1]]',
                                              'vocab[pair[0]] + vocab[pair[0]]'),
    "'/n' in a statement of two lines": LESSON.replace("if '\\n' not in", "if '/n' not in"),
}


def check_all():
    readable = [check.readable_part(source) for source in TYPED.values()]
    answers = check.check_many([text for text, _ in readable], check.lesson(),
                               [broken for _, broken in readable],
                               seconds=RULE_SECONDS, hash_seed=False)
    return dict(zip(TYPED, answers))


checked = functools.lru_cache(maxsize=None)(check_all)  # once, when first asked


def first_said(case):
    """(the rule, its state, the lines it says) of the first rule not passed,
    in the report's order."""
    answers = checked()[case]
    order = [check.SYNTAX, *rules.PART_OF]
    name = min((name for name, (state, _) in answers.items() if state in ('failed', 'todo')),
               key=order.index)
    return name, answers[name][0], answers[name][1] or []


def hint(case):
    """The hint the first FAILED of case gives, as {field: value}, its key as 'text'."""
    return next(fields for key, fields in first_said(case)[2] if key == 'hint')


class WrongPlaceTest(unittest.TestCase):
    def test_a_method_typed_inside_another_is_named_with_how_far_to_move_it(self):
        said = hint('encode inside train')
        self.assertEqual(said,
                         {'text': 'hint.def_inside', 'name': 'encode', 'line': '42',
                          'inside': 'train', 'spaces': '4', 'part': '4'})
        self.assertEqual(hint('state inside decode')['inside'], 'decode')

    def test_a_method_typed_in_the_main_block_is_named_with_where_it_belongs(self):
        said = hint('state inside the main block')
        self.assertEqual((said['text'], said['name'], said['where']),
                         ('hint.def_in_main', 'state', 'place.class'))
        typed = TYPED['state inside the main block'].splitlines()
        self.assertEqual(typed[int(said['line']) - 1], '    def state(self):')

    def test_a_line_indented_less_than_its_neighbours_is_named_not_the_line_after_it(self):
        self.assertEqual(hint('merges = [] dedented'),
                         {'text': 'hint.dedented', 'line': '27', 'spaces': '4'})


class NotTypedYetTest(unittest.TestCase):
    def test_a_body_of_pass_or_ellipsis_is_not_typed_yet_and_nothing_fails_for_it(self):
        for case in ['decode typed as pass', 'decode typed as ...']:
            with self.subTest(case):
                answers = checked()[case]
                self.assertEqual(first_said(case)[:2], ('rule_decode', 'todo'))
                self.assertNotIn('failed', {state for state, _ in answers.values()})

    def test_a_rule_of_a_typed_part_is_never_todo(self):
        for case, answers in checked().items():
            with self.subTest(case):
                todo = {rules.PART_OF.get(name)
                        for name, (state, _) in answers.items() if state == 'todo'}
                self.assertLessEqual(todo, {5} if 'decode typed' in case else set())


class PastedTest(unittest.TestCase):
    def test_prompts_pasted_with_the_code_are_named_by_their_lines(self):
        self.assertEqual(hint('encode pasted with prompts'),
                         {'text': 'hint.pasted_prompt', 'lines': '42-46'})

    def test_line_numbers_of_a_web_page_are_named_by_their_lines(self):
        self.assertEqual(hint('line numbers pasted'),
                         {'text': 'hint.pasted_numbers', 'lines': f'1-{len(LINES)}'})

    def test_what_the_terminal_printed_is_named_as_lines_to_delete(self):
        self.assertEqual(hint('output pasted'),
                         {'text': 'hint.pasted_output',
                          'lines': f'{len(LINES) + 1}-{len(LINES) + 2}'})

    def test_a_bom_inside_the_file_is_to_be_deleted_not_replaced(self):
        said = hint('a BOM inside')
        self.assertEqual((said['text'], said['line'], said['column'], said['ascii']),
                         ('hint.keyboard_invisible', '27', '9', ''))


class SlipsTest(unittest.TestCase):
    def test_of_two_slips_the_first_failed_names_the_first(self):
        name, state, said = first_said('two slips')
        self.assertEqual((rules.PART_OF[name], state), (1, 'failed'), said)
        self.assertIn(['slip_line', {'line': '11', 'code': 'i += 1'}], said)

    def test_once_the_first_is_fixed_the_next_run_names_the_second(self):
        said = first_said('the second of two slips')[2]
        self.assertIn('37', [fields['line'] for key, fields in said if key == 'slip_line'], said)

    def test_a_statement_over_two_lines_is_shown_whole_named_by_the_line_that_differs(self):
        said = dict(first_said("'/n' in a statement of two lines")[2])
        self.assertIn('slip_line', said, said)
        self.assertEqual(said['slip_line']['line'], '30')
        self.assertTrue(said['slip_line']['code'].startswith('pairs = Counter('))
        self.assertIn("'/n' not in", said['slip_line']['code'])
        self.assertEqual(said['slip_differs'], {'here': "'/n'", 'there': "'\\n'"})


class FilesAroundTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        (self.root / 'lab').mkdir()
        (self.root / 'data').mkdir()
        # no tokenizer.py
        (self.root / 'data' / 'tokenizer.json').write_text('{}', encoding='utf-8')
        here = os.getcwd()
        os.chdir(self.root)
        self.addCleanup(os.chdir, here)

    def misplaced(self, saved_as):
        (self.root / saved_as).write_text(LESSON, encoding='utf-8')
        with self.assertRaises(check.Unreadable) as said:
            check.read('tokenizer.py')
        return said.exception.args[0]

    def test_tokenizer_py_saved_as_text_is_named_with_the_mv_that_fixes_it(self):
        self.assertEqual(self.misplaced('tokenizer.py.txt'), ['file_misplaced', {
            'file': 'tokenizer.py', 'found': 'tokenizer.py.txt',
            'command': 'mv tokenizer.py.txt tokenizer.py'}])

    def test_tokenizer_py_saved_in_lab_is_named_with_the_mv_that_fixes_it(self):
        self.assertEqual(self.misplaced('lab/tokenizer.py')[1]['command'],
                         'mv lab/tokenizer.py tokenizer.py')

    def test_no_tokenizer_py_anywhere_is_said_as_missing(self):
        with self.assertRaises(check.Unreadable) as said:
            check.read('tokenizer.py')
        # data/tokenizer.json is no tokenizer.py
        self.assertEqual(said.exception.args[0][0], 'file_missing')

    def test_settings_json_that_is_not_json_is_named_with_its_line_and_column(self):
        (self.root / 'settings.json').write_text('{\n  "merges": 12,\n}\n', encoding='utf-8')
        self.assertEqual(check.settings_said(self.root / 'settings.json'),
                         ['settings_json', {'line': '3', 'column': '1', 'text': 'json.key'}])

    def test_settings_json_without_a_whole_number_of_merges_is_said(self):
        for written in ['{"merges": "12"}', '{"merge": 12}', '[12]', '{"merges": -1}']:
            with self.subTest(written):
                (self.root / 'settings.json').write_text(written, encoding='utf-8')
                self.assertEqual(check.settings_said(self.root / 'settings.json'),
                                 ['settings_merges', {}])
        (self.root / 'settings.json').write_text('{"merges": 12}', encoding='utf-8')
        self.assertIsNone(check.settings_said(self.root / 'settings.json'))

    def test_a_labs_line_is_numbered_as_its_own_output_is(self):
        got = ['my trace', '========', 'start: l|o|w 4', "'l' + 'o' -> lo|w 2"]
        want = ['start: l|o|w 3', "'l' + 'o' -> lo|w 2"]
        said = dict(labs.differs('bpe_trace', got, want)[:2])
        self.assertEqual(said['lab_line'], {'n': '3', 'got': repr('start: l|o|w 4')})


if __name__ == '__main__':
    unittest.main()
