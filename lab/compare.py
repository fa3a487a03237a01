"""The tokenizer kinds side by side on a text: what each costs and what it loses.

    python3 -m lab.compare [FILE] [--merges N] [--holdout [RATE]]

Each kind in lab/kinds (the lesson's character-level BPE, word-level, pre-tokenized
pieces, byte-level, and the lesson's BPE with special tokens) learns the same number of
merges on FILE, and is measured on it: its vocabulary, the tokens the text takes,
characters per token, the share of tokens that stand for a character it never saw, whether
decoding gives the text back, and the seconds training took. Then one line, cut into
tokens by each kind. Measured on the text it trained on, every kind looks its best:
--holdout trains on the first lines only and measures on the last RATE of them (0.1 if
RATE is left out), as a model meets text it was not trained on.

Try next: text in two languages, held out:
    python3 -m lab.compare data/mixed.txt --merges 200 --holdout
"""
import sys

if not __package__:  # run as python3 lab/compare.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.compare')

from lab import kinds
from lab.contract import checks
from lab.kinds import KINDS
from lab.plumbing import cli, measures, reading, terminal, timing

HOLDOUT = 0.1  # --holdout without RATE: the last tenth of the lines, as lab.vocab_curve holds out


def measure(Kind, train_text, text, count):
    """What one kind costs on text after learning count merges on train_text: a dict."""
    tok, seconds = timing.seconds(Kind.train, train_text, count)
    encode = kinds.plain(tok)  # a special string in the text is text here, as for any kind
    ids = encode(text)
    unknown = None if tok.unknown_id is None else ids.count(tok.unknown_id) / max(len(ids), 1)
    line = measures.first_line(text)
    return {'merges': len(tok.state()['merges']), 'vocab': tok.vocab_size, 'tokens': len(ids),
            'per_token': len(text) / max(len(ids), 1), 'unknown': unknown,
            'round_trip': tok.decode(ids) == text, 'seconds': seconds,
            'line': [kinds.token_text(tok, i) for i in encode(line[:80])]}


def compare(text, count, holdout=None):
    """(training part, measured part, {kind: figures}): every kind trained on the first part
    and measured on the second; on the whole text for both unless holdout is a share."""
    train_text, measured = measures.hold_out(text, holdout) if holdout else (text, text)
    figures = {}
    for Kind in KINDS.values():
        # what a kind makes once in a process (a compiled pattern) is not training
        Kind.train('', 0)
    for n, (name, Kind) in enumerate(KINDS.items(), 1):
        terminal.status(cli.message('compare.training', kind=name, n=n, kinds=len(KINDS),
                                    chars=f'{len(train_text):,}'))
        figures[name] = measure(Kind, train_text, measured, count)
    terminal.status()
    return train_text, measured, figures


def figure_rows(figures):
    """The table: a row a kind."""
    say = cli.message
    columns = ['kind', 'merges', 'vocab', 'tokens', 'per_token', 'unknown', 'round_trip', 'seconds']
    rows = [[say(f'compare.{column}') for column in columns]]
    for name, f in figures.items():
        rows.append([name, f'{f["merges"]:,}', f'{f["vocab"]:,}', f'{f["tokens"]:,}',
                     f'{f["per_token"]:.2f}',
                     say('compare.never') if f['unknown'] is None else f'{f["unknown"]:.1%}',
                     'OK' if f['round_trip'] else say('compare.no'), f'{f["seconds"]:.2f}'])
    return rows


def main():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text to compare the kinds on')
    parser.add_argument('--merges', type=cli.whole_number, default=100, metavar='N',
                        help='merges each kind learns (default: %(default)s)')
    parser.add_argument('--holdout', type=cli.share, nargs='?', const=HOLDOUT, metavar='RATE',
                        help=f'measure on the last RATE of the lines, held out of '
                             f'training (default: '
                             f'measure on the training text; RATE left out: {HOLDOUT})')
    args = parser.parse_args()
    text = reading.read_text(args.file)
    train_text, measured, figures = compare(text, args.merges, args.holdout)
    name, say = terminal.shown(args.file.name), cli.message
    if args.holdout:
        # as many as can be
        held, lines = len(measures.lines_of(measured)), len(measures.lines_of(text))
        where = say('compare.held_out', trained=f'{len(train_text):,}',
                    measured=f'{len(measured):,}',
                    held=f'{held:,}', lines=f'{lines:,}')
    else:
        where = say('compare.all', chars=f'{len(text):,}')
    print(terminal.fill(say('compare.asked', merges=f'{args.merges:,}', name=name,
                            where=where)) + '\n')
    print(terminal.table(figure_rows(figures), right={1, 2, 3, 4, 5, 7}))
    # the special strings of the special kind, which keeps them as text as every kind does
    specials = kinds.special_strings_line(kinds.SpecialBPE.train(measured, 0), [measured])
    if specials:
        print(specials)
    print('\n' + terminal.fill(say('compare.unknown_said')) + '\n')
    print(say('compare.one_line'))
    for kind, f in figures.items():
        pieces = '|'.join(terminal.shown(piece) for piece in f['line'])
        print(terminal.clip(f'  {kind:<8} |' + pieces + '|'))
    if any(checks.UNKNOWN in piece for f in figures.values() for piece in f['line']):
        print('  ' + say('compare.legend', unknown=checks.UNKNOWN))


if __name__ == '__main__':
    cli.run(main)
