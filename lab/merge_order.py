"""Merge order matters: the same rules applied in another order give other tokens.

    python3 -m lab.merge_order [FILE] [--tokenizer PATH] [--seed N]

First the textbook case: two rules learned as 1) e r and 2) w e, applied to
'l o w e r _' in both orders. 'e r' first leaves no 'w e' pair to merge; 'w e' first
takes the 'e' that 'e r' needed. Then the same point on the real tokenizer
(data/tokenizer.json): encode FILE (default data/train.txt) with its merges shuffled,
and the ids change, which is why tokenizer.json keeps the merges as a list, in the
order learned.

Try next: shuffle with other seeds (--seed N), or train with more merges first;
the more merges build on each other, the more a shuffle breaks.
"""
import random
import sys

if not __package__:  # run as python3 lab/merge_order.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.merge_order')

from lab import fast, kinds
from lab.plumbing import cli, reading, terminal
from tokenizer import BPE, merge

SYMBOLS = ['l', 'o', 'w', 'e', 'r', '_']  # ids 0-5
RULES = {'e r': ((3, 4), 6), 'w e': ((2, 3), 7)}
PIECES = SYMBOLS + ['er', 'we']


def apply(order):
    """'l o w e r _' after the rules in order, as space-separated pieces."""
    ids = list(range(len(SYMBOLS)))
    for name in order:
        pair, new_id = RULES[name]
        ids = merge(ids, pair, new_id)
    return ' '.join(PIECES[i] for i in ids)


def shuffled(tok, seed):
    """The same tokenizer with its merges in a seeded random order."""
    merges = list(tok.merges)
    random.Random(seed).shuffle(merges)
    return BPE(tok.vocab, merges)


def by_line(ids, newline):
    """The ids of a text cut after each newline id: the ids of each of its lines."""
    lines, start = [], 0
    for at, i in enumerate(ids):
        if i == newline:
            lines.append(ids[start:at + 1])
            start = at + 1
    return lines + [ids[start:]] if start < len(ids) else lines


def pieces(tok, ids):
    return '|'.join(terminal.shown(tok.vocab[i]) for i in ids)


def main():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text to encode')
    cli.add_tokenizer(parser, 'a saved tokenizer')
    parser.add_argument('--seed', type=cli.integer, default=0, metavar='N',
                        help='seed of the shuffle (default: %(default)s)')
    args = parser.parse_args()
    # first: a missing file is one line, and nothing before it
    tok = kinds.load_lesson(args.tokenizer, BPE)
    text = reading.read_text(args.file)
    say = cli.message
    print(say('merge_order.rules'))
    print('  ' + say('merge_order.then', first=1, second=2), apply(['e r', 'w e']))
    print('  ' + say('merge_order.then', first=2, second=1), apply(['w e', 'e r']))

    other = shuffled(tok, args.seed)
    # the engine gives encode's ids, fast (the lesson's encode takes minutes on a megabyte), and
    # since '\n' is never merged, the ids of the whole text split into the ids of its lines
    encoded = [by_line(fast.encode(t, text), tok.chars.get('\n')) for t in (tok, other)]
    changed = sum(a != b for a, b in zip(*encoded))
    labels = [say('merge_order.learned'), say('merge_order.shuffled', seed=args.seed)]
    names = terminal.shown(args.tokenizer.name), terminal.shown(args.file.name)
    print('\n' + say('merge_order.merges_of', n=len(tok.merges), tokenizer=names[0], file=names[1]))
    shown = [terminal.clip(pieces(t, lines[0]), 44) for t, lines in zip([tok, other], encoded)]
    rows = [[label, say('merge_order.tokens', n=f'{sum(map(len, lines)):,}'), first]
            for label, lines, first in zip(labels, encoded, shown)]
    print(terminal.table(rows, right={1}))
    print(say('merge_order.changed', changed=changed, lines=len(encoded[0])))
    if not changed:
        raise ValueError(say('merge_order.kept', seed=args.seed))


if __name__ == '__main__':
    cli.run(main)
