"""The lesson's rules for merge(ids, pair, new_id): the one operation BPE is built from."""
import unittest

from tests import gate

merge = None  # the learner's merge, once the tutor finds part 1 keeps the lesson's rules


def setUpModule():
    global merge
    merge = gate.learners(1).merge


class MergeTest(unittest.TestCase):
    def test_replaces_every_occurrence_of_the_pair(self):
        self.assertEqual(merge([1, 2, 3, 1, 2], (1, 2), 9), [9, 3, 9])

    def test_scans_left_to_right_so_aaa_becomes_aa_a(self):
        a, aa = 1, 2
        self.assertEqual(merge([a, a, a], (a, a), aa), [aa, a])

    def test_aaaa_becomes_two_tokens(self):
        self.assertEqual(merge([1, 1, 1, 1], (1, 1), 2), [2, 2])

    def test_pair_may_be_a_list_as_read_back_from_json(self):
        self.assertEqual(merge([1, 2, 3], [1, 2], 9), merge([1, 2, 3], (1, 2), 9))

    def test_pair_order_matters(self):
        self.assertEqual(merge([2, 1], (1, 2), 9), [2, 1])

    def test_returns_a_new_list_and_leaves_the_input_alone(self):
        ids = [1, 2]
        out = merge(ids, (1, 2), 9)
        self.assertEqual(ids, [1, 2])
        self.assertIsNot(out, ids)

    def test_empty_and_single_sequences(self):
        self.assertEqual(merge([], (1, 2), 9), [])
        self.assertEqual(merge([1], (1, 2), 9), [1])


if __name__ == '__main__':
    unittest.main()
