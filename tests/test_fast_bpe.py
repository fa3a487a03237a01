"""The engine (lab/fast/, run as lab.fast_bpe) gives exactly what tokenizer.BPE gives: the same
merges, the same ids."""
import concurrent.futures
import errno
import functools
import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

from lab import fast, fast_bpe, kinds
from lab.fast import encoding, letters, training
from lab.kinds import CharBPE
from lab.plumbing import cli, processes
from lab.plumbing.measures import has_lines
from tests.project import (
    ENGLISH,
    LESSON_MODULE,
    ROOT,
    TEXT,
    as_a_terminal_starts_it,
    copy_project,
    inside,
    messages,
    skip_unless_processes_start,
    still_alive,
    tokenizer_inside,
)
from tests.test_fuzz import fuzz_texts
from tests.workers import killed_at_work, stand_by, workers_at_work

BPE = LESSON_MODULE.BPE  # the lesson's own, which the library is held to


# Once for SameResultTest and the subclass that encodes otherwise but trains the same: the
# lesson's training, its ids, and the engine's training (sizes: the trainer's, which some tests
# patch).
@functools.lru_cache(maxsize=None)
def lesson_trained(text, count):
    return BPE.train(text, count)


@functools.lru_cache(maxsize=None)
def lesson_ids(text, count, probe):
    return lesson_trained(text, count).encode(probe)


@functools.lru_cache(maxsize=None)
def engine_trained(text, count, *sizes):
    return fast.train(text, count)


class SameResultTest(unittest.TestCase):
    def assert_same(self, text, count, probes=()):
        want = lesson_trained(text, count)
        got = engine_trained(text, count, training.LARGE, training.LINES_EVERY, training.BLOCK)
        self.assertEqual(got.state(), want.state(), (text, count))
        for probe in [text, *probes]:
            self.assertEqual(fast.encode(want, probe), lesson_ids(text, count, probe),
                             (text, count, probe))

    def test_default_data_at_every_count_up_to_60(self):
        for count in range(61):
            self.assert_same(TEXT, count, ['Q: hi\nA: ', 'cat', 'Cat 안녕 😀'])

    def test_random_texts_with_ties_overlaps_newlines_astral_and_unknown(self):
        rng = random.Random(11)
        for text in fuzz_texts(400, seed=11):
            probe = ''.join(rng.choice(text + 'Z\n') for _ in range(60))
            self.assert_same(text, rng.choice([1, 2, 5, 20, 1000]), [probe])

    def test_many_small_units_and_the_switch_to_a_line_each(self):
        # tiny units: ties across units, lines of one weight in several units, and the
        # switch to one line a unit after the first merges
        rng = random.Random(12)
        with mock.patch.multiple(training, LARGE=24, LINES_EVERY=8):
            for text in fuzz_texts(150, seed=12):
                self.assert_same(text, rng.choice([1, 3, 10, 100]))
            self.assert_same(TEXT * 3, 60)

    def test_places_in_long_units_summed_by_blocks(self):
        # tiny blocks, so that nearly every unit is a long one: ties worked out from block sums,
        # in large units and in a line each, with the blocks' edges everywhere
        rng = random.Random(14)
        with mock.patch.object(training, 'BLOCK', 3):
            for text in fuzz_texts(150, seed=14):
                self.assert_same(text, rng.choice([1, 3, 10, 100]))
            # ties at every count
            one_line = ''.join(rng.choice('가나다라마바사아자차') for _ in range(3000))
            self.assert_same(one_line, 80)

    def test_long_lines_encoded_with_their_links_in_arrays(self):
        rng = random.Random(15)
        with mock.patch.object(encoding, 'LONG_LINE', 2):  # every line of three tokens or more
            for text in fuzz_texts(100, seed=15):
                probe = ''.join(rng.choice(text + 'Z\n') for _ in range(60))
                self.assert_same(text, rng.choice([1, 5, 20, 1000]), [probe])

    def test_lines_of_many_weights_before_and_after_the_switch(self):
        # lines that occur 1 to 4 times: several weights in one merge, in large units and
        # as a line a unit (the switch comes after the first merge here)
        rng = random.Random(13)
        for _ in range(40):
            lines = [''.join(rng.choice('ab c') for _ in range(rng.randint(0, 9)))
                     for _ in range(8)]
            text = '\n'.join(rng.choice(lines) for _ in range(30))
            with mock.patch.multiple(training, LARGE=rng.choice([0, 12, 1000]), LINES_EVERY=1):
                self.assert_same(text, rng.choice([3, 10, 40]))

    def test_overlapping_runs(self):
        for text in ['aaaa', 'aaa', 'aaaaa\naaa\naaaa', 'abababa', 'aabaabaab']:
            self.assert_same(text, 10, ['a' * n for n in range(9)])

    def test_repeated_lines_are_weighted_like_the_lesson_counts_them(self):
        text = 'xy ab\n' * 5 + 'ab xy\n' * 5 + 'ba\n'
        self.assert_same(text, 6)

    def test_a_count_beyond_what_is_possible(self):
        self.assert_same('hello world\nhello there\n', 10_000)

    def test_unknown_character_merged_in_training_then_met_without_a_newline_token(self):
        # '\ufffd' is id 0 like every unknown character; with no '\n' token in the vocab,
        # an unknown '\n' is id 0 too, and merges may join it to its neighbours
        self.assert_same('a\ufffda\ufffda\ufffd', 3, ['a\na\n', 'aZ', '\ufffda'])

    def test_a_hand_made_vocab_with_one_piece_under_two_ids(self):
        tok = BPE(['\ufffd', 'a', 'b', 'c', 'ab', 'bc', 'abc', 'abc'],
                  [[[1, 2], 4], [[2, 3], 5], [[4, 3], 6], [[1, 5], 7]])
        for text in ['abc', 'abcabc', 'bcabc', 'aabcc']:
            self.assertEqual(fast.encode(tok, text), tok.encode(text))


class ReplaySameResultTest(SameResultTest):
    """Every rule above again, with every text encoded by replaying the merges (the way
    long texts are encoded): whole for the first few merges, then line by line, in blocks
    of a few lines."""
    def setUp(self):
        patch = mock.patch.multiple(encoding, REPLAY_FROM=0, WHOLE_EVERY=4, BLOCK=10)
        patch.start()
        self.addCleanup(patch.stop)


class ReplayTest(unittest.TestCase):
    def test_any_switch_from_the_whole_text_to_lines_gives_the_same_ids(self):
        rng = random.Random(14)
        for text in fuzz_texts(60, seed=14):
            tok = fast.train(text, rng.choice([5, 50]))
            probe = ''.join(rng.choice(text + 'Z\n') for _ in range(200))
            # 0: lines after the first merge; 10**9: once a pair is absent
            for every in (0, 3, 10**9):
                with mock.patch.multiple(encoding, REPLAY_FROM=0, WHOLE_EVERY=every):
                    self.assertEqual(fast.encode(tok, probe), tok.encode(probe), (text, every))

    def test_one_encoder_for_long_and_short_texts(self):
        tok = fast.train(TEXT, 40)
        encode = fast.encoder(tok)
        with mock.patch.object(encoding, 'REPLAY_FROM', 20):
            for text in [TEXT, 'Q: hi\nA: ', TEXT[::-1], TEXT + 'Cat 안녕 😀']:
                self.assertEqual(encode(text), tok.encode(text), text)

    def test_hand_made_merges_out_of_training_order_are_replayed_in_order(self):
        # a new token that is a base character, a pair learned twice, a pair of tokens made
        # later, merges of '\n': BPE.train makes none of these, BPE.encode takes them all
        for vocab, merges in [(['\ufffd', 'a', 'b', 'c'], [[[1, 2], 3], [[3, 3], 1], [[1, 2], 2]]),
                              (['\ufffd', 'a', 'b', 'ab', 'abb'], [[[3, 2], 4], [[1, 2], 3]]),
                              (['\ufffd', '\n', 'a', 'a\n'], [[[2, 1], 3]])]:
            tok = BPE(vocab, merges)
            for text in ['abab', 'ababb', 'cab', 'aabb\nab', 'abxabb', 'a\na\n\n']:
                self.assertEqual(fast.encode(tok, text), tok.encode(text), (merges, text))


    def test_a_merge_whose_new_id_is_no_place_in_vocab_gives_the_lessons_ids(self):
        # -1, NaN (json.loads accepts it) or past the end: the lesson's encode puts it in the ids
        for new in [-1, float('nan'), 3, 2.0]:
            tok = BPE(['\ufffd', 'a', 'b'], [[[1, 2], new]])
            # the last text long enough to be replayed (the threshold lowered: a long text costs
            # the lesson's encode a tenth of a second)
            with mock.patch.object(encoding, 'REPLAY_FROM', 20):
                for text in ['abab', 'xab\nab' * 3, 'ab' * 11]:
                    with self.subTest(new=new, chars=len(text)):
                        self.assertEqual(repr(fast.encode(tok, text, jobs=1)),
                                         repr(tok.encode(text)))


class FreeCodePointsTest(unittest.TestCase):
    """The engine writes each new token as a character the text does not use."""

    def test_spare_counts_the_code_points_left_above_latin1_without_surrogates(self):
        everything = 0x110000 - 0x100 - 0x800
        self.assertEqual(letters.spare(set('abc\n')), everything)
        self.assertEqual(letters.spare({'\u0100', '한', '\ud800'}), everything - 2)

    def test_too_few_left_for_the_merges_asked_is_one_clear_error(self):
        with mock.patch.object(training, 'spare', return_value=3):
            with self.assertRaisesRegex(ValueError, 'leaving 3 code points free.*at most 2 merges'):
                fast.train(TEXT, 5)
            self.assertEqual(fast.train(TEXT, 2).state(), BPE.train(TEXT, 2).state())

    def test_encoding_needs_none_when_none_are_left(self):
        tok = fast.train(TEXT, 12)
        text = TEXT * 3
        # long enough for the replaying encoder (its threshold lowered), and no code point spare
        with mock.patch.object(encoding, 'REPLAY_FROM', len(TEXT)), \
                mock.patch.object(encoding, 'spare', return_value=0), \
                mock.patch.object(tok, 'encode', side_effect=AssertionError('the lesson\'s loop')):
            self.assertEqual(fast.encode(tok, text, jobs=1), BPE.encode(tok, text))  # line by line


class ParallelEncodeTest(unittest.TestCase):
    def test_jobs_give_the_same_ids(self):
        skip_unless_processes_start()
        text = (TEXT + 'Cat 안녕 😀\n\n') * 40
        tok = fast.train(TEXT, 30)
        with mock.patch.object(encoding, 'PARALLEL_FROM', 0):  # parallel even for a small text
            self.assertEqual(fast.encode(tok, text, jobs=2), tok.encode(text))

    def test_processes_that_cannot_start_are_said_when_asked_for_else_it_encodes_here(self):
        text = (TEXT + 'Cat 안녕 😀\n\n') * 40
        tok = fast.train(TEXT, 30)

        def no_shared_memory(*_, **__):  # what a machine without a writable /dev/shm gives
            raise OSError(errno.ENOSYS, 'Function not implemented')
        cores = mock.patch.object(os, 'cpu_count', return_value=2)
        with mock.patch.object(encoding, 'PARALLEL_FROM', 0), cores, \
                mock.patch.object(encoding, 'start_process', no_shared_memory):
            self.assertEqual(fast.encode(tok, text), tok.encode(text))  # none asked for: here
            with self.assertRaisesRegex(ValueError,
                                        r'cannot start 2 processes .*: use fewer --jobs'):
                fast.encode(tok, text, jobs=2)

    def test_by_default_a_large_text_uses_every_idle_core_and_a_small_one_a_single_process(self):
        tok = fast.train(TEXT, 30)
        started = []

        def asked(start, state, work, blocks, jobs):
            started.append(jobs)
            raise encoding.NoProcesses('stop here')  # enough to know how many were asked for
        copies = encoding.PARALLEL_FROM // len(TEXT) + 1
        large = TEXT * copies
        with mock.patch.object(encoding, 'in_processes', asked), \
                mock.patch('os.cpu_count', return_value=3), \
                mock.patch('os.getloadavg', return_value=(0.2, 0, 0)):
            self.assertEqual(fast.encode(tok, TEXT), tok.encode(TEXT))  # small: no processes
            # could not start them: here (TEXT ends in '\n', which no merge crosses)
            self.assertEqual(fast.encode(tok, large), tok.encode(TEXT) * copies)
        self.assertEqual(started, [3])

    def test_a_busy_machine_gets_fewer_processes_by_default(self):
        with mock.patch('os.cpu_count', return_value=2):
            for load, jobs in [(0.0, 2), (1.2, 2), (2.0, 1), (5.0, 1)]:
                with mock.patch('os.getloadavg', return_value=(load, load, load)):
                    self.assertEqual(encoding.idle_cores(), jobs, load)

    def test_processes_are_forked_only_when_no_other_thread_runs(self):
        skip_unless_processes_start()
        # a fork copies a lock another thread holds, and the copy waits for it for ever
        tok = fast.train(TEXT, 30)
        # one line: one block, so one process each time (a started Python costs a tenth of a
        # second; the blocks of many processes are the test of jobs above)
        text = TEXT.replace('\n', ' ') * 5 + '\n'
        made = []

        real = encoding.start_process

        def start(context, target, args):
            made.append(context.get_start_method())
            return real(context, target, args)
        with mock.patch.object(encoding, 'PARALLEL_FROM', 0), \
                mock.patch.object(encoding, 'start_process', start):
            # the tests' own threads aside
            with mock.patch('threading.active_count', return_value=1):
                alone = fast.encode(tok, text, jobs=2)
            with concurrent.futures.ThreadPoolExecutor(1) as thread:
                beside = thread.submit(fast.encode, tok, text, jobs=2).result(timeout=60)
        self.assertEqual(made, ['fork', 'spawn'])
        self.assertEqual(alone, tok.encode(text))
        self.assertEqual(beside, alone)

    def test_hand_made_merges_of_newlines_are_not_cut_at_newlines(self):
        tok = BPE(['\ufffd', '\n', 'a', 'a\n'], [[[2, 1], 3]])
        with mock.patch.object(encoding, 'PARALLEL_FROM', 0):
            self.assertEqual(fast.encode(tok, 'a\n' * 50, jobs=2), [3] * 50)

    def test_prepare_splits_documents_the_same_with_jobs(self):
        skip_unless_processes_start()
        from lab import prepare
        tok = CharBPE.train(TEXT, 30)
        docs, _ = prepare.documents(TEXT * 5)
        with mock.patch.object(encoding, 'PARALLEL_FROM', 0):
            ids, lengths = kinds.encode_documents(tok, docs, 1, 'H', jobs=2)
        self.assertEqual(ids.tolist(), [i for doc in docs for i in tok.encode(doc) + [1]])
        self.assertEqual(lengths.tolist(), [len(tok.encode(doc)) + 1 for doc in docs])


@unittest.skipUnless(os.name == 'posix' and Path('/proc').is_dir(), 'needs POSIX signals and /proc')
class WorkerLifeTest(unittest.TestCase):
    """The processes of a parallel encode: a dead one ends the work at once, and Ctrl-C or SIGTERM
    ends it in one line, with no process left behind."""

    def setUp(self):
        skip_unless_processes_start()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name

    def test_a_worker_killed_ends_the_work_in_one_line_within_seconds(self):
        # the work in this thread, not another: then the workers are forks of this process
        # (beside another thread at work, in_processes starts new Pythons, which import this
        # module: a fifth of a second each, and two of the suite's 60 Pythons). A dead one is
        # found by its pipe's end, the same for both.
        started = time.monotonic()
        never_ends = AssertionError('the work went on after one of its processes died')
        with self.assertRaisesRegex(ValueError, 'one of the 2 processes at work died'), \
                processes.clock_limit(30, never_ends):  # fails the test, not the suite
            encoding.in_processes(stand_by, self.folder, killed_at_work, ['a', 'b'], 2)
        self.assertLess(time.monotonic() - started, 10)
        self.assertEqual(still_alive(workers_at_work(self.folder, 2)), [])

    def lab_of_workers(self):
        """A process running a lab's way (cli.run) that waits on two workers: (it, their pids)."""
        code = ('import sys; from lab.plumbing import cli; from lab.fast import encoding; '
                'from tests.workers import stand_by, wait_long; '
                'cli.run(lambda: encoding.in_processes(stand_by, sys.argv[1], wait_long, '
                '["a", "b"], 2))')
        process = subprocess.Popen([sys.executable, '-c', code, self.folder], cwd=ROOT, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   start_new_session=True,
                                   preexec_fn=as_a_terminal_starts_it)
        self.addCleanup(lambda: process.poll() is None and os.killpg(process.pid, signal.SIGKILL))
        # the pipes too: what a test did not read is not needed
        self.addCleanup(process.stderr.close)
        self.addCleanup(process.stdout.close)
        return process, workers_at_work(self.folder, 2)

    def test_ctrl_c_to_the_whole_group_is_one_line_and_no_worker_is_left(self):
        process, pids = self.lab_of_workers()
        os.killpg(process.pid, signal.SIGINT)  # the terminal sends it to every process of the group
        out, err = process.communicate(timeout=30)
        self.assertEqual((process.returncode, err), (130, 'lab: interrupted\n'))
        self.assertEqual(still_alive(pids), [])

    def test_a_parent_killed_outright_leaves_no_worker(self):
        process, pids = self.lab_of_workers()
        process.kill()  # SIGKILL, as the kernel's choice when memory runs out: no clean-up runs
        process.wait(timeout=30)
        self.assertEqual(still_alive(pids), [])

    def test_sigterm_to_the_parent_is_one_line_and_no_worker_is_left(self):
        process, pids = self.lab_of_workers()
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
        self.assertEqual((process.returncode, err), (143, 'lab: terminated\n'))
        self.assertEqual(still_alive(pids), [])


class ProgressTest(unittest.TestCase):
    def test_redraws_at_most_four_times_a_second_and_always_at_the_end(self):
        clock = [100.0]
        with mock.patch.object(fast_bpe.time, 'monotonic', lambda: clock[0]), \
                mock.patch.object(fast_bpe.sys, 'stderr', io.StringIO()) as err:
            progress = fast_bpe.show_progress(started=99.0)
            progress(1, 10)      # drawn
            progress(2, 10)      # same instant: skipped
            clock[0] += 0.3
            progress(3, 10)      # drawn
            progress(10, 10)     # the last one is always drawn
        lines = err.getvalue().split('\r')[1:]
        self.assertEqual(len(lines), 3)
        self.assertIn('merges 3/10', lines[1])
        self.assertIn('s left', lines[1])
        self.assertIn('merges 10/10', lines[2])


class CommandLineTest(unittest.TestCase):
    def test_the_roundtrip_after_training_is_checked_on_a_sample_of_a_long_text_and_says_so(self):
        root = copy_project(self, parts=['settings.json', 'data/train.txt', 'data/mixed.txt'])
        out = io.StringIO()
        argv = ['fast_bpe', str(root / 'data' / 'mixed.txt'), '--merges', '5', '--out',
                str(root / 't.json')]
        # the language its parser chooses is its own: _SPOKEN cleared
        with mock.patch.object(fast_bpe, 'CHECKED', 100), mock.patch.object(sys, 'argv', argv), \
                mock.patch('sys.stdout', out), mock.patch.dict(os.environ, ENGLISH), \
                mock.patch.dict(cli._SPOKEN, clear=True):
            fast_bpe.main()
        self.assertIn('roundtrip: OK (on its first 100 characters)', out.getvalue())

    def test_saves_the_same_tokenizer_and_prints_the_same_as_tokenizer_py(self):
        root = copy_project(self)
        lesson = tokenizer_inside(root)
        saved = json.loads((root / 'data' / 'tokenizer.json').read_text(encoding='utf-8'))
        (root / 'data' / 'tokenizer.json').unlink()
        fast = inside(root, 'fast_bpe')
        self.assertEqual(fast.returncode, 0, fast.stderr)
        lines = [re.search(r'(vocab:|roundtrip:).*', line).group()
                 for line in lesson.stdout.splitlines()
                 if re.search('vocab:|roundtrip:', line)]  # a learner's print may stand before it
        self.assertEqual(len(lines), 2, lesson.stdout)
        self.assertTrue(has_lines(fast.stdout, [*lines, 'saved data/tokenizer.json']), fast.stdout)
        self.assertEqual(fast.stderr, '')  # no progress when stderr is not a terminal
        self.assertEqual(json.loads((root / 'data' / 'tokenizer.json').read_text(encoding='utf-8')),
                         saved)

    def test_file_merges_and_out_options(self):
        root = copy_project(self)
        story = 'the cat sat on the mat\nthe cat ate\n'
        (root / 'story.txt').write_text(story, encoding='utf-8')
        done = inside(root, 'fast_bpe', 'story.txt', '--merges', '3', '--out', 'story.json')
        self.assertEqual(done.returncode, 0, done.stderr)
        saved = json.loads((root / 'story.json').read_text(encoding='utf-8'))
        self.assertEqual(saved, BPE.train(story, 3).state())
        self.assertTrue(has_lines(done.stdout, [f'vocab: {len(saved["vocab"])} merges: 3']),
                        done.stdout)

    def test_a_missing_data_file_is_one_line(self):
        done = inside(copy_project(self), 'fast_bpe', 'nope.txt')
        self.assertEqual(done.returncode, 1)
        self.assertEqual(len(messages(done.stderr)), 1, done.stderr)
        self.assertIn('nope.txt', done.stderr)

    def test_negative_merges_is_a_usage_error(self):
        done = inside(copy_project(self), 'fast_bpe', '--merges', '-1')
        self.assertEqual(done.returncode, 2)
        self.assertIn("'-1' is not a whole number >= 0", done.stderr)


if __name__ == '__main__':
    unittest.main()
