"""The tutor finds the slip it has no hint for: the line of tokenizer.py that differs from the
lesson's way of writing it, a character a Korean keyboard typed, a lab typed wrong or saved
in the wrong place; and it says so on a screen of 24 lines, under any locale.

The files here are checked in one batch (check.check_many), once, by the first test that asks."""
import ast
import copy
import functools
import io
import os
import random
import subprocess
import sys
import tokenize
import unittest

from lab.learner import catalogs
from lab.selfcheck import check, compare, labs, locate, report, rules, written
from tests.project import (
    LESSON_FILES,
    ROOT,
    RULE_SECONDS,
    copy_project,
    run_inside,
    use_lesson_files,
)

LESSON = (LESSON_FILES / 'tokenizer.py').read_text(encoding='utf-8')
OPERATORS = {'<': ['<=', '>'], '<=': ['<'], '==': ['!='], '+': ['-'], '+=': ['-=']}
NAMES = ['ids', 'pair', 'new_id', 'vocab', 'text', 'result', 'i', 'count', 'merges', 'chars',
         'merge']


def single_token_changes(source, seed, count):
    """(the line changed, the file) for count seeded changes of one token of source: a number one
    off, an operator for another, a name for another name of the file, a statement left out."""
    lines = source.splitlines(keepends=True)
    changes = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        (row, start), (_, end) = token.start, token.end
        others = []
        if token.type == tokenize.NUMBER:
            others = [str(int(token.string) + 1), str(max(int(token.string) - 1, 0))]
        elif token.type == tokenize.OP:
            others = OPERATORS.get(token.string, [])
        elif token.type == tokenize.NAME and token.string in NAMES:
            others = NAMES
        for other in others:
            if other != token.string:
                line = lines[row - 1]
                changed = line[:start] + other + line[end:]
                changes.append((row, ''.join(lines[:row - 1] + [changed] + lines[row:])))
    for row, line in enumerate(lines, 1):
        if line.strip() and not line.rstrip().endswith(':'):
            changes.append((row, ''.join(lines[:row - 1] + lines[row:])))
    return random.Random(seed).sample(changes, count)


CHANGES = single_token_changes(LESSON, 31, 30)
# (the change to the lesson's file, a piece of the line the first FAILED must name, words it must
# hold)
SLIPS = [
    # not the list-with-tuple hint: the slice is one wide
    ('i:i + 2]', 'i:i + 1]', 'i:i + 1]', 'i + 2'),
    ('result.append(new_id)', 'result.append(pair)', 'append(pair)', 'new_id'),
    ('zip(ids, ids[1:])', 'zip(ids, ids[:1])', 'ids[:1]', 'zip(ids, ids[1:])'),
    ('            ids = merge(ids, pair, new_id)\n        return ids',
     '            merge(ids, pair, new_id)\n        return ids',
     '            merge(ids, pair, new_id)\n        return ids', 'ids = merge(ids, pair, new_id)'),
    ('def __init__(self, vocab, merges):', 'def __init__(vocab, merges):', 'def __init__',
     'self, vocab, merges'),
    ('def encode(self, text):', 'def encode(text):', 'def encode', 'self, text'),
    ('@classmethod', '@staticmethod', '@staticmethod', 'classmethod'),
    ("return {'vocab': self.vocab, 'merges': self.merges}", 'return self.vocab, self.merges',
     'return self.vocab, self.merges', 'gave_not_dict'),
    ('pairs.most_common(1)[0]', 'pairs.most_common(1)[0][0]', 'most_common(1)[0][0]',
     'pairs.most_common(1)[0]'),
    ('zip(ids, ids[1:])', 'zip(text, text[1:])', 'zip(text', 'zip(ids, ids[1:])'),
    ('merges.append([list(pair), new_id])', 'merges.append((pair, new_id))', 'merges.append((pair',
     '[list(pair), new_id]'),
    ('            result.append(new_id)', '            result = result + [new_id]',
     'result = result + [new_id]',
     'look.merge_in_time'),
    ('            i += 1\n    return', '        i += 1\n    return', '        i += 1\n    return',
     'slip_shallower'),  # out of the else
    ('            new_id = len(vocab)\n            vocab.append(vocab[pair[0]] + vocab[pair[1]])',
     '            vocab.append(vocab[pair[0]] + vocab[pair[1]])\n            new_id = len(vocab)',
     '            new_id = len(vocab)', 'slip_moved'),
]
# (the change, the key of the hint, the line and column it names, the ASCII to type)
TYPED_KEYS = [
    ('def merge(ids,', 'def merge（ids,', 'hint.keyboard_fullwidth', '6', '10', '('),
    ('new_id):\n    result', 'new_id)：\n    result', 'hint.keyboard_fullwidth', '6', '29', ':'),
    ('result, i = [], 0', 'result, i = [],\u30000', 'hint.keyboard_space', '7', '20', ' '),
    ('    result, i', '\u00a0\u00a0\u00a0\u00a0result, i', 'hint.keyboard_space', '7', '1', ' '),
    ("['\\ufffd'] + sorted", "[‘\\ufffd’] + sorted", 'hint.keyboard_quote', '25', '18', "'"),
    ('            i += 2', '            ㅑ += 2', 'hint.keyboard_jamo', '11', '13', 'i'),
]


def typed(old, new):
    assert old in LESSON, old
    return LESSON.replace(old, new, 1)


def line_of(text, piece):
    """The number of the line of text where piece starts."""
    return text[:text.index(piece)].count('\n') + 1


def check_all():
    sources = [source for _, source in CHANGES] + [typed(old, new)
                                                   for old, new, *_ in SLIPS + TYPED_KEYS]
    readable = [check.readable_part(source) for source in sources]
    texts, broken = [text for text, _ in readable], [broken for _, broken in readable]
    # where each slip is found is the question: the hash seed's child is tests/test_selfcheck.py's
    return check.check_many(texts, check.lesson(), broken, seconds=RULE_SECONDS, hash_seed=False)


checked = functools.lru_cache(maxsize=None)(check_all)  # once, when first asked


def first_failed(answers):
    """(the rule, the lines it says) of the first FAILED, in the order the report shows them."""
    order = [check.SYNTAX, *rules.PART_OF]
    failed = [name for name, (state, _) in answers.items() if state == 'failed']
    name = min(failed, key=order.index, default=None)
    return name, (answers[name][1] if name else [])


def named_line(said):
    """The line a FAILED names as the slip's: the slip's own, else Python's."""
    for keys in [('slip_line', 'slip_missing'), ('at_line', 'at_line_only')]:
        lines = [int(fields['line']) for key, fields in said if key in keys]
        if lines:
            return lines[0]
    return None


class LocateTest(unittest.TestCase):
    def test_the_slip_of_a_generated_one_token_change_is_located_at_its_line(self):
        answers = checked()[:len(CHANGES)]
        caught = located = 0
        for (line, _), found in zip(CHANGES, answers):
            name, said = first_failed(found)
            if name is None:
                continue
            caught += 1
            missing = [int(f['line']) for key, f in said if key == 'slip_missing']
            imports = any(key == 'hint' and f['text'] == 'hint.missing_import' for key, f in said)
            located += (named_line(said) == line or
                        bool(missing) and missing[0] in (line - 1, line) or imports)
        self.assertGreater(caught, 25)
        self.assertGreaterEqual(located / caught, 0.95)

    def test_each_slip_is_named_with_its_line_beside_the_lessons_and_what_differs(self):
        answers = checked()[len(CHANGES):]
        for (old, new, piece, words), found in zip(SLIPS, answers):
            with self.subTest(new):
                name, said = first_failed(found)
                self.assertEqual(named_line(said), line_of(typed(old, new), piece), said)
                shown = {value for key, fields in said for value in [key, *fields.values()]}
                self.assertTrue(any(words in value for value in shown), said)

    def test_a_look_the_slip_makes_wrong_is_left_out(self):
        found = checked()[len(CHANGES)]  # the one-wide slice: merge changed nothing
        self.assertNotIn('look.merge_list_tuple',
                         {f.get('where') for _, f in first_failed(found)[1]})

    def test_names_of_ones_own_and_other_spacing_are_no_differences(self):
        mine = LESSON.replace('result', 'out').replace('ids[i:i + 2]', 'ids[i : i+2]')
        mine = mine.replace('        vocab = ', '        # the base vocabulary\n        vocab = ')
        self.assertIsNone(locate.locate(mine))
        split = mine.replace('    out, i = [], 0\n', '    out = []\n    i = 0\n')
        self.assertIsNone(locate.locate(split))
        slip = split.replace('out.append(new_id)', 'out.append(pair)')
        self.assertEqual(locate.locate(slip)['line'], 11)

    def test_a_file_in_another_way_of_writing_is_compared_with_that_way(self):
        other = (LESSON_FILES / 'other_ways.py').read_text(encoding='utf-8')
        slip = other.replace('if counts[pair] < 2:', 'if counts[pair] < 1:', 1)
        line = other[:other.index('if counts[pair] < 2:')].count('\n') + 1
        self.assertEqual(locate.locate(slip, parts={3})['line'], line)

    def test_a_helper_of_ones_own_in_place_of_a_line_of_the_lessons_is_the_line_that_differs(self):
        helper = LESSON.replace('        ids = [vocab.index(c) for c in text]',
                                '        def index(c):\n            return vocab.index(c)\n'
                                '        ids = [index(c) for c in text]')
        self.assertEqual(locate.locate(helper)['yours'], 'def index(c):')

    def test_a_line_read_under_other_names_is_the_line_written_with_them(self):
        # written.code writes a line out once and puts the names in on each reading; f-strings
        # with a NUL or inside another are written out each time
        fstrings = "s = f'{a}\\0{b}\\0'\nt = f\"({','.join([f'{o}.{f}' for f in c])})\"\n"
        rename = {'ids': 'tokens', 'pair': 'p', 'a': 'x', 'f': 'g'}.get
        for source in [LESSON, fstrings]:
            for node in ast.walk(compare.parse(source)):
                if isinstance(node, (ast.stmt, ast.expr, ast.arguments)):
                    renamed = copy.deepcopy(node)
                    for inner in ast.walk(renamed):
                        if isinstance(inner, ast.Name):
                            inner.id = rename(inner.id, inner.id)
                        elif isinstance(inner, ast.arg):
                            inner.arg = rename(inner.arg, inner.arg)
                    for _ in range(2):  # written out, then put together again
                        self.assertEqual(written.code(node, lambda n: rename(n, n)),
                                         ast.unparse(renamed))


class KeyboardTest(unittest.TestCase):
    def test_a_character_a_keyboard_types_is_named_with_where_it_is_and_what_to_type(self):
        answers = checked()[len(CHANGES) + len(SLIPS):]
        for (old, new, key, line, column, ascii_), found in zip(TYPED_KEYS, answers):
            with self.subTest(new):
                hints = [fields for k, fields in first_failed(found)[1] if k == 'hint']
                self.assertEqual([(h['text'], h['line'], h['column'], h['ascii'])
                                  for h in hints[:1]],
                                 [(key, line, column, ascii_)])

    def test_a_hangul_letter_is_said_as_typed_not_in_nfkc_form(self):
        found = checked()[-1]
        shown = ' '.join(str(fields) for _, fields in first_failed(found)[1])
        self.assertIn('ㅑ', shown)
        self.assertNotIn('\u1163', shown)  # ᅣ, as Python reads ㅑ in a name


class LabsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls, parts=['settings.json', 'data/train.txt'])
        use_lesson_files(cls.root, labs=True)  # the tutor finds them in lab/: none of ours there

    @classmethod
    def typed_with_slips(cls):
        """The labs as labs.find finds them with a slip in each: other numbers, an error, a lab
        moved away (put back after)."""
        folder = cls.root / 'lab'
        kept = {name: (folder / f'{name}.py').read_text(encoding='utf-8')
                for name in ['token_count', 'bpe_trace']}
        (folder / 'token_count.py').write_text(kept['token_count'].replace('48]', '28]'),
                                               encoding='utf-8')
        slipped = kept['bpe_trace'].replace('for (a, b), new_id', 'for a, b, new_id')
        (folder / 'bpe_trace.py').write_text(slipped, encoding='utf-8')
        (folder / 'unknown.py').rename(cls.root / 'unknown.txt')
        try:
            return labs.find(cls.root)
        finally:
            (cls.root / 'unknown.txt').rename(folder / 'unknown.py')
            for name, text in kept.items():
                (folder / f'{name}.py').write_text(text, encoding='utf-8')

    @classmethod
    def answers(cls):
        """The tutor's answers for the lesson's file with its labs as typed, then with the slips:
        one child for both, once (no lab's rule depends on the hash seed: no second child)."""
        if not hasattr(cls, 'both'):
            found = [labs.find(cls.root), cls.typed_with_slips()]
            cls.both = check.check_many([LESSON, LESSON], check.lesson(), typed_labs=found,
                                        hash_seed=False)
        return cls.both

    @classmethod
    def slipped(cls):
        return cls.answers()[1]

    def test_the_lessons_labs_typed_as_the_lesson_shows_pass(self):
        answers = self.answers()[0]
        self.assertEqual({answers[name][0] for name in rules.LABS}, {'passed'})

    def test_a_lab_that_prints_other_numbers_shows_its_line_beside_the_lessons(self):
        state, said = self.slipped()['rule_lab_token_count']
        self.assertEqual(state, 'failed')
        fields = dict(said)
        self.assertEqual((fields['lab_line']['got'], fields['lab_lesson']['want']),
                         (repr('merges 28 vocab 56 tokens 178'),
                          repr('merges 48 vocab 76 tokens 138')))
        self.assertEqual(fields['slip_line']['file'], 'lab/token_count.py')

    def test_an_error_in_a_lab_is_explained_in_the_lab(self):
        said = dict(self.slipped()['rule_lab_bpe_trace'][1])
        self.assertEqual(said['lab_at_line'], {'lab': 'bpe_trace', 'line': '8'})
        self.assertEqual(said['hint']['text'], 'hint.unpack')

    def test_a_lab_saved_elsewhere_is_named_with_the_command_that_moves_it(self):
        said = self.slipped()['rule_lab_unknown'][1]
        self.assertEqual(said[-1], ['lab_move', {'command': 'mv unknown.txt lab/unknown.py'}])



class ScreenTest(unittest.TestCase):
    def test_watch_keeps_the_first_failed_and_the_last_lines_on_a_screen_of_24(self):
        words = catalogs.catalog('en')
        lines, _ = report.report(words, checked()[len(CHANGES)], 'tokenizer.py')
        shown = report.fit(words, lines, 22)
        self.assertEqual(len(shown), 22)
        first = next(n for n, line in enumerate(lines) if line.startswith('FAILED'))
        self.assertIn(lines[first], shown)
        self.assertTrue(any(line.startswith('          look at') for line in shown))
        self.assertEqual(shown[-3:], lines[-3:])

    def test_a_reason_not_to_check_is_said_once(self):
        lines, _ = report.report(catalogs.catalog('en'), checked()[len(CHANGES)], 'tokenizer.py')
        self.assertEqual(sum('not checked: it needs part 1' in line for line in lines), 1)


class LocaleTest(unittest.TestCase):
    def test_euc_kr_keeps_korean_and_shows_a_dash_it_lacks_as_a_hyphen(self):
        root = copy_project(self, parts=['settings.json', 'data/train.txt'])
        use_lesson_files(root, labs=True)  # every part typed, the labs too, whatever is typed here
        code, out, _ = run_inside(root, 'selfcheck', '--lang', 'ko', encoding='euc-kr')
        self.assertEqual(code, 0)
        self.assertIn('0. import - ', out)  # the lesson's dash, which EUC-KR lacks
        self.assertIn('모든 부분을 입력했고', out)

    def test_run_from_the_lab_folder_it_says_where_to_run_it(self):
        # in the project's own lab/: the tutor says where to run it before it reads or writes
        done = subprocess.run([sys.executable, '-m', 'selfcheck'], cwd=ROOT / 'lab',
                              capture_output=True,
                              text=True, env={**os.environ, 'PYTHONPATH': ''}, timeout=60)
        self.assertEqual((done.returncode, done.stdout), (1, ''))
        self.assertIn('python3 -m lab.selfcheck', done.stderr)
        self.assertNotIn('Traceback', done.stderr)


if __name__ == '__main__':
    unittest.main()
