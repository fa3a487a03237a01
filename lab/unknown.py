"""What happens to characters the tokenizer never saw: they all become id 0.

    python3 -m lab.unknown [WORD ...] [--tokenizer PATH]

Loads data/tokenizer.json and prints, for a few words, the ids and the UTF-8 bytes.
'cat' is known; 'C' never appears in the training text, nor does any Korean or emoji,
so they turn into 0 and decode as '\ufffd'. A byte-level tokenizer (python3 -m lab.byte_bpe)
has no unknowns: every text is made of the 256 byte values.

Try next: python3 -m lab.unknown hello 'Q: hi' café
"""
import sys

if not __package__:  # run as python3 lab/unknown.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.unknown')

from lab import kinds
from lab.contract import lessons
from lab.plumbing import cli, terminal
from tokenizer import BPE

WORDS = ['cat', 'Cat', '안녕', '😀']


def main():
    parser = cli.parser(__doc__)
    parser.add_argument('words', nargs='*', metavar='WORD',
                        help='words to look at (default: cat Cat 안녕 😀)')
    cli.add_tokenizer(parser, 'a saved tokenizer')
    args = parser.parse_args()
    tok = kinds.load_lesson(args.tokenizer, BPE)  # the BPE you typed, rebuilt from the file
    for word in args.words or WORDS:
        # surrogateescape: a word from the command line may hold bytes that are not UTF-8
        ids, data = lessons.encoded(tok, word), list(word.encode('utf-8', 'surrogateescape'))
        said = f'{terminal.shown(word)} {ids} {data}'
        # a long word is cut at 80 columns: python3 -m lab.show shows it all
        print(terminal.clip(said))


if __name__ == '__main__':
    cli.run(main)
