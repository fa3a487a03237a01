"""Every kind in the Hugging Face tokenizers format and back (lab/kinds/hf.py, lab.export_hf,
lab.import_hf): the same tokenizer either way, and tokenizers itself gives the same ids."""
import ast
import json
import random
import re
import unittest
from unittest import mock

from lab import kinds
from lab.contract.checks import problem_with
from lab.kinds import KINDS, ByteBPE, CharBPE, SpecialBPE
from lab.kinds.byte import BYTE_CHARACTERS
from lab.kinds.categories import LETTERS, NUMBERS
from lab.kinds.hf import from_hf, to_hf
from lab.kinds.patterns import PATTERNS, PIECE_PATTERNS, compiled
from lab.learner import catalogs
from lab.plumbing import cli
from lab.plumbing.terminal import width
from tests.project import MIXED, TEXT, copy_project, inside, messages, trained
from tests.test_fuzz import fuzz_texts

try:
    from tokenizers import (
        Regex,
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        trainers,
    )
except ImportError:  # optional: .ci/run installs it so that the differential tests run there
    Tokenizer = None

# 'abc' is made twice, as 'ab' + 'c' and as 'a' + 'bc': a sound state, but not a string-to-id map
TWICE = {'vocab': ['\ufffd', 'a', 'b', 'c', 'ab', 'bc', 'abc', 'abc'],
         'merges': [[[1, 2], 4], [[2, 3], 5], [[4, 3], 6], [[1, 5], 7]]}
# Korean, emoji (joined, with a skin tone), code, and runs of every kind of whitespace
PROBES = ['한국어 토크나이저는 글을 조각으로 나눕니다.\n', '👍🏽 👨‍👩‍👧 😀😀 ok\n',
          'def f(x):\n\tif x:\n        return {"a": [1, 2]}  # 주석\n',
          'a  b\t\tc \n\n\n   d\u3000e\u00a0f \x1c g\r\n', "I'm don't WE'LL 12345 ²½ Ⅻ ١٢٣\n", '',
          ' ']


def every_kind_trained():
    """(name, tokenizer, texts to try) for every kind and pattern, on the defaults and at random."""
    rng = random.Random(5)
    for name, Kind in KINDS.items():
        yield name, Kind.train(MIXED, 200), [MIXED, TEXT, *PROBES]
    for pattern in PIECE_PATTERNS:
        yield f'piece {pattern}', KINDS['piece'].train(MIXED, 150, pattern), [MIXED, *PROBES]
        yield f'byte {pattern}', ByteBPE.train(MIXED, 150, ['<eos>'], pattern), [MIXED, *PROBES]
    for n, text in enumerate(fuzz_texts(12, seed=5)):
        probes = [text] + [''.join(rng.choice(text + 'Z\n ') for _ in range(50)) for _ in range(2)]
        for name, Kind in KINDS.items():
            yield f'{name}, random {n}', Kind.train(text, rng.choice([1, 5, 30, 300])), probes


class ExportTest(unittest.TestCase):
    def test_every_kind_comes_back_the_same_through_the_file(self):
        for name, tok, _ in every_kind_trained():
            with self.subTest(name):
                back = from_hf(json.loads(json.dumps(to_hf(tok))))
                self.assertEqual((back.kind, back.state()), (tok.kind, tok.state()))

    def test_the_lessons_kind_takes_no_step_the_lesson_does_not(self):
        data = to_hf(CharBPE.train(TEXT, 12))
        self.assertEqual((data['normalizer'], data['pre_tokenizer'], data['added_tokens']),
                         (None, None, []))
        self.assertEqual(data['decoder'], {'type': 'Fuse'})
        self.assertEqual((data['model']['unk_token'], data['model']['fuse_unk']), ('\ufffd', False))

    def test_merges_are_string_pairs_in_learned_order(self):
        data = to_hf(CharBPE.train(TEXT, 12))
        self.assertEqual(data['model']['merges'][:3], [[':', ' '], ['Q', ': '], ['A', ': ']])

    def test_a_string_under_two_ids_is_refused_naming_both(self):
        self.assertIsNone(problem_with(TWICE))
        with self.assertRaisesRegex(ValueError,
                                    r"'abc' is in the vocabulary twice, as ids 6 and 7"):
            to_hf(CharBPE(**TWICE))

    def test_special_tokens_are_added_tokens_at_their_ids_in_the_vocabulary_too(self):
        for tok in [SpecialBPE.train(TEXT, 12), ByteBPE.train(TEXT, 12, ['<eos>', '<bos>'])]:
            data = to_hf(tok)
            added = {token['content']: token['id'] for token in data['added_tokens']}
            self.assertEqual(added, tok.special_ids)
            self.assertTrue(all(token['special'] for token in data['added_tokens']))
            self.assertEqual({name: data['model']['vocab'][name] for name in added},
                             tok.special_ids)

    def test_each_byte_is_one_character_the_printable_ones_themselves(self):
        self.assertEqual(len(set(BYTE_CHARACTERS)), 256)
        self.assertEqual([BYTE_CHARACTERS[b] for b in b'Az~\xe9'], ['A', 'z', '~', 'é'])
        self.assertEqual([BYTE_CHARACTERS[b] for b in b' \n\x00'], ['Ġ', 'Ċ', 'Ā'])  # GPT-2's

    def refusals(self):
        """(a file tokenizers writes, a change no kind here has, words the refusal holds) each."""
        good, byte = to_hf(CharBPE.train(TEXT, 12)), to_hf(ByteBPE.train(TEXT, 12))
        chat = to_hf(ByteBPE.train(TEXT, 12, ['<eos>']))  # a special token, as a chat tokenizer has
        return [
                *[(chat, lambda d, o=option: d['added_tokens'][0].update({o: True}),
                   f'<eos>.* sets {option}')
                  for option in ['lstrip', 'rstrip', 'single_word']],
                (good, lambda d: d.update(normalizer={'type': 'NFC'}), 'a normalizer'),
                (good, lambda d: d.update(pre_tokenizer={'type': 'Whitespace'}), 'pre-tokenizer'),
                (good, lambda d: d['model'].update(type='WordPiece'), 'BPE'),
                (good, lambda d: d['model'].update(unk_token='<unk>'), 'unknown token'),
                (good, lambda d: d['model'].update(dropout=0.1), 'dropout'),
                (good, lambda d: d['model']['merges'].append(['Q', 'zz']), 'merges'),
                (good, lambda d: d['model']['merges'].reverse(), 'makes id'),
                (good,
                 lambda d: d['added_tokens'].append({'id': 40, 'content': 'x', 'special': False}),
                 'not a special one'),
                (byte, lambda d: d['pre_tokenizer'].update(add_prefix_space=True), 'adds a space'),
                (byte, lambda d: d.update(pre_tokenizer={'type': 'Split', 'pattern': {'Regex': 'x'},
                                                         'behavior': 'Isolated', 'invert': False}),
                 'no kind here cuts with the pattern of its Split'),
                (good, lambda d: d.update(truncation={'max_length': 8, 'strategy': 'LongestFirst'}),
                 'a truncation'),
                (good, lambda d: d.update(padding={'strategy': 'BatchLongest'}), 'a padding'),
                (good, lambda d: d.update(added_tokens=5), '"added_tokens" must be a list'),
                (good, lambda d: d['model']['merges'].insert(0, [['Q'], ':']), r'merges\[0\] is'),
                (good, lambda d: d.update(decoder=[{'type': 'Fuse'}] * 200),
                 r'decoder is \[.{0,20}\.\.\., not Fuse'),
                (good, lambda d: d.update(decoder=None), 'its decoder is none, not Fuse'),
                (byte, lambda d: d.update(decoder={'type': 'Fuse'}),
                 'decoder is Fuse, not ByteLevel')]

    def test_what_no_kind_here_has_is_refused_naming_it(self):
        for data, change, words in self.refusals():
            data = json.loads(json.dumps(data))
            change(data)
            with self.subTest(words), self.assertRaisesRegex(ValueError, words) as refused:
                from_hf(data)
            self.assertLessEqual(width(f'lab.import_hf: hf.json: {refused.exception}'), 80,
                                 refused.exception)

    def test_what_no_kind_here_has_is_refused_in_korean_too(self):
        # as lab.import_hf --lang ko
        with mock.patch.dict(cli._SPOKEN, words=catalogs.catalog('ko')):
            for data, change, words in self.refusals():
                data = json.loads(json.dumps(data))
                change(data)
                with self.subTest(words):
                    with self.assertRaises(ValueError) as refused:
                        from_hf(data)
                    said = f'lab.import_hf: hf.json: {refused.exception}'
                    self.assertRegex(said, '[가-힣]')
                    self.assertLessEqual(width(said), 80, said)

    def test_export_command_writes_utf8_and_reads_back(self):
        root = copy_project(self)
        trained(root)
        done = inside(root, 'export_hf')
        self.assertEqual(done.returncode, 0, done.stderr)
        raw = (root / 'data' / 'tokenizer.hf.json').read_text(encoding='utf-8')
        self.assertIn('"unk_token": "\ufffd"', raw)  # written as itself
        self.assertEqual(from_hf(json.loads(raw)).state(), CharBPE.train(TEXT, 12).state())
        hint = done.stdout.splitlines()[-1]
        call = ast.parse(hint.split('load it with: ', 1)[1]).body[0].value
        self.assertEqual(ast.literal_eval(call.args[0]), 'data/tokenizer.hf.json')  # valid Python

    def test_export_refuses_a_vocab_with_a_string_twice_in_one_line_and_no_file(self):
        root = copy_project(self)
        (root / 'data' / 'tokenizer.json').write_text(json.dumps(TWICE), encoding='utf-8')
        done = inside(root, 'export_hf')
        self.assertEqual(done.returncode, 1)
        self.assertEqual(len(messages(done.stderr)), 1, done.stderr)
        self.assertFalse((root / 'data' / 'tokenizer.hf.json').exists())

    def test_import_command_saves_a_kind_every_lab_loads_or_one_line_and_no_file(self):
        root = copy_project(self, parts=['tokenizer.py'])
        tok = ByteBPE.train(MIXED, 40, ['<eos>'], 'gpt2')
        (root / 'hf.json').write_text(json.dumps(to_hf(tok), ensure_ascii=False), encoding='utf-8')
        done = inside(root, 'import_hf', 'hf.json', '--out', 'ours.json')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(kinds.load(root / 'ours.json').state(), tok.state())
        (root / 'wp.json').write_text(json.dumps({'model': {'type': 'WordPiece'}}),
                                      encoding='utf-8')
        done = inside(root, 'import_hf', 'wp.json', '--out', 'wp-ours.json')
        self.assertEqual((done.returncode, len(messages(done.stderr))), (1, 1), done.stderr)
        self.assertIn('"type": "BPE"', done.stderr)
        self.assertFalse((root / 'wp-ours.json').exists())


@unittest.skipIf(Tokenizer is None, 'needs the tokenizers package (pip install tokenizers)')
class HuggingFaceTest(unittest.TestCase):
    """The files, loaded by the Rust library, give the same ids and the same text."""

    def test_every_kind_gives_the_same_ids_and_text_in_tokenizers(self):
        for name, tok, texts in every_kind_trained():
            hf = Tokenizer.from_str(json.dumps(to_hf(tok)))
            encode = kinds.plain(tok)
            for text in texts:
                with self.subTest(name, text=text[:30]):
                    ids = hf.encode(text).ids
                    self.assertEqual(ids, encode(text))
                    self.assertEqual(hf.decode(ids), tok.decode(ids))

    def test_seeded_fuzz_every_kind_out_and_every_trained_file_in_gives_their_ids(self):
        rng = random.Random(33)
        pool = ['a', 'b', 'ab', ' ', '  ', '\t', '\n', '\n\n', '\r', '\u3000', '\xa0', 'Z', '한',
                '😀', "'s",
                '1', '.', '<eos>', '<pad>', 'x<eos>y']
        probes = [''.join(rng.choice(pool) for _ in range(rng.randint(0, 40))) for _ in range(30)]
        for n in range(6):  # files tokenizers trained, each setting at random, read in
            hf = Tokenizer(models.BPE())
            hf.pre_tokenizer = pre_tokenizers.ByteLevel(
                add_prefix_space=False, use_regex=rng.random() < 0.5)
            hf.decoder = decoders.ByteLevel()
            alphabet = pre_tokenizers.ByteLevel.alphabet() if rng.random() < 0.5 else []
            hf.train_from_iterator(probes[:20], trainers.BpeTrainer(
                vocab_size=rng.choice([260, 300, 400]),
                special_tokens=['<eos>', '<pad>'][:rng.randint(0, 2)],
                initial_alphabet=alphabet, show_progress=False))
            tokenizers = [('in', from_hf(json.loads(hf.to_str())), hf)]
            # trained here on text that spells no special name, which merges would make a token too
            spelled = [p.replace('<', '') for p in probes[:20]]
            tok = list(KINDS.values())[n % len(KINDS)].train(spelled, rng.choice([5, 40]))
            tokenizers.append(('out', tok, Tokenizer.from_str(json.dumps(to_hf(tok)))))
            for way, tok, hf in tokenizers:
                for text in probes:
                    with self.subTest(f'{way} {n} {tok.kind}', text=text):
                        ids = hf.encode(text).ids
                        # as tokenizers encodes
                        allowed = {'allowed': 'all'} if tok.special_ids else {}
                        self.assertEqual(tok.encode(text, **allowed), ids)
                        # as tokenizers decodes
                        skip = {'skip_special': True} if tok.special_ids else {}
                        self.assertEqual(tok.decode(ids, **skip), hf.decode(ids))

    def test_special_strings_in_text_become_special_ids_there_and_here_when_allowed(self):
        tok = ByteBPE.train(MIXED, 60, ['<eos>', '<bos>'])
        hf = Tokenizer.from_str(json.dumps(to_hf(tok)))
        text = '<bos>hi there<eos>'
        self.assertEqual(hf.encode(text).ids, tok.encode(text, allowed=['<eos>', '<bos>']))

    def test_merges_that_use_the_unknown_id(self):
        tok = CharBPE.train('a\ufffd\na\ufffd\nb', 5)  # learns 'a' + '\ufffd'
        hf = Tokenizer.from_str(json.dumps(to_hf(tok)))
        for text in ['a\ufffd', 'aZ', 'Za', 'a\ufffd\nb']:
            self.assertEqual(hf.encode(text).ids, tok.encode(text), text)

    def test_the_courses_byte_level_tokenizer_reads_in_with_its_own_ids(self):
        # trained as the course trains it, with its whole byte alphabet and without (then bytes
        # it never saw have no id, and tokenizers leaves them out: so does the kind)
        for alphabet in [pre_tokenizers.ByteLevel.alphabet(), []]:
            hf = Tokenizer(models.BPE())
            hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
            hf.decoder = decoders.ByteLevel()
            hf.train_from_iterator([MIXED * 3], trainers.BpeTrainer(
                vocab_size=500, special_tokens=['<eos>'], initial_alphabet=alphabet,
                show_progress=False))
            data = json.loads(hf.to_str())
            tok = from_hf(data)
            self.assertEqual((tok.kind, tok.special_ids, tok.vocab_size),
                             ('byte', {'<eos>': 0}, hf.get_vocab_size()))
            for text in [MIXED, TEXT, *PROBES]:
                with self.subTest(len(alphabet), text=text[:30]):
                    ids = hf.encode(text).ids
                    self.assertEqual(kinds.plain(tok)(text), ids)
                    self.assertEqual(tok.decode(ids), hf.decode(ids))
            again, theirs = to_hf(tok)['model'], data['model']
            self.assertEqual([again['vocab'], again['merges']], [theirs['vocab'], theirs['merges']])

    def test_special_tokens_added_after_training_take_the_ids_tokenizers_gives_them(self):
        hf = Tokenizer(models.BPE())
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        hf.decoder = decoders.ByteLevel()
        hf.train_from_iterator([MIXED], trainers.BpeTrainer(
            vocab_size=300, special_tokens=['<eos>'],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False))
        names = ['<eos>', '<sep>', '<cls>']
        hf.add_special_tokens(names)  # <eos> is in the vocabulary already
        tok = from_hf(json.loads(hf.to_str()))
        self.assertEqual(tok.special_ids, {name: hf.token_to_id(name) for name in names})
        self.assertEqual(tok.vocab_size, hf.get_vocab_size())
        text = 'a<sep>b<cls>c<eos>'
        self.assertEqual(tok.encode(text, allowed=names), hf.encode(text).ids)

    def test_letters_and_numbers_are_the_code_points_tokenizers_reads_as_such(self):
        # up to plane 3, the last with letters or numbers (a second a class to read them all):
        # no code point the classes name is past it
        points = ''.join(chr(p) for p in range(0x40000) if not 0xD800 <= p < 0xE000)
        named = [int(code, 16) for code in re.findall(r'\\[uU]([0-9a-f]+)', LETTERS + NUMBERS)]
        # and nothing but those code points and the dashes between them
        self.assertEqual(re.sub(r'\\[uU][0-9a-f]+|-', '', LETTERS + NUMBERS), '')
        self.assertLess(max(named), 0x40000)
        for name, held in [('L', LETTERS), ('N', NUMBERS)]:
            with self.subTest(name):
                # every other code point taken out: one string back, where a pre-tokenizer would
                # give each run with its offsets, in six times the time; a block of 4,096 code
                # points at a time, for tokenizers keeps offsets for each byte (all at once, they
                # took 30 MB of fresh memory)
                others = normalizers.Replace(Regex(f'\\P{{{name}}}+'), '')
                kept = ''.join(others.normalize_str(points[n:n + 4096])
                               for n in range(0, len(points), 4096))
                self.assertEqual(re.sub(f'[^{held}]+', '', points), kept)

    def test_a_letter_newer_than_this_pythons_unicode_is_cut_as_tokenizers_cuts_it(self):
        text = 'ab\u0870cd \u1c89x'  # Unicode 14.0 and 16.0 letters
        split = pre_tokenizers.Split(Regex(PATTERNS['gpt2']), 'isolated')
        self.assertEqual(compiled('gpt2').findall(text),
                         [piece for piece, _ in split.pre_tokenize_str(text)])

    def test_the_patterns_cut_where_tokenizers_cuts(self):
        rng = random.Random(8)
        pool = ('abcXYZ한국어😀👍🏽\u0301٣²Ⅻ_.,;:!?\'"-()[]{}'
                + " '\t\n\r\u3000\u00a0\x1c\x0b" + "'s'S'll 1234 ")
        for pattern in [*PIECE_PATTERNS, 'word']:
            split = pre_tokenizers.Split(Regex(PATTERNS[pattern]), 'isolated')
            for _ in range(300):
                text = ''.join(rng.choice(pool) for _ in range(rng.randint(1, 40)))
                with self.subTest(pattern, text=text):
                    theirs = [piece for piece, _ in split.pre_tokenize_str(text)]
                    self.assertEqual(compiled(pattern).findall(text), theirs)


if __name__ == '__main__':
    unittest.main()
