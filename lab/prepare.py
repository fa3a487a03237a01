"""Prepare training data for a tiny GPT: the course's next step, in miniature.

    python3 -m lab.prepare [FILE] [--block-size N] [--batch-size N] [--seed N]

1. Split the text into documents: one Q/A pair each when every line is a Q: or A:
   line in turn (the default data), otherwise paragraphs separated by blank lines.
2. Encode each document with data/tokenizer.json and end it with the newline id, the
   token at which the course's generator stops.
3. Join them and split 95/5 at a document boundary into data/train.bin and
   data/val.bin: ids as little-endian unsigned 16-bit integers (32-bit once the
   vocabulary reaches 65,536, the first id 16 bits cannot hold).
4. Read train.bin back and draw a seeded batch of windows: x is block_size ids from
   a random start, y the block_size ids one step later. y is what the model must
   predict: the next token at every position of x.

Try next: --block-size 32 on a bigger file; read the .bin files with
array.array('H') (or numpy.fromfile(path, dtype='<u2')).
"""
import argparse
import random
import sys
from array import array
from pathlib import Path

if not __package__:  # run as python3 lab/prepare.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.prepare')

from lab import fast_bpe
from lab.check import load
from tokenizer import HERE, SAVED, TRAIN, read_text, save

TRAIN_BIN, VAL_BIN = HERE / 'data' / 'train.bin', HERE / 'data' / 'val.bin'
TRAIN_SHARE = 0.95
UINT16_LIMIT = 2 ** 16  # the lesson's rule: 32 bits once the vocabulary reaches 65,536


def documents(text):
    """(documents, how they were split): Q/A pairs, or blank-line separated paragraphs."""
    lines = [line for line in text.split('\n') if line]
    if lines and all(line.startswith('QA'[n % 2] + ': ') for n, line in enumerate(lines)):
        return ['\n'.join(lines[n:n + 2]) for n in range(0, len(lines), 2)], 'one Q/A pair each'
    paragraphs = [p.strip('\n') for p in text.split('\n\n')]
    return [p for p in paragraphs if p.strip()], 'paragraphs between blank lines'


def split_at_document(lengths, share):
    """How many documents go to train: the boundary nearest to share of all tokens,
    leaving at least one document on each side when there are two or more."""
    if len(lengths) < 2:
        return len(lengths)
    goal, running, best, distance = share * sum(lengths), 0, 1, float('inf')
    for n, length in enumerate(lengths[:-1], 1):
        running += length
        if abs(running - goal) < distance:
            best, distance = n, abs(running - goal)
    return best


def id_type(vocab_size):
    """(array typecode, name) of the integers the ids are stored as."""
    return ('H', 'uint16') if vocab_size < UINT16_LIMIT else ('I', 'uint32')


def to_bytes(ids, typecode):
    data = array(typecode, ids)
    if sys.byteorder == 'big':
        data.byteswap()  # the files are little-endian on every machine
    return data.tobytes()


def from_bytes(raw, typecode):
    data = array(typecode)
    data.frombytes(raw)
    if sys.byteorder == 'big':
        data.byteswap()
    return data.tolist()


def windows(data, block_size, batch_size, seed):
    """A seeded batch: lists x and y of batch_size windows, y one step after x."""
    rng = random.Random(seed)
    starts = [rng.randrange(len(data) - block_size) for _ in range(batch_size)]
    return ([data[s:s + block_size] for s in starts], [data[s + 1:s + 1 + block_size] for s in starts])


def main():
    parser = argparse.ArgumentParser(prog='python3 -m lab.prepare', description=__doc__.splitlines()[0])
    parser.add_argument('file', nargs='?', type=Path, default=TRAIN, help='text (default: %(default)s)')
    parser.add_argument('--block-size', type=int, default=8, help='tokens a window (default: %(default)s)')
    parser.add_argument('--batch-size', type=int, default=4, help='windows a batch (default: %(default)s)')
    parser.add_argument('--seed', type=int, default=1337, help='seed of the windows (default: %(default)s)')
    args = parser.parse_args()
    if args.block_size < 1 or args.batch_size < 1:
        parser.error('--block-size and --batch-size must be 1 or more')
    tok = load(SAVED)
    if '\n' not in tok.chars:
        raise ValueError(f'{SAVED} has no newline token to end documents with; train it on text with lines')
    end = tok.chars['\n']
    docs, how = documents(read_text(args.file, 'give a UTF-8 text file'))
    encode = fast_bpe.encoder(tok)
    encoded = [encode(doc) + [end] for doc in docs]
    cut = split_at_document([len(ids) for ids in encoded], TRAIN_SHARE)
    train = [i for ids in encoded[:cut] for i in ids]
    val = [i for ids in encoded[cut:] for i in ids]
    if len(train) < args.block_size + 1:
        raise ValueError(f'{args.file} gives {len(train)} training tokens, fewer than --block-size + 1 = '
                         f'{args.block_size + 1}; use a smaller --block-size or more text')
    typecode, kind = id_type(len(tok.vocab))
    save(to_bytes(train, typecode), TRAIN_BIN)
    save(to_bytes(val, typecode), VAL_BIN)

    back = from_bytes(TRAIN_BIN.read_bytes(), typecode)
    xs, ys = windows(back, args.block_size, args.batch_size, args.seed)
    shifted = all(y[:-1] == x[1:] for x, y in zip(xs, ys)) and all(len(y) == args.block_size for y in ys)
    size = array(typecode).itemsize
    print(f'documents   {len(docs):,} ({how}), each ended by the newline id {end}')
    print(f'tokens      {len(train) + len(val):,}, vocabulary {len(tok.vocab):,}: {kind}, little-endian')
    for name, ids, count in [('train.bin', train, cut), ('val.bin', val, len(docs) - cut)]:
        print(f'{name:<12}{len(ids):,} tokens, {count:,} document{"s" * (count != 1)}, '
              f'{len(ids) * size:,} bytes')
    print(f'read back   train.bin gives the same ids: {"OK" if back == train else "FAILED"}')
    print(f'batch       {args.batch_size} windows of {args.block_size} tokens, seed {args.seed}')
    print(f'  x[0]      {tok.decode(xs[0])!r}')
    print(f'  y[0]      {tok.decode(ys[0])!r}')
    print(f'check       y is x shifted by one in every window: {"OK" if shifted else "FAILED"}')
    if back != train or not shifted:
        sys.exit('lab.prepare: a check FAILED')


if __name__ == '__main__':
    try:
        main()
    except ValueError as e:
        sys.exit(f'lab.prepare: {e}')
