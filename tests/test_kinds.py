"""Every tokenizer kind in lab/kinds, and the learner's own BPE, has one shape: trained as
Kind.train(text, count), used as encode and decode, saved as state(), rebuilt as
Kind(**state). The shape's rules come first, each one test over all the kinds; then each
kind's own rule."""
import inspect
import json
import os
import random
import subprocess
import sys
import tempfile
import tracemalloc
import unittest
from collections import Counter
from pathlib import Path
from unittest import mock

from lab import kinds
from lab.contract.checks import UNKNOWN
from lab.kinds import KINDS, ByteBPE, CharBPE, PieceBPE, SpecialBPE, WordBPE, byte, patterns
from lab.kinds.byte import FIRST_BYTE, FIRST_MERGE
from lab.kinds.hf import to_hf
from lab.kinds.patterns import PIECE_PATTERNS, compiled
from lab.kinds.texts import documents
from lab.kinds.word import END
from lab.plumbing.reading import MEMORY_PER_TEXT_BYTE
from tests import gate
from tests.project import (LESSON_MODULE, MIXED, ROOT, TEXT, another_hash_seed,
                           skip_unless_processes_start)
from tests.test_fuzz import fuzz_texts

# the lesson's own, which the library is held to
BPE, merge = LESSON_MODULE.BPE, LESSON_MODULE.merge

SHAPED = {'lesson': BPE, **KINDS}  # the learner's BPE is a kind like the others
UNSEEN = 'Cat 안녕 😀 Zebra\t<x>\n\n'  # characters the training texts below mostly lack


def texts():
    """(text, merges) to train on: the lesson's, a mixed one, and seeded random ones."""
    rng = random.Random(31)
    yield TEXT, 12
    yield MIXED, 60
    for text in fuzz_texts(12, seed=31):
        yield text, rng.choice([0, 1, 5, 40])


TRAINED = []  # filled by trained(), once for the module


def trained():
    """(kind name, text, merges asked, tokenizer) for every kind on every text, trained once."""
    if not TRAINED:
        TRAINED.extend((name, text, count, Kind.train(text, count))
                       for name, Kind in SHAPED.items() for text, count in texts())
    return TRAINED


class PublicNamesTest(unittest.TestCase):
    def test_the_package_names_what_it_offers_in_all_and_only_that(self):
        offered = {name for name, value in vars(kinds).items() if not name.startswith('_')
                   and getattr(value, '__module__', None)
                   and value.__module__.startswith('lab.kinds')
                   and (inspect.isfunction(value) or inspect.isclass(value))}
        self.assertEqual(set(kinds.__all__) - {'KINDS'}, offered)

    def test_a_tokenizers_own_attributes_are_what_the_kinds_promise_and_the_rest_is_private(self):
        shared = {'kind', 'vocab', 'vocab_size', 'unknown_id', 'special_ids'}
        for name, kind in KINDS.items():
            with self.subTest(name):
                tok = kind.train(TEXT, 5)
                public = {key for key in vars(tok) if not key.startswith('_')}
                self.assertLessEqual(shared - {'kind'}, public | set(dir(kind)))
                self.assertEqual([key for key in public if key in PRIVATE], [])


PRIVATE = {'ranks', 'made', 'missing', 'lines_apart', 'done', 'replay', 'merges_applied'}  # caches


class TokenizersNamesTest(unittest.TestCase):
    """The names a tokenizers user reaches for, on every kind, as that library answers them."""

    def test_token_to_id_and_id_to_token_are_the_strings_of_the_exported_file(self):
        for name, Kind in KINDS.items():
            with self.subTest(name):
                tok = Kind.train(MIXED, 30,
                                 **({'special': ['<eos>']} if name in ('byte', 'special') else {}))
                exported = to_hf(tok)
                added = {token['content']: token['id'] for token in exported['added_tokens']}
                strings = {**exported['model']['vocab'], **added}
                for string, i in strings.items():
                    self.assertEqual((tok.token_to_id(string), tok.id_to_token(i)), (i, string))
                self.assertEqual(tok.token_to_id('no such token ∅'), None)
                self.assertEqual(tok.id_to_token(tok.vocab_size), None)

    def test_batches_are_each_texts_ids_and_back(self):
        texts = ['Q: hi', '', '안녕 😀', 'A: hello\n']
        for name, Kind in KINDS.items():
            with self.subTest(name):
                tok = Kind.train(MIXED, 30)
                self.assertEqual(tok.encode_batch(texts), [tok.encode(text) for text in texts])
                back = [tok.decode(tok.encode(text)) for text in texts]
                self.assertEqual(tok.decode_batch(tok.encode_batch(texts)), back)

    def test_save_and_from_file_give_back_the_same_tokenizer_of_that_kind_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, Kind in KINDS.items():
                with self.subTest(name):
                    tok, path = Kind.train(MIXED, 20), Path(tmp) / f'{name}.json'
                    tok.save(path)
                    self.assertEqual(Kind.from_file(path).state(), tok.state())
                    other = KINDS['word' if name == 'char' else 'char']
                    with self.assertRaisesRegex(ValueError,
                                                f'a {name} tokenizer, not a {other.kind} one'):
                        other.from_file(path)


class ShapeTest(unittest.TestCase):
    def test_train_learns_at_most_the_merges_asked(self):
        for name, text, count, tok in trained():
            with self.subTest(name, text=text[:20]):
                self.assertLessEqual(len(tok.state()['merges']), count)

    def test_decode_gives_back_the_text_trained_on(self):
        for name, text, _, tok in trained():
            with self.subTest(name, text=text[:20]):
                self.assertEqual(tok.decode(tok.encode(text)), text)

    def test_state_is_json_and_rebuilds_a_tokenizer_with_the_same_ids(self):
        for name, text, _, tok in trained():
            with self.subTest(name, text=text[:20]):
                state = json.loads(json.dumps(tok.state()))
                again = type(tok)(**state)
                self.assertEqual(again.state(), tok.state())
                for probe in [text, UNSEEN, '']:
                    self.assertEqual(again.encode(probe), tok.encode(probe))

    def test_training_gives_the_same_tokenizer_whatever_the_hash_seed(self):
        # str hashes change from process to process; a set or dict order must never decide a tie
        gate.skip_unless_the_file_holds()  # the children import tokenizer.py whole
        # marked: tokenizer.py may print too
        code = ('import json; from tests.test_kinds import trained; '
                'print("@@states", json.dumps([[name, tok.state()] for name, _, _, tok in '
                'trained()]))')
        done = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True,
                              text=True,
                              env=dict(os.environ, PYTHONHASHSEED=another_hash_seed()), timeout=120)
        theirs = next(line.split('@@states ', 1)[1] for line in done.stdout.splitlines()
                      if '@@states ' in line)
        here = json.dumps([[name, tok.state()] for name, _, _, tok in trained()])
        self.assertTrue(here.startswith('[["lesson"'), here[:200])
        self.assertEqual(theirs, here)

    def test_vocab_says_what_each_id_stands_for(self):
        for name, Kind in KINDS.items():
            with self.subTest(name):
                tok = Kind.train(MIXED, 30)
                self.assertEqual(len(tok.vocab), tok.vocab_size)
                for i in range(tok.vocab_size):
                    held = tok.vocab[i]
                    if name != 'byte':  # text, and the word kind's end of word a space
                        held = held.replace('</w>', ' ').encode('utf-8')
                    self.assertEqual(held, tok.token_bytes(i))

    def test_vocab_size_asks_for_ids_in_all(self):
        for name, Kind in KINDS.items():
            with self.subTest(name):
                base = Kind.train(MIXED, 0).vocab_size
                self.assertEqual(Kind.train(MIXED, vocab_size=base + 7).vocab_size, base + 7)
                with self.assertRaisesRegex(ValueError, f'starts with {base:,} ids'):
                    Kind.train(MIXED, vocab_size=base - 1)
                with self.assertRaisesRegex(TypeError, 'one of the two'):
                    Kind.train(MIXED, 5, vocab_size=base + 5)

    def test_a_list_of_documents_is_trained_with_no_merge_across_two(self):
        # joined, 'zx' would be the likeliest pair after 'xy' and 'yz'
        docs = ['xyz', 'xyz', 'xyz', 'zx']
        for name, Kind in KINDS.items():
            with self.subTest(name):
                tok = Kind.train(docs, 20)
                made = [tok.token_bytes(new) for _, new in tok.state()['merges']]
                self.assertTrue(made)
                self.assertFalse([token for token in made if b'zx' in token and token != b'zx'],
                                 made)
                self.assertEqual([tok.decode(tok.encode(doc)) for doc in docs], docs)
                self.assertEqual(Kind.train(docs[:1], 5).state(), Kind.train(docs[0], 5).state())
        with self.assertRaisesRegex(TypeError, 'a str or an iterable of str'):
            KINDS['char'].train(b'bytes', 5)

    def test_documents_may_come_from_any_iterable_of_str_as_tokenizers_trains_from_one(self):
        docs = ['xyz', 'xyz', 'xyz', 'zx']
        for name, Kind in KINDS.items():
            with self.subTest(name):
                self.assertEqual(Kind.train((doc for doc in docs), 20).state(),
                                 Kind.train(docs, 20).state())
        for wrong in [[b'xyz'], {'text': 'xyz'}, 5]:
            with self.subTest(wrong), self.assertRaisesRegex(TypeError,
                                                             'a str or an iterable of str'):
                KINDS['char'].train(wrong, 5)

    def test_json_lines_are_documents_a_line_a_string_or_an_objects_text(self):
        text = '{"text": "Q: hi\\n\\nA: hello"}\n\n"second"\n{"text": "third", "id": 3}\n'
        self.assertEqual(documents(text, 'jsonl'), (['Q: hi\n\nA: hello', 'second', 'third'],
                                                    'one JSON document a line'))
        for wrong, said in [('{"txt": "a"}\n', 'line 1 holds no text'),
                            ('"a"\nnope\n', 'line 2 is not JSON'),
                            ('"a"\n' + '1' * 5000 + '\n',
                             'line 2 is not JSON .a number of 5,000 digits'),
                            ('"a"\n' + '[' * 100_000 + '\n',
                             'line 2 is not JSON .nested too deeply')]:
            with self.subTest(wrong), self.assertRaisesRegex(ValueError, said):
                documents(wrong, 'jsonl')

    def test_every_kind_encodes_with_the_one_policy_for_special_strings(self):
        for name, Kind in KINDS.items():
            with self.subTest(name):
                tok = Kind.train(MIXED + '<eos>', 20)
                plain = tok.encode('x<eos>')
                self.assertEqual(tok.decode(plain),
                                 tok.decode(tok.encode('x<eos>', disallowed='plain')))
                self.assertNotIn(tok.special_ids.get('<eos>'), plain)  # text, for every kind
                self.assertEqual(tok.encode('x<eos>', allowed=None), plain)
                with self.assertRaisesRegex(TypeError, 'encode takes a str, not bytes'):
                    tok.encode(b'x')
                if not tok.special_ids:
                    self.assertEqual(tok.encode('x<eos>', allowed='all'), plain)
                    with self.assertRaisesRegex(ValueError, 'no special string of this tokenizer'):
                        tok.encode('x', allowed=['<eos>'])

    def test_zero_merges_is_the_base_vocabulary_alone(self):
        for name, Kind in SHAPED.items():
            with self.subTest(name):
                tok = Kind.train(MIXED, 0)
                self.assertEqual(tok.state()['merges'], [])
                self.assertEqual(tok.decode(tok.encode(MIXED)), MIXED)

    def test_ids_are_below_the_vocabulary_size_and_an_id_past_it_is_refused(self):
        for name, text, _, tok in trained():
            if name == 'lesson':
                continue  # the lesson's file may not check ids: a learner may leave that check out
            with self.subTest(name, text=text[:20]):
                self.assertLess(max(tok.encode(text + UNSEEN)), tok.vocab_size)
                outside, no_number = 'not in this vocabulary', 'not a whole number'
                for wrong, said in [(tok.vocab_size, outside), (-1, outside), ('3', no_number),
                                    (True, no_number), (3.0, no_number)]:
                    with self.assertRaisesRegex(ValueError, said):
                        tok.decode([wrong])

    def test_ids_of_any_integer_type_decode_as_ints_do(self):
        class Int64:  # as numpy's integers: an int by __index__, not a subclass of int
            def __init__(self, value):
                self.value = value

            def __index__(self):
                return self.value
        for name, text, _, tok in trained():
            if name == 'lesson':
                continue
            with self.subTest(name):
                ids = tok.encode(text)
                self.assertEqual(tok.decode([Int64(i) for i in ids]), tok.decode(ids))

    def test_the_unknown_id_is_what_an_unseen_character_becomes(self):
        for name, Kind in KINDS.items():
            with self.subTest(name):
                tok = Kind.train(TEXT, 12)
                ids = tok.encode('Z')  # no 'Z' in the lesson's text
                if tok.unknown_id is None:
                    self.assertEqual(tok.decode(ids), 'Z')
                else:
                    self.assertEqual(ids, [tok.unknown_id])


def without_spaces(seed=3):
    """Text no space cuts: lines of Chinese characters (common ones far more often, as in real
    text), and a line that is one run of 4,000 letters, as a word or a piece is then."""
    rng = random.Random(seed)
    characters = [chr(0x4E00 + n) for n in range(300)]
    often = [1 / (n + 1) for n in range(300)]
    lines = [''.join(rng.choices(characters, often, k=rng.randint(20, 120))) for _ in range(200)]
    return '\n'.join(lines + [''.join(rng.choice('abcd') for _ in range(4000))]) + '\n'


class TextWithoutSpacesTest(unittest.TestCase):
    """Where a word or a piece is a whole line. Time is measured by the benchmark, python3 -m
    lab.speed FILE --kinds (every kind within a second on 900 KB of Chinese-shaped text, 1,000
    merges, on the machine it was written on); here, the memory, which does not depend on the
    machine: the labs refuse a text by MEMORY_PER_TEXT_BYTE (lab/plumbing/reading.py)."""

    def test_every_kind_trains_within_the_memory_per_byte_the_labs_assume(self):
        text = without_spaces()
        size = len(text.encode('utf-8'))
        compiled('gpt2')  # the pattern's tables, built once a process, are not the text's
        for name, Kind in KINDS.items():
            with self.subTest(name):
                tracemalloc.start()
                try:
                    tok = Kind.train(text, 100)
                    peak = tracemalloc.get_traced_memory()[1]
                finally:
                    tracemalloc.stop()
                self.assertEqual(tok.decode(tok.encode(text)), text)
                self.assertLess(peak / size, MEMORY_PER_TEXT_BYTE,
                                f'{peak / size:.0f} bytes a byte')

    def test_a_word_or_a_piece_of_a_whole_line_is_merged_within_the_line(self):
        text = without_spaces()
        for name in ['word', 'piece']:
            with self.subTest(name):
                tok = KINDS[name].train(text, 100)
                made = [tok.token_bytes(new) for _, new in tok.state()['merges']]
                self.assertEqual(len(made), 100)  # a 4,000-letter piece is merged, as any line is
                self.assertFalse(any(b'\n' in piece for piece in made))


class RememberedTest(unittest.TestCase):
    """Each kind remembers the lines (pieces) it has encoded, so that a repeated one costs
    nothing; encoding text after text, what it holds stays bounded."""

    def test_what_each_kind_remembers_is_bounded_and_forgetting_changes_no_id(self):
        fast_encode = lambda tok: tok.fast_encode.remembered  # noqa: E731
        held = {'char': fast_encode, 'word': fast_encode, 'special': fast_encode,
                'piece': lambda tok: tok.encode_piece.remembered, 'byte': lambda tok: tok._done}
        lines = [f'line {n} of {n * n}' for n in range(60)]
        for name, Kind in KINDS.items():
            with self.subTest(name), mock.patch('lab.fast.encoding.REMEMBERED', 8), \
                    mock.patch('lab.kinds.byte.REMEMBERED', 8):
                tok = Kind.train(MIXED, 40)
                first = [tok.encode(line) for line in lines]
                self.assertLessEqual(len(held[name](tok)), 8)
                self.assertGreater(len(held[name](tok)), 0)
                self.assertEqual([tok.encode(line) for line in lines], first)
                self.assertEqual(first, [Kind(**tok.state()).encode(line) for line in lines])


class FileTest(unittest.TestCase):
    """One file holds any kind, and lab.kinds.load gives it back, or fails closed in one line."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = Path(folder.name) / 'tok.json'

    def test_every_kind_saved_and_loaded_is_the_same_tokenizer(self):
        for name, Kind in KINDS.items():
            with self.subTest(name):
                tok = Kind.train(MIXED, 40)
                kinds.save(tok, self.path)
                again = kinds.load(self.path)
                self.assertEqual((type(again), again.state()), (Kind, tok.state()))
                self.assertEqual(kinds.plain(again)(MIXED + UNSEEN),
                                 kinds.plain(tok)(MIXED + UNSEEN))

    def test_the_char_kind_is_saved_as_the_lessons_tokenizer_json_and_others_name_their_kind(self):
        kinds.save(CharBPE.train(TEXT, 12), self.path)
        self.assertEqual(json.loads(self.path.read_text(encoding='utf-8')),
                         BPE.train(TEXT, 12).state())
        kinds.save(WordBPE.train(TEXT, 12), self.path)
        self.assertEqual(json.loads(self.path.read_text(encoding='utf-8'))['kind'], 'word')

    def test_a_byte_file_written_before_kinds_were_named_still_loads(self):
        old = {'special': ['<pad>', '<unk>', '<bos>', '<eos>'],
               'merges': ByteBPE.train(TEXT, 5).merges}
        self.path.write_text(json.dumps(old), encoding='utf-8')
        self.assertEqual(kinds.load(self.path).merges, old['merges'])

    def test_a_bad_file_is_one_line_naming_the_file_the_kind_and_the_problem(self):
        word = kinds.file_state(WordBPE.train(TEXT, 5))
        piece = kinds.file_state(PieceBPE.train(TEXT, 5, 'line'))
        for data, said in [({**word, 'merges': [[[1, 2], 99]]},
                            'tokenizer): the last merge makes id 99'),
                           ({**word, 'pattern': 'gpt2'},
                            'a word file has "pattern", which a word tokenizer'),
                           ({**piece, 'pattern': None}, 'pattern'),
                           ({key: value for key, value in piece.items() if key != 'pattern'},
                            'a piece file lacks "pattern": python3 -m lab.fast_bpe --kind piece'),
                           ({'kind': ['byte'], 'merges': []}, '"kind" is ["byte"], not one of'),
                           ({'kind': 'bytes', 'merges': []}, '"kind" is "bytes", not one of char'),
                           ({'version': '1.0', 'model': {}}, 'python3 -m lab.import_hf'),
                           ({'vocab': ['\ufffd']}, 'python3 -m lab.selfcheck')]:
            with self.subTest(said):
                self.path.write_text(json.dumps(data), encoding='utf-8')
                with self.assertRaises(ValueError) as caught:
                    kinds.load(self.path)
                self.assertIn(said, str(caught.exception))
                self.assertTrue(str(caught.exception).startswith(str(self.path)))
                self.assertNotIn('\n', str(caught.exception))

    def test_a_damaged_state_is_a_value_error_never_another_error_later(self):
        # seeded damage to every kind's state: a value replaced anywhere in it; either the
        # constructor refuses it (ValueError), or the tokenizer it builds encodes and decodes
        rng = random.Random(25)
        wrongs = [-1, 10**6, 'x', '', None, [], {}, True, 0.5, [1, 2], [[1, 2], 3], '\ud800']
        for name, Kind in KINDS.items():
            state = Kind.train(TEXT, 8).state()
            for _ in range(150):
                damaged = damage(json.loads(json.dumps(state)), rng, wrongs)
                with self.subTest(name, state=str(damaged)[:200]):
                    try:
                        tok = Kind(**damaged)
                    except ValueError:
                        continue
                    ids = kinds.plain(tok)(TEXT + UNSEEN)
                    self.assertIsInstance(tok.decode(ids), str)


def damage(state, rng, wrongs):
    """state with one value somewhere inside it replaced by a wrong one."""
    holder, key = state, rng.choice(list(state))
    while isinstance(holder[key], (list, dict)) and holder[key] and rng.random() < 0.7:
        holder = holder[key]
        key = rng.choice(list(holder)) if isinstance(holder, dict) else rng.randrange(len(holder))
    holder[key] = rng.choice(wrongs)
    return state


class CharTest(unittest.TestCase):
    def test_it_is_the_lessons_tokenizer(self):
        for text, count in texts():
            with self.subTest(text=text[:20]):
                self.assertEqual(CharBPE.train(text, count).state(), BPE.train(text, count).state())


class NoTokenCrossesAPieceTest(unittest.TestCase):
    """word and piece: the text is cut first, and every piece ends where a token ends."""

    def assert_pieces_kept(self, tok, text):
        self.assertEqual(''.join(tok.pieces(text)), text)
        ends, at = set(), 0
        for i in tok.encode(text):
            at += len(tok.decode([i]))
            ends.add(at)
        piece_ends, at = set(), 0
        for piece in tok.pieces(text):
            at += len(piece)
            piece_ends.add(at)
        self.assertLessEqual(piece_ends, ends)

    def test_words_and_every_pattern(self):
        tokenizers = [WordBPE.train(MIXED, 200)] + [PieceBPE.train(MIXED, 200, p)
                                                    for p in PIECE_PATTERNS]
        for tok in tokenizers:
            for text in [MIXED, TEXT,
                         '한국어 토크나이저는 12345 https://example.com/a?b=1 x_y+=2;']:
                with self.subTest(tok.state().get('pattern', 'word'), text=text[:20]):
                    self.assert_pieces_kept(tok, text)


class WordTest(unittest.TestCase):
    def test_the_marker_only_ever_ends_a_token_and_no_token_holds_whitespace(self):
        tok = WordBPE.train(MIXED, 200)
        for _, new in tok.merges:
            piece = tok.vocab[new]
            self.assertFalse(any(ch.isspace() for ch in piece), piece)
            self.assertNotIn(END, piece[:-len(END)] if piece.endswith(END) else piece)

    def test_every_space_is_the_marker_and_comes_back_even_where_the_text_spells_it(self):
        for text in ['  lead\tand  double  spaces \n\nend</w> of text </w>  ',
                     'a</w> b</w> c</w>\n' * 20]:
            tok = WordBPE.train(text * 3, 50)
            self.assertEqual(tok.decode(tok.encode(text)), text)
            self.assertEqual(tok.encode('  '), [1, 1])
            self.assertNotIn(' ', tok.vocab)

    def test_ties_go_to_the_pair_that_sorts_first(self):
        # 'y z' and 'a b' both occur twice and 'y z' comes first, but ('a', 'b') sorts first
        tok = WordBPE.train('yz ab yz ab', 1)
        self.assertEqual(tok.vocab[tok.merges[0][1]], 'ab')

    def test_stops_when_no_pair_occurs_twice(self):
        self.assertEqual(WordBPE.train('abc def', 10).merges, [])

    def test_the_engine_learns_what_counting_again_every_merge_learns(self):
        rng = random.Random(6)
        for text in list(fuzz_texts(60, seed=6)) + [MIXED, TEXT, 'aaaa aaaa', 'ab ab ab ba ba ba']:
            count = rng.choice([1, 5, 30, 200])
            with self.subTest(text=text[:30], count=count):
                self.assertEqual(WordBPE.train(text, count).state(), recounted(text, count))

    def test_merging_each_words_first_learned_pair_is_replaying_the_merges_in_order(self):
        for text in list(fuzz_texts(30, seed=7)) + [MIXED]:
            tok = WordBPE.train(text, 60)
            for other in [text, MIXED + '\ufffd</w>']:
                with self.subTest(text=text[:30]):
                    self.assertEqual(tok.encode(other), replayed(tok, other))

    def test_an_unknown_whitespace_character_stays_a_word_of_its_own(self):
        tok = WordBPE.train('\ufffd a \ufffd b \ufffd c', 3)
        self.assertIn('\ufffd</w>', tok.vocab)  # a merge on the unknown id and the space
        # '\t' is no word's end: as in tokenizers
        self.assertEqual(tok.encode('x\t y'), [0, 0, 1, 0])
        self.assertEqual(tok.encode('x y'), [tok.vocab.index('\ufffd</w>'), 0])

    def test_a_merge_that_would_join_two_words_is_refused(self):
        tok = WordBPE.train('ab ab\n', 0)  # ids: 0 unknown, 1 </w>, 2 '\n', 3 'a', 4 'b'
        with self.assertRaisesRegex(ValueError, 'not inside one word'):
            WordBPE(tok.vocab + ['</w>a'], [[[1, 3], 5]])


def word_symbols(text, vocab):
    """The word kind's cut, each word as the ids of its characters (a space is END, id 1)."""
    index = {piece: i for i, piece in enumerate(vocab)}
    cut = compiled('word').findall(text)
    return [tuple(1 if ch == ' ' else index.get(ch, 0) for ch in word) for word in cut]


def recounted(text, count):
    """Word-level training as its rule says it, every pair counted again for every merge."""
    vocab = [UNKNOWN, END] + sorted(set(text) - {UNKNOWN, ' '})
    freq = Counter(word_symbols(text, vocab))
    merges = []
    for _ in range(count):
        pairs = Counter()
        for word, n in freq.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += n
        best = max(pairs.values(), default=0)
        if best < 2:
            break
        pair = min((p for p, n in pairs.items() if n == best),
                   key=lambda p: (vocab[p[0]], vocab[p[1]], p))
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        merges.append([list(pair), len(vocab) - 1])
        freq = Counter({tuple(merge(list(word), pair, len(vocab) - 1)): n
                        for word, n in freq.items()})
    return {'vocab': vocab, 'merges': merges}


def replayed(tok, text):
    """Word-level encoding as its rule says it: every merge in turn over each word's symbols."""
    ids = []
    for word in word_symbols(text, tok.vocab[:len(tok.vocab) - len(tok.merges)]):
        symbols = list(word)
        for pair, new_id in tok.merges:
            symbols = merge(symbols, pair, new_id)
        ids += symbols
    return ids


class PieceTest(unittest.TestCase):
    def test_a_pattern_of_ones_own_cuts_ascii_text_as_it_cuts_any_other(self):
        # the ASCII spelling is for the named patterns: in [\p{L}-'] it would make - a range
        for pattern in [r"[\p{L}-']+", r'[\p{L}\p{N}-_]+', r'[\p{N}-.]+']:
            with self.subTest(pattern):
                text = "rock-n-roll it's 9-_ ok."
                self.assertEqual(''.join(patterns.cut(pattern, text)), text)
                self.assertEqual(patterns.cut(pattern, text),
                                 patterns.cut(pattern, text + '한')[:-1])  # not ASCII

    def test_an_ascii_text_is_cut_by_the_ascii_spelling_of_a_pattern_into_the_same_pieces(self):
        rng = random.Random(17)
        alphabet = "abcXYZ019 '\t\n\r\x0b\x0c\x1c\x1f\x7f\x00.,;:!?-_()[]{}\\^$'s'll'S'RE"
        for name in patterns.PATTERNS:
            for _ in range(300):
                text = ''.join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))
                with self.subTest(name, text=text):
                    self.assertEqual(patterns.compiled_ascii(name).findall(text),
                                     compiled(name).findall(text))

    def test_a_piece_per_line_learns_what_the_lesson_learns(self):
        rng = random.Random(13)
        for text in list(fuzz_texts(60, seed=13)) + [TEXT, MIXED]:
            count = rng.choice([1, 5, 30])
            learned, lesson = PieceBPE.train(text, count, 'line'), BPE.train(text, count)
            self.assertEqual((learned.vocab, learned.merges), (lesson.vocab, lesson.merges))

    def test_kept_counts_and_bounds_learn_what_counting_every_piece_again_learns(self):
        rng = random.Random(14)
        for text in list(fuzz_texts(40, seed=14)) + [MIXED, TEXT, 'aaaa aaaa', 'ab ab ab ba ba ba']:
            for pattern in ['gpt2', 'gpt4', 'space']:
                count = rng.choice([1, 5, 30, 200])
                with self.subTest(text=text[:30], pattern=pattern, count=count):
                    learned = PieceBPE.train(text, count, pattern)
                    want = recounted_in_pieces(text, count, pattern)
                    self.assertEqual([learned.vocab, learned.merges], want)

    def test_hangul_counts_as_letters_and_gpt4_groups_digits_by_three(self):
        def cut(text, pattern):
            return PieceBPE.train('', 0, pattern).pieces(text)
        self.assertEqual(cut('한국어 토큰 12345', 'gpt2'), ['한국어', ' 토큰', ' 12345'])
        self.assertEqual(cut("12345 He'LL", 'gpt4'), ['123', '45', ' He', "'LL"])
        self.assertEqual(cut('a  b', 'space'), ['a', ' ', ' b'])

    def test_a_pattern_of_ones_own_that_would_cut_wrongly_or_without_end_is_refused(self):
        self.assertIn(r'\S inside [...]', patterns.pattern_problem(r'[\S]+'))
        self.assertIn('lone surrogate', patterns.pattern_problem('\udcff+'))
        # (.+)+! tries some 2**80 ways on the trial text's last 81 characters, which hold no '!':
        # a twentieth of a second finds it out as surely as a second
        with mock.patch.object(patterns, '_TRIAL_SECONDS', 0.05):
            self.assertIn('backtracks without end', patterns.pattern_problem('(.+)+!'))
        with self.assertRaisesRegex(ValueError, 'matches nothing at character 1'):
            PieceBPE.train('zzz zz', 3, '(?<=z)')  # a lookaround alone: no character, no piece
        with mock.patch.object(patterns, 'CUT_EVERY_SECOND', 10**9), \
                mock.patch.object(patterns, '_CUT_SECONDS', 0.05), \
                self.assertRaisesRegex(ValueError, 'backtracks without end'):
            PieceBPE.train('x' * 26 + 'z', 3, '(x+x+)+y')
        self.assertEqual(PieceBPE.train('ab ab', 1, r'[a-z]+|\s').pieces('ab cd'),
                         ['ab', ' ', 'cd'])

    def test_what_tokenizers_reads_otherwise_than_python_is_refused_naming_it(self):
        # \w and \d count letters, marks and digits otherwise (U+0301, U+09F4): other ids once
        # exported
        for pattern, named in [(r'\w+|\s', r'\w'), (r'[\d]+', r'\d'), (r'\bx', r'\b'),
                               ('(?i)[a-z]+', '(?i)'),
                               ('[a-z]+$', '$'), ('[[:alpha:]]+', '[:alpha:]'), (r'x\Z', r'\Z')]:
            with self.subTest(pattern):
                said = patterns.pattern_problem(pattern)
                self.assertIn(f'tokenizers reads {named} otherwise', said or '')
        # a $ in a class, escaped
        for pattern in [r' ?\p{L}+| ?\p{N}+|\s+', r'[$]+|x', r'\$\d'[:2] + 'x']:
            self.assertIsNone(patterns.pattern_problem(pattern), pattern)

    def test_a_pattern_nested_deeply_is_refused_in_one_line(self):
        nested = 'gpt2'
        # what Python 3.13 reads from a file: no RecursionError from repr()
        for _ in range(100_000):
            nested = [nested]
        for make in [lambda: PieceBPE(['\ufffd', 'a'], [], nested),
                     lambda: ByteBPE([], [], None, nested)]:
            with self.assertRaisesRegex(ValueError, 'a pattern is one of'):
                make()

    def test_a_pattern_it_does_not_have_is_refused(self):
        with self.assertRaisesRegex(ValueError, "no pattern 'gpt5'"):
            PieceBPE(['\ufffd'], [], 'gpt5')


def recounted_in_pieces(text, count, pattern):
    """Pre-tokenized training as its rule says it: every pair of every piece counted again for
    every merge, '\\n' never merged, ties to the pair that occurs first in the text."""
    vocab = [UNKNOWN] + sorted(set(text) - {UNKNOWN})
    pieces = [[vocab.index(ch) for ch in piece] for piece in compiled(pattern).findall(text)]
    merges = []
    for _ in range(count):
        pairs, first = Counter(), {}
        for k, ids in enumerate(pieces):
            for i, pair in enumerate(zip(ids, ids[1:])):
                if '\n' not in vocab[pair[0]] + vocab[pair[1]]:
                    pairs[pair] += 1
                    first.setdefault(pair, (k, i))
        best = max(pairs.values(), default=0)
        if best < 2:
            break
        pair = min((p for p, n in pairs.items() if n == best), key=first.get)
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        merges.append([list(pair), len(vocab) - 1])
        pieces = [merge(ids, pair, len(vocab) - 1) for ids in pieces]
    return [vocab, merges]


class ByteTest(unittest.TestCase):
    def test_no_text_is_ever_unknown(self):
        tok = ByteBPE.train(TEXT, 40)
        for text in [TEXT, UNSEEN, '\ufffd', '\x00\x7f', MIXED,
                     ''.join(map(chr, range(0x1F600, 0x1F650)))]:
            self.assertEqual(tok.decode(tok.encode(text)), text)

    def test_id_contract_specials_then_bytes_then_merges(self):
        tok = ByteBPE.train(TEXT, 40)
        self.assertEqual(tok.encode('Q'), [FIRST_BYTE + ord('Q')])  # no merge makes 'Q' alone
        self.assertEqual(ByteBPE([]).encode('a\xff'), [4 + 97, 4 + 0xc3, 4 + 0xbf])
        self.assertEqual([new for _, new in tok.merges], list(range(FIRST_MERGE, FIRST_MERGE + 40)))

    def test_korean_and_emoji_cost_one_token_a_byte_without_merges_for_them(self):
        tok = ByteBPE.train(TEXT, 40)
        self.assertEqual(len(tok.encode('안녕')), 6)
        self.assertEqual(len(tok.encode('😀')), 4)

    def test_decode_skips_special_ids_or_names_them(self):
        tok = ByteBPE([])
        ids = [2] + tok.encode('hi') + [3]
        self.assertEqual(tok.decode(ids), 'hi')
        self.assertEqual(tok.decode(ids, skip_special=False), '<bos>hi<eos>')

    def test_decode_reads_utf8_once_so_a_character_may_span_tokens(self):
        tok = ByteBPE([])
        ids = tok.encode('안')
        self.assertEqual(tok.decode(ids), '안')
        self.assertEqual(tok.decode(ids[:2]), '\ufffd')  # a cut-off character is replaced

    def test_a_long_piece_is_replayed_to_the_ids_merging_pair_by_pair_gives(self):
        rng = random.Random(4)
        tok = ByteBPE.train(MIXED + 'a' * 300, 120)
        for text in ['a' * 30_000,
                     ''.join(rng.choice(MIXED.replace('\n', '')) for _ in range(20_000))]:
            with self.subTest(text=text[:10]):
                fresh = ByteBPE(**tok.state())
                with mock.patch.object(byte, 'LONG_PIECE', 10**9):  # pair by pair
                    want = fresh.encode(text)
                self.assertEqual(tok.encode(text), want)
                self.assertTrue(tok._replay)

    def test_a_merge_into_a_special_name_takes_its_id_as_tokenizers_gives_and_never_applies(self):
        byte_ids = [None] * 256
        for n, ch in enumerate('<ab>'):
            byte_ids[ord(ch)] = 1 + n
        # '<a' and 'b>', then '<ab>', into the special token's id, then a merge that uses it
        merges = [[[1, 2], 5], [[3, 4], 6], [[5, 6], 0], [[0, 2], 7]]
        tok = ByteBPE(merges, {'<ab>': 0}, byte_ids)
        self.assertEqual(tok.vocab_size, 8)
        self.assertEqual(tok.encode('<ab>b'), [5, 6, 3])  # as text: never the special id
        # cut out first, as tokenizers does
        self.assertEqual(tok.encode('<ab>a', allowed='all'), [0, 2])
        with self.assertRaisesRegex(ValueError, 'which they do not spell'):
            ByteBPE([[[1, 1], 0]], {'<ab>': 0}, byte_ids)

    def test_a_newline_with_no_id_is_left_out_and_the_bytes_around_it_merge(self):
        byte_ids = [None] * 256
        byte_ids[ord('a')], byte_ids[ord('b')] = 0, 1
        # as tokenizers trains on lines, with no newline byte
        tok = ByteBPE([[[0, 1], 2]], {}, byte_ids)
        # tokenizers: [2] (the newline skipped, then 'ab')
        self.assertEqual(tok.encode('a\nb'), [2])

    def test_a_state_off_its_layout_is_refused(self):
        for state in [{'merges': [[[4, 5], 261]]}, {'merges': [[[4, 300], 260]]}, {'merges': 'x'},
                      {'merges': [], 'special': ['<pad>', '<pad>']},
                      {'merges': [], 'byte_ids': [0] * 256},
                      {'merges': [[[4, 5], 260], [[260, 4], 260]]},
                      {'merges': [], 'pattern': 'gpt5'}]:
            with self.subTest(state), self.assertRaises(ValueError):
                ByteBPE(**state)

    def test_a_state_that_would_spell_more_than_it_may_is_refused_before_it_is_built(self):
        merges = [[[4, 4], 260]] + [[[260 + n, 260 + n], 261 + n] for n in range(40)]  # 2**41 bytes
        with self.assertRaisesRegex(ValueError, 'would spell 4,398,046,511,'):
            ByteBPE(merges)

    def test_other_specials_take_the_first_ids_and_the_bytes_follow(self):
        tok = ByteBPE.train(TEXT, 10, special=['<eos>'])
        self.assertEqual(tok.special_ids, {'<eos>': 0})
        self.assertEqual(tok.encode('Q'), [1 + ord('Q')])
        self.assertEqual(tok.vocab_size, 1 + 256 + 10)

    def test_a_text_with_a_lone_surrogate_is_refused_naming_where(self):
        # what Python makes of bytes that are not UTF-8 in a command's argument: no bytes to give it
        tok = ByteBPE.train(TEXT, 10, special=['<eos>'])
        with self.assertRaisesRegex(ValueError,
                                    r'lone surrogate \(U\+DCED, character 7\): not UTF-8'):
            tok.encode('<eos>ab\udced\udca0\udc80c', allowed=['<eos>'])  # counted from the start

    def test_special_names_are_refused_for_what_is_wrong_with_them(self):
        for special, said in [(['<x\udcff>'], 'lone surrogate'),  # an argument not UTF-8: \xff
                              (['<eos>', '<eos>'], 'different, non-empty strings'),
                              ([''], 'non-empty')]:
            with self.subTest(special), self.assertRaisesRegex(ValueError, said):
                ByteBPE.train(TEXT, 10, special=special)


class CountInProcessesTest(unittest.TestCase):
    """A large text's pieces are counted in processes, a share each (patterns.count_pieces_fast)."""

    def test_pieces_counted_in_two_processes_are_the_pieces_counted_in_one(self):
        skip_unless_processes_start()
        docs = documents(MIXED * 3, 'paragraphs')[0] + ['  a trailing  ', '\n\n', 'x']
        for pattern in ['gpt2', 'gpt4', None]:
            with self.subTest(pattern), mock.patch.object(patterns, 'COUNT_PARALLEL_FROM', 1000):
                self.assertEqual(patterns.count_pieces_fast(pattern, docs, jobs=2),
                                 patterns.count_pieces(pattern, docs))

    def test_a_text_below_the_threshold_is_counted_here(self):
        with mock.patch.object(patterns.encoding, 'in_processes_or_here') as processes:
            patterns.count_pieces_fast('gpt2', [MIXED], jobs=2)
        processes.assert_not_called()


class SpecialTest(unittest.TestCase):
    def setUp(self):
        self.tok = SpecialBPE.train(TEXT, 12)

    def test_special_ids_come_after_the_vocabulary(self):
        self.assertEqual(sorted(self.tok.special_ids.values()),
                         list(range(40, 40 + len(self.tok.special))))

    def test_a_special_string_in_text_is_text_unless_allowed(self):
        ids = self.tok.encode('hi<eos> there')
        self.assertNotIn(self.tok.special_ids['<eos>'], ids)
        # its characters, as the lesson's
        self.assertEqual(ids, self.tok.lesson.encode('hi<eos> there'))

    def test_disallowed_refuse_refuses_it_naming_it_and_where(self):
        with self.assertRaisesRegex(ValueError, "'<eos>' at character 2"):
            self.tok.encode('hi<eos> there', disallowed='refuse')

    def test_a_hundred_thousand_special_names_cost_no_scan_of_each(self):
        names = [f'<s{n}>' for n in range(100_000)]
        tok = SpecialBPE(self.tok.vocab[:40], self.tok.merges, names)
        texts = ['hi <s5> and <s99999>, <s7'] * 2000
        self.assertEqual(kinds.special_strings(tok, texts), {'<s5>': 2000, '<s99999>': 2000})
        ids = tok.encode(texts[0], allowed=['<s99999>'])
        self.assertEqual(ids.count(tok.special_ids['<s99999>']), 1)
        with self.assertRaisesRegex(ValueError, "'<s5>' at character 3"):
            tok.encode(texts[0], disallowed='refuse')
        self.assertEqual(len([tok.encode(text) for text in texts]), 2000)  # none scans the names

    def test_text_that_spells_a_special_name_trains_and_the_name_stays_text(self):
        tok = SpecialBPE.train('<eos>\na <eos>\n' * 20, 40)
        self.assertIn('<eos>', tok.lesson.vocab)  # learned from the text, as text
        self.assertNotIn(tok.special_ids['<eos>'], tok.encode('a <eos>'))
        self.assertEqual(tok.encode('a <eos>', allowed=['<eos>'])[-1], tok.special_ids['<eos>'])
        with self.assertRaisesRegex(ValueError, 'twice'):  # a tokenizers file gives a string one id
            to_hf(tok)

    def test_the_longest_special_string_at_a_place_wins(self):
        tok = SpecialBPE(self.tok.vocab[:40], self.tok.merges, ['<e', '<eos>', 'os>'])
        found = tok.encode('a<eos>', allowed='all')
        self.assertEqual(found[-1], tok.special_ids['<eos>'])

    def test_allowed_all_makes_every_special_string_its_id(self):
        ids = self.tok.encode('<bos>hi<eos>', allowed='all')
        bos, eos = self.tok.special_ids['<bos>'], self.tok.special_ids['<eos>']
        self.assertEqual(ids, [bos] + self.tok.encode('hi') + [eos])
        with self.assertRaisesRegex(ValueError, 'a list of special strings'):
            self.tok.encode('hi<eos>', allowed='<eos>')

    def test_allowed_it_becomes_the_special_id(self):
        ids = self.tok.encode('hi<eos>', allowed=['<eos>'])
        self.assertEqual(ids, self.tok.encode('hi') + [self.tok.special_ids['<eos>']])
        self.assertEqual(self.tok.decode(ids), 'hi<eos>')
        self.assertEqual(self.tok.decode(ids, skip_special=True), 'hi')

    def test_plain_text_never_gives_a_special_id(self):
        rng = random.Random(21)
        lesson = BPE.train(TEXT, 12)
        for _ in range(200):
            parts = ['a', 'b ', '<eos>', '[A]', '<', '>', '[', 'Q: ', '\n']
            text = ''.join(rng.choice(parts) for _ in range(20))
            ids = self.tok.encode(text, disallowed='plain')
            self.assertFalse(set(ids) & set(self.tok.special_ids.values()), text)
            self.assertEqual(ids, lesson.encode(text))

    def test_only_special_strings_can_be_allowed(self):
        with self.assertRaisesRegex(ValueError, 'no special string of this tokenizer'):
            self.tok.encode('hi', allowed=['<x>'])


if __name__ == '__main__':
    unittest.main()
