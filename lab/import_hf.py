"""Import from the Hugging Face `tokenizers` format: their tokenizer.json, as ours.

    python3 -m lab.import_hf [FILE] [--out PATH] [--force]

The course's next step trains its tokenizer with the tokenizers library: a byte-level
BPE (models.BPE, pre_tokenizers.ByteLevel(add_prefix_space=False), decoders.ByteLevel)
with a special token <eos>. This reads such a file, in pure Python, into the kind it is
(lab/kinds: here the byte kind, its order of bytes and its ids unchanged), checks it as
every tokenizer is checked, and saves it (default data/imported.json), so that every lab
takes it: look inside it with lab.show, audit it, prepare data with it, compare it with
yours. It also reads back every file lab.export_hf writes (FILE, by default
data/tokenizer.hf.json, the file lab.export_hf writes). What it cannot read exactly
(another model such as WordPiece, a normalizer, a pre-tokenizer no kind here has) is one
line naming it, and no file.

The ids are the ones tokenizers gives, on any text that holds no special string (there,
tokenizers makes the special token; the kinds here keep the string as text unless told).

Try next: train one in tokenizers as the course does, save it, and read it here:
    python3 -m lab.import_hf my-hf-tokenizer.json --out mine.json
    python3 -m lab.show 'Q: 안녕 😀' --tokenizer mine.json
"""
import sys
from pathlib import Path

if not __package__:  # run as python3 lab/import_hf.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.import_hf')

from lab import kinds
from lab.kinds.hf import from_hf
from lab.plumbing import cli, reading, saving, terminal

OUT = Path('data/imported.json')
SAMPLE = 'Q: hi\nA: 안녕 😀'


def main():
    parser = cli.parser(__doc__)
    parser.add_argument('file', nargs='?', type=Path, default=Path('data/tokenizer.hf.json'),
                        metavar='FILE',
                        help='a tokenizers file (default: %(default)s, from lab.export_hf)')
    cli.add_out(parser, OUT, 'where to save it, as a tokenizer of ours', 'a tokenizer file')
    args = parser.parse_args()
    saving.check_output_path(args.out, 'tokenizer file', kinds.is_tokenizer_file,
                             inputs=[args.file],
                             force=args.force)
    data = reading.read_json(args.file, 'give a tokenizer.json that the tokenizers library saved')
    try:
        tok = from_hf(data)
    except ValueError as e:
        raise ValueError(f'{args.file}: {e}') from None
    kinds.save(tok, args.out)
    if kinds.load(args.out).state() != tok.state():
        raise ValueError(cli.message('hf.not_back', path=args.out))
    print(cli.message('import_hf.read', path=terminal.shown(str(args.file)), kind=tok.kind))
    print(f'  {kinds.describe(tok)}')
    ids = kinds.plain(tok)(SAMPLE)
    print(terminal.clip(f'{SAMPLE!r} -> {ids}'))
    print(cli.message('import_hf.saved', path=terminal.shown(str(args.out))))


if __name__ == '__main__':
    cli.run(main)
