"""The lesson's rules for BPE.train(text, count): which merges are learned, in which order."""
import unittest

from tests import gate

BPE = None  # the learner's BPE, once the tutor finds parts 0 to 3 keep the lesson's rules


def setUpModule():
    global BPE
    BPE = gate.learners(3).BPE

UNKNOWN = '\ufffd'  # id 0


class TrainTest(unittest.TestCase):
    def test_vocab_starts_with_unknown_then_sorted_characters(self):
        tok = BPE.train('cab\n', 0)
        self.assertEqual(tok.vocab, [UNKNOWN, '\n', 'a', 'b', 'c'])

    def test_unknown_character_in_text_is_not_added_twice(self):
        tok = BPE.train('a\ufffdb', 0)
        self.assertEqual(tok.vocab, [UNKNOWN, 'a', 'b'])

    def test_most_frequent_pair_is_merged_first(self):
        tok = BPE.train('ab cdcdcd', 1)
        self.assertEqual(tok.vocab[-1], 'cd')

    def test_tie_goes_to_the_pair_that_occurs_first_in_the_sequence(self):
        # 'yz' and 'ab' both occur twice; 'yz' comes first in the text though 'ab' sorts first
        tok = BPE.train('yzab yzab', 1)
        self.assertEqual(tok.vocab[-1], 'yz')

    def test_tie_looks_at_the_current_sequence_not_the_original_text(self):
        # after 'ab' is merged, ('ab', 'c') is first at position 0 and ties with 'xy'
        tok = BPE.train('abcxyabcxyab', 2)
        self.assertEqual(tok.vocab[-2:], ['ab', 'abc'])

    def test_new_token_is_the_two_pieces_joined_with_the_next_id(self):
        tok = BPE.train('abab', 1)
        self.assertEqual(tok.merges, [[[tok.chars['a'], tok.chars['b']], len(tok.vocab) - 1]])
        self.assertEqual(tok.vocab[-1], 'ab')

    def test_a_newline_is_never_inside_a_merged_piece(self):
        # ('a', '\n') and ('\n', 'a') are by far the most frequent pairs here
        tok = BPE.train('a\n' * 30 + 'ab ab ab', 20)
        self.assertTrue(tok.merges)
        for _, new_id in tok.merges:
            self.assertNotIn('\n', tok.vocab[new_id])

    def test_only_newlines_learn_nothing(self):
        self.assertEqual(BPE.train('\n' * 50, 10).merges, [])

    def test_stops_early_when_the_best_pair_occurs_once(self):
        tok = BPE.train('abcdef', 10)
        self.assertEqual(tok.merges, [])

    def test_a_pair_seen_twice_is_still_merged(self):
        self.assertEqual(len(BPE.train('abab', 10).merges), 1)

    def test_count_zero_learns_no_merges(self):
        self.assertEqual(BPE.train('aaaa', 0).merges, [])

    def test_count_beyond_what_is_possible_stops_early(self):
        gate.learners(4)  # encode: typed after train
        tok = BPE.train('hello hello', 1000)
        self.assertLess(len(tok.merges), 1000)
        self.assertEqual(len(tok.encode('hello hello')), 3)

    def test_vocab_size_is_one_plus_distinct_characters_plus_merges(self):
        text = 'the cat sat on the mat\nthe dog sat\n'
        for count in [0, 1, 5, 50]:
            tok = BPE.train(text, count)
            self.assertEqual(len(tok.vocab), 1 + len(set(text)) + len(tok.merges))

    def test_one_character_and_empty_text(self):
        self.assertEqual(BPE.train('x', 5).vocab, [UNKNOWN, 'x'])
        self.assertEqual(BPE.train('', 5).vocab, [UNKNOWN])

    def test_overlapping_run_counts_each_adjacent_pair(self):
        # 'aaa' holds the pair (a, a) twice, so it is worth merging
        tok = BPE.train('aaa', 1)
        self.assertEqual(tok.vocab[-1], 'aa')
        gate.learners(4)
        self.assertEqual(tok.encode('aaa'), [2, 1])

    def test_same_text_and_count_give_the_same_tokenizer(self):
        gate.learners(5)  # state: typed with decode
        text = 'to be or not to be\n'
        self.assertEqual(BPE.train(text, 8).state(), BPE.train(text, 8).state())


if __name__ == '__main__':
    unittest.main()
