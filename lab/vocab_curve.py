"""How big a vocabulary? Characters per token against vocabulary size, on text the
tokenizer learned from and on text it never saw.

    python3 -m lab.vocab_curve [FILE] [--merges N] [--holdout RATE]

The last RATE of the lines of FILE (default 0.1) are held out; the rest trains one
tokenizer with lab.fast_bpe, up to N merges (default: the lesson's rule of thumb,
characters / 100, and at least 100). Since a tokenizer with k merges is the first k
merges of a longer run, one run gives every vocabulary size: at about twenty sizes,
evenly spaced on a log scale, both parts are encoded and their characters per token
measured.

On the training part the curve only rises: every merge shortens the text it was
learned from. On the held-out part it rises more slowly and flattens: the later merges
join pairs that were frequent only in the training text. Where it flattens is where
more vocabulary stops paying for itself. The plot marks the rule of thumb, a
vocabulary of characters / 500 to characters / 100, with ':'.

Try next: python3 -m lab.vocab_curve ../my-book.txt --merges 5000
"""
import math
import sys

if not __package__:  # run as python3 lab/vocab_curve.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.vocab_curve')

from lab import fast
from lab.plumbing import cli, measures, reading, terminal
from tokenizer import BPE

POINTS = 20
# the plot's area, inside 80 columns with its axis labels; a label every 4 rows
WIDTH, HEIGHT = 64, 17
FLAT = 0.01  # a step that gains less than 1 % more characters per token is "flat"


def sizes(smallest, largest, count=POINTS):
    """About count vocabulary sizes from smallest to largest, evenly spaced on a log scale."""
    if largest <= smallest:
        return [smallest]
    steps = [smallest * (largest / smallest) ** (n / (count - 1)) for n in range(count)]
    return sorted({min(largest, max(smallest, round(v))) for v in steps})


def curve(train_text, held_text, merges):
    """[(vocabulary size, train chars/token, held-out chars/token)] at about POINTS sizes."""
    terminal.status(cli.message('vocab_curve.learning', merges=f'{merges:,}',
                                chars=f'{len(train_text):,}'))
    tok = fast.train(train_text, merges)
    base = len(tok.vocab) - len(tok.merges)
    points = []
    steps = sizes(base, len(tok.vocab))
    for n, size in enumerate(steps, 1):
        terminal.status(cli.message('vocab_curve.encoding', size=f'{size:,}', n=n,
                                    steps=len(steps)))
        partial = BPE(tok.vocab[:size], tok.merges[:size - base])
        encode = fast.encoder(partial)
        points.append((size, len(train_text) / max(len(encode(train_text)), 1),
                       len(held_text) / max(len(encode(held_text)), 1)))
    terminal.status()
    return points


def flattens(points):
    """The vocabulary size from which on every step gains the held-out curve less than FLAT,
    or None when its last step still gains more."""
    flat = None
    for (size, _, held), (after_size, _, after) in zip(points, points[1:]):
        if after >= held * (1 + FLAT):
            flat = after_size
    return None if flat == points[-1][0] else flat or points[0][0]


def plot(points, rule):
    """Both curves as lines of text: x the vocabulary size (log), y characters per token."""
    low, high = math.log(points[0][0]), math.log(max(points[-1][0], points[0][0] + 1))
    top = max(max(t, h) for _, t, h in points) * 1.05
    bottom = min(min(t, h) for _, t, h in points) * 0.95
    grid = [[' '] * WIDTH for _ in range(HEIGHT)]

    def column(size):
        return round((math.log(size) - low) / (high - low) * (WIDTH - 1))
    for size in rule:  # the rule of thumb, where it falls on the axis
        if points[0][0] <= size <= points[-1][0]:
            for row in grid:
                row[column(size)] = ':'
    for size, train, held in points:
        x = column(size)
        for value, mark in [(train, '*'), (held, 'o')]:
            y = HEIGHT - 1 - round((value - bottom) / (top - bottom) * (HEIGHT - 1))
            grid[y][x] = '@' if grid[y][x] in '*o' and grid[y][x] != mark else mark
    lines = []
    for n, row in enumerate(grid):
        value = top - (top - bottom) * n / (HEIGHT - 1)
        label = f'{value:5.2f}' if n % 4 == 0 else ''
        lines.append(f'{label:>6} |' + ''.join(row).rstrip())
    lines.append(' ' * 7 + '+' + '-' * WIDTH)
    ends = f'{points[0][0]:,}'
    lines.append(' ' * 8 + ends + f'{points[-1][0]:,}'.rjust(WIDTH - len(ends)))
    lines.append(' ' * 8 + cli.message('vocab_curve.legend'))
    return lines


def main():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text')
    parser.add_argument('--merges', type=cli.whole_number, metavar='N',
                        help='merges to learn (default: characters / 100, at least 100)')
    parser.add_argument('--holdout', type=cli.share, default=0.1, metavar='RATE',
                        help='share of the lines held out, from the end (default: %(default)s)')
    args = parser.parse_args()
    text = reading.read_text(args.file)
    merges = max(100, len(text) // 100) if args.merges is None else args.merges
    train_text, held_text = measures.hold_out(text, args.holdout)
    points = curve(train_text, held_text, merges)
    rule = (len(text) / 500, len(text) / 100)
    name = terminal.shown(args.file.name)
    say = cli.message
    print(say('vocab_curve.texts', name=name, train=f'{len(train_text):,}',
              held=f'{len(held_text):,}',
              share=f'{args.holdout:.0%}'))
    print(say('vocab_curve.axis', low=f'{rule[0]:,.0f}', high=f'{rule[1]:,.0f}') + '\n')
    for line in plot(points, rule):
        print(line)
    rows = [[say(f'vocab_curve.{column}') for column in ['vocab', 'merges', 'train', 'held']]]
    base = points[0][0]
    rows += [[f'{size:,}', f'{size - base:,}', f'{train:.2f}', f'{held:.2f}']
             for size, train, held in points]
    print()
    print(terminal.table(rows, right={0, 1, 2, 3}))
    flat = flattens(points)
    print()
    if flat is None:
        print(say('vocab_curve.improves'))
    else:
        print(say('vocab_curve.flat', step=f'{FLAT:.0%}', size=f'{flat:,}'))


if __name__ == '__main__':
    cli.run(main)
