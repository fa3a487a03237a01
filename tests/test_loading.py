"""Loading fails closed: the labs' loader refuses a damaged tokenizer.json
with one clear message."""
import copy
import json
import random
import unittest

from lab import kinds
from lab.contract.checks import problem_with
from lab.kinds import load_lesson as load
from lab.kinds.hf import from_hf
from lab.plumbing.terminal import width
from tests.project import LESSON_MODULE, TEXT, copy_project, english_sentences, inside, trained

BPE = LESSON_MODULE.BPE  # the lesson's own, which the library is held to

GOOD = BPE.train(TEXT, 12).state()


def damaged(change):
    """A deep copy of the good state with change(state) applied."""
    state = copy.deepcopy(GOOD)
    change(state)
    return state


class ProblemTest(unittest.TestCase):
    def assert_problem(self, state, words):
        problem = problem_with(state)
        self.assertIsNotNone(problem, 'a damaged state passed the check')
        self.assertIn(words, problem)

    def test_a_trained_state_is_sound(self):
        self.assertIsNone(problem_with(GOOD))

    def test_not_an_object_with_exactly_vocab_and_merges(self):
        for state in [[], 'x', None, {'vocab': GOOD['vocab']}, dict(GOOD, extra=1)]:
            self.assert_problem(state, 'exactly the keys')

    def test_vocab_empty_or_not_a_list_of_strings(self):
        for vocab in ['abc', ['\ufffd', 1], None]:
            self.assert_problem(dict(GOOD, vocab=vocab), 'non-empty list of non-empty strings')
        self.assert_problem(dict(GOOD, vocab=[]), '"vocab" is empty')

    def test_vocab_0_is_the_unknown_character(self):
        self.assert_problem(damaged(lambda s: s['vocab'].__setitem__(0, '?')), 'vocab[0]')

    def test_merges_must_be_a_list_shorter_than_vocab(self):
        self.assert_problem(dict(GOOD, merges={}), '"merges" must be a list')
        self.assert_problem({'vocab': ['\ufffd'], 'merges': [[[0, 0], 1]]}, 'fewer entries')

    def test_base_vocab_is_distinct_single_characters_in_order(self):
        self.assert_problem(damaged(lambda s: s['vocab'].__setitem__(5, 'AB')), 'single characters')
        self.assert_problem(damaged(lambda s: s['vocab'].__setitem__(6, s['vocab'][5])), 'distinct')

    def test_the_unknown_character_is_id_0_alone(self):
        self.assert_problem({'vocab': ['\ufffd', 'a', 'b', '\ufffd'], 'merges': []},
                            '"\\ufffd" again')

    def test_a_merge_is_two_ids_and_a_new_id_all_integers(self):
        for bad in [[[[1], 2], 28], [[1, 2]], [[1, 2], 28, 0], [[1], 28], [[1, 2, 3], 28],
                    [[1.0, 2], 28],
                    [[1, True], 28], [['1', 2], 28], [1, 2, 28], [[1, 2], None], '[[1, 2], 28]']:
            with self.subTest(bad=bad):
                state = damaged(lambda s, bad=bad: s['merges'].__setitem__(0, bad))
                self.assert_problem(state, 'not [[a, b], new_id]')

    def test_a_broken_merge_after_the_last_is_a_merges_problem_not_a_vocab_one(self):
        broken = damaged(lambda s: s['merges'].append([[[1], 2], 40]))
        self.assert_problem(broken, 'merges[12] is [[[1], 2], 40]')

    def test_merges_that_do_not_end_at_the_last_id_of_vocab(self):
        self.assert_problem(damaged(lambda s: s['merges'].append([[1, 2], 41])),
                            'the last merge makes id 41')

    def test_new_ids_are_consecutive_up_to_the_end_of_vocab(self):
        self.assert_problem(damaged(lambda s: s['merges'][3].__setitem__(1, 40)),
                            'the next id is 31')

    def test_a_merge_joins_only_ids_that_exist_before_it(self):
        for a, b in [(-1, 2), (2, 28), (99, 2)]:
            state = damaged(lambda s, pair=[a, b]: s['merges'][0].__setitem__(0, pair))
            self.assert_problem(state, 'only ids 0 to 27')

    def test_the_new_piece_is_the_two_pieces_joined(self):
        self.assert_problem(damaged(lambda s: s['vocab'].__setitem__(30, 'A:')), "makes 'A: '")

    def test_a_piece_holding_a_lone_surrogate(self):
        self.assert_problem(damaged(lambda s: s['vocab'].__setitem__(5, '\ud800')),
                            'lone surrogate')

    def test_a_pair_is_merged_once(self):  # merged, the pair is gone: training cannot meet it again
        state = {'vocab': ['\ufffd', 'a', 'b', 'ab', 'ab'], 'merges': [[[1, 2], 3], [[1, 2], 4]]}
        self.assert_problem(state, 'merges[1] joins ids 1 and 2 again, as merges[0] does')

    def test_a_merged_piece_never_holds_a_newline(self):
        state = {'vocab': ['\ufffd', '\n', 'a', '\na'], 'merges': [[[1, 2], 3]]}
        self.assert_problem(state, 'newline')


class DamagedFileTest(unittest.TestCase):
    """Every damaged file is refused by load() with its ValueError, never anything else."""

    def setUp(self):
        self.root = copy_project(self)
        self.path = self.root / 'data' / 'tokenizer.json'

    def assert_refused_with(self, text, words):
        self.path.write_text(text, encoding='utf-8')
        with self.assertRaisesRegex(ValueError, words) as caught:
            load(self.path)
        self.assertIn(str(self.path), str(caught.exception))

    def test_json_that_no_writer_of_ours_makes(self):
        good = json.dumps(GOOD, ensure_ascii=False)
        for text, words in [('{"vocab": [], ' + good[1:], "the key 'vocab' is written twice"),
                            ('[' * 100_000 + ']' * 100_000, 'nested too deeply'),
                            ('{"merges": ' + '9' * 5001 + '}', 'a number of 5,001 digits'),
                            ('{"merges": NaN}', 'NaN is not a number JSON allows')]:
            with self.subTest(words):
                self.assert_refused_with(text, words)

    def assert_refused(self, text):
        self.path.write_text(text, encoding='utf-8')
        with self.assertRaises(ValueError) as caught:
            load(self.path)
        self.assertIn(str(self.path), str(caught.exception))

    def test_a_good_file_loads(self):
        self.path.write_text(json.dumps(GOOD, ensure_ascii=False), encoding='utf-8')
        self.assertEqual(load(self.path).encode(TEXT), BPE(**GOOD).encode(TEXT))

    def test_a_folder_in_its_place_is_to_be_moved_before_training_again(self):
        self.path.mkdir()
        with self.assertRaisesRegex(ValueError,
                                    'is a folder, not a file: move it away, then python3'):
            load(self.path)

    def test_missing_file_says_to_run_tokenizer_py(self):
        with self.assertRaisesRegex(ValueError, 'does not exist: python3 tokenizer.py makes it'):
            load(self.path)

    def test_not_utf8(self):
        self.path.write_bytes(b'{"vocab": ["\xff"], "merges": []}')
        with self.assertRaisesRegex(ValueError, 'not UTF-8'):
            load(self.path)

    def test_fuzzed_damage_is_always_refused(self):
        good = json.dumps(GOOD, ensure_ascii=False)
        rng = random.Random(3)
        for cut in sorted(rng.sample(range(len(good)), 60)):
            with self.subTest(truncated_at=cut):
                self.assert_refused(good[:cut])
        for n in range(300):
            state, what = self.damage(rng)
            with self.subTest(n=n, damage=what):
                self.assert_refused(json.dumps(state, ensure_ascii=False))

    def damage(self, rng):
        """One random change that no sound file can have; returns (state, what was done)."""
        state = copy.deepcopy(GOOD)
        vocab, merges = state['vocab'], state['merges']
        m = rng.randrange(len(merges))
        (a, b), new = merges[m]
        kind = rng.choice(['drop a key', 'swap two vocab entries', 'swap two new ids',
                           'change the pair of a merge', 'change a merged piece',
                           'wrong type in a merge',
                           'wrong type for vocab or merges', 'drop a merge', 'drop a vocab entry'])
        if kind == 'drop a key':
            del state[rng.choice(['vocab', 'merges'])]
        elif kind == 'swap two vocab entries':
            i, j = rng.sample(range(1, len(vocab)), 2)
            vocab[i], vocab[j] = vocab[j], vocab[i]
        elif kind == 'swap two new ids':
            other = rng.choice([k for k in range(len(merges)) if k != m])
            merges[m][1], merges[other][1] = merges[other][1], merges[m][1]
        elif kind == 'change the pair of a merge':
            merges[m][0][0] = rng.choice([i for i in range(new)
                                          if vocab[i] + vocab[b] != vocab[new]])
        elif kind == 'change a merged piece':
            vocab[new] += rng.choice(['x', '\n', ' '])
        elif kind == 'wrong type in a merge':
            merges[m][rng.randrange(2)] = rng.choice([None, 'x', 1.5, True, {}, [1, 2, 3]])
        elif kind == 'wrong type for vocab or merges':
            state[rng.choice(['vocab', 'merges'])] = rng.choice([None, 7, 'x', {}])
        elif kind == 'drop a merge':
            del merges[m]
        else:
            del vocab[rng.randrange(1, len(vocab))]
        return state, kind


class CheckLabTest(unittest.TestCase):
    def test_lab_check_reports_a_sound_file(self):
        root = copy_project(self)
        trained(root)
        done = inside(root, 'check')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn('sound, a char tokenizer\n  40 ids: 1 unknown, 27 characters, 12 merges',
                      done.stdout)

    def test_a_token_of_a_megabyte_is_quoted_clipped_in_the_one_line_that_refuses_it(self):
        root = copy_project(self)
        # 3 should be 'ab'
        state = {'vocab': ['\ufffd', 'a', 'b', 'c' * 2**20], 'merges': [[[1, 2], 3]]}
        (root / 'data' / 'tokenizer.json').write_text(json.dumps(state), encoding='utf-8')
        done = inside(root, 'check')
        self.assertEqual(done.returncode, 1)
        # the problem, the tutor
        self.assertLessEqual(len(done.stderr.splitlines()), 3, done.stderr[:300])
        self.assertRegex(done.stderr, r"vocab\[3\] is\s+'c{20,40}\.\.\.,")
        self.assertLess(len(done.stderr), 400)


    def test_what_is_wrong_with_a_file_is_said_in_korean_with_lang_ko(self):
        root = copy_project(self)
        trained(root)
        good = json.loads((root / 'data' / 'tokenizer.json').read_text(encoding='utf-8'))
        vocab, merges = good['vocab'], good['merges']
        damaged = {'no vocab': {'merges': merges}, 'empty': {'vocab': [], 'merges': []},
                   'unknown not first': {'vocab': vocab[1:], 'merges': merges},
                   'a merge of another shape': {'vocab': vocab,
                                                'merges': [[[0, 'a'], 28]] + merges[1:]},
                   'the last id': {'vocab': vocab, 'merges': merges[:-1] + [[merges[-1][0], 99]]},
                   'characters out of order': {
                       'vocab': [vocab[0], *vocab[2:28], vocab[1], *vocab[28:]], 'merges': merges},
                   'a merge of its own': {'vocab': vocab[:-1] + ['zz'], 'merges': merges},
                   'a merge twice': {'vocab': vocab + [vocab[28]],
                                     'merges': merges + [[merges[0][0], 40]]},
                   'another kind': {'kind': 'weird', **good}, 'a tokenizers file': {'model': {}},
                   'a key of no kind': {'kind': 'char', 'extra': 1, **good},
                   'a comma too many': '{"vocab": [1,]}', 'a key twice': '{"vocab": 1, "vocab": 2}',
                   'nested too deeply': '[' * 100_000, 'NaN': '{"vocab": NaN}'}
        for name, data in damaged.items():
            with self.subTest(name):
                # a str: the file as typed
                written = data if isinstance(data, str) else json.dumps(data)
                (root / 'copy.json').write_text(written, encoding='utf-8')
                done = inside(root, 'check', '--tokenizer', 'copy.json', '--lang', 'ko')
                self.assertEqual(done.returncode, 1, done.stdout)
                self.assertRegex(done.stderr, '[가-힣]')
                self.assertEqual(english_sentences(done.stderr), [])
                self.assertEqual([line for line in done.stderr.splitlines() if width(line) > 80],
                                 [])

    def test_every_value_a_file_gives_is_quoted_clipped_in_the_line_that_refuses_it(self):
        huge = 'x' * 2**16  # far longer than a line; as a regular expression it compiles in 0.1 s
        merges = [[[1, 2], 3]]
        bad_files = {'pattern': {'kind': 'piece', 'vocab': ['\ufffd', 'a'], 'merges': [],
                                 'pattern': huge + '('},
                     'special': {'kind': 'special', 'vocab': ['\ufffd', 'a'], 'merges': [],
                                 'special': [huge + '\ud800']},
                     'word merge': {'kind': 'word', 'vocab': ['\ufffd', '</w>', 'a', ' ', 'a '],
                                    'merges': merges},
                     'rules': {'kind': 'byte', 'special': {}, 'byte_ids': None, 'merges': [],
                               'pattern': [huge]}}
        for name, data in bad_files.items():
            with self.subTest(name), self.assertRaises(ValueError) as said:
                kinds.kind_of(data) and kinds.KINDS[data['kind']](**kinds.kind_of(data)[1])
            self.assertLess(len(str(said.exception)), 200, str(said.exception)[:300])
        model = {'type': 'BPE', 'dropout': huge, 'vocab': {}, 'merges': []}
        with self.assertRaises(ValueError) as said:
            from_hf({'model': model})
        self.assertLess(len(str(said.exception)), 200)


if __name__ == '__main__':
    unittest.main()
