"""Fast BPE: the very same tokenizer as tokenizer.py, trained in seconds.

    python3 -m lab.fast_bpe [FILE] [--merges N] [--out PATH] [--force]

It learns exactly the merges BPE.train learns and gives exactly the ids BPE.encode
gives, and saves the same tokenizer.json, with the engine in lab/fast/: counts kept up to
date instead of counted again for every merge, and tokens written as characters so that
a merge is one str.split or str.replace, done in C. How, and why the results are the
same, is written at the top of lab/fast/training.py and lab/fast/encoding.py.

Try next: python3 -m lab.speed, then train on a book of your own:
    python3 -m lab.fast_bpe my-book.txt --merges 5000 --out my-book.json
"""
import json
import sys
import time

if not __package__:  # run as python3 lab/fast_bpe.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.fast_bpe')

from lab import common, fast


def show_progress(started):
    """A progress(done, total) that redraws one line on stderr, at most 4 times a second."""
    last = [0.0]

    def progress(done, total):
        now = time.monotonic()
        if now - last[0] < 0.25 and done < total:
            return
        last[0] = now
        rate = done / max(now - started, 1e-9)
        left = (total - done) / rate if rate else 0
        print(f'\r  merges {done:,}/{total:,}  {rate:,.0f}/s  {left:.0f} s left  ',
              end='', file=sys.stderr, flush=True)
    return progress


def main():
    parser = common.parser(__doc__)
    common.add_file(parser, 'the text to train on')
    parser.add_argument('--merges', type=common.whole_number, metavar='N',
                        help='merges to learn (default: what settings.json asks for)')
    common.add_out(parser, common.SAVED, 'where to save the tokenizer', 'a tokenizer.json')
    args = parser.parse_args()
    count = common.read_merge_count() if args.merges is None else args.merges
    common.check_output_path(args.out, 'tokenizer.json', common.json_with('vocab', 'merges'),
                             inputs=[args.file, common.SETTINGS], force=args.force)
    text = common.read_text(args.file, 'give a UTF-8 text file')
    interactive = sys.stderr.isatty()
    try:
        tok = fast.train(text, count, show_progress(time.monotonic()) if interactive else None)
    finally:
        if interactive:
            print(file=sys.stderr)  # end the progress line, also when Ctrl-C stops it
    save_tokenizer(tok, args.out)
    print('vocab:', len(tok.vocab), 'merges:', len(tok.merges))
    if len(tok.merges) < count:
        print(f'(asked for {count} merges; no pair occurs twice after {len(tok.merges)})')
    ok = tok.decode(fast.encode(tok, text)) == text
    print('roundtrip:', 'OK' if ok else 'FAILED', fast.encode(tok, 'Q: hi\nA: '))
    print(f'saved {common.shown(str(args.out))}')


def save_tokenizer(tok, path):
    """Save as tokenizer.py saves: the same bytes for the same tokenizer."""
    common.save(json.dumps(common.state_of(tok), ensure_ascii=False) + '\n', path)


if __name__ == '__main__':
    common.run(main)
