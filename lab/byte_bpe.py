"""Byte-level BPE: no unknown characters, ever, since every text is made of bytes.

    python3 -m lab.byte_bpe [FILE] [--vocab-size N] [--out PATH] [--force]

The character-level tokenizer knows only the characters of its training text: 'C',
'안' and '😀' all become id 0. A byte-level tokenizer starts from the 256 byte values
instead, so any UTF-8 text can be encoded: a Korean syllable is 3 bytes, an emoji 4.
Its ids follow a fixed contract, the same for every tokenizer trained this way:

    <pad>=0  <unk>=1  <bos>=2  <eos>=3   byte b = 4 + b (4-259)   merges from 260 on

It learns merges up to --vocab-size ids with the lesson's rules, saves the tokenizer to
PATH (default data/byte_tokenizer.json), loads it back, and shows what each sample costs
here and in the character-level tokenizer. The kind itself is lab/kinds/byte.py.

Try next: train on data/mixed.txt and compare how many tokens Korean costs
here and in the character-level tokenizer:
    python3 -m lab.byte_bpe data/mixed.txt --vocab-size 400
"""
import sys
from pathlib import Path

if not __package__:  # run as python3 lab/byte_bpe.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.byte_bpe')

from lab import kinds
from lab.kinds import ByteBPE, CharBPE
from lab.kinds.byte import FIRST_MERGE
from lab.plumbing import cli, reading, saving, terminal

OUT = Path('data/byte_tokenizer.json')
SAMPLES = ['Q: hi\nA: ', 'cat', '안녕', '😀']


def main():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text to train on')
    parser.add_argument('--vocab-size', type=cli.whole_number, default=300, metavar='N',
                        help=f'ids in all: {FIRST_MERGE} fixed ones, then one per merge '
                             f'(default: 300, '
                             f'that is {300 - FIRST_MERGE} merges)')
    cli.add_out(parser, OUT, 'where to save it', 'a tokenizer file')
    args = parser.parse_args()
    if args.vocab_size < FIRST_MERGE:
        parser.error(cli.message('byte_bpe.too_small', least=FIRST_MERGE))
    saving.check_output_path(args.out, 'tokenizer file', kinds.is_tokenizer_file,
                             inputs=[args.file], force=args.force)
    text = reading.read_text(args.file)
    cli.say_if_read_otherwise(args.file)
    kinds.save(ByteBPE.train(text, args.vocab_size - FIRST_MERGE), args.out)
    tok = kinds.load(args.out)
    name = terminal.shown(args.file.name)
    say = cli.message
    print(say('byte_bpe.trained', name=name, bytes=f'{len(text.encode("utf-8")):,}',
              vocab=tok.vocab_size,
              merges=len(tok.merges)))
    if tok.merges:
        print(say('byte_bpe.ids', last=tok.vocab_size - 1))
        first = '  '.join(f'{tok.bytes_of[new].decode("utf-8", "replace")!r}'
                          for _, new in tok.merges[:8])
        print(terminal.clip(say('byte_bpe.first', first=first)))
    else:  # --vocab-size 260: the bytes alone
        print(say('byte_bpe.ids_no_merges'))

    ids = tok.encode(text)
    if tok.decode(ids) != text:
        raise ValueError(say('byte_bpe.failed', file=args.file))
    char_tok = CharBPE.train(text, len(tok.merges))
    chars = len(char_tok.encode(text))
    said = say('byte_bpe.round_trip', name=name, tokens=f'{len(ids):,}',
               merges=len(char_tok.merges),
               chars=f'{chars:,}')
    print(terminal.fill(said, '', '  '))
    specials = kinds.special_strings_line(tok, [text])  # one line, or None
    if specials:
        print(specials)
    print(say('byte_bpe.saved', path=terminal.shown(str(args.out))) + '\n')
    rows = sample_rows(tok, char_tok)
    print(terminal.table(rows, right={1, 3}))
    if any(row[4] != 'OK' for row in rows[1:]):
        raise ValueError(say('byte_bpe.sample_failed'))


def sample_rows(tok, char_tok):
    """A table row for each sample: its bytes, byte-level ids, tokens, round trip, and the
    character-level tokenizer's tokens with how many of them are unknown."""
    columns = ['text', 'bytes', 'byte_ids', 'tokens', 'back', 'char_tokens']
    rows = [tuple(cli.message(f'byte_bpe.{column}') for column in columns)]
    for sample in SAMPLES:
        sample_ids = tok.encode(sample)
        char_ids = char_tok.encode(sample)
        unknown = char_ids.count(char_tok.unknown_id)
        # a sample the merges miss: a byte an id
        ids = terminal.clip(' '.join(map(str, sample_ids)), 28)
        rows.append((repr(sample), str(len(sample.encode('utf-8'))), ids,
                     str(len(sample_ids)), 'OK' if tok.decode(sample_ids) == sample else 'FAILED',
                     cli.message('byte_bpe.unknown', n=len(char_ids), unknown=unknown) if unknown
                     else str(len(char_ids))))
    return rows


if __name__ == '__main__':
    cli.run(main)
