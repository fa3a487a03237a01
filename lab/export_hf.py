"""Export to the Hugging Face `tokenizers` format: any kind, the very same ids.

    python3 -m lab.export_hf [--tokenizer PATH] [--out PATH] [--force]

Our tokenizer.json holds what every BPE tokenizer.json holds: a vocabulary and the
merges in the order they were learned. The Hugging Face file only wraps them in more
settings. To get the very same ids, every step the tokenizer does not take is switched
off: no normalizer (no character is changed), no pre-tokenizer for the lesson's kind
(it does not split on spaces, so merges such as ' low' may hold one), '\\ufffd' as the
unknown token (id 0, and unknown characters are not fused into one token), and a
decoder that joins the pieces as they are. The other kinds add what they do: a piece
kind's pattern as a Split, the word kind's cut, special tokens as added tokens, and the
byte kind's ByteLevel pre-tokenizer and decoder (lab/kinds/hf.py says how, for each).
A tokenizer the format cannot hold exactly is one line, and no file.

Then, with `pip install tokenizers`:
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file('data/tokenizer.hf.json')
    tok.encode('Q: hi\\nA: ').ids    # the ids python3 tokenizer.py printed

Try next: export a tokenizer trained on data/mixed.txt and compare the ids of
a few Korean lines in both libraries; python3 -m lab.import_hf reads it back.
"""
import json
import sys
from pathlib import Path

if not __package__:  # run as python3 lab/export_hf.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.export_hf')

from lab import kinds
from lab.kinds.hf import from_hf, to_hf
from lab.plumbing import cli, reading, saving, terminal

OUT = Path('data/tokenizer.hf.json')


def main():
    parser = cli.parser(__doc__)
    cli.add_tokenizer(parser, 'the tokenizer to export, of any kind')
    cli.add_out(parser, OUT, 'where to write it', 'a Hugging Face tokenizer file')
    args = parser.parse_args()
    saving.check_output_path(args.out, 'Hugging Face tokenizer file', saving.json_with('model'),
                             inputs=[args.tokenizer], force=args.force)
    tok = kinds.load(args.tokenizer)
    data = to_hf(tok)
    saving.save(json.dumps(data, ensure_ascii=False, indent=2) + '\n', args.out)
    # it reads back
    back = from_hf(reading.read_json(args.out, 'run python3 -m lab.export_hf again'))
    if back.state() != tok.state():
        raise ValueError(cli.message('hf.not_back', path=args.out))
    out = terminal.shown(str(args.out))
    print(cli.message('export_hf.wrote', path=out, kind=tok.kind,
                      tokens=f"{len(data['model']['vocab']):,}",
                      merges=f"{len(data['model']['merges']):,}"))
    load = f'tokenizers.Tokenizer.from_file({terminal.shown(repr(str(out)))})'  # valid Python
    print(cli.message('export_hf.load', load=load))


if __name__ == '__main__':
    cli.run(main)
