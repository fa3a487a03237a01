"""Prepare training data for a tiny GPT: the course's next step, any tokenizer.

    python3 -m lab.prepare [FILE] [--tokenizer PATH] [--out PATH] [--documents HOW]
                           [--val-share RATE] [--seed N] [--block-size N] [--batch-size N]
                           [--jobs N] [--force]

1. Split the text into documents (--documents): paragraphs separated by blank lines, one a
   line (a text with one example per line), or jsonl (one JSON string, or an object with
   "text", a line: a document may then hold blank lines); by default one Q/A pair each when
   every line is a Q: or A: line in turn (the lesson's data), else paragraphs.
2. Encode each document with the tokenizer (any kind, lab/kinds) and end it with one
   <eos> when the tokenizer has that special token, as the course's byte-level one does;
   else with the newline id, the token at which the lesson's generator stops. Characters
   the tokenizer has no id for are encoded as it encodes them, and counted in a line; so is
   a special string a document spells ('<eos>' in an article on tokenizers): it is kept as
   text, where the tokenizers library would make it the special id.
3. Split 95/5 (--val-share) into train.bin and val.bin in the folder PATH (default data,
   made if missing): at the document boundary nearest to 95 % of the tokens, or, with fewer
   than two documents, at 95 % of the tokens, as the course does; the last documents go to
   val, in order, unless --seed shuffles them first. A document whose very text is in both
   (a repeated line, a copied answer) is counted in a line: val then measures memory. Ids are
   little-endian unsigned 16-bit integers (32-bit once the vocabulary reaches 65,536, the first id
   16 bits cannot hold). Then meta.json: vocabulary size, id type, what ends a document, the
   tokenizer's fingerprint, and the token count and sha256 of each .bin. The three are
   written whole before any replaces the old one, and meta.json is renamed last; a reader
   trusts the .bin files only when they match it, so a run stopped between two renames,
   or a .bin made with another tokenizer, is caught.
4. Read train.bin back through meta.json and draw a seeded batch of windows: x is
   block_size ids from a random start, y the block_size ids one step later. y is what
   the model must predict: the next token at every position of x.

Try next: the byte-level tokenizer with <eos> that the course's next step
trains, on the same documents as the data:
    python3 -m lab.fast_bpe data/mixed.txt --kind byte --rules tokenizers \\
        --special '<eos>' --vocab-size 300 --documents paragraphs --out b.json
    python3 -m lab.prepare data/mixed.txt --tokenizer b.json --out prepared \\
        --documents paragraphs
then draw batches from it: python3 -m lab.batches prepared --tokenizer b.json
"""
import hashlib
import json
import os
import random
import sys
from array import array
from pathlib import Path

if not __package__:  # run as python3 lab/prepare.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.prepare')

from lab import fast, kinds
from lab.contract import lessons
from lab.kinds.texts import HOW, documents
from lab.plumbing import bins, cli, reading, saving, terminal

BINS = ['train.bin', 'val.bin']
LABEL = 12  # columns of the labels on the left
TRAIN_SHARE = 0.95
VAL_SHARE = 0.05  # the rest: written, not 1 - TRAIN_SHARE, which is 0.050000000000000044
# ids in the batch shown, as Python lists x and y (about 16 bytes an id): a real training
# batch is far smaller (nanoGPT's Shakespeare example: 64 windows of 256, 16,384 ids).
BATCH_LIMIT = 2**22


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


def split(ids, lengths, share):
    """(train ids, val ids, documents in train or None) of the ids of documents one after another,
    lengths[n] of them the n-th's: at the document boundary nearest to share of the tokens; with
    fewer than two documents, at share of the tokens."""
    if len(lengths) < 2:
        cut = min(round(len(ids) * share), len(ids) - 1)  # val.bin gets a token at least
        return ids[:cut], ids[cut:], None
    docs = split_at_document(lengths, share)
    cut = sum(lengths[:docs])
    return ids[:cut], ids[cut:], docs


def meta_of(tok, dtype, end, blobs):
    """What meta.json records of the .bin files and the tokenizer that made them."""
    size = array(bins.id_type(tok.vocab_size)[0]).itemsize
    return {'vocab_size': tok.vocab_size, 'dtype': dtype, 'byteorder': 'little', 'kind': tok.kind,
            'end_of_document': {'token': end[1], 'id': end[0]},
            'tokenizer_sha256': kinds.fingerprint(tok),
            'files': {name: {'tokens': len(blob) // size,
                             'sha256': hashlib.sha256(blob).hexdigest()}
                      for name, blob in blobs.items()}}


def arguments():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text to prepare')
    cli.add_tokenizer(parser, 'a saved tokenizer, of any kind')
    cli.add_out(parser, Path('data'),
                'the folder for train.bin, val.bin and meta.json (made if missing)',
                'a file of this lab (in PATH)')
    parser.add_argument('--documents', choices=HOW, metavar='HOW',
                        help='what a document is: paragraphs (between blank lines) or '
                             'lines (default: '
                             'Q/A pairs for the lesson\'s data, else paragraphs)')
    parser.add_argument('--block-size', type=cli.positive, default=8, metavar='N',
                        help='tokens in each window (default: %(default)s)')
    parser.add_argument('--batch-size', type=cli.positive, default=4, metavar='N',
                        help='windows in the batch (default: %(default)s)')
    parser.add_argument('--val-share', type=cli.share, default=VAL_SHARE, metavar='RATE',
                        help='the share of the tokens for val.bin (default: %(default)s)')
    parser.add_argument('--seed', type=cli.integer, metavar='N',
                        help=f'shuffle the documents with this seed before the split, and draw the '
                             f'windows with it (default: no shuffle, the last documents '
                             f'to val.bin; '
                             f'windows seeded {bins.WINDOW_SEED})')
    parser.add_argument('--jobs', type=cli.jobs, metavar='N',
                        help='processes to encode with (default: one per idle core for a text of '
                             f'{fast.PARALLEL_FROM:,} characters or more, else one)')
    return parser


def refuse_before_work(args):
    """Stop on what would fail only at the end: a batch too large to show, an output not ours."""
    if args.batch_size * args.block_size > BATCH_LIMIT:
        raise ValueError(cli.message('batches.too_many',
                                     ids=f'{args.batch_size * args.block_size:,}',
                                     most=f'{BATCH_LIMIT:,}'))
    if not args.out.is_dir():
        check_new_folder(args.out)
        return  # nothing in it to replace
    # the names in the folder are not the user's
    elsewhere = 'move it away or give --out another folder'
    for name in BINS:
        saving.check_output_path(args.out / name, '.bin file', lambda path: path.suffix == '.bin',
                                 inputs=[args.file, args.tokenizer], force=args.force,
                                 fix=elsewhere)
    is_meta = saving.json_with('files', 'dtype')
    saving.check_output_path(args.out / 'meta.json', 'meta.json of lab.prepare', is_meta,
                             inputs=[args.file, args.tokenizer], force=args.force, fix=elsewhere)


def check_new_folder(folder):
    """Refuse a folder that cannot be made: a file of that name, or a parent
    that cannot be written."""
    if folder.exists() or folder.is_symlink():
        raise ValueError(cli.message('prepare.not_folder', folder=folder))
    parent = next(p for p in Path(os.path.abspath(folder)).parents if p.exists())
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(cli.message('prepare.cannot_make', folder=folder, parent=parent))


def prepare(tok, text, out, block_size, jobs=None, name='the text', how=None, val_share=VAL_SHARE,
            seed=None):
    """Encode the documents of text (shuffled with seed, when given), write train.bin, val.bin
    (val_share of the tokens) and meta.json to the folder out (made if missing), and read
    train.bin back: the figures the lab prints, as a dict."""
    end = kinds.document_end(tok)
    if end is None:
        raise ValueError(cli.message('prepare.no_end'))
    docs, how = documents(text, how)
    if not docs:
        raise ValueError(cli.message('prepare.no_document', name=name))
    if seed is not None:
        random.Random(seed).shuffle(docs)
    typecode, dtype = bins.id_type(tok.vocab_size)
    # in arrays, 2 or 4 bytes an id: 2 million one-word lines fit the memory the labs assume
    ids, lengths = kinds.encode_documents(tok, docs, end[0], typecode, jobs)
    train, val, cut = split(ids, lengths, 1 - val_share)
    del ids
    if len(train) < block_size + 1:
        raise ValueError(cli.message('prepare.too_few', name=name, tokens=f'{len(train):,}',
                                     block=f'{block_size:,}', needed=f'{block_size + 1:,}'))
    blobs = {'train.bin': bins.to_bytes(train, typecode), 'val.bin': bins.to_bytes(val, typecode)}
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a folder check_new_folder could not foresee (/proc, a full disk)
        raise ValueError(cli.message('prepare.cannot_make', folder=out,
                                     why=cli.os_error(e))) from None
    meta = json.dumps(meta_of(tok, dtype, end, blobs), indent=2) + '\n'
    saving.save_together([*((blob, out / file) for file, blob in blobs.items()),
                          (meta, out / 'meta.json')])
    return {'docs': len(docs), 'how': how, 'train': train, 'val': val, 'train_docs': cut,
            'dtype': dtype,
            'end': end, 'id_bytes': array(typecode).itemsize,
            'back': bins.read_ids(out, 'train.bin'),
            'unknown': sum(lessons.unknown_characters(tok, docs).values()),  # of what is written
            'special': kinds.special_strings(tok, docs), 'val_share': val_share,
            'in_both': in_both(docs, cut)}


def in_both(docs, cut):
    """How many of the documents after cut (val's) have a text that a document before it (train's)
    has too; 0 when the split is inside one document."""
    if cut is None:
        return 0
    seen = set(docs[:cut])
    return sum(doc in seen for doc in docs[cut:])


def report(tok, made, batch):
    """The lines the lab prints for what prepare() made and the batch drawn from it, in the lab's
    language."""
    say = cli.message
    train, val, (xs, ys, shifted, args) = made['train'], made['val'], batch
    same = 'OK' if made['back'] == train else 'FAILED'
    end_id, end_name = made['end']
    lines = [terminal.labelled(say('prepare.label_documents'),
                               say('prepare.documents', count=f"{made['docs']:,}",
                                   how=cli.phrase(made['how']), end=end_name, id=end_id), LABEL),
             terminal.labelled(say('prepare.label_tokens'),
                               say('prepare.tokens', count=f'{len(train) + len(val):,}',
                                   vocab=f'{tok.vocab_size:,}', dtype=made['dtype']), LABEL)]
    share = 1 - made['val_share']
    if made['train_docs'] is None:
        lines.append(terminal.labelled(say('prepare.label_split'), say(
            'prepare.one_document', train=f'{share * 100:.0f}', val=f'{100 - share * 100:.0f}'),
            LABEL))
    if made['in_both']:  # val would measure what train has seen: said, not hidden
        held = made['docs'] - made['train_docs']
        lines.append(terminal.labelled(say('prepare.label_in_both'), say(
            'prepare.in_both', same=f"{made['in_both']:,}", held=f'{held:,}',
            share=f"{made['in_both'] / held:.0%}"), LABEL))
    if made['special']:  # tokenizers would make each the special id: said, not hidden
        lines.append(terminal.labelled(say('prepare.label_special'), kinds.said_of_special_strings(
            made['special'], terminal.COLUMNS - LABEL), LABEL))
    if made['unknown']:  # written all the same, as the tokenizer encodes them: said, not hidden
        lines.append(terminal.labelled(say('prepare.label_unknown'),
                                       say('prepare.unknown', count=f"{made['unknown']:,}"), LABEL))
    for name, ids, count in [('train.bin', train, made['train_docs']),
                             ('val.bin', val, None if made['train_docs'] is None
                              else made['docs'] - made['train_docs'])]:
        key = 'prepare.bin' if count is None else \
            'prepare.bin_doc' if count == 1 else 'prepare.bin_docs'
        said = say(key, tokens=f'{len(ids):,}', docs=f'{count or 0:,}',
                   bytes=f"{len(ids) * made['id_bytes']:,}")
        lines.append(terminal.labelled(name, said, LABEL))
    return lines + [
        terminal.labelled('meta.json', say('prepare.meta'), LABEL),
        terminal.labelled(say('prepare.label_read_back'), say('prepare.read_back', verdict=same),
                          LABEL),
        terminal.labelled(say('data.label_batch'),
                          say('data.batch', windows=args.batch_size, block=args.block_size,
                              seed=args.seed),
                          LABEL),
        f'  x[0]      {kinds.shown_ids(tok, xs[0], terminal.COLUMNS - LABEL)}',
        f'  y[0]      {kinds.shown_ids(tok, ys[0], terminal.COLUMNS - LABEL)}',
        terminal.labelled(say('data.label_check'),
                          say('data.check', verdict='OK' if shifted else 'FAILED'),
                          LABEL)]


def main():
    args = arguments().parse_args()
    refuse_before_work(args)
    tok = kinds.load(args.tokenizer)
    text = reading.read_text(args.file)
    cli.say_if_read_otherwise(args.file)
    cli.say_if_not_nfc(text, args.file)
    made = prepare(tok, text, args.out, args.block_size, args.jobs, args.file, args.documents,
                   args.val_share, args.seed)
    args.seed = bins.WINDOW_SEED if args.seed is None else args.seed
    starts = bins.window_starts(len(made['back']), args.block_size, args.batch_size, args.seed)
    xs, ys = bins.windows(made['back'], starts, args.block_size)
    shifted = bins.shifted_by_one(xs, ys, args.block_size)
    print('\n'.join(report(tok, made, (xs, ys, shifted, args))))
    if made['back'] != made['train'] or not shifted:
        raise ValueError(cli.message('data.failed'))


if __name__ == '__main__':
    cli.run(main)
