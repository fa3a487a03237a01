"""Prepare training data for a tiny GPT: the course's next step, in miniature.

    python3 -m lab.prepare [FILE] [--tokenizer PATH] [--out PATH] [--block-size N]
                           [--batch-size N] [--seed N] [--jobs N] [--force]

1. Split the text into documents: one Q/A pair each when every line is a Q: or A:
   line in turn (the default data), otherwise paragraphs separated by blank lines.
2. Encode each document with data/tokenizer.json and end it with the newline id, the
   token at which the course's generator stops.
3. Join them and split 95/5 at a document boundary into train.bin and val.bin in
   the folder PATH (default data): ids as little-endian unsigned 16-bit integers
   (32-bit once the vocabulary reaches 65,536, the first id 16 bits cannot hold).
   Then meta.json, written last: vocabulary size, id type, the tokenizer's
   fingerprint, and the token count and sha256 of each .bin. A reader trusts the
   .bin files only when they match it, so a run stopped between two writes, or a
   .bin made with another tokenizer, is caught.
4. Read train.bin back through meta.json and draw a seeded batch of windows: x is
   block_size ids from a random start, y the block_size ids one step later. y is what
   the model must predict: the next token at every position of x.

Try next: --block-size 32 on a bigger file; read the .bin files with
array.array('H') (or numpy.fromfile(path, dtype='<u2')).
"""
import hashlib
import json
import random
import sys
from array import array
from pathlib import Path

if not __package__:  # run as python3 lab/prepare.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.prepare')

from lab import common, fast

BINS = ['train.bin', 'val.bin']
TRAIN_SHARE = 0.95
# ids in the batch shown, as Python lists x and y (about 16 bytes an id): a real training
# batch is far smaller (nanoGPT's Shakespeare example: 64 windows of 256, 16,384 ids).
BATCH_LIMIT = 2**22
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


def encode_documents(tok, docs, jobs=None):
    """The ids of each document, ended by the newline id; in jobs processes (fast.encode)."""
    end = tok.chars['\n']
    ids = fast.encode(tok, ''.join(doc + '\n' for doc in docs), jobs)
    out, start = [], 0
    for doc in docs:  # every '\n' is the newline id, so each document ends at its last one
        stop = start
        for _ in range(doc.count('\n') + 1):
            stop = ids.index(end, stop) + 1
        out.append(ids[start:stop])
        start = stop
    return out


def windows(data, block_size, batch_size, seed):
    """A seeded batch: lists x and y of batch_size windows, y one step after x."""
    rng = random.Random(seed)
    starts = [rng.randrange(len(data) - block_size) for _ in range(batch_size)]
    return ([data[s:s + block_size] for s in starts], [data[s + 1:s + 1 + block_size] for s in starts])


def meta_of(tok, kind, blobs):
    """What meta.json records of the .bin files and the tokenizer that made them."""
    size = array(id_type(len(tok.vocab))[0]).itemsize
    return {'vocab_size': len(tok.vocab), 'dtype': kind, 'byteorder': 'little',
            'tokenizer_sha256': common.fingerprint(tok),
            'files': {name: {'tokens': len(blob) // size, 'sha256': hashlib.sha256(blob).hexdigest()}
                      for name, blob in blobs.items()}}


def read_bin(folder, name):
    """The ids of folder/name, refused unless they match folder/meta.json."""
    # a meta.json is a few hundred bytes: 64 KB is far more than one can need
    meta = common.read_json(folder / 'meta.json', 'run python3 -m lab.prepare to make it', 2**16)
    entry = meta.get('files', {}).get(name) if isinstance(meta, dict) else None
    typecode = {'uint16': 'H', 'uint32': 'I'}.get(meta.get('dtype')) if isinstance(meta, dict) else None
    if not isinstance(entry, dict) or typecode is None:
        raise ValueError(f'{folder / "meta.json"} says nothing of {name}; run python3 -m lab.prepare again')
    raw = common.read_bytes(folder / name, 'run python3 -m lab.prepare to make it')
    if hashlib.sha256(raw).hexdigest() != entry.get('sha256'):
        raise ValueError(f'{folder / name} is not the file meta.json describes (another run, or '
                         'stopped halfway?); run python3 -m lab.prepare again')
    return from_bytes(raw, typecode)


def arguments():
    parser = common.parser(__doc__)
    common.add_file(parser, 'the text to prepare')
    common.add_tokenizer(parser, 'a saved tokenizer')
    common.add_out(parser, Path('data'), 'the folder for train.bin, val.bin and meta.json',
                   'a file of this lab (in PATH)')
    parser.add_argument('--block-size', type=common.positive, default=8, metavar='N',
                        help='tokens in each window (default: %(default)s)')
    parser.add_argument('--batch-size', type=common.positive, default=4, metavar='N',
                        help='windows in the batch (default: %(default)s)')
    parser.add_argument('--seed', type=int, default=1337, metavar='N',
                        help='seed of the windows (default: %(default)s)')
    parser.add_argument('--jobs', type=common.jobs, metavar='N',
                        help='processes to encode with (default: one per core for a text of '
                             f'{fast.PARALLEL_FROM:,} characters or more, else one)')
    return parser


def refuse_before_work(args):
    """Stop on what would fail only at the end: a batch too large to show, an output not ours."""
    if args.batch_size * args.block_size > BATCH_LIMIT:
        raise ValueError(f'--batch-size {args.batch_size:,} of --block-size {args.block_size:,} is '
                         f'{args.batch_size * args.block_size:,} ids; at most {BATCH_LIMIT:,} are shown')
    for name in BINS:
        common.check_output_path(args.out / name, '.bin file', lambda path: path.suffix == '.bin',
                                 inputs=[args.file, args.tokenizer], force=args.force)
    is_meta = common.json_with('files', 'dtype')
    common.check_output_path(args.out / 'meta.json', 'meta.json of lab.prepare', is_meta,
                             inputs=[args.file, args.tokenizer], force=args.force)


def prepare(tok, text, out, block_size, jobs=None, name='the text'):
    """Encode the documents of text, write train.bin, val.bin and meta.json to the folder out,
    and read train.bin back: the figures the lab prints, as a dict."""
    if '\n' not in tok.chars:
        raise ValueError('the tokenizer has no newline token to end documents with; '
                         'train it on text with lines')
    docs, how = documents(text)
    if len(docs) < 2:
        raise ValueError(f'{name} gives {len(docs)} document ({how}), and train.bin and val.bin need '
                         'one at least each: separate documents with a blank line')
    encoded = encode_documents(tok, docs, jobs)
    cut = split_at_document([len(ids) for ids in encoded], TRAIN_SHARE)
    train = [i for ids in encoded[:cut] for i in ids]
    val = [i for ids in encoded[cut:] for i in ids]
    if len(train) < block_size + 1:
        raise ValueError(f'{name} gives {len(train)} training tokens, fewer than --block-size + 1 = '
                         f'{block_size + 1}; use a smaller --block-size or more text')
    typecode, kind = id_type(len(tok.vocab))
    blobs = {'train.bin': to_bytes(train, typecode), 'val.bin': to_bytes(val, typecode)}
    for file, blob in blobs.items():
        common.save(blob, out / file)
    common.save(json.dumps(meta_of(tok, kind, blobs), indent=2) + '\n', out / 'meta.json')  # last
    return {'docs': len(docs), 'how': how, 'train': train, 'val': val, 'train_docs': cut, 'kind': kind,
            'id_bytes': array(typecode).itemsize, 'back': read_bin(out, 'train.bin')}


def report(tok, made, batch):
    """The lines the lab prints for what prepare() made and the batch drawn from it."""
    train, val, (xs, ys, shifted, args) = made['train'], made['val'], batch
    newline = tok.chars['\n']
    same = 'OK' if made['back'] == train else 'FAILED'
    lines = [common.fill(f"{made['docs']:,} ({made['how']}), each ended by the newline id {newline}",
                         'documents   ', ' ' * 12),
             f"tokens      {len(train) + len(val):,}, vocabulary {len(tok.vocab):,}: {made['kind']}, "
             'little-endian']
    for name, ids, count in [('train.bin', train, made['train_docs']),
                             ('val.bin', val, made['docs'] - made['train_docs'])]:
        lines.append(f'{name:<12}{len(ids):,} tokens, {count:,} document{"s" * (count != 1)}, '
                     f"{len(ids) * made['id_bytes']:,} bytes")
    return lines + [
        'meta.json   vocabulary, id type, tokenizer fingerprint, sha256 of each .bin',
        f'read back   train.bin, checked against meta.json, gives the same ids: {same}',
        f'batch       {args.batch_size} windows of {args.block_size} tokens, seed {args.seed}',
        f'  x[0]      {common.shown(repr(tok.decode(xs[0])))[:68]}',
        f'  y[0]      {common.shown(repr(tok.decode(ys[0])))[:68]}',
        f'check       y is x shifted by one in every window: {"OK" if shifted else "FAILED"}']


def main():
    args = arguments().parse_args()
    refuse_before_work(args)
    tok = common.load_tokenizer(args.tokenizer)
    made = prepare(tok, common.read_text(args.file), args.out, args.block_size, args.jobs, args.file)
    xs, ys = windows(made['back'], args.block_size, args.batch_size, args.seed)
    shifted = all(y[:-1] == x[1:] for x, y in zip(xs, ys)) and all(len(y) == args.block_size for y in ys)
    print('\n'.join(report(tok, made, (xs, ys, shifted, args))))
    if made['back'] != made['train'] or not shifted:
        raise ValueError('a check FAILED')


if __name__ == '__main__':
    common.run(main)
