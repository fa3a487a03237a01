"""Every kind through every tool: trained to a file (lab.fast_bpe), loaded by every lab that
takes --tokenizer, prepared for the next step (lab.prepare) and audited with a release record
(lab.audit). A kind that only a lab can use is not done."""
import json
import random
import unicodedata
import unittest

from lab import audit, kinds
from lab.kinds import KINDS, ByteBPE, CharBPE, SpecialBPE
from lab.plumbing import measures, terminal
from tests.project import LESSON_MODULE, MIXED, TEXT, copy_project, messages, run_inside

BPE = LESSON_MODULE.BPE  # the lesson's own, which the library is held to

# The labs that take --tokenizer, with what each is given besides it; and the two whose idea
# is the lesson's tokenizer alone.
TOOLS = {'check': [], 'show': ['Q: 안녕 😀 <eos>'], 'compression': ['data/mixed.txt'],
         'audit': ['data/mixed.txt', '--max-unk', '1'],
         'prepare': ['data/mixed.txt', '--out', 'prepared'],
         'export_hf': ['--out', 'hf.json', '--force'], 'special': ['hi<eos> there']}
# and lab.unknown, perhaps typed by a learner: kinds.load_lesson is tested
LESSON_ONLY = ['merge_order']


def one_line(test, code, out, err):
    """A refusal as the toolkit makes it: exit 1, one line on stderr, no traceback."""
    test.assertEqual((code, len(messages(err))), (1, 1), err)
    test.assertNotIn('Traceback', err)


class TrainAnyKindTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)

    def train(self, *args, out='k.json'):
        return run_inside(self.root, 'fast_bpe', 'data/mixed.txt', '--out', out, *args)

    def test_vocab_size_gives_exactly_that_many_ids_for_every_kind(self):
        for kind in KINDS:
            with self.subTest(kind):
                size = 290 if kind == 'byte' else 150  # the byte kind starts with 260
                code, out, err = self.train('--kind', kind, '--vocab-size', str(size),
                                            out=f'{kind}.json')
                self.assertEqual(code, 0, err)
                self.assertEqual(kinds.load(self.root / f'{kind}.json').vocab_size, size)

    def test_a_vocab_size_the_text_cannot_reach_says_how_many_it_gives_and_why(self):
        code, out, err = self.train('--kind', 'word', '--vocab-size', '5000')
        self.assertEqual(code, 0, err)
        made = kinds.load(self.root / 'k.json').vocab_size
        self.assertIn(
            f'(asked for 5,000 ids; no pair occurs twice after {made - 106} merges, so this '
            f'text gives {made})', ' '.join(out.split()))  # wrapped at 80 columns

    def test_a_vocab_size_below_the_base_is_one_line(self):
        one_line(self, *self.train('--kind', 'word', '--vocab-size', '50'))

    def test_a_long_special_name_is_cut_to_the_line_it_is_shown_in(self):
        name = '<' + 'x' * 500 + '>'
        code, out, err = self.train('--kind', 'byte', '--merges', '5', '--special', name,
                                    out='long.json')
        self.assertEqual(code, 0, err)
        self.assertEqual([line for line in out.splitlines() if terminal.width(line) > 80], [])
        self.assertIn(name, kinds.load(self.root / 'long.json').special_ids)  # kept whole

    def test_pattern_and_special_are_only_for_the_kinds_that_have_them(self):
        for args in [['--kind', 'word', '--pattern', 'gpt2'],
                     ['--kind', 'char', '--special', '<eos>']]:
            with self.subTest(args):
                self.assertEqual(self.train(*args)[0], 2)

    def test_options_reach_the_kind(self):
        code, out, err = self.train('--kind', 'byte', '--special', '<eos>', '--pattern', 'gpt2',
                                    '--merges', '20', out='options.json')
        self.assertEqual(code, 0, err)
        tok = kinds.load(self.root / 'options.json')
        self.assertEqual((tok.special_ids, tok.pattern), ({'<eos>': 0}, 'gpt2'))
        self.assertEqual(tok.state(), ByteBPE.train(MIXED, 20, ['<eos>'], 'gpt2').state())

    def test_a_tokenizer_of_another_kind_is_replaced_only_with_force(self):
        self.assertEqual(self.train('--kind', 'word', '--merges', '5', out='other.json')[0], 0)
        code, out, err = self.train('--kind', 'piece', '--merges', '5', out='other.json')
        self.assertEqual((code, messages(err)),
                         (1, ['lab.fast_bpe: other.json exists and is not a piece '
                              'tokenizer: use --force to replace it']))
        self.assertEqual(kinds.load(self.root / 'other.json').kind, 'word')
        self.assertEqual(self.train('--kind', 'piece', '--merges', '5', '--force',
                                    out='other.json')[0], 0)
        self.assertEqual(kinds.load(self.root / 'other.json').kind, 'piece')

    def test_the_defaults_are_the_lessons(self):
        code, out, err = run_inside(self.root, 'fast_bpe', '--out', 'default.json')
        self.assertEqual(code, 0, err)
        saved = json.loads((self.root / 'default.json').read_text(encoding='utf-8'))
        self.assertEqual(saved, BPE.train(TEXT, 12).state())
        self.assertTrue(out.startswith('vocab: 40 merges: 12\nroundtrip: OK [29, 13, 14, 1, 30]\n'),
                        out)


class EveryToolTakesEveryKindTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)
        for name, Kind in KINDS.items():
            kinds.save(Kind.train(MIXED, 60), cls.root / f'{name}.json')

    def test_every_tokenizer_lab_runs_on_every_kind(self):
        for lab, args in TOOLS.items():
            for kind in KINDS:
                with self.subTest(lab, kind=kind):
                    code, out, err = run_inside(self.root, lab, *args, '--tokenizer',
                                                f'{kind}.json')
                    if lab == 'special' and kind in ('word', 'piece'):  # no special tokens to show
                        one_line(self, code, out, err)
                        self.assertIn(f'is a {kind} tokenizer: no special tokens', err)
                        continue
                    self.assertEqual(code, 0, err)
                    self.assertEqual([line for line in out.splitlines()
                                      if terminal.width(line) > 80], [])

    def test_the_lessons_loader_refuses_another_kind_in_one_line(self):
        for kind in [kind for kind in KINDS if kind != 'char']:
            said = f": a {kind} tokenizer, not the lesson's"
            with self.subTest(kind), self.assertRaisesRegex(ValueError, said):
                kinds.load_lesson(self.root / f'{kind}.json')

    def test_a_lab_of_the_lessons_tokenizer_alone_says_so_in_one_line(self):
        for lab in LESSON_ONLY:
            for kind in [kind for kind in KINDS if kind != 'char']:
                with self.subTest(lab, kind=kind):
                    code, out, err = run_inside(self.root, lab, '--tokenizer', f'{kind}.json')
                    one_line(self, code, out, err)
                    self.assertIn(f": a {kind} tokenizer, not the lesson's", err)


class ReleaseRecordTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = copy_project(cls)
        cls.tok = ByteBPE.train(MIXED, 60, ['<eos>'])
        kinds.save(cls.tok, cls.root / 'b.json')
        cls.written = run_inside(cls.root, 'audit', 'data/mixed.txt', '--tokenizer', 'b.json',
                                 '--out', 'r.json')

    def check(self, tokenizer, record='r.json'):
        return run_inside(self.root, 'audit', '--manifest', record, '--tokenizer', tokenizer)

    def test_the_record_holds_what_serving_must_match(self):
        self.assertEqual(self.written[0], 0, self.written[2])
        record = json.loads((self.root / 'r.json').read_text(encoding='utf-8'))
        self.assertEqual(record['tokenizer_sha256'],
                         audit.hashlib.sha256((self.root / 'b.json').read_bytes()).hexdigest())
        self.assertEqual((record['kind'], record['vocab_size'], record['special_ids']),
                         ('byte', self.tok.vocab_size, {'<eos>': 0}))
        self.assertEqual(record['id_to_token_sha256'], kinds.mapping_fingerprint(self.tok))
        self.assertEqual(record['end_of_document'], {'token': '<eos>', 'id': 0, 'bos': None})
        self.assertIn('never applied', record['normalization'])
        self.assertEqual(self.check('b.json')[0], 0)

    def test_a_tokenizer_that_no_longer_matches_fails_closed_in_one_line(self):
        kinds.save(ByteBPE.train(MIXED, 61, ['<eos>']), self.root / 'other.json')
        # the same tokenizer, written otherwise
        spaced = json.dumps(kinds.file_state(self.tok), indent=1)
        (self.root / 'spaced.json').write_text(spaced, encoding='utf-8')
        for name, differs in [('other.json', 'vocab_size'), ('spaced.json', 'tokenizer_sha256')]:
            with self.subTest(name):
                code, out, err = self.check(name)
                one_line(self, code, out, err)
                self.assertIn(f'{name} does not match r.json: {differs} ', err)

    def test_a_record_differing_only_in_a_value_s_json_type_fails_naming_where(self):
        record = json.loads((self.root / 'r.json').read_text(encoding='utf-8'))
        for change, where in [(lambda r: r.update(vocab_size=float(r['vocab_size'])), 'vocab_size'),
                              (lambda r: r['special_ids'].update({'<eos>': False}),
                               'special_ids["<eos>"] 0'),
                              (lambda r: r['end_of_document'].update(id=0.0),
                               'end_of_document["id"] 0')]:
            changed = json.loads(json.dumps(record))
            change(changed)  # equal in Python (0 == 0.0 == False), not as JSON writes it
            (self.root / 'changed.json').write_text(json.dumps(changed), encoding='utf-8')
            with self.subTest(where):
                code, out, err = self.check('b.json', 'changed.json')
                one_line(self, code, out, err)
                self.assertIn(f'does not match changed.json: {where}', err)

    def test_a_damaged_or_missing_record_fails_closed(self):
        (self.root / 'bad.json').write_text('{"kind": "byte"}', encoding='utf-8')
        for record in ['bad.json', 'missing.json']:
            with self.subTest(record):
                one_line(self, *self.check('b.json', record))

    def test_no_record_is_written_when_a_gate_fails(self):
        kinds.save(CharBPE.train(TEXT, 12), self.root / 'char.json')
        code, out, err = run_inside(self.root, 'audit', 'data/mixed.txt', '--tokenizer',
                                    'char.json',
                                    '--out', 'failed.json')
        self.assertEqual(code, 1)
        self.assertIn('no record written', err)
        self.assertFalse((self.root / 'failed.json').exists())

    def test_the_record_is_written_even_when_the_reader_of_the_report_is_gone(self):
        code, _, err = run_inside(self.root, 'audit', 'data/mixed.txt', '--tokenizer', 'b.json',
                                  '--out', 'piped.json', reader_gone=True)  # | head -1
        self.assertEqual((code, err), (141, ''))
        self.assertEqual((self.root / 'piped.json').read_bytes(),
                         (self.root / 'r.json').read_bytes())

    def test_byte_fallback_is_the_share_of_characters_split_across_tokens(self):
        tok = ByteBPE.train('ab ab\n', 1)  # 'ab' merged; '안' (3 bytes) never is
        report = audit.audit(tok, 'ab안\n')
        self.assertEqual(report['fallback_rate'], 1 / 3)
        self.assertIsNone(audit.audit(CharBPE.train(TEXT, 12), TEXT)['fallback_rate'])

    def test_text_that_spells_a_special_token_is_a_collision_kept_as_text(self):
        tok = SpecialBPE.train(TEXT, 12)
        report = audit.audit(tok, 'Q: <eos> and <eos>\nA: [Q]\n')
        self.assertEqual(dict(report['collisions']), {'<eos>': 2, '[Q]': 1})
        self.assertEqual(report['failures'], [])


class NotNFCTest(unittest.TestCase):
    def test_not_nfc_counts_the_characters_and_lines_nfc_would_change(self):
        self.assertIsNone(measures.not_nfc(MIXED))
        nfd = unicodedata.normalize('NFD', '한국 ok\nplain\n한\n')
        self.assertEqual(measures.not_nfc(nfd), (6 + 3, 2))  # 한 and 국 are 3 jamo each

    def test_a_long_text_is_looked_at_block_by_block_and_counts_as_line_by_line(self):
        rng = random.Random(5)
        pieces = ['a', 'e\u0301', '\u1100\u1161', '\n', '\u0301', '한', ' ', '\n\u0301']
        for _ in range(200):
            text = ''.join(rng.choice(pieces) for _ in range(rng.randint(1, 300)))
            line_by_line = [line for line in text.split('\n')
                            if not unicodedata.is_normalized('NFC', line)]
            with self.subTest(text=text[:20]):
                blocks = list(measures._lines_not_nfc(text, block=rng.choice([1, 5, 40])))
                self.assertEqual(blocks, line_by_line)

    def test_training_and_preparing_say_so_in_one_line_and_normalize_nothing(self):
        root = copy_project(self)
        (root / 'nfd.txt').write_text(unicodedata.normalize('NFD', MIXED), encoding='utf-8')
        for lab, args in [('fast_bpe', ['--kind', 'word', '--out', 'w.json']),
                          ('prepare', ['--tokenizer', 'w.json', '--out', 'p'])]:
            with self.subTest(lab):
                code, out, err = run_inside(root, lab, 'nfd.txt', *args)
                self.assertEqual(code, 0, err)
                self.assertEqual(len(messages(err)), 1, err)
                self.assertIn(': 149 characters are not in NFC: python3 -m lab.normalize nfd.txt\n',
                              err)
        # the first jamo of 한, as it was
        self.assertIn('\u1112', kinds.load(root / 'w.json').vocab)


if __name__ == '__main__':
    unittest.main()
