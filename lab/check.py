"""Check a saved tokenizer before trusting it.

    python3 -m lab.check [--tokenizer PATH]

A tokenizer.json travels between folders and people; it can be cut short, edited by
hand or come from another program. BPE(**state) takes whatever it is given, and a
damaged file then fails later with an IndexError or, worse, gives wrong ids quietly.
Every lab loads a tokenizer through the same check (lab.kinds.load), which refuses a
file with the first problem it finds. This lab says whether PATH (default
data/tokenizer.json) is sound, of whichever kind it is (lab/kinds: char, word, piece,
byte, special), and what its ids are.

Try next: copy data/tokenizer.json, change a piece in the copy by hand, and
check the copy:
    python3 -m lab.check --tokenizer copy.json
"""
import sys

if not __package__:  # run as python3 lab/check.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.check')

from lab import kinds
from lab.plumbing import cli, terminal


def main():
    parser = cli.parser(__doc__)
    cli.add_tokenizer(parser, 'the tokenizer to check')
    path = parser.parse_args().tokenizer
    tok = kinds.load(path)
    print(cli.message('check.sound', path=terminal.shown(str(path)), kind=tok.kind))
    print(f'  {kinds.describe(tok)}')


if __name__ == '__main__':
    cli.run(main)
