"""Word-level BPE: merges inside words only, the classic way (Sennrich et al.).

    python3 -m lab.word_bpe [FILE] [--merges N]

The text is cut into words at whitespace, and a word followed by a single space ends in
a marker, </w>, that stands for the space: 'low lower\n' is  l o w </w> | l o w e r | \n.
Pairs are counted inside words only, so no token ever joins two words, and the marker
tells 'er' at the end of a word from 'er' inside one. On a tie the pair that sorts first
wins. The kind itself, and how it trains fast, is lab/kinds/word.py. The lab prints the
first 20 merges, checks the round trip (exit 1 if it fails), and compares characters per
token with the character-level tokenizer trained with as many merges.

Try next: a book from your own shelf with --merges 2000, and look at which whole
words become single tokens first:
    python3 -m lab.word_bpe my-book.txt --merges 2000
"""
import sys

if not __package__:  # run as python3 lab/word_bpe.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.word_bpe')

from lab.kinds import CharBPE, WordBPE
from lab.plumbing import cli, measures, reading, terminal


def main():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text to train on')
    parser.add_argument('--merges', type=cli.whole_number, default=120, metavar='N',
                        help='merges to learn (default: %(default)s)')
    args = parser.parse_args()
    text = reading.read_text(args.file)
    tok = WordBPE.train(text, args.merges)
    vocab = tok.vocab
    say = cli.message
    name = terminal.shown(args.file.name)
    print(say('word_bpe.trained', name=name, merges=len(tok.merges), vocab=len(vocab)))
    for n, ((a, b), new_id) in enumerate(tok.merges[:20], 1):
        line = f'  {n:>2}  {vocab[a]!r:>14} + {vocab[b]!r:<14} -> {vocab[new_id]!r}'
        print(terminal.clip(terminal.shown(line)))

    ids = tok.encode(text)
    back = tok.decode(ids)
    if back != text:
        raise ValueError(say('table.round_trip_failed', at=measures.first_difference(back, text)))
    print(say('word_bpe.round_trip', chars=f'{len(text):,}') + '\n')

    char_tok = CharBPE.train(text, args.merges)
    char_ids = char_tok.encode(text)
    rows = [[say(f'table.{column}') for column in ['tokenizer', 'merges', 'tokens', 'per_token']]]
    for name, made, n in [(say('word_bpe.word_level'), len(tok.merges), len(ids)),
                          (say('word_bpe.char_level'), len(char_tok.merges), len(char_ids))]:
        rows.append([name, str(made), f'{n:,}', f'{len(text) / n:.2f}'])
    print(terminal.table(rows, right={1, 2, 3}))


if __name__ == '__main__':
    cli.run(main)
