"""Byte-level BPE trained with tokenizers' rules (ByteBPE.train(..., rules='tokenizers'), python3
-m lab.fast_bpe --rules tokenizers): merge for merge what the tokenizers library trains with the
course's settings, held to the library itself where it is installed (.ci/run installs it)."""
import json
import random
import tempfile
import unittest
from array import array
from collections import Counter
from pathlib import Path

from lab import prepare
from lab.kinds import ByteBPE
from lab.kinds.hf import from_hf, to_hf
from lab.kinds.patterns import compiled, count_pieces
from lab.kinds.texts import documents
from tests.project import MIXED
from tests.test_export_hf import PROBES

try:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
except ImportError:  # optional
    Tokenizer = None

# Korean, code, runs of whitespace of every kind, emoji, contractions, digits of other scripts
SAMPLES = [MIXED, *PROBES[:5], '\n\n'.join(PROBES) * 3,
           'if x:\n        y = 1\n\n\n    \t z  \n' * 5 + '    return [1,  2,   3]\n' * 4,
           '안녕하세요 여러분, 오늘은 토크나이저를 배웁니다. 안녕히 가세요! ' * 6
           + '🙂🙃🙂 🙂🙂\n' * 3]


def random_documents(seed, count=40):
    """Documents of letters, Korean, emoji, digits, apostrophes and whitespace of every kind."""
    rng = random.Random(seed)
    alphabet = ['a', 'b', 'ab', 'the', ' ', '  ', '\n', '\t', '\r\n', "'s", "'", '1', '23', '.',
                '::', '안',
                '녕', '😀', '👍🏽', '\u3000', '\xa0', '\x1c', 'Ä', '-', '    ', 'Q: ']
    return [''.join(rng.choice(alphabet) for _ in range(rng.randrange(1, 60)))
            for _ in range(count)]


def train_theirs(docs, vocab_size, special=('<eos>',)):
    """The course's tokenizer, trained by the tokenizers library."""
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(special),
                                  show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(docs, trainer)
    return tok


def model_of(data):
    """(vocabulary as strings in id order, merges as string pairs) of a tokenizers file's model."""
    vocab = data['model']['vocab']
    merges = [pair.split(' ') if isinstance(pair, str) else pair
              for pair in data['model']['merges']]
    return sorted(vocab, key=vocab.get), merges


class PiecesTest(unittest.TestCase):
    def test_gpt2_pieces_counted_chunk_by_chunk_are_those_of_the_pattern(self):
        for seed in range(30):
            docs = random_documents(seed, 5)
            with self.subTest(seed=seed):
                want = Counter(piece for doc in docs for piece in compiled('gpt2').findall(doc))
                self.assertEqual(count_pieces('gpt2', docs), want)


class RulesTest(unittest.TestCase):
    def test_the_layout_is_specials_then_bytes_in_their_characters_order(self):
        tok = ByteBPE.train(MIXED, vocab_size=300, special=['<eos>'], rules='tokenizers')
        self.assertEqual(tok.special_ids, {'<eos>': 0})
        self.assertEqual(tok.byte_ids[ord('!')], 1)  # '!' is the first of the characters, sorted
        # byte 0 is written U+0100, after the 188 printable ones
        self.assertEqual(tok.byte_ids[0], 1 + 188)
        self.assertEqual(tok.vocab_size, 300)
        self.assertEqual(tok.pattern, 'gpt2')

    def test_no_special_token_unless_named_as_in_bpetrainer(self):
        tok = ByteBPE.train(MIXED, vocab_size=300, rules='tokenizers')
        self.assertEqual((tok.special_ids, tok.byte_ids[ord('!')]), ({}, 0))
        lesson = ByteBPE.train(MIXED, 0)  # the lesson's rules: the contract's four
        self.assertEqual(lesson.special_ids, {'<pad>': 0, '<unk>': 1, '<bos>': 2, '<eos>': 3})

    def test_a_newline_merges_and_a_pair_seen_once_is_merged(self):
        tok = ByteBPE.train(['x\n\n\n\n'], vocab_size=1 + 256 + 5, special=['<eos>'],
                            rules='tokenizers')
        self.assertEqual([tok.token_bytes(new) for _, new in tok.merges], [b'\n\n', b'\n\n\n\n'])

    def test_a_tie_goes_to_the_pair_of_smaller_ids(self):
        tok = ByteBPE.train(['zy ba'], vocab_size=1 + 256 + 1, special=['<eos>'],
                            rules='tokenizers')
        # 'ba', as tokenizers breaks the tie; the lesson's rules would take 'zy', seen first
        self.assertEqual(tok.token_bytes(tok.merges[0][1]), b'ba')

    def test_vocab_size_below_the_base_is_refused(self):
        with self.assertRaisesRegex(ValueError, 'starts with 257 ids'):
            ByteBPE.train('abc', vocab_size=100, special=['<eos>'], rules='tokenizers')

    def test_documents_are_cut_apart(self):
        tok = ByteBPE.train(['ab', 'ab'], vocab_size=300, special=[], rules='tokenizers')
        # 'ab' once merged; no pair is left across the documents
        self.assertEqual(tok.vocab_size, 257)

    def test_the_file_reads_back_the_same(self):
        tok = ByteBPE.train(MIXED, vocab_size=400, special=['<eos>'], rules='tokenizers')
        self.assertEqual(ByteBPE(**json.loads(json.dumps(tok.state()))).state(), tok.state())


@unittest.skipIf(Tokenizer is None, 'needs the tokenizers package (pip install tokenizers)')
class SameAsTokenizersTest(unittest.TestCase):
    def assert_same(self, docs, vocab_size, special=('<eos>',)):
        theirs = train_theirs(docs, vocab_size, special)
        ours = ByteBPE.train(docs, vocab_size=vocab_size, special=list(special), rules='tokenizers')
        data = json.loads(theirs.to_str())
        # the vocabulary and the merges, in order
        self.assertEqual(model_of(to_hf(ours)), model_of(data))
        for text in docs[:5] + PROBES:
            self.assertEqual(ours.encode(text), theirs.encode(text).ids, text[:40])

    def test_the_samples_at_several_vocabulary_sizes(self):
        for n, sample in enumerate(SAMPLES):
            for vocab_size in [257, 260, 300, 500, 2000]:
                with self.subTest(sample=n, vocab_size=vocab_size):
                    self.assert_same(documents(sample)[0] or [sample], vocab_size)

    def test_random_documents(self):
        for seed in range(12):
            with self.subTest(seed=seed):
                self.assert_same(random_documents(seed),
                                 random.Random(seed).choice([280, 400, 1000]))

    def test_other_special_tokens_and_none(self):
        self.assert_same(documents(MIXED)[0], 400, ('<pad>', '<bos>', '<eos>'))
        self.assert_same(documents(MIXED)[0], 400, ())

    def test_the_lines_of_a_text_as_documents(self):
        self.assert_same(documents(MIXED, 'lines')[0], 600)

    def test_a_special_token_named_as_a_byte_character_is_that_bytes_id_when_imported(self):
        theirs = train_theirs(['a b', 'a  b c', 'hello world'], 270, special=('Ġ', '<eos>'))
        ours = from_hf(json.loads(theirs.to_str()))
        self.assertEqual(ours.byte_ids[ord(' ')], ours.special_ids['Ġ'])
        for text in ['a b', 'hello  world\n', ' x']:  # 'Ġ' itself: there its id, here text
            self.assertEqual(ours.encode(text), theirs.encode(text).ids, text)
        with self.assertRaisesRegex(ValueError,
                                    "'Ġ' is the character tokenizers writes byte 32 as"):
            ByteBPE.train('a b', vocab_size=270, special=['Ġ'], rules='tokenizers')

    def test_prepare_writes_the_ids_the_courses_numpy_code_writes(self):
        # the course: each document's ids from tokenizers, then <eos>, all in one uint16 array
        text = '\n\n'.join([MIXED, *SAMPLES[1:]])
        docs = documents(text, 'paragraphs')[0]
        theirs = train_theirs(docs, 700)
        eos = theirs.token_to_id('<eos>')
        course = array('H', [i for doc in docs for i in theirs.encode(doc).ids + [eos]])
        ours = ByteBPE.train(docs, vocab_size=700, special=['<eos>'], rules='tokenizers')
        with tempfile.TemporaryDirectory() as folder:
            made = prepare.prepare(ours, text, Path(folder), 8, how='paragraphs')
            written = b''.join((Path(folder) / name).read_bytes()
                               for name in ['train.bin', 'val.bin'])
        self.assertEqual(written, course.tobytes())  # id for id, the split at a document aside
        self.assertEqual(made['special'], {})

    def test_prepare_keeps_a_spelled_eos_as_text_and_says_so(self):
        docs = ['the <eos> token', 'a second document here']
        ours = ByteBPE.train(docs, vocab_size=300, special=['<eos>'], rules='tokenizers')
        with tempfile.TemporaryDirectory() as folder:
            made = prepare.prepare(ours, '\n\n'.join(docs), Path(folder), 2, how='paragraphs')
        self.assertEqual(made['special'], {'<eos>': 1})
        written = (made['train'] + made['val']).tolist()
        self.assertEqual(written, ours.encode(docs[0]) + [0] + ours.encode(docs[1]) + [0])
        # the two that end the documents
        self.assertEqual((made['train'] + made['val']).count(0), 2)
        self.assertIn('kept as text',
                      '\n'.join(prepare.report(ours, made, ([[0]], [[0]], True, Args()))))


class Args:  # what prepare.report reads of the command line
    batch_size, block_size, seed = 1, 1, 1
