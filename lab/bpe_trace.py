"""Watch BPE learn: train on a short text and print the sequence after each merge.

    python3 -m lab.bpe_trace [TEXT] [--merges N]

Each line shows the pair that was merged, the sequence with its tokens joined by '|',
and how many tokens remain. With no arguments: the lesson's 'low lower lowest' and
4 merges.

Try next: python3 -m lab.bpe_trace 'low lower newest widest' --merges 8
"""
import sys

if not __package__:  # run as python3 lab/bpe_trace.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.bpe_trace')

from lab.plumbing import cli, terminal
from tokenizer import BPE, merge


def step(before, tok, ids):
    """before, the pieces of ids between |, and how many there are: within 80 columns (a long
    text is cut, its count kept)."""
    count = f' {len(ids)}'
    pieces = '|'.join(terminal.shown(tok.vocab[i]) for i in ids)
    return terminal.clip(f'{before} {pieces}', 80 - len(count)) + count


def trace(text, count):
    """Train on text, then replay the learned merges one at a time, printing each step."""
    tok = BPE.train(text, count)
    # as the lesson's lab does: the BPE typed up to train will do
    ids = [tok.chars.get(c, 0) for c in text]
    print(step('start:', tok, ids))
    for (a, b), new_id in tok.merges:
        ids = merge(ids, (a, b), new_id)
        print(step(f'{tok.vocab[a]!r} + {tok.vocab[b]!r} ->', tok, ids))


def main():
    parser = cli.parser(__doc__)
    parser.add_argument('text', nargs='?', default='low lower lowest', metavar='TEXT',
                        help="the text to learn from (default: 'low lower lowest')")
    parser.add_argument('--merges', type=cli.whole_number, default=4, metavar='N',
                        help='merges to learn (default: %(default)s)')
    args = parser.parse_args()
    trace(args.text, args.merges)


if __name__ == '__main__':
    cli.run(main)
