"""See the tokens: the text in alternating colours, each token's id beneath it.

    python3 -m lab.show [TEXT] [--tokenizer PATH]

On a terminal each token gets a background colour, alternating, so you can see where
one ends and the next begins; its id is printed under it. When the output is not a
terminal, or NO_COLOR is set, or TERM is dumb, tokens are separated by '|' instead and
a space shows as ·. A newline is shown as ⏎ and starts a new row, a tab as \\t, any
other control character as its escape; unknown characters (id 0) show as �. It takes
a tokenizer of any kind (lab/kinds); a byte-level token that holds only part of a
character shows its bytes, as \\xec. The default text is the lesson's prompt, 'Q: hi\\nA: '.

Try next: python3 -m lab.show 'Q: hello\\nA: ' and a sentence the training text
never saw; then train with more merges and look again.
"""
import shutil
import sys

if not __package__:  # run as python3 lab/show.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.show')

from lab import kinds
from lab.plumbing import cli, terminal
from lab.plumbing.terminal import width

COLOURS = ['\x1b[30;46m', '\x1b[30;43m']  # black on cyan, black on yellow
RESET = '\x1b[0m'
NEWLINE, SPACE = '⏎', '·'


def cells(tok, ids, colour):
    """(piece as shown, id) for each token. Without colour, a space shows as · so that
    it cannot be taken for the padding that lines the ids up."""
    shown = [terminal.shown(kinds.token_text(tok, i).replace('\n', NEWLINE)) for i in ids]
    return [(piece if colour else piece.replace(' ', SPACE), str(i))
            for piece, i in zip(shown, ids)]


def rows_of(pieces, columns):
    """Split cells into rows that fit the terminal, breaking after each newline."""
    rows, row, used = [], [], 0
    for piece, id_ in pieces:
        w = max(width(piece), len(id_)) + 1
        if row and used + w > columns:
            rows.append(row)
            row, used = [], 0
        row.append((piece, id_))
        used += w
        if piece.endswith(NEWLINE):
            rows.append(row)
            row, used = [], 0
    return rows + [row] if row else rows


def render(tok, ids, colour, columns=80):
    """The picture as lines of text: pieces (coloured, or between bars) over their ids."""
    out = []
    room = columns - (0 if colour else 1)  # without colour, a bar opens each line
    # a piece too long for a line is clipped
    pieces = [(terminal.clip(piece, room - 1), id_) for piece, id_ in cells(tok, ids, colour)]
    for row in rows_of(pieces, room):
        top, bottom = [], []
        for n, (piece, id_) in enumerate(row):
            w = max(width(piece), len(id_))
            shown = COLOURS[n % 2] + piece + RESET if colour else piece
            top.append(shown + ' ' * (w - width(piece)))  # the colour covers the piece only
            bottom.append(id_.ljust(w))
        if colour:
            out += [' '.join(top).rstrip(), ' '.join(bottom).rstrip()]
        else:
            out += ['|' + '|'.join(top) + '|', (' ' + ' '.join(bottom)).rstrip()]
    return out


def main():
    parser = cli.parser(__doc__)
    parser.add_argument('text', nargs='?', default='Q: hi\nA: ', metavar='TEXT',
                        help="the text to show (default: 'Q: hi\\nA: ')")
    cli.add_tokenizer(parser, 'a saved tokenizer')
    args = parser.parse_args()
    tok = kinds.load(args.tokenizer)
    columns = shutil.get_terminal_size((80, 24)).columns
    ids = kinds.plain(tok)(args.text)
    for line in render(tok, ids, terminal.use_colour(), columns):
        print(line)
    print(cli.message('show.counted', characters=len(args.text), tokens=len(ids)))
    specials = kinds.special_strings_line(tok, [args.text])  # one line, or None
    if specials:
        print(specials)


if __name__ == '__main__':
    cli.run(main)
