"""Byte-level BPE: no unknown characters, ever, since every text is made of bytes.

    python3 -m lab.byte_bpe [FILE] [--vocab-size N] [--out PATH] [--force]

The character-level tokenizer knows only the characters of its training text: 'C',
'안' and '😀' all become id 0. A byte-level tokenizer starts from the 256 byte values
instead, so any UTF-8 text can be encoded: a Korean syllable is 3 bytes, an emoji 4.
This one uses a fixed id contract, the same for every tokenizer trained this way:

    <pad>=0  <unk>=1  <bos>=2  <eos>=3   byte b = 4 + b (4-259)   merges from 260 on

It learns merges up to --vocab-size ids with the lesson's rules (ties go to the pair
seen first, the newline byte stays a token of its own, stop when the best pair occurs
fewer than 2 times): the text's bytes are spelled as the characters U+0000-U+00FF,
trained with lab.fast_bpe, and renumbered into the contract. decode() joins the
bytes of every id and decodes UTF-8 once, at the end, since one character's bytes
may be split across tokens. The tokenizer is saved to PATH (default
data/byte_tokenizer.json) and loaded back.

Try next: train on data/mixed.txt and compare how many tokens Korean costs
here and in the character-level tokenizer:
    python3 -m lab.byte_bpe data/mixed.txt --vocab-size 400
"""
import json
import sys
from pathlib import Path

if not __package__:  # run as python3 lab/byte_bpe.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.byte_bpe')

from lab import common, fast
from tokenizer import BPE

SPECIAL = ['<pad>', '<unk>', '<bos>', '<eos>']
FIRST_BYTE = len(SPECIAL)          # byte b has id 4 + b
FIRST_MERGE = FIRST_BYTE + 256     # 260
SHIFT = FIRST_BYTE - 1            # byte b is id 1 + b in the character-level BPE, 4 + b here
OUT = Path('data/byte_tokenizer.json')
SAMPLES = ['Q: hi\nA: ', 'cat', '안녕', '😀']


def as_chars(text):
    """The UTF-8 bytes of text as a str of the characters U+0000-U+00FF, one per byte."""
    return text.encode('utf-8').decode('latin-1')


def train(text, vocab_size):
    """Merges [[a, b], new] in the contract's ids, learned up to vocab_size ids."""
    tok = fast.train(as_chars(text), max(0, vocab_size - FIRST_MERGE))
    # char-level ids -> contract ids: base ids are bytes, merged ids follow from 260
    ids = [None] + [FIRST_BYTE + ord(ch) for ch in tok.vocab[1:len(tok.vocab) - len(tok.merges)]]
    ids += range(FIRST_MERGE, FIRST_MERGE + len(tok.merges))
    return [[[ids[a], ids[b]], ids[new]] for (a, b), new in tok.merges]


def as_char_tokenizer(merges):
    """The same merges as a tokenizer.BPE over byte characters, to encode with."""
    vocab = [common.UNKNOWN] + [chr(b) for b in range(256)]  # byte b at id 1 + b
    for (a, b), _ in merges:
        vocab.append(vocab[a - SHIFT] + vocab[b - SHIFT])
    return BPE(vocab, [[[a - SHIFT, b - SHIFT], new - SHIFT] for (a, b), new in merges])


def encode(merges, text):
    return [i + SHIFT for i in fast.encode(as_char_tokenizer(merges), as_chars(text))]


def pieces(merges):
    """The bytes of every id (special ids have none)."""
    out = [b''] * FIRST_BYTE + [bytes([b]) for b in range(256)]
    for (a, b), _ in merges:
        out.append(out[a] + out[b])
    return out


def decode(merges, ids, skip_special=True):
    made = pieces(merges)
    for i in ids:
        if type(i) is not int or not 0 <= i < len(made):
            raise ValueError(f'id {i!r} is not in this vocabulary of {len(made)} ids')
    data = b''.join(SPECIAL[i].encode() if i < FIRST_BYTE and not skip_special else made[i] for i in ids)
    return data.decode('utf-8', errors='replace')  # once, at the end: a character may span tokens


def to_json(merges):
    return json.dumps({'special': SPECIAL, 'merges': merges}) + '\n'


def from_json(path):
    """Merges read back from a saved byte tokenizer, checked against the contract."""
    state = common.read_json(path, 'run python3 -m lab.byte_bpe to make it')
    merges = state.get('merges') if isinstance(state, dict) else None
    ok = isinstance(merges, list) and state.get('special') == SPECIAL and all(
        isinstance(m, list) and len(m) == 2 and isinstance(m[0], list) and len(m[0]) == 2
        and all(type(i) is int for i in m[0] + [m[1]]) and m[1] == FIRST_MERGE + n
        and FIRST_BYTE <= min(m[0]) and max(m[0]) < m[1] for n, m in enumerate(merges))
    if not ok:
        raise ValueError(f'{path}: not a byte tokenizer with special ids 0-3, bytes 4-259, merges from 260')
    return merges


def main():
    parser = common.parser(__doc__)
    common.add_file(parser, 'the text to train on')
    parser.add_argument('--vocab-size', type=common.whole_number, default=300, metavar='N',
                        help=f'ids in all: {FIRST_MERGE} fixed ones, then one per merge (default: 300, '
                             f'that is {300 - FIRST_MERGE} merges)')
    common.add_out(parser, OUT, 'where to save it', 'a byte tokenizer')
    args = parser.parse_args()
    if args.vocab_size < FIRST_MERGE:
        parser.error(f'--vocab-size must be at least {FIRST_MERGE}: 4 special ids and 256 bytes')
    common.check_output_path(args.out, 'byte tokenizer', common.json_with('special', 'merges'),
                             inputs=[args.file], force=args.force)
    text = common.read_text(args.file)
    merges = train(text, args.vocab_size)
    common.save(to_json(merges), args.out)
    merges = from_json(args.out)
    made = pieces(merges)
    name = common.shown(args.file.name)
    print(f'byte-level BPE on {name}: {len(text.encode("utf-8")):,} bytes, '
          f'vocab {FIRST_MERGE + len(merges)} ({len(merges)} merges)')
    print('ids: <pad>=0 <unk>=1 <bos>=2 <eos>=3, bytes 4-259, merges 260-'
          f'{FIRST_MERGE + len(merges) - 1}')
    first = '  '.join(f'{made[new].decode("utf-8", "replace")!r}' for _, new in merges[:8])
    print(f'first merges: {first}'[:80])

    ids = encode(merges, text)
    if decode(merges, ids) != text:
        raise ValueError(f'round trip of {args.file} FAILED')
    char_tok = fast.train(text, len(merges))
    print(f'round trip of {name}: OK, {len(ids):,} tokens '
          f'(character-level, {len(char_tok.merges)} merges: {len(fast.encode(char_tok, text)):,})')
    print(f'saved {common.shown(str(args.out))} and loaded it back\n')
    rows = sample_rows(merges, char_tok)
    print(common.table(rows, right={1, 3}))
    if any(row[4] != 'OK' for row in rows[1:]):
        raise ValueError('a sample did not round-trip')


def sample_rows(merges, char_tok):
    """A table row for each sample: its bytes, byte-level ids, tokens, round trip, and the
    character-level tokenizer's tokens with how many of them are unknown."""
    rows = [('text', 'bytes', 'byte ids', 'tokens', 'back', 'char-level tokens')]
    for sample in SAMPLES:
        sample_ids = encode(merges, sample)
        char_ids = char_tok.encode(sample)
        unknown = char_ids.count(0)
        rows.append((repr(sample), str(len(sample.encode('utf-8'))), ' '.join(map(str, sample_ids)),
                     str(len(sample_ids)), 'OK' if decode(merges, sample_ids) == sample else 'FAILED',
                     f'{len(char_ids)} ({unknown} unknown)' if unknown else str(len(char_ids))))
    return rows


if __name__ == '__main__':
    common.run(main)
