"""Compression: how much text one token carries, and why it depends on the language.

    python3 -m lab.compression [FILE ...] [--tokenizer PATH]

For each file, and for each kind of line in it (Korean, URLs, code, numbers, other
text: a rough guess from the characters), it prints characters per token, UTF-8
bytes per token, the share of unknown ids, and tokens per line at the 50th, 95th and
99th percentile. More characters per token means shorter sequences for the model.

With no FILE it uses two small samples written for this lab, one English and one
Korean, and a tokenizer trained on the English one plus a single Korean sentence: a
tokenizer learns the language it sees most. English comes out at over two characters
a token; Korean at about one, and a quarter of its tokens are unknown characters.

Try next: run it on data/mixed.txt, then train on that file (lab.fast_bpe --data
data/mixed.txt) and run it again.
"""
import argparse
import math
import re
import sys
from pathlib import Path

if not __package__:  # run as python3 lab/compression.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.compression')

from lab import fast_bpe
from lab.check import load
from lab.normalize import HANGUL
from lab.show import table
from tokenizer import SAVED, read_text

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
    ('Korean', HANGUL),
    ('URLs', re.compile(r'https?://|www\.')),
    ('code', re.compile(r'^\s{2,}\S|[{}]|;$|^\s*(def|class|import|return|for|if)\b|==|\w\(.*\)')),
    ('numbers', re.compile(r'\d')),
]


def percentile(values, p):
    """Nearest-rank percentile of a non-empty list: a value that occurs in it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def kind_of(line):
    return next((name for name, pattern in KINDS if pattern.search(line)), 'other')


def measure(name, encode, lines):
    """One table row for lines (each without its newline), encoded with encode."""
    counts = [len(encode(line)) for line in lines]
    text = '\n'.join(lines)
    ids = encode(text)
    tokens = max(len(ids), 1)
    return [name, str(len(lines)), f'{len(text):,}', f'{len(ids):,}', f'{len(text) / tokens:.2f}',
            f'{len(text.encode("utf-8")) / tokens:.2f}', f'{ids.count(0) / tokens:.1%}',
            *(str(percentile(counts, p)) for p in (50, 95, 99))]


HEADER = ['text', 'lines', 'chars', 'tokens', 'chars/token', 'bytes/token', 'unknown', 'p50', 'p95', 'p99']


def report(tok, named_texts, slices=True):
    encode = fast_bpe.encoder(tok)
    rows = [HEADER]
    for name, text in named_texts:
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            raise ValueError(f'{name} has no line with text in it')
        rows.append(measure(name, encode, lines))
        kinds = {}
        for line in lines:
            kinds.setdefault(kind_of(line), []).append(line)
        if slices and len(kinds) > 1:  # a row for each kind of line, in order of first appearance
            rows += [measure(f'  {kind}', encode, part) for kind, part in kinds.items()]
    print(table(rows, right=range(1, len(HEADER))))
    print('\np50/p95/p99: tokens per line (nearest rank); unknown: share of tokens with id 0')


def main():
    parser = argparse.ArgumentParser(prog='python3 -m lab.compression', description=__doc__.splitlines()[0])
    parser.add_argument('files', nargs='*', type=Path, help='text files (default: built-in samples)')
    parser.add_argument('--tokenizer', type=Path, default=SAVED, help='tokenizer.json (default: %(default)s)')
    args = parser.parse_args()
    if args.files:
        tok = load(args.tokenizer)
        print(f'tokenizer: {args.tokenizer.name}, {len(tok.vocab)} tokens\n')
        report(tok, [(path.name, read_text(path, 'give a UTF-8 text file')) for path in args.files])
        return
    tok = fast_bpe.train(ENGLISH + KOREAN.splitlines()[0] + '\n', SAMPLE_MERGES)
    print(f'tokenizer: trained on the English sample and one Korean sentence, {len(tok.merges)} merges\n')
    report(tok, [('English', ENGLISH), ('Korean', KOREAN)], slices=False)


if __name__ == '__main__':
    try:
        main()
    except ValueError as e:
        sys.exit(f'lab.compression: {e}')
