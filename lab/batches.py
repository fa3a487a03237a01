"""What a tiny GPT trains on: x, y and the loss mask, a batch at a time.

    python3 -m lab.batches [FOLDER] [--tokenizer PATH] [--split NAME] [--block-size N]
                           [--batch-size N] [--seed N] [--marker TEXT]

get_batch(folder, split, block_size, batch_size, seed=None) reads FOLDER/meta.json and the
split's .bin (train.bin or val.bin, refused unless it matches meta.json) and draws
batch_size windows at seeded random starts: x is block_size ids, and y the block_size ids
one step later. y[i] is what the model must predict having read x[:i + 1]: the next token,
at every position of the window. They are lists of ints, or with as_numpy=True (where numpy
is installed) two arrays of shape (batch_size, block_size).

The loss mask is for answer-only training. On questions and answers (the lesson's Q: and A:
lines), a model that is to answer is trained on the answers only: the question is given,
not learned. answer_mask(tok, ids, start, block_size) gives, for the targets y of the window
at start, 1 where y is a token of an answer (after a line's 'A: ', through the line end or
<eos> that closes it) and 0 elsewhere: multiply each position's loss by it, and divide the
sum by the mask's. A token that holds the end of 'A: ' is still the question's.

The lab prints one batch: every window as the text of x, and window 0 token by token, with
its targets and their mask.

Try next: a smaller block, from val.bin, with another seed:
    python3 -m lab.batches data --split val --block-size 4 --seed 7
"""
import argparse
import functools
import os
import sys
from pathlib import Path

if not __package__:  # run as python3 lab/batches.py: then lab cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.batches')

from lab import kinds
from lab.plumbing import bins, cli, terminal

MARKER = 'A: '  # where an answer starts, at the start of a line (the lesson's data)
LOOK_BACK = 100_000  # tokens looked back for the start of the line a window starts in
SHOWN_LIMIT = 2 ** 16  # ids of a batch the lab prints at most: a real batch is never printed
LABEL = 13  # columns of the labels on the left


@functools.lru_cache(maxsize=4)
def _ids(path, _stat):
    """The checked ids of a .bin, read once while the file stays as it is (_stat: its size and
    time): get_batch is called at every step of training."""
    return bins.read_ids(path.parent, path.name)


def read_split(folder, split):
    """The ids of folder's train.bin or val.bin (split 'train' or 'val'),
    checked against meta.json."""
    if split not in bins.SPLITS:
        raise ValueError(cli.message('batches.split', split=terminal.clip(repr(split), 20)))
    path = Path(folder) / f'{split}.bin'
    try:
        stat = os.stat(path)
    except OSError:
        stat = None  # read_ids says what is wrong with it
    return _ids(path, stat and (stat.st_size, stat.st_mtime_ns))


def get_batch(folder, split, block_size, batch_size, seed=None, as_numpy=False):
    """(x, y): batch_size windows of block_size ids of the split, at seeded random starts, y one
    step after x."""
    data = read_split(folder, split)
    starts = bins.window_starts(len(data), block_size, batch_size, seed)
    x, y = bins.windows(data, starts, block_size)
    if as_numpy:
        import numpy  # optional: only asked for here
        return numpy.array(x, dtype=numpy.int64), numpy.array(y, dtype=numpy.int64)
    return x, y


def answer_mask(tok, ids, start, block_size, marker=MARKER):
    """For the targets of the window at start (ids[start + 1:start + 1 + block_size]), 1 where the
    target is a token of an answer, else 0. The line the window starts in is read from its start,
    so a window that starts inside an answer knows it."""
    end_id = (kinds.document_end(tok) or (None,))[0]
    first = start
    while first > 0 and start - first < LOOK_BACK and not _ends_line(tok, ids[first - 1], end_id):
        first -= 1
    mask, inside, line, wanted = [], False, b'', marker.encode('utf-8')
    for k in range(first, start + 1 + block_size):
        if k > start:
            mask.append(int(inside))
        piece = tok.token_bytes(ids[k])
        if ids[k] == end_id:
            inside, line = False, b''
        elif b'\n' in piece:  # the line ends in it: what follows the line end starts the next line
            line = piece[piece.rindex(b'\n') + 1:]
            inside = line.startswith(wanted)
        elif not inside:
            line += piece
            inside = line.startswith(wanted)
    return mask


def _ends_line(tok, i, end_id):
    return i == end_id or b'\n' in tok.token_bytes(i)


def arguments():
    parser = cli.parser(__doc__)
    parser.add_argument('folder', nargs='?', type=Path, default=Path('data'), metavar='FOLDER',
                        help='the folder lab.prepare wrote to (default: %(default)s)')
    cli.add_tokenizer(parser, 'the tokenizer lab.prepare encoded with, to show the ids as text')
    parser.add_argument('--split', choices=bins.SPLITS, default='train', metavar='NAME',
                        help='train or val (default: %(default)s)')
    parser.add_argument('--block-size', type=cli.positive, default=8, metavar='N',
                        help='tokens in each window (default: %(default)s)')
    parser.add_argument('--batch-size', type=cli.positive, default=4, metavar='N',
                        help='windows in the batch (default: %(default)s)')
    parser.add_argument('--seed', type=cli.integer, default=bins.WINDOW_SEED, metavar='N',
                        help="the windows' starts (default: %(default)s, nanoGPT's)")
    parser.add_argument('--marker', type=marker, default=MARKER, metavar='TEXT',
                        help="what starts an answer's line, for the loss mask (default: 'A: ')")
    return parser


def marker(text):
    """An argparse type for --marker: text on one line, not empty (an empty one would start an
    answer everywhere, and one with a line end in it never)."""
    if not text or '\n' in text or '\r' in text:
        raise argparse.ArgumentTypeError(cli.message('batches.marker',
                                                     text=terminal.quoted(text, 20)))
    return text


def report(tok, args, data, starts, batch):
    """The lines the lab prints for a batch drawn from data at starts, in the lab's language."""
    say = cli.message
    x, y = batch
    lines = [terminal.labelled(f'{args.split}.bin', say('batches.read', tokens=f'{len(data):,}'),
                               LABEL),
             terminal.labelled(say('data.label_batch'),
                               say('data.batch', windows=args.batch_size, block=args.block_size,
                                   seed=args.seed),
                               LABEL)]
    rows = [[say('batches.window'), say('batches.start'), say('batches.as_text')]]
    # 11: a start of 9,999,999
    room = terminal.COLUMNS - 2 - terminal.width(rows[0][0]) - 2 - 11 - 2
    rows += [[str(n), f'{start:,}', kinds.shown_ids(tok, ids, room)]
             for n, (start, ids) in enumerate(zip(starts, x))]
    lines += ['  ' + row for row in terminal.table(rows, right=(1,)).split('\n')]
    mask = answer_mask(tok, data, starts[0], args.block_size, args.marker)
    rows = [[say('batches.pos'), 'x', 'y', say('batches.mask')]]
    rows += [[str(pos), kinds.shown_ids(tok, [i], 24), kinds.shown_ids(tok, [j], 24), str(m)]
             for pos, (i, j, m) in enumerate(zip(x[0], y[0], mask))]
    lines += ['', terminal.fill(say('batches.window0'))]
    lines += ['  ' + row for row in terminal.table(rows).split('\n')]
    check = bins.shifted_by_one(x, y, args.block_size)
    verdict = 'OK' if check else 'FAILED'
    marker = terminal.clip(repr(args.marker), 20)
    lines += ['',
              terminal.labelled(say('data.label_check'), say('data.check', verdict=verdict), LABEL),
              terminal.labelled(say('batches.label_mask'),
                                say('batches.mask_said', answers=sum(mask), targets=len(mask),
                                    marker=marker),
                                LABEL)]
    return lines, check


def main():
    args = arguments().parse_args()
    say = cli.message
    if args.batch_size * args.block_size > SHOWN_LIMIT:
        raise ValueError(say('batches.too_many', ids=f'{args.batch_size * args.block_size:,}',
                             most=f'{SHOWN_LIMIT:,}'))
    # the defaults, before prepare
    if args.folder == Path('data') and not Path('data', 'meta.json').exists():
        print(say('batches.nothing') + '\n  python3 -m lab.prepare\n  python3 -m lab.batches')
        return
    meta = bins.read_meta(args.folder)
    tok = kinds.load(args.tokenizer)
    if meta.get('tokenizer_sha256') != kinds.fingerprint(tok):
        raise ValueError(say('batches.not_made_by', folder=terminal.shown(str(args.folder))))
    data = read_split(args.folder, args.split)
    if data and max(data) >= tok.vocab_size:  # a meta.json edited by hand, or bins of another run
        raise ValueError(say('batches.past_vocab', split=args.split, id=max(data),
                             vocab=tok.vocab_size))
    if len(data) < args.block_size + 1:
        raise ValueError(say('batches.too_small', split=args.split, tokens=f'{len(data):,}',
                             block=f'{args.block_size:,}', needed=f'{args.block_size + 1:,}'))
    starts = bins.window_starts(len(data), args.block_size, args.batch_size, args.seed)
    lines, check = report(tok, args, data, starts, bins.windows(data, starts, args.block_size))
    print('\n'.join(lines))
    if not check:
        raise ValueError(say('data.failed'))


if __name__ == '__main__':
    cli.run(main)
