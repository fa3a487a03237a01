"""Unicode normalization: Korean that looks the same can be two different strings.

    python3 -m lab.normalize [FILE]

A Korean syllable such as '한' can be stored whole, as one code point (NFC, the
composed form), or as the letters (jamo) it is built from, 'ᄒ' 'ᅡ' 'ᆫ' (NFD, the
decomposed form). On screen they are the same; as strings they are not equal, NFD
takes two to three times the code points, and a tokenizer trained on NFC text has
never seen a single jamo: every one becomes an unknown id. Text copied from a Mac
file name or some web pages can arrive in NFD, so normalize before you train or
encode: unicodedata.normalize('NFC', text).

The lab shows a Korean sample (the Korean lines of FILE, or a built-in one) in both
forms: code points, UTF-8 bytes and tokens under a tokenizer trained on its NFC form.
Then it reports whether FILE (default data/train.txt) is in NFC, and which lines are
not; it exits 1 when some are not.

Try next: make an NFD file with
    python3 -c "import unicodedata as u;print(u.normalize('NFD','한국'))" >x.txt
and run the lab on x.txt.
"""
import sys
import unicodedata

if not __package__:  # run as python3 lab/normalize.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.normalize')

from lab import fast
from lab.plumbing import cli, measures, reading, terminal

SAMPLE = ('한국어 토크나이저는 글자를 조각으로 나눕니다.\n'   # written for this lab
          '정규화를 하지 않으면 같은 글자도 다르게 보입니다.\n')
MERGES = 20  # enough to learn a few syllable pairs of the sample


def korean_lines(text):
    return ''.join(line + '\n' for line in text.splitlines() if measures.HANGUL.search(line))


def code_points(text):
    return ' '.join(f'U+{ord(ch):04X}' for ch in text)


WORD_SHOWN = 8  # characters of the first word whose code points are shown: NFD makes 3 of each


def side_by_side(korean):
    """Rows comparing the NFC and NFD forms of the Korean text."""
    nfc, nfd = unicodedata.normalize('NFC', korean), unicodedata.normalize('NFD', korean)
    tok = fast.train(nfc, MERGES)
    columns = ['form', 'code_points', 'bytes', 'tokens', 'unknown']
    rows = [[cli.message(f'normalize.{column}') for column in columns]]
    for name, form in [('NFC', nfc), ('NFD', nfd)]:
        ids = fast.encode(tok, form)
        rows.append([name, str(len(form)), str(len(form.encode('utf-8'))), str(len(ids)),
                     str(ids.count(0))])
    return nfc, nfd, rows


def main():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text to check')
    path = parser.parse_args().file
    text = reading.read_text(path)
    name = terminal.shown(path.name)

    korean = korean_lines(text) or SAMPLE
    nfc, nfd, rows = side_by_side(korean)
    say = cli.message
    print(say('normalize.lines_of', name=name) if korean is not SAMPLE else say('normalize.sample'))
    print(say('normalize.trained', merges=MERGES) + '\n')
    print(terminal.table(rows, right={1, 2, 3, 4}))
    # 'Q:' has one form only
    word = next(word for word in nfc.split() if measures.HANGUL.search(word))
    part = ''
    if len(word) > WORD_SHOWN:  # a text without spaces: a 'word' may be a whole line
        word, part = word[:WORD_SHOWN], say('normalize.part', n=WORD_SHOWN)
    decomposed = unicodedata.normalize('NFD', word)
    print('\n' + say('normalize.first_word', word=terminal.shown(repr(word)), part=part))
    print(terminal.fill(code_points(word), '  NFC  ', ' ' * 7))
    print(terminal.fill(code_points(decomposed), '  NFD  ', ' ' * 7))
    print('  ' + say('normalize.same_look', equal=word == decomposed))

    lines = measures.lines_of(text)
    bad = [n for n, line in enumerate(lines, 1) if not unicodedata.is_normalized('NFC', line)]
    if not bad:
        print('\n' + say('normalize.is_nfc', name=name, n=len(measures.lines_of(text))))
        return
    listed = ', '.join(map(str, bad[:10])) + (say('normalize.more', n=len(bad) - 10)
                                              if len(bad) > 10 else '')
    print('\n' + say('normalize.not_nfc', name=name, listed=listed))
    raise ValueError(say('normalize.not_nfc_one' if len(bad) == 1 else 'normalize.not_nfc_many',
                         n=len(bad)))


if __name__ == '__main__':
    cli.run(main)
