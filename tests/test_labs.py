"""The labs' key claims, and that each lab runs on the defaults and on a file of ours."""
import argparse
import contextlib
import importlib
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
import unicodedata
import unittest
from array import array
from pathlib import Path
from unittest import mock

from lab import (
    audit,
    batches,
    compare,
    compression,
    fast,
    kinds,
    normalize,
    prepare,
    show,
    special,
)
from lab.kinds import KINDS, ByteBPE, SpecialBPE
from lab.learner import errors
from lab.plumbing import bins, cli, measures, processes, terminal
from tests import gate
from tests.project import (
    LESSON_MODULE,
    MIXED,
    READS_TEXT,
    ROOT,
    TEXT,
    copy_project,
    english_sentences,
    inside,
    messages,
    ours_on_path,
    run_inside,
    still_alive,
    trained,
)

BPE = LESSON_MODULE.BPE  # the lesson's own, which the library is held to




class MergeOrderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # the lab shows the learner's merge and BPE: used once the tutor finds they hold
        gate.learners(3)
        cls.lab = importlib.import_module('lab.merge_order')

    def test_e_r_then_w_e_gives_er(self):
        self.assertEqual(self.lab.apply(['e r', 'w e']), 'l o w er _')

    def test_w_e_then_e_r_gives_we(self):
        self.assertEqual(self.lab.apply(['w e', 'e r']), 'l o we r _')

    def test_shuffled_merges_change_the_ids_of_the_default_data(self):
        gate.learners(4)  # the shuffled tokenizer is the learner's BPE: its encode is part 4
        tok = BPE.train(TEXT, 12)
        self.assertNotEqual(self.lab.shuffled(tok, 0).encode(TEXT), tok.encode(TEXT))

    def test_the_engine_cut_at_newlines_gives_each_lines_ids_in_either_order(self):
        gate.learners(4)
        for text in [TEXT, MIXED, MIXED.rstrip('\n')]:
            tok = BPE.train(text, 60)
            for t in [tok, self.lab.shuffled(tok, 3)]:
                lines = self.lab.by_line(fast.encode(t, text), t.chars['\n'])
                self.assertEqual(lines, [t.encode(line) for line in text.splitlines(keepends=True)])


class NormalizeTest(unittest.TestCase):
    def test_nfd_korean_has_more_code_points_and_unknown_tokens(self):
        nfc, nfd, rows = normalize.side_by_side(normalize.SAMPLE)
        self.assertNotEqual(nfc, nfd)
        self.assertEqual(unicodedata.normalize('NFC', nfd), nfc)
        (_, nfc_points, _, nfc_tokens, nfc_unknown), (_, nfd_points, _, nfd_tokens,
                                                      nfd_unknown) = rows[1:]
        self.assertGreaterEqual(int(nfd_points), 2 * int(nfc_points) - len(nfc) // 2)
        self.assertEqual(nfc_unknown, '0')
        self.assertGreater(int(nfd_unknown), 0)
        self.assertGreater(int(nfd_tokens), int(nfc_tokens))

    def test_the_word_shown_in_both_forms_is_korean_and_its_code_points_differ(self):
        root = copy_project(self)
        (root / 'qa.txt').write_text('Q: 안녕하세요\nA: 반갑습니다\n', encoding='utf-8')
        done = inside(root, 'normalize', 'qa.txt')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("first Korean word '안녕하세요'", done.stdout)
        nfc = next(line for line in done.stdout.splitlines() if line.startswith('  NFC'))
        nfd = next(line for line in done.stdout.splitlines() if line.startswith('  NFD'))
        self.assertEqual(nfc.split()[1:], [f'U+{ord(ch):04X}' for ch in '안녕하세요'])
        self.assertNotEqual(nfc.split()[1:], nfd.split()[1:])
        self.assertIn('equal as strings: False', done.stdout)

    def test_a_file_with_nfd_lines_fails_and_names_them(self):
        root = copy_project(self)
        nfd = unicodedata.normalize('NFD', '한국어\n')
        (root / 'nfd.txt').write_text('fine\n' + nfd, encoding='utf-8')
        done = inside(root, 'normalize', 'nfd.txt')
        self.assertEqual(done.returncode, 1)
        self.assertIn('NOT NFC: line 2', done.stdout)
        self.assertIn('1 line is not NFC', done.stderr)


class CompressionTest(unittest.TestCase):
    def test_percentile_is_nearest_rank(self):
        values = list(range(1, 101))
        self.assertEqual([measures.percentile(values, p) for p in (50, 95, 99)], [50, 95, 99])
        self.assertEqual(measures.percentile([7], 99), 7)

    def test_kinds_of_line(self):
        for line, kind in [('안녕하세요', 'Korean'), ('see https://x.org/a', 'URLs'),
                           ('    return x', 'code'), ('def f(x):', 'code'),
                           ('in 2024 we grew', 'numbers'),
                           ('a plain line; really', 'other')]:
            self.assertEqual(compression.kind_of(line), kind, line)

    def test_a_tokenizer_trained_on_english_spends_more_tokens_on_korean(self):
        tok = kinds.CharBPE.train(compression.ENGLISH + compression.KOREAN.splitlines()[0] + '\n',
                                  100)
        encode = tok.encode
        english = compression.measure('English', tok, encode, compression.ENGLISH.splitlines())
        korean = compression.measure('Korean', tok, encode, compression.KOREAN.splitlines())
        self.assertGreater(float(english[4]), 2 * float(korean[4]))  # characters per token


class ShowTest(unittest.TestCase):
    def setUp(self):
        self.tok = kinds.CharBPE.train(TEXT, 12)

    def test_plain_output_puts_ids_under_their_tokens(self):
        lines = show.render(self.tok, self.tok.encode('Q: hi\nA: '), colour=False)
        self.assertEqual(lines, ['|Q:·|h |i |⏎|', ' 29  13 14 1', '|A:·|', ' 30'])

    def test_colour_output_marks_tokens_with_alternating_backgrounds(self):
        top, bottom = show.render(self.tok, self.tok.encode('hi'), colour=True)
        self.assertEqual(top, f'{show.COLOURS[0]}h{show.RESET}  {show.COLOURS[1]}i{show.RESET}')
        self.assertEqual(bottom, '13 14')

    def test_no_line_is_wider_than_the_terminal_even_with_a_token_wider_than_it(self):
        long_token = kinds.CharBPE.train('abcdefghij' * 2 + '\n' + 'abcdefghij' * 2 + '\n', 60)
        for tok, text in [(self.tok, 'Q: hi there, how are you? ' * 8),
                          (long_token, 'abcdefghij' * 4)]:
            for colour in (False, True):
                for columns in (80, 30, 12):
                    with self.subTest(colour=colour, columns=columns):
                        lines = show.render(tok, tok.encode(text), colour, columns)
                        plain = [re.sub('\x1b\\[[0-9;]*m', '', line) for line in lines]
                        self.assertLessEqual(max(map(terminal.width, plain)), columns)

    def test_wide_characters_take_two_columns(self):
        self.assertEqual([terminal.width(s) for s in ['a', '안', '😀', 'e\u0301']], [1, 2, 2, 1])

    def test_no_color_or_a_pipe_gives_plain_output(self):
        root = copy_project(self)
        trained(root)
        for env in [{}, {'NO_COLOR': '1'}]:
            done = inside(root, 'show', 'Q: hi', env=env)
            self.assertNotIn('\x1b', done.stdout)
            self.assertIn('|Q:·|h |i |\n', done.stdout)


class AuditTest(unittest.TestCase):
    def setUp(self):
        self.tok = kinds.CharBPE.train(TEXT, 12)

    def test_fingerprint_depends_on_the_tokenizer_not_on_the_file_layout(self):
        again = kinds.CharBPE(**json.loads(json.dumps(self.tok.state(), indent=4)))
        self.assertEqual(kinds.fingerprint(again), kinds.fingerprint(self.tok))
        self.assertNotEqual(kinds.fingerprint(kinds.CharBPE.train(TEXT, 11)),
                            kinds.fingerprint(self.tok))

    def test_default_data_passes(self):
        report = audit.audit(self.tok, TEXT)
        self.assertEqual((report['failures'], report['offsets_bad'], report['unknown_rate']),
                         ([], 0, 0))

    def test_unknown_characters_are_counted_not_failed(self):
        report = audit.audit(self.tok, 'Cat\nhi\n')
        self.assertEqual(report['unknown'], {'C': 1})
        self.assertEqual(report['failures'], [])
        self.assertAlmostEqual(report['unknown_rate'], 1 / 5)

    def test_a_broken_tokenizer_fails_round_trip_and_offsets(self):
        # changed after the checks of the constructor: ': ' now decodes wrong
        self.tok.vocab[28] = ':-'
        report = audit.audit(self.tok, 'a: hi\n')
        self.assertEqual(report['failures'], [(1, 2)])
        self.assertEqual(report['offsets_bad'], 1)

    def test_the_report_says_how_many_lines_fail_the_round_trip_and_a_corpus_not_in_nfc(self):
        self.tok.vocab[28] = ':-'  # as above: a line holding ': ' comes back otherwise
        report, out = audit.audit(self.tok, 'a: hi\nhi\n\u1100\u1161\n'), io.StringIO()
        with contextlib.redirect_stdout(out):
            audit.show(self.tok, report, 0.5)
        self.assertFalse(audit.gates_of(report, 0.5)['round trip'])
        self.assertIn('round trip   FAILED: 1 of 3 lines do not come back', out.getvalue())
        self.assertIn('NOT NFC: 2 characters in 1 lines', out.getvalue())

    def test_a_byte_token_is_listed_with_one_backslash(self):
        every_ascii = ''.join(map(chr, range(128)))  # then the first byte never used is 0x80
        tok = kinds.ByteBPE.train(every_ascii, 1)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            audit.show(tok, audit.audit(tok, every_ascii), 0.5)
        self.assertIn("never used   128 rows: '\\x80' '\\x81'", out.getvalue())
        self.assertNotIn("\\\\", out.getvalue())

    def test_never_and_rarely_used_rows(self):
        report = audit.audit(self.tok, 'hi hi\n')
        self.assertIn(self.tok.lesson.chars['y'], report['never'])
        self.assertIn(self.tok.lesson.chars['h'], report['rare'])

    def test_command_line_gate_on_unknown_rate(self):
        root = copy_project(self)
        trained(root)
        self.assertEqual(inside(root, 'audit').returncode, 0)
        done = inside(root, 'audit', 'data/mixed.txt')
        self.assertEqual(done.returncode, 1)
        self.assertIn('FAILED (unknown rate)', done.stderr)
        self.assertEqual(inside(root, 'audit', 'data/mixed.txt', '--max-unk', '0.5').returncode, 0)


class PrepareTest(unittest.TestCase):
    def test_default_data_splits_into_q_a_pairs(self):
        docs, how = prepare.documents(TEXT)
        self.assertEqual(how, 'one Q/A pair each')
        self.assertEqual(len(docs), TEXT.count('\nA: '))
        self.assertTrue(all(doc.startswith('Q: ') and '\nA: ' in doc for doc in docs))

    def test_other_text_splits_at_blank_lines(self):
        docs, how = prepare.documents('one\ntwo\n\n\nthree\n')
        self.assertEqual((docs, how), (['one\ntwo', 'three'], 'paragraphs between blank lines'))

    def test_text_of_blank_lines_only_is_said_to_hold_no_document(self):
        with tempfile.TemporaryDirectory() as out, \
                self.assertRaisesRegex(ValueError, 'holds no document: every line of it is blank'):
            prepare.prepare(kinds.CharBPE.train(TEXT, 12), '\n\n  \n\t\n', Path(out) / 'bins', 8)

    def test_joined_q_a_documents_are_the_encoded_text(self):
        tok = BPE.train(TEXT, 12)
        docs, _ = prepare.documents(TEXT)
        joined = [i for doc in docs for i in tok.encode(doc) + [tok.chars['\n']]]
        self.assertEqual(joined, tok.encode(TEXT))

    def test_json_lines_train_and_prepare_as_documents_with_blank_lines_inside(self):
        root = copy_project(self)
        lines = ['{"text": "Q: hi\\n\\nA: hello"}', '"Q: ok\\nA: yes"', '{"text": "a b"}']
        (root / 'docs.jsonl').write_text('\n'.join(lines) + '\n', encoding='utf-8')
        done = inside(root, 'fast_bpe', 'docs.jsonl', '--documents', 'jsonl', '--merges', '3',
                      '--out', 'j.json')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn('documents: 3 (one JSON document a line), trained apart', done.stdout)
        self.assertIn('roundtrip: OK', done.stdout)  # of the documents, not of the JSON around them
        done = inside(root, 'prepare', 'docs.jsonl', '--documents', 'jsonl', '--tokenizer',
                      'j.json',
                      '--out', 'bins', '--block-size', '2')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn('documents   3 (one JSON document a line)', done.stdout)

    def test_val_share_is_the_share_of_tokens_val_gets_at_a_document_boundary(self):
        tok = kinds.CharBPE.train(TEXT, 12)
        with tempfile.TemporaryDirectory() as out:
            for share in [0.05, 0.3]:
                made = prepare.prepare(tok, TEXT, Path(out), block_size=8, jobs=1, val_share=share)
                tokens = len(made['train']) + len(made['val'])
                self.assertAlmostEqual(len(made['val']) / tokens, share, delta=0.05)

    def test_by_default_the_last_documents_go_to_val_in_order_and_a_seed_shuffles_them(self):
        tok = kinds.CharBPE.train(TEXT, 12)
        docs, _ = prepare.documents(TEXT)
        with tempfile.TemporaryDirectory() as out:
            made = prepare.prepare(tok, TEXT, Path(out), block_size=8, jobs=1, val_share=0.2)
            last = [i for doc in docs[made['train_docs']:] for i in tok.encode(doc + '\n')]
            self.assertEqual(made['val'].tolist(), last)
            shuffled = prepare.prepare(tok, TEXT, Path(out), block_size=8, jobs=1, val_share=0.2,
                                       seed=5)
            self.assertNotEqual(shuffled['val'].tolist(), last)
            again = prepare.prepare(tok, TEXT, Path(out), block_size=8, jobs=1, val_share=0.2,
                                    seed=5)
            # the same seed, the same split
            self.assertEqual(again['val'].tolist(), shuffled['val'].tolist())

    def test_documents_in_both_train_and_val_are_counted_in_a_line(self):
        text = 'same\nother a\nsame\nb b b\nsame\nc c\nsame\n'
        tok = kinds.CharBPE.train(text, 3)
        with tempfile.TemporaryDirectory() as out:
            made = prepare.prepare(tok, text, Path(out), block_size=2, jobs=1, how='lines',
                                   val_share=0.3)
            self.assertEqual(made['in_both'], 2)  # 'same' twice among val's three: seen in train
            lines = prepare.report(tok, made, ([[0, 0]], [[0, 0]], True, types.SimpleNamespace(
                batch_size=1, block_size=2, seed=1)))
            self.assertIn("in both     2 of val's 3 documents are the text of one in train (67%)",
                          lines)

    def test_prepare_writes_bins_that_read_back_as_the_encoded_documents(self):
        tok = kinds.CharBPE.train(TEXT, 12)
        with tempfile.TemporaryDirectory() as out:
            made = prepare.prepare(tok, TEXT, Path(out), block_size=8, jobs=1)
            self.assertEqual(made['back'], made['train'])
            self.assertEqual((made['train'] + made['val']).tolist(), tok.encode(TEXT))
            written = sorted(p.name for p in Path(out).iterdir())
            self.assertEqual(written, ['meta.json', 'train.bin', 'val.bin'])

    def test_with_eos_each_document_reads_back_as_its_ids_then_eos(self):
        tok = ByteBPE.train(MIXED, 40, special=['<eos>'])
        docs, _ = prepare.documents(MIXED)
        with tempfile.TemporaryDirectory() as out:
            prepare.prepare(tok, MIXED, Path(out), block_size=8, jobs=1)
            # as the course reads them: numpy.memmap(path, dtype='<u2') gives the same
            ids = array('H')
            for name in ['train.bin', 'val.bin']:
                ids.frombytes((Path(out) / name).read_bytes())
            meta = json.loads((Path(out) / 'meta.json').read_text(encoding='utf-8'))
        self.assertEqual(ids.tolist(), [i for doc in docs for i in tok.encode(doc) + [0]])
        self.assertEqual((meta['dtype'], meta['end_of_document']),
                         ('uint16', {'token': '<eos>', 'id': 0}))

    def test_from_65536_ids_the_bins_hold_uint32_and_meta_json_says_so(self):
        lesson = BPE.train(TEXT, 12)
        specials = [f'<s{n}>' for n in range(65_536 - len(lesson.vocab))] + ['<eos>']
        tok = SpecialBPE(lesson.vocab, lesson.merges, specials)
        with tempfile.TemporaryDirectory() as out:
            made = prepare.prepare(tok, TEXT, Path(out), block_size=8, jobs=1)
            self.assertEqual(made['dtype'], 'uint32')
            self.assertEqual(bins.read_ids(Path(out), 'train.bin'), made['train'])
            self.assertIn(65_536, made['train'])  # <eos>, past what 16 bits hold
            self.assertEqual((Path(out) / 'train.bin').stat().st_size, 4 * len(made['train']))

    def test_lines_are_documents_when_asked(self):
        docs, how = prepare.documents('one\ntwo\n\nthree\n', 'lines')
        self.assertEqual((docs, how), (['one', 'two', 'three'], 'one a line'))

    def test_fewer_than_two_documents_split_the_tokens_95_5(self):
        tok = ByteBPE.train(MIXED, 40, special=['<eos>'])
        line = MIXED.splitlines()[5]  # one document, of one line
        with tempfile.TemporaryDirectory() as out:
            made = prepare.prepare(tok, line + '\n', Path(out) / 'new' / 'folder', block_size=8,
                                   jobs=1)
        ids = tok.encode(line) + [0]
        self.assertEqual((made['train'].tolist(), made['val'].tolist(), made['train_docs']),
                         (ids[:round(len(ids) * 0.95)], ids[round(len(ids) * 0.95):], None))

    def test_split_is_at_the_document_boundary_nearest_95_percent(self):
        self.assertEqual(prepare.split_at_document([10] * 20, 0.95), 19)
        self.assertEqual(prepare.split_at_document([10, 10, 80], 0.95), 2)
        self.assertEqual(prepare.split_at_document([50], 0.95), 1)

    def test_ids_are_little_endian_uint16_until_the_vocab_reaches_65536(self):
        self.assertEqual(bins.to_bytes([1, 258], 'H'), b'\x01\x00\x02\x01')
        self.assertEqual(bins.from_bytes(b'\x01\x00\x02\x01', 'H').tolist(), [1, 258])
        self.assertEqual(bins.id_type(65535)[1], 'uint16')
        self.assertEqual(bins.id_type(65536)[1], 'uint32')
        self.assertEqual(bins.to_bytes([70000], 'I'), (70000).to_bytes(4, 'little'))

    def test_in_korean_its_lines_and_errors_are_korean_within_80_columns(self):
        root = trained(copy_project(self))
        code, out, err = run_inside(root, 'prepare', '--lang', 'ko')
        self.assertEqual(code, 0, err)
        _, _, refused = run_inside(root, 'prepare', '--lang', 'ko', '--block-size', '256',
                                   '--force')
        self.assertEqual(english_sentences(out + refused), [])
        self.assertEqual([line for line in (out + refused).splitlines()
                          if terminal.width(line) > 80], [])
        self.assertIn('메타', out.replace('meta.json', '메타'))  # the files keep their names
        self.assertRegex(refused, r'^lab\.prepare: .*학습 토큰')

    def test_y_is_x_shifted_by_one(self):
        data = list(range(100, 150))
        xs, ys = bins.windows(data, bins.window_starts(len(data), 8, 5, seed=3), 8)
        for x, y in zip(xs, ys):
            self.assertEqual(len(x), 8)
            self.assertEqual(y, [i + 1 for i in x])

    def test_command_line_writes_train_and_val(self):
        root = copy_project(self)
        trained(root)
        done = inside(root, 'prepare')
        self.assertEqual(done.returncode, 0, done.stderr)
        tok = BPE.train(TEXT, 12)
        train = bins.from_bytes((root / 'data/train.bin').read_bytes(), 'H')
        val = bins.from_bytes((root / 'data/val.bin').read_bytes(), 'H')
        self.assertEqual((train + val).tolist(), tok.encode(TEXT))
        self.assertIn('check       y is x shifted by one in every window: OK', done.stdout)
        meta = json.loads((root / 'data/meta.json').read_text(encoding='utf-8'))
        self.assertEqual((meta['vocab_size'], meta['dtype'], meta['files']['val.bin']['tokens']),
                         (40, 'uint16', len(val)))

    def test_characters_without_an_id_are_counted_in_a_line(self):
        root = trained(copy_project(self))  # the lesson's tokenizer: no Korean, no digits
        # blank lines: not written
        (root / 'blank.txt').write_text(MIXED + '\n \t\n\n', encoding='utf-8')
        done = inside(root, 'prepare', 'blank.txt', '--out', 'mixed')
        unknown = sum(1 for ch in MIXED if ch != '\n' and ch not in TEXT)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(
            f'unknown     {unknown:,} characters have no id of their own: lab.audit lists them',
            done.stdout)
        self.assertNotIn('unknown', inside(root, 'prepare', '--out', 'lesson').stdout)

    def test_a_folder_where_a_bin_goes_asks_for_another_out_folder(self):
        root = trained(copy_project(self))
        (root / 'prepared' / 'val.bin').mkdir(parents=True)
        done = inside(root, 'prepare', '--out', 'prepared')
        self.assertEqual(done.returncode, 1)
        self.assertEqual(messages(done.stderr),
                         ['lab.prepare: prepared/val.bin is a folder: move it away or '
                          'give --out another folder'])

    def test_text_shorter_than_a_window_is_a_clear_error(self):
        root = copy_project(self)
        trained(root)
        done = inside(root, 'prepare', '--block-size', '1000')
        self.assertEqual(done.returncode, 1)
        self.assertIn('training tokens, too few for --block-size 1,000', done.stderr)
        self.assertFalse((root / 'data' / 'train.bin').exists())


class BatchesTest(unittest.TestCase):
    """lab.batches: get_batch reads what lab.prepare wrote; y is x one step on; the loss mask marks
    the answers' tokens."""

    @classmethod
    def setUpClass(cls):
        root = Path(tempfile.mkdtemp())
        cls.addClassCleanup(shutil.rmtree, root)
        cls.out = root / 'prepared'
        cls.tok = ByteBPE.train(TEXT, 40, special=['<eos>'])
        prepare.prepare(cls.tok, TEXT, cls.out, block_size=8, jobs=1)

    def test_y_is_x_one_step_on_in_every_window(self):
        x, y = batches.get_batch(self.out, 'train', 16, 6, seed=5)
        train = bins.read_ids(self.out, 'train.bin').tolist()
        self.assertEqual((len(x), {len(window) for window in x + y}), (6, {16}))
        for xs, ys in zip(x, y):
            start = next(n for n in range(len(train)) if train[n:n + 17] == xs + ys[-1:])
            self.assertEqual(ys, train[start + 1:start + 17])

    def test_the_same_seed_draws_the_same_batch_and_another_another(self):
        self.assertEqual(batches.get_batch(self.out, 'val', 4, 3, seed=1),
                         batches.get_batch(self.out, 'val', 4, 3, seed=1))
        self.assertNotEqual(batches.get_batch(self.out, 'train', 4, 3, seed=1),
                            batches.get_batch(self.out, 'train', 4, 3, seed=2))

    def test_a_split_too_small_for_one_block_is_one_line_naming_the_block_size(self):
        val = len(bins.read_ids(self.out, 'val.bin'))
        with self.assertRaisesRegex(ValueError, f'{val} tokens hold no window of block size {val}'):
            batches.get_batch(self.out, 'val', val, 1)
        code, _, err = run_inside(self.out.parent, 'batches', self.out.name, '--split', 'val',
                                  '--block-size', str(val), '--tokenizer', 'none.json')
        self.assertEqual((code, len(messages(err))), (1, 1), err)

    def test_a_marker_that_is_empty_or_holds_a_line_end_is_refused(self):
        for marker in ['', 'A:\n', '\rA']:
            with self.subTest(marker=marker):
                code, _, err = run_inside(self.out.parent, 'batches', self.out.name, '--marker',
                                          marker)
                self.assertEqual(code, 2, err)
                self.assertIn("give the text that starts an answer's line", ' '.join(messages(err)))

    def test_a_size_that_is_no_whole_number_of_1_or_more_is_refused(self):
        for block_size, batch_size in [(0, 2), (4, 0), (-1, 2), (2.5, 2), (True, 2)]:
            with self.subTest(block_size=block_size, batch_size=batch_size):
                with self.assertRaisesRegex(ValueError, 'whole numbers of 1 or more'):
                    batches.get_batch(self.out, 'train', block_size, batch_size)

    def test_the_mask_marks_each_answer_from_after_a_to_its_line_end(self):
        tok = kinds.CharBPE.train('Q: hi\nA: yes\n', 0)
        ids = tok.encode('Q: hi\nA: yes\nQ: ok\nA: no\n')
        text = tok.decode(ids)
        inside = [False] * len(text)
        for start in [text.index('A: ') + 3, text.rindex('A: ') + 3]:
            end = text.index('\n', start)
            # the newline that ends it is the answer's
            inside[start:end + 1] = [True] * (end + 1 - start)
        want = [int(inside[n + 1]) for n in range(len(ids) - 1)]  # a char kind: one character an id
        self.assertEqual(batches.answer_mask(tok, ids, 0, len(ids) - 1), want)
        start = text.index('es')  # a window that starts inside an answer knows it
        self.assertEqual(batches.answer_mask(tok, ids, start, 4), want[start:start + 4])

    def test_a_token_across_a_line_end_starts_the_next_line_with_what_follows_it(self):
        tok = ByteBPE.train(TEXT, 140, special=['<eos>'], pattern='space', rules='tokenizers')
        ids = tok.encode('Q: do you eat\nA: yes\n')
        pieces = [tok.token_bytes(i) for i in ids]
        # the case: a line end and the marker's start in one token
        self.assertIn(b' eat\nA:', pieces)
        # ' yes' holds the marker's last space: the question's side; the line end after it, the
        # answer's
        self.assertEqual(batches.answer_mask(tok, ids, 0, len(ids) - 1), [0, 0, 0, 0, 1])

    def test_the_mask_ends_an_answer_at_eos(self):
        ids = self.tok.encode('A: yes') + [self.tok.special_ids['<eos>']] + self.tok.encode('Q: ')
        mask = batches.answer_mask(self.tok, ids, 0, len(ids) - 1)
        self.assertEqual(mask[-1], 0)  # after <eos>: the next document's question
        # <eos> itself is what ends the answer
        self.assertEqual(mask[-len(self.tok.encode('Q: ')) - 1], 1)

    @unittest.skipIf(importlib.util.find_spec('numpy') is None, 'needs numpy (pip install numpy)')
    def test_as_numpy_the_batch_is_two_arrays_of_batch_by_block(self):
        x, y = batches.get_batch(self.out, 'train', 8, 4, seed=3, as_numpy=True)
        self.assertEqual((x.shape, y.shape), ((4, 8), (4, 8)))
        self.assertEqual(x.tolist(), batches.get_batch(self.out, 'train', 8, 4, seed=3)[0])

    def test_a_tokenizer_that_did_not_make_the_bins_is_refused(self):
        other = self.out.parent / 'other.json'
        self.addCleanup(other.unlink)
        kinds.save(kinds.CharBPE.train(TEXT, 3), other)
        code, _, err = run_inside(self.out.parent, 'batches', self.out.name, '--tokenizer',
                                  other.name)
        self.assertEqual(code, 1)
        self.assertIn('made with another tokenizer', err)

    def test_in_korean_every_line_of_the_lab_and_its_errors_is_korean_within_80_columns(self):
        saved = self.out.parent / 'tok.json'
        self.addCleanup(saved.unlink)
        kinds.save(self.tok, saved)
        code, out, err = run_inside(self.out.parent, 'batches', self.out.name, '--tokenizer',
                                    saved.name,
                                    '--lang', 'ko')
        _, _, refused = run_inside(self.out.parent, 'batches', self.out.name, '--tokenizer',
                                   saved.name,
                                   '--lang', 'ko', '--split', 'val', '--block-size', '10000')
        self.assertEqual(code, 0, err)
        self.assertEqual(english_sentences(out + refused), [])
        self.assertEqual([line for line in (out + refused).splitlines()
                          if terminal.width(line) > 80], [])
        self.assertIn('y는 x보다 한 칸 뒤에서 시작합니다', out)
        self.assertRegex(refused, r'^lab\.batches: val\.bin: 토큰 ')

    def test_the_lab_shows_window_0_token_by_token_with_its_mask(self):
        saved = self.out.parent / 'tok.json'
        self.addCleanup(saved.unlink)
        kinds.save(self.tok, saved)
        code, out, err = run_inside(self.out.parent, 'batches', self.out.name, '--tokenizer',
                                    saved.name)
        self.assertEqual(code, 0, err)
        rows = out.split('mask\n')[1].split('\n\n')[0].splitlines()
        self.assertEqual(len(rows), 8)  # the default block size
        self.assertIn('y is x shifted by one in every window: OK', out)


class AuditAndCompressionCountAlikeTest(unittest.TestCase):
    def test_both_count_the_same_lines_characters_and_unknowns(self):
        tok = kinds.CharBPE.train(TEXT, 12)
        report = audit.audit(tok, MIXED)
        row = compression.measure('mixed', tok, tok.encode, measures.lines_of(MIXED))
        unknown_share = f"{sum(report['unknown'].values()) / report['chars']:.1%}"
        self.assertEqual(row[1:4] + [row[6]], [str(report['lines']), f"{report['chars']:,}",
                                              f"{report['tokens']:,}", unknown_share])


class EveryLabTest(unittest.TestCase):
    def test_a_missing_file_is_one_line_for_every_lab_that_reads_one(self):
        root = copy_project(self)
        trained(root)
        no_file_needed = ('token_count', 'merge_order', 'pretokenize', 'vocab_curve')
        for name in [name for name in READS_TEXT if name not in no_file_needed]:
            with self.subTest(name):
                done = inside(root, name, 'nope.txt')
                self.assertEqual(done.returncode, 1)
                self.assertEqual(len(messages(done.stderr)), 1, done.stderr)
                self.assertEqual(done.stderr.count(f'lab.{name}:'), 1, done.stderr)  # said once
                self.assertIn('nope.txt', done.stderr)


class LimitsTest(unittest.TestCase):
    def test_jobs_are_at_most_the_cores(self):
        root = copy_project(self, parts=['tokenizer.py', 'settings.json', 'data/train.txt'])
        for name in ['prepare', 'speed']:
            with self.subTest(name):
                done = inside(root, name, '--jobs', str((os.cpu_count() or 1) + 1))
                self.assertEqual(done.returncode, 2)
                self.assertIn(f'from 1 to {os.cpu_count() or 1}, the cores here', done.stderr)

    def test_a_batch_too_large_to_show_is_refused_before_any_work(self):
        done = inside(copy_project(self), 'prepare', '--batch-size', '100000000')
        self.assertEqual(done.returncode, 1)
        self.assertIn('at most 4,194,304 are shown', done.stderr)
        self.assertEqual(len(messages(done.stderr)), 1)

    def test_processes_that_cannot_start_are_one_line(self):
        tok = BPE.train(TEXT, 12)
        refused = OSError(11, 'Resource temporarily unavailable')
        with mock.patch.object(fast.encoding, 'start_process', side_effect=refused), \
                self.assertRaisesRegex(ValueError, r'cannot start 2 processes .*use fewer --jobs'):
            fast.encode(tok, TEXT * 400, jobs=2)


class CompressionRatioTest(unittest.TestCase):
    def test_no_token_is_a_dash_and_a_huge_ratio_a_figure(self):
        self.assertEqual([compression.ratio(*pair)
                          for pair in [(0, 0), (836, 795), (9_000_000, 1)]],
                         ['-', '1.05', '9M'])


class CompressionCommandTest(unittest.TestCase):
    def test_a_tokenizer_given_without_a_file_is_used_on_the_samples(self):
        root = copy_project(self)
        missing = inside(root, 'compression', '--tokenizer', 'missing.json')
        self.assertEqual(missing.returncode, 1)
        self.assertIn('missing.json', missing.stderr)
        inside(root, 'fast_bpe', '--merges', '3', '--out', 'three.json')
        done = inside(root, 'compression', '--tokenizer', 'three.json')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn('tokenizer: three.json, char, 31 ids\n', done.stdout)


class NotALabTest(unittest.TestCase):
    def test_the_libraries_say_they_are_not_labs_and_name_a_command(self):
        root = copy_project(self)
        for library in ['plumbing', 'contract', 'fast', 'kinds']:
            done = inside(root, library, '--help')
            with self.subTest(library):
                self.assertEqual(done.returncode, 1)
                self.assertIn('not a lab', done.stderr)
                self.assertIn('python3 -m lab.', done.stderr)
                self.assertEqual(len(messages(done.stderr)), 1)
                self.assertLessEqual(len(done.stderr), 81)  # one line of at most 80 columns


class DiesWithParentTest(unittest.TestCase):
    @unittest.skipUnless(sys.platform.startswith('linux'), "asks Linux to end it with its parent")
    def test_a_labs_child_ends_when_the_lab_is_killed(self):
        grandchild = (
            'from lab.plumbing import processes; import time; processes.die_with_parent(); '
            "print('ready', flush=True); time.sleep(60)")
        middle = ('import os, subprocess, sys, time\n'
                  f'child = subprocess.Popen([sys.executable, "-c", {grandchild!r}],\n'
                  '    stdout=subprocess.PIPE, start_new_session=True,\n'
                  '    env={**os.environ, "XSLM_PARENT": str(os.getpid())})\n'
                  'child.stdout.readline()\nprint(child.pid, flush=True)\ntime.sleep(60)\n')
        lab = subprocess.Popen([sys.executable, '-c', middle], cwd=ROOT, stdout=subprocess.PIPE,
                               text=True)
        pid = int(lab.stdout.readline())
        lab.kill()  # as the kernel kills a lab that takes too much memory: no clean-up of its own
        lab.wait()
        lab.stdout.close()
        self.assertEqual(still_alive([pid]), [])


class SpeedTest(unittest.TestCase):
    def test_a_text_too_small_to_measure_is_said_so_with_how_to_make_a_corpus(self):
        done = inside(copy_project(self), 'speed')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn('train.txt: 309 characters, too small to measure', done.stdout)
        self.assertIn('--make-corpus', done.stdout)
        self.assertNotIn('B/char', done.stdout)

    def test_a_text_large_enough_is_measured_and_its_figures_shown_in_a_row(self):
        gate.learners(5)  # lab.speed imports the learner's BPE for its lesson row
        root = copy_project(self, parts=['settings.json'])
        (root / 'mid.txt').write_text('abcd efgh\n' * 11_000, encoding='utf-8')
        # each figure's child runs in this process (tests.project.labs_children_here): next, a real
        # one
        code, out, err = run_inside(root, 'speed', 'mid.txt', '--merges', '5', '--lesson-merges',
                                    '1')
        self.assertEqual(code, 0, err[-500:])
        row = next(line for line in out.splitlines() if line.startswith('mid.txt'))
        self.assertEqual(row.split()[1:3], ['110,000', '5'])

    def test_a_childs_figures_are_found_among_the_megabytes_a_tokenizer_py_prints(self):
        root = copy_project(self, parts=['tokenizer.py', 'settings.json'])
        tokenizer = root / 'tokenizer.py'  # the lesson's row imports it, in the child
        tokenizer.write_text(
            "print('debug ' * 2**20, end='')\n" + tokenizer.read_text(encoding='utf-8-sig'),
            encoding='utf-8')
        (root / 'mid.txt').write_text('abcd efgh\n' * 11_000, encoding='utf-8')
        gate.learners(5)
        from lab import speed
        child = ['--child', 'lesson', 'mid.txt', '1', '--lesson-merges', '1']
        with mock.patch.dict(os.environ, ours_on_path()):  # our lab/: the copy has none
            # as lab.speed runs it
            code, out, err = processes.run_bounded([sys.executable, '-m', 'lab.speed', *child],
                                                   root, speed.CHILD_SECONDS)
        self.assertEqual(code, 0, err[-500:])
        self.assertIn('debug debug', out)  # the end of the megabyte, kept
        self.assertEqual(sorted(speed.figures_in(out)), ['fast', 'lesson'])


class SpeedWithoutProcessesTest(unittest.TestCase):
    def test_without_processes_the_figures_are_of_one_process_unless_jobs_asked_for_more(self):
        gate.learners(5)  # lab.speed imports the learner's BPE for its lesson row
        from lab import speed
        from lab.fast.encoding import NoProcesses
        one = fast.encode

        def no_shm(tok, text, jobs=None):  # as in a container without /dev/shm
            if jobs and jobs > 1:
                raise NoProcesses(
                    'cannot start 2 processes to encode with (No such file or directory)')
            return one(tok, text, jobs)
        with mock.patch.object(speed.fast, 'encode', no_shm), \
                mock.patch.object(speed, 'cores', lambda: 2):
            figures = speed.measure_ours(ROOT / 'data' / 'mixed.txt', 50, 1, None)
            self.assertNotIn('parallel', figures)
            self.assertIn('cannot start 2 processes', figures['no_parallel'])
            with self.assertRaises(NoProcesses):
                speed.measure_ours(ROOT / 'data' / 'mixed.txt', 50, 1, 2)


class SpeedChildTest(unittest.TestCase):
    def test_a_childs_message_of_several_lines_is_passed_on_whole(self):
        gate.learners(5)  # lab.speed imports the learner's BPE for its lesson row
        from lab import speed
        err = ('lab.speed: your code raised TypeError: BPE() takes no arguments\n'
               'lab.speed: hint: BPE has no __init__, but it has __int__: a typing slip? '
               'def\n  __init__\n'
               f'lab.speed: {errors.SELFCHECK}\n')
        with mock.patch.object(processes, 'run_bounded', return_value=(1, '', err)), \
                self.assertRaises(cli.Said) as said:
            speed.in_fresh_python('--child', 'read', 'x.txt', 1)
        hint = 'hint: BPE has no __init__, but it has __int__: a typing slip? def __init__'
        self.assertEqual(said.exception.lines,
                         ['your code raised TypeError: BPE() takes no arguments', hint,
                          errors.SELFCHECK])


@unittest.skipUnless(os.name == 'posix', 'runs sh, as any program')
class BoundedChildTest(unittest.TestCase):
    """processes.run_bounded: the children that import a tokenizer.py nobody reviewed (lab.speed's).
    What it bounds is any program: here the shell's, which start no Python."""

    def test_a_child_that_prints_without_end_is_kept_to_its_last_bytes(self):
        # 30 MB, then the last line
        prints = "head -c 31457280 /dev/zero | tr '\\0' x; echo; echo @@last"
        code, out, err = processes.run_bounded(['sh', '-c', prints], ROOT, 60, kept=1000)
        self.assertEqual((code, len(out), out.split()[-1]), (0, 1000, '@@last'))

    def test_a_child_that_never_ends_is_stopped_with_what_it_started(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        pid_file = Path(folder.name) / 'pid'
        starts = f"sleep 60 & echo $! > '{pid_file}'; sleep 60"
        with self.assertRaisesRegex(ValueError, 'took over 0.5 s and was stopped'):
            processes.run_bounded(['sh', '-c', starts], ROOT, 0.5)
        self.assertEqual(still_alive([int(pid_file.read_text())]), [])


class SpeedFilesTest(unittest.TestCase):
    def test_make_corpus_does_not_replace_a_file_of_the_user_without_force(self):
        root = copy_project(self)
        done = inside(root, 'speed', '--make-corpus', 'data/mixed.txt')
        self.assertEqual(done.returncode, 1)
        self.assertIn('use --force to replace it', done.stderr)
        self.assertEqual((root / 'data' / 'mixed.txt').read_text(encoding='utf-8'), MIXED)
        self.assertIn('--force', inside(root, 'speed', '--help').stdout)

    @unittest.skipUnless(hasattr(os, 'symlink'), 'needs symlinks')
    def test_a_symlink_loop_is_one_line(self):
        root = copy_project(self, parts=['tokenizer.py'])
        (root / 'loop').symlink_to('loop')
        done = inside(root, 'speed', 'loop')
        self.assertEqual(done.returncode, 1)
        self.assertEqual(len(messages(done.stderr)), 1, done.stderr)
        self.assertIn('loop', done.stderr)


class ByteBpeLabTest(unittest.TestCase):
    def test_what_it_saves_is_a_byte_tokenizer_file_that_loads_back(self):
        root = copy_project(self, parts=['tokenizer.py', 'data/mixed.txt'])
        code, out, err = run_inside(root, 'byte_bpe', 'data/mixed.txt', '--vocab-size', '320',
                                    '--out', 'b.json')
        self.assertEqual(code, 0, err)
        saved = json.loads((root / 'b.json').read_text(encoding='utf-8'))
        self.assertEqual(saved['kind'], 'byte')
        self.assertEqual(kinds.load(root / 'b.json').state(), ByteBPE.train(MIXED, 60).state())

    def test_the_bytes_alone_say_there_are_no_merges(self):
        root = copy_project(self, parts=['tokenizer.py', 'data/mixed.txt'])
        code, out, err = run_inside(root, 'byte_bpe', 'data/mixed.txt', '--vocab-size', '260',
                                    '--out', 'b.json')
        self.assertEqual(code, 0, err)
        self.assertIn('bytes 4-259, no merges\n', out)
        self.assertNotIn('260-259', out)


class ReadOtherwiseTest(unittest.TestCase):
    def test_line_ends_and_a_byte_order_mark_read_otherwise_are_said_in_one_line(self):
        root = copy_project(self, parts=['tokenizer.py', 'settings.json'])
        (root / 'crlf.txt').write_bytes(b'\xef\xbb\xbfhello\r\nworld\r\nagain\rx\n')
        (root / 'plain.txt').write_bytes(b'hello\nworld\n')
        for lab, args in [('fast_bpe', ['--kind', 'byte', '--out', 'b.json']),
                          ('byte_bpe', ['--out', 'c.json'])]:
            with self.subTest(lab):
                code, _, err = run_inside(root, lab, 'crlf.txt', *args)
                self.assertEqual((code, len(messages(err))), (0, 1), err)
                self.assertIn(r'crlf.txt: 2 \r\n, 1 \r read as \n, byte order mark left out', err)
                self.assertLessEqual(len(err.rstrip('\n')), 80)
                code, _, err = run_inside(root, lab, 'plain.txt', *args, '--force')
                self.assertEqual((code, err), (0, ''))


class SpecialLabTest(unittest.TestCase):
    def test_a_conversation_has_specials_only_where_the_program_put_them(self):
        tok = SpecialBPE.train(TEXT, 12)
        turn = special.conversation(tok, 'hi<eos>[A]', 'no.')
        where = [n for n, i in enumerate(turn) if i in tok.special_ids.values()]
        self.assertEqual([turn[n] for n in where],
                         [tok.special_ids[name] for name in ['<bos>', '[Q]', '[A]', '<eos>']])


class CompareTest(unittest.TestCase):
    def test_the_readme_shows_what_the_holdout_run_prints(self):
        readme = (ROOT / 'README.md').read_text(encoding='utf-8')
        command = '$ python3 -m lab.compare data/mixed.txt --merges 200 --holdout\n'
        shown = readme[readme.index(command) + len(command):].split('\n\n')[0]
        done = run_inside(ROOT, 'compare', 'data/mixed.txt', '--merges', '200', '--holdout')
        self.assertEqual(done[1].split('\n\n')[0], shown)

    def test_every_kind_is_trained_and_measured_on_the_same_text(self):
        train_text, measured, figures = compare.compare(MIXED, 80)
        self.assertEqual((train_text, measured), (MIXED, MIXED))
        self.assertEqual(list(figures), list(KINDS))
        for name, figure in figures.items():
            tok = KINDS[name].train(MIXED, 80)
            with self.subTest(name):
                self.assertEqual(figure['tokens'], len(tok.encode(MIXED)))
                self.assertEqual(figure['vocab'], tok.vocab_size)
                self.assertTrue(figure['round_trip'])

    def test_held_out_lines_are_not_trained_on_and_only_bytes_are_never_unknown(self):
        unseen = 'Zebra 안녕\n'
        train_text, measured, figures = compare.compare(TEXT + unseen, 30, holdout=0.01)
        self.assertEqual((train_text, measured), (TEXT, unseen))
        for name, figure in figures.items():
            with self.subTest(name):
                self.assertEqual(figure['round_trip'], name == 'byte')
                self.assertEqual(figure['unknown'] is None, name == 'byte')
                self.assertTrue(figure['unknown'] is None or figure['unknown'] > 0)

    def test_holdout_is_a_share_and_a_file_typed_after_it_is_told_to_go_first(self):
        self.assertEqual(cli.share('0.25'), 0.25)
        for wrong in ['0', '1', '2', 'nan', 'inf', 'x']:
            with self.subTest(wrong), self.assertRaisesRegex(argparse.ArgumentTypeError,
                                                             'not a share'):
                cli.share(wrong)
        with self.assertRaisesRegex(argparse.ArgumentTypeError, r'FILE goes before --holdout'):
            cli.share(str(ROOT / 'data' / 'mixed.txt'))

    def test_the_held_out_lines_said_are_the_lines_held_out(self):
        root = copy_project(self)
        (root / 'two.txt').write_text('Q: hi there\nA: hi there\n', encoding='utf-8')
        done = inside(root, 'compare', 'two.txt', '--merges', '3', '--holdout', '0.99')
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn('(the last 1 of its 2 lines)', ' '.join(done.stdout.split()))  # not '99 %'

    def test_the_command_shows_a_row_and_a_cut_line_a_kind_within_80_columns(self):
        done = inside(copy_project(self), 'compare', 'data/mixed.txt', '--merges', '60',
                      '--holdout')
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        for name in KINDS:
            self.assertEqual(sum(line.split()[:1] == [name] for line in lines), 2,
                             (name, done.stdout))
        self.assertLessEqual(max(map(terminal.width, lines)), 80)
        self.assertIn('held out', done.stdout)


class VocabCurveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        gate.learners(3)  # the lab trains the learner's BPE: used once the tutor finds it holds
        cls.lab = importlib.import_module('lab.vocab_curve')

    def test_the_last_lines_are_held_out(self):
        train, held = measures.hold_out('a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n', 0.2)
        self.assertEqual((train, held), ('a\nb\nc\nd\ne\nf\ng\nh\n', 'i\nj\n'))

    def test_the_training_curve_only_rises(self):
        train, held = measures.hold_out(MIXED * 3, 0.1)
        points = self.lab.curve(train, held, 150)
        self.assertLessEqual(len(points), self.lab.POINTS)
        rates = [rate for _, rate, _ in points]
        self.assertEqual(rates, sorted(rates))
        self.assertLess(rates[0], rates[-1])

    def test_sizes_are_spaced_evenly_on_a_log_scale(self):
        sizes = self.lab.sizes(100, 10_000)
        self.assertEqual((sizes[0], sizes[-1], len(sizes)), (100, 10_000, 20))
        ratios = [b / a for a, b in zip(sizes, sizes[1:])]
        self.assertLess(max(ratios) / min(ratios), 1.05)

    def test_the_plot_fits_80_columns(self):
        train, held = measures.hold_out(MIXED, 0.1)
        lines = self.lab.plot(self.lab.curve(train, held, 120), (2, 9))
        self.assertLessEqual(max(map(len, lines)), 80)
        self.assertTrue(any('*' in line for line in lines))
        self.assertTrue(any('o' in line or '@' in line for line in lines))


if __name__ == '__main__':
    unittest.main()
