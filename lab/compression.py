"""Compression: how much text one token carries, and why that depends on language.

    python3 -m lab.compression [FILE ...] [--tokenizer PATH]

For each file, and for each kind of line in it (Korean, URLs, code, numbers, other
text: a rough guess from the characters), it prints characters per token, UTF-8
bytes per token, the share of characters the tokenizer does not know, and tokens per
line at the 50th, 95th and 99th percentile. It counts as lab.audit does: every line,
blank ones too, without its newline. More characters per token means shorter
sequences for the model.

With no FILE it uses two small samples written for this lab, one English and one
Korean, and a tokenizer trained on the English one plus a single Korean sentence: a
tokenizer learns the language it sees most. English comes out at over two characters
a token; Korean at about one, and nearly a quarter of its characters are unknown.

It takes a tokenizer of any kind (lab/kinds): train a byte-level one on the same text
and see what its tokens carry, with nothing unknown.

Try next: run it on data/mixed.txt, then train on that file
(python3 -m lab.fast_bpe data/mixed.txt --merges 300) and run it again.
"""
import re
import sys
from pathlib import Path

if not __package__:  # run as python3 lab/compression.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.compression')

from lab import kinds
from lab.contract import lessons
from lab.plumbing import cli, locations, measures, reading, terminal

ENGLISH = """The river ran past the old mill, and the children walked beside it to school.
In spring the water was high and brown; in summer it was low and clear.
They counted the ducks on the way there and the stones on the way back.
The teacher said that a river is never the same river twice.
The children said that the ducks were always the same ducks.
"""
KOREAN = """강은 오래된 방앗간 옆을 흘렀고, 아이들은 그 길을 따라 학교에 갔다.
봄에는 물이 많고 흐렸으며, 여름에는 물이 적고 맑았다.
아이들은 가는 길에 오리를 세고, 오는 길에 돌을 세었다.
"""
SAMPLE_MERGES = 100
KINDS = [  # the first that matches names the line
    ('Korean', measures.HANGUL),
    ('URLs', re.compile(r'https?://|www\.')),
    ('code', re.compile(r'^\s{2,}\S|[{}]|;$|^\s*(def|class|import|return|for|if)\b|==|\w\(.*\)')),
    ('numbers', re.compile(r'\d')),
]
# p50, p95, p99: tokens a line at those percentiles, shown as is
HEADER = ['text', 'lines', 'chars', 'tokens', 'ch/tok', 'B/tok', 'unknown', 'p50', 'p95', 'p99']
NAME_COLUMNS = 16  # a longer file name is cut: to fewer columns when the figures need them


def kind_of(line):
    return next((name for name, pattern in KINDS if pattern.search(line)), 'other')


def measure(name, tok, encode, lines):
    """One table row for lines (each without its newline)."""
    c = lessons.count_lines(tok, encode, lines)
    return [name, terminal.figure(c['lines']), terminal.figure(c['chars']),
            terminal.figure(c['tokens']),
            ratio(c['chars'], c['tokens']), ratio(c['bytes'], c['tokens']),
            f"{sum(c['unknown'].values()) / max(c['chars'], 1):.1%}",
            *(terminal.figure(measures.percentile(c['per_line'], p)) for p in (50, 95, 99))]


def ratio(count, tokens):
    """count per token as the table shows it: '-' for no token (a byte tokenizer may leave every
    character out), two decimals, or a whole figure from 1,000 up (one token of a long line)."""
    if not tokens:
        return '-'
    return f'{count / tokens:.2f}' if count / tokens < 1000 else \
        terminal.figure(round(count / tokens))


def report(tok, named_texts, slices=True):
    encode = kinds.plain(tok)
    rows = [[column if column.startswith('p') else cli.message(f'compression.{column}')
             for column in HEADER]]
    for name, text in named_texts:
        lines = measures.lines_of(text)
        rows.append(measure(terminal.shown(name), tok, encode, lines))
        by_kind = {}
        for line in lines:
            if line.strip():  # a blank line is of no kind
                by_kind.setdefault(kind_of(line), []).append(line)
        if slices and len(by_kind) > 1:  # a row for each kind of line, in order of first appearance
            rows += [measure('  ' + cli.message(f'compression.kind_{kind}'), tok, encode, part)
                     for kind, part in by_kind.items()]
    figures = max(map(terminal.width, terminal.table([row[1:] for row in rows]).splitlines()))
    most = max(min(NAME_COLUMNS, 80 - 2 - figures), 4)  # the names take what the figures leave
    for row in rows[1:]:
        while terminal.width(row[0]) > most:  # cut by the columns shown: Hangul takes two
            row[0] = row[0][:-2] + '~'
    print(terminal.table(rows, right=range(1, len(HEADER))))
    # one line, or None
    specials = kinds.special_strings_line(tok, [text for _, text in named_texts])
    if specials:
        print(specials)
    unknown = cli.message('compression.unknown_id' if tok.unknown_id is not None
                          else 'compression.no_id')
    print('\n' + terminal.fill(cli.message('compression.legend', unknown=unknown)))
    if any(cell[-1:] in ('M', 'G') for row in rows[1:] for cell in row[1:]):
        print(cli.message('compression.millions'))


def main():
    parser = cli.parser(__doc__)
    parser.add_argument('files', nargs='*', type=Path, metavar='FILE',
                        help='text files (default: two built-in samples)')
    cli.add_tokenizer(parser, 'a saved tokenizer, for FILE or, given without FILE, for the samples')
    args = parser.parse_args()
    if args.files or args.tokenizer != locations.SAVED:
        tok = kinds.load(args.tokenizer)
        print(cli.message('compression.tokenizer', name=terminal.shown(args.tokenizer.name),
                          kind=tok.kind,
                          ids=f'{tok.vocab_size:,}') + '\n')
        if args.files:
            report(tok, [(path.name, reading.read_text(path)) for path in args.files])
        else:
            report(tok, samples(), slices=False)
        return
    tok = kinds.CharBPE.train(ENGLISH + KOREAN.splitlines()[0] + '\n', SAMPLE_MERGES)
    print(cli.message('compression.sample_tokenizer', merges=len(tok.merges)) + '\n')
    report(tok, samples(), slices=False)


def samples():
    """The two built-in texts, named in the lab's language."""
    return [(cli.message('compression.kind_Korean' if text is KOREAN else 'compression.english'),
             text)
            for text in (ENGLISH, KOREAN)]


if __name__ == '__main__':
    cli.run(main)
