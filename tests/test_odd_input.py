"""Odd input: the library keeps its promises on any str, and refuses ids that are not token ids."""
import unicodedata
import unittest

from tests.project import ROOT
from tokenizer import BPE, UNKNOWN

TEXT = (ROOT / 'data' / 'train.txt').read_text(encoding='utf-8')
ODD = {
    'empty': '',
    'lone surrogates': 'a\ud800b\udfffc',
    'windows line ends': 'Q: hi\r\nA: hello.\r\n',
    'NFD Korean': unicodedata.normalize('NFD', '안녕하세요 한국어'),
    'emoji': '😀 👍🏽 👨‍👩‍👧 🇰🇷',
    'replacement character': 'a\ufffdb\ufffd',
    'astral and control': '\x00\x1b[31m\U0010ffff\u200b',
}


class DecodeRefusesBadIdsTest(unittest.TestCase):
    def setUp(self):
        self.tok = BPE.train(TEXT, 12)

    def test_negative_id_is_refused_not_read_from_the_end(self):
        with self.assertRaisesRegex(ValueError, r'id -1 is not in this vocabulary of 40 tokens'):
            self.tok.decode([-1])

    def test_id_past_the_end_is_refused(self):
        with self.assertRaisesRegex(ValueError, r'id 40 is not in this vocabulary of 40 tokens'):
            self.tok.decode([1, 40])

    def test_ids_that_are_not_integers_are_refused(self):
        for bad in [1.0, '3', None, True, [1]]:
            with self.subTest(bad=bad), self.assertRaisesRegex(ValueError, 'of 40 tokens'):
                self.tok.decode([bad])

    def test_last_id_is_accepted(self):
        self.assertEqual(self.tok.decode([39]), self.tok.vocab[39])


class AnyStringTest(unittest.TestCase):
    def test_unknown_characters_of_any_kind_come_back_as_the_replacement_character(self):
        tok = BPE.train(TEXT, 12)
        for name, text in ODD.items():
            with self.subTest(name):
                ids = tok.encode(text)
                known = ''.join(ch if ch in tok.chars else UNKNOWN for ch in text)
                self.assertEqual(tok.decode(ids), known)

    def test_a_tokenizer_trained_on_odd_text_round_trips_it(self):
        for name, text in ODD.items():
            with self.subTest(name):
                tok = BPE.train(text * 3, 20)
                self.assertEqual(tok.decode(tok.encode(text)), text)

    def test_a_megabyte_of_one_repeated_character(self):
        tok = BPE.train(TEXT, 12)
        text = 'a' * 1_000_000
        self.assertEqual(tok.decode(tok.encode(text)), text)


class OddTrainingTextTest(unittest.TestCase):
    def test_replacement_character_in_the_text_is_id_0_and_round_trips(self):
        tok = BPE.train('ab\ufffdab\ufffd', 5)
        self.assertEqual(tok.vocab.count(UNKNOWN), 1)
        self.assertEqual(tok.decode(tok.encode('ab\ufffd')), 'ab\ufffd')

    def test_one_character(self):
        tok = BPE.train('x', 3)
        self.assertEqual((tok.vocab, tok.merges, tok.encode('x')), ([UNKNOWN, 'x'], [], [1]))

    def test_only_newlines(self):
        tok = BPE.train('\n\n\n\n', 3)
        self.assertEqual((tok.vocab, tok.merges), ([UNKNOWN, '\n'], []))

    def test_a_count_larger_than_the_possible_merges_stops_early(self):
        tok = BPE.train('abcabc', 1000)
        self.assertEqual([tok.vocab[new] for _, new in tok.merges], ['ab', 'abc'])


if __name__ == '__main__':
    unittest.main()
