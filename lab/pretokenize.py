"""Pre-tokenization: cut the text into pieces, then merge only inside the pieces.

    python3 -m lab.pretokenize [FILE] [--merges N] [--pattern gpt2|gpt4|line|space|REGEX]

The lesson's BPE sees the text as one long sequence, so its merges join across words:
' y' (a space and the start of 'you'), 's ' (the end of a word and a space). Real
tokenizers first split the text with a regular expression (a pre-tokenizer) and never
merge across the pieces, so a token is a word, a part of one, or a run of digits or
symbols, usually with the space in front of it. The patterns and the kind itself are in
lab/kinds/piece.py; this lab puts the first merges of a pattern beside the lesson's.

Try next: python3 -m lab.pretokenize data/mixed.txt --merges 100 --pattern gpt4
"""
import sys

if not __package__:  # run as python3 lab/pretokenize.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.pretokenize')

from lab.kinds import CharBPE, PieceBPE
from lab.kinds.patterns import PIECE_PATTERNS, pattern_problem
from lab.plumbing import cli, measures, reading, terminal

SHOWN_MERGES = 12


def main():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text to train on')
    parser.add_argument('--merges', type=cli.whole_number, default=50, metavar='N',
                        help='merges to learn (default: %(default)s)')
    parser.add_argument('--pattern', type=cli.checked_by(pattern_problem), default='gpt2',
                        metavar='NAME',
                        help=f'how to cut the text into pieces ({", ".join(PIECE_PATTERNS)}, '
                             f'or a regular '
                             'expression; default: %(default)s)')
    args = parser.parse_args()
    text = reading.read_text(args.file)
    pre = PieceBPE.train(text, args.merges, args.pattern)
    label = args.pattern if args.pattern in PIECE_PATTERNS else 'regex'  # a column's heading
    if ''.join(pre.pieces(text)) != text:
        raise ValueError(cli.message('pretokenize.uncovered', label=label, file=args.file))
    plain = CharBPE.train(text, args.merges)
    name = terminal.shown(args.file.name)
    pattern = terminal.shown(args.pattern)
    say = cli.message
    print(terminal.clip(say('pretokenize.asked', merges=args.merges, name=name,
                            pattern=pattern)) + '\n')
    rows = [['', say('pretokenize.pieces', label=label), say('pretokenize.lesson_whole')]]
    for n in range(min(SHOWN_MERGES, max(len(pre.merges), len(plain.merges)))):
        learned = [repr(tok.vocab[tok.merges[n][1]]) if n < len(tok.merges) else None
                   for tok in (pre, plain)]
        rows.append([str(n + 1)] + [terminal.clip(terminal.shown(text), 34) if text else ''
                                    for text in learned])
    print(terminal.table(rows, right={0}))

    line = measures.first_line(text)[:60]
    cut = '|' + '|'.join(terminal.shown(piece) for piece in pre.pieces(line)) + '|'
    print('\n' + say('pretokenize.first_line') + f'\n  {terminal.clip(cut, 78)}')
    print()
    columns = ['tokenizer', 'merges', 'tokens', 'per_token']
    print(terminal.table([[say(f'table.{column}') for column in columns],
                          row(say('pretokenize.pieces', label=label), pre, text),
                          row(say('pretokenize.lessons'), plain, text)], right={1, 2, 3}))
    back = pre.decode(pre.encode(text))
    if back != text:
        raise ValueError(say('table.round_trip_failed', at=measures.first_difference(back, text)))
    print('\n' + say('pretokenize.round_trip', chars=f'{len(text):,}'))


def row(name, tok, text):
    """A row of the last table: the tokenizer, its merges, its tokens on text, chars per token."""
    ids = tok.encode(text)
    return [name, str(len(tok.merges)), f'{len(ids):,}', f'{len(text) / max(len(ids), 1):.2f}']


if __name__ == '__main__':
    cli.run(main)
