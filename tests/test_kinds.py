"""Every tokenizer kind in lab/kinds, and the learner's own BPE, has one shape: trained as
Kind.train(text, count), used as encode and decode, saved as state(), rebuilt as
Kind(**state). The shape's rules come first, each one test over all the kinds; then each
kind's own rule."""
import json
import os
import random
import subprocess
import sys
import unittest
from collections import Counter

from lab.common import UNKNOWN
from lab.kinds import KINDS, ByteBPE, CharBPE, PieceBPE, SpecialBPE, WordBPE
from lab.kinds.byte import FIRST_BYTE, FIRST_MERGE
from lab.kinds.piece import PATTERNS
from lab.kinds.word import END, words
from tests.project import MIXED, ROOT, TEXT
from tests.test_fuzz import fuzz_texts
from tokenizer import BPE, merge

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
        code = ('import json; from tests.test_kinds import trained; '
                'print(json.dumps([[name, tok.state()] for name, _, _, tok in trained()]))')
        states = [subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True, text=True,
                                 env=dict(os.environ, PYTHONHASHSEED=seed), timeout=120).stdout
                  for seed in ('0', '1')]
        self.assertTrue(states[0].startswith('[["lesson"'), states[0][:200])
        self.assertEqual(states[0], states[1])

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
                for wrong in [tok.vocab_size, -1, '3', True]:
                    with self.assertRaisesRegex(ValueError, 'not in this vocabulary'):
                        tok.decode([wrong])

    def test_the_unknown_id_is_what_an_unseen_character_becomes(self):
        for name, Kind in KINDS.items():
            with self.subTest(name):
                tok = Kind.train(TEXT, 12)
                ids = tok.encode('Z')  # no 'Z' in the lesson's text
                if tok.unknown_id is None:
                    self.assertEqual(tok.decode(ids), 'Z')
                else:
                    self.assertEqual(ids, [tok.unknown_id])


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
        tokenizers = [WordBPE.train(MIXED, 200)] + [PieceBPE.train(MIXED, 200, name) for name in PATTERNS]
        for tok in tokenizers:
            for text in [MIXED, TEXT, '한국어 토크나이저는 12345 https://example.com/a?b=1 x_y+=2;']:
                with self.subTest(tok.state().get('pattern', 'word'), text=text[:20]):
                    self.assert_pieces_kept(tok, text)


class WordTest(unittest.TestCase):
    def test_the_marker_only_ever_ends_a_token_and_no_token_holds_whitespace(self):
        tok = WordBPE.train(MIXED, 200)
        for _, new in tok.merges:
            piece = tok.vocab[new]
            self.assertFalse(any(ch.isspace() for ch in piece), piece)
            self.assertNotIn(END, piece[:-len(END)] if piece.endswith(END) else piece)

    def test_every_space_comes_back_even_where_the_text_spells_the_marker(self):
        for text in ['  lead\tand  double  spaces \n\nend</w> of text </w>  ', 'a</w> b</w> c</w>\n' * 20]:
            tok = WordBPE.train(text * 3, 50)
            self.assertEqual(tok.decode(tok.encode(text)), text)

    def test_ties_go_to_the_pair_that_sorts_first(self):
        # 'y z' and 'a b' both occur twice and 'y z' comes first, but ('a', 'b') sorts first
        tok = WordBPE.train('yz ab yz ab', 1)
        self.assertEqual(tok.vocab[tok.merges[0][1]], 'ab')

    def test_stops_when_no_pair_occurs_twice(self):
        self.assertEqual(WordBPE.train('abc def', 10).merges, [])

    def test_counts_kept_up_to_date_learn_what_counting_again_every_merge_learns(self):
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


def recounted(text, count):
    """Word-level training as its rule says it, every pair counted again for every merge."""
    vocab = [UNKNOWN, END] + sorted(set(text) - {UNKNOWN})
    freq = Counter(tuple(vocab.index(s) for s in word) for word in words(text))
    merges = []
    for _ in range(count):
        pairs = Counter()
        for word, n in freq.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += n
        best = max(pairs.values(), default=0)
        if best < 2:
            break
        pair = min((p for p, n in pairs.items() if n == best), key=lambda p: (vocab[p[0]], vocab[p[1]]))
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        merges.append([list(pair), len(vocab) - 1])
        freq = Counter({tuple(merge(list(word), pair, len(vocab) - 1)): n for word, n in freq.items()})
    return {'vocab': vocab, 'merges': merges}


def replayed(tok, text):
    """Word-level encoding as its rule says it: every merge in turn over each word's symbols."""
    index = {piece: i for i, piece in enumerate(tok.vocab[:len(tok.vocab) - len(tok.merges)])}
    ids = []
    for word in words(text):
        symbols = [index.get(s, 0) for s in word]
        for pair, new_id in tok.merges:
            symbols = merge(symbols, pair, new_id)
        ids += symbols
    return ids


class PieceTest(unittest.TestCase):
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

    def test_a_pattern_it_does_not_have_is_refused(self):
        with self.assertRaisesRegex(ValueError, "no pattern 'gpt5'"):
            PieceBPE(['\ufffd'], [], 'gpt5')


def recounted_in_pieces(text, count, pattern):
    """Pre-tokenized training as its rule says it: every pair of every piece counted again for
    every merge, '\\n' never merged, ties to the pair that occurs first in the text."""
    vocab = [UNKNOWN] + sorted(set(text) - {UNKNOWN})
    pieces = [[vocab.index(ch) for ch in piece] for piece in PATTERNS[pattern].findall(text)]
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
        for text in [TEXT, UNSEEN, '\ufffd', '\x00\x7f', MIXED, ''.join(map(chr, range(0x1F600, 0x1F650)))]:
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

    def test_a_state_off_the_contract_is_refused(self):
        for state in [{'merges': [[[4, 5], 261]]}, {'merges': [[[4, 300], 260]]},
                      {'merges': [], 'special': ['<pad>']}, {'merges': 'x'}]:
            with self.subTest(state), self.assertRaisesRegex(ValueError, 'not a byte tokenizer'):
                ByteBPE(**state)


class SpecialTest(unittest.TestCase):
    def setUp(self):
        self.tok = SpecialBPE.train(TEXT, 12)

    def test_special_ids_come_after_the_vocabulary(self):
        self.assertEqual(sorted(self.tok.ids.values()), list(range(40, 40 + len(self.tok.special))))

    def test_a_special_string_in_user_text_is_refused_by_default_naming_it_and_where(self):
        with self.assertRaisesRegex(ValueError, "'<eos>' at character 2"):
            self.tok.encode('hi<eos> there')

    def test_allowed_it_becomes_the_special_id(self):
        ids = self.tok.encode('hi<eos>', allowed=['<eos>'])
        self.assertEqual(ids, self.tok.encode('hi') + [self.tok.ids['<eos>']])
        self.assertEqual(self.tok.decode(ids), 'hi<eos>')
        self.assertEqual(self.tok.decode(ids, skip_special=True), 'hi')

    def test_plain_text_never_gives_a_special_id(self):
        rng = random.Random(21)
        lesson = BPE.train(TEXT, 12)
        for _ in range(200):
            parts = ['a', 'b ', '<eos>', '[A]', '<', '>', '[', 'Q: ', '\n']
            text = ''.join(rng.choice(parts) for _ in range(20))
            ids = self.tok.encode(text, disallowed='plain')
            self.assertFalse(set(ids) & set(self.tok.ids.values()), text)
            self.assertEqual(ids, lesson.encode(text))

    def test_only_special_strings_can_be_allowed(self):
        with self.assertRaisesRegex(ValueError, 'not special strings'):
            self.tok.encode('hi', allowed=['<x>'])


if __name__ == '__main__':
    unittest.main()
