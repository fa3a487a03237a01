"""How the number of merges trades vocabulary size against text length.

    python3 -m lab.token_count [FILE] [--merges N ...]

Trains on FILE (default data/train.txt) with 0, 6, 12, 24 and 48 merges and prints the
vocabulary size and how many tokens the text becomes. Every merge adds one row to the
model's embedding table and (while pairs repeat) removes tokens from the text.

Try next: python3 -m lab.token_count --merges 0 50 100 200 400
"""
import sys

if not __package__:  # run as python3 lab/token_count.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.token_count')

from lab.contract import lessons
from lab.plumbing import cli, reading, terminal
from tokenizer import BPE

COUNTS = [0, 6, 12, 24, 48]


def main():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text to train on')
    parser.add_argument('--merges', type=cli.whole_number, nargs='+', default=COUNTS, metavar='N',
                        help='the merge counts to try (default: 0 6 12 24 48)')
    args = parser.parse_args()
    text = reading.read_text(args.file, 'put your training text there')
    for count in args.merges:
        # long on a book
        terminal.status(f'training with {count} merges on {len(text):,} characters ...')
        tok = BPE.train(text, count)
        terminal.status()
        print('merges', count, 'vocab', len(tok.vocab), 'tokens', len(lessons.encoded(tok, text)))


if __name__ == '__main__':
    cli.run(main)
