"""Export to the Hugging Face `tokenizers` format: same vocab, merges and ids.

    python3 -m lab.export_hf [--tokenizer PATH] [--out PATH] [--force]

Our tokenizer.json holds what every BPE tokenizer.json holds: a vocabulary and the
merges in the order they were learned. The Hugging Face file only wraps them in more
settings. To get the very same ids, every step the lesson does not take is switched off:
no normalizer (no character is changed), no pre-tokenizer (the lesson does not split
on spaces, so merges such as ' low' may hold one), '\\ufffd' as the unknown token
(id 0, and unknown characters are not fused into one token), and a decoder that joins
the pieces as they are. The vocabulary becomes a map from string to id, and merges
are written as [left, right] pairs, since pieces can hold spaces.

Then, with `pip install tokenizers`:
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file('data/tokenizer.hf.json')
    tok.encode('Q: hi\\nA: ').ids    # the ids python3 tokenizer.py printed

Try next: export a tokenizer trained on data/mixed.txt and compare the ids of
a few Korean lines in both libraries.
"""
import json
import sys
from pathlib import Path

if not __package__:  # run as python3 lab/export_hf.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.export_hf')

from lab import common
from lab.common import UNKNOWN, problem_with
from tokenizer import BPE

OUT = Path('data/tokenizer.hf.json')


def to_hf(tok):
    """The Hugging Face tokenizer.json structure for tok, as a dict."""
    ids = {}
    for i, piece in enumerate(tok.vocab):
        if piece in ids:  # e.g. 'ab' + 'c' and 'a' + 'bc': the format maps a string to one id
            raise ValueError(f'{piece!r} is in the vocabulary twice, as ids {ids[piece]} and {i}; '
                             'the Hugging Face format maps each string to one id')
        ids[piece] = i
    return {
        'version': '1.0', 'truncation': None, 'padding': None, 'added_tokens': [],
        'normalizer': None, 'pre_tokenizer': None, 'post_processor': None,
        'decoder': {'type': 'Fuse'},  # join the pieces with nothing between them
        'model': {
            'type': 'BPE', 'dropout': None, 'unk_token': UNKNOWN,
            'continuing_subword_prefix': None, 'end_of_word_suffix': None,
            'fuse_unk': False, 'byte_fallback': False, 'ignore_merges': False,
            'vocab': ids,
            'merges': [[tok.vocab[a], tok.vocab[b]] for (a, b), _ in tok.merges],
        },
    }


def from_hf(data):
    """A tokenizer.BPE from a Hugging Face tokenizer.json structure that to_hf could write."""
    model = data.get('model') if isinstance(data, dict) else None
    if not isinstance(model, dict) or model.get('type') != 'BPE':
        raise ValueError('not a Hugging Face BPE tokenizer: "model" must have "type": "BPE"')
    for step in ['normalizer', 'pre_tokenizer']:
        if data.get(step) is not None:
            raise ValueError(f'it has a {step}, which the lesson\'s BPE does not have')
    if model.get('unk_token') != UNKNOWN or model.get('fuse_unk') or model.get('byte_fallback'):
        raise ValueError('the unknown token must be "\\ufffd", not fused, with no byte fallback')
    ids, pairs = model.get('vocab'), model.get('merges')
    if not isinstance(ids, dict) or sorted(ids.values()) != list(range(len(ids))):
        raise ValueError('"vocab" must map each string to one of the ids 0, 1, 2, ...')
    if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 and
                                              all(piece in ids for piece in p) for p in pairs):
        raise ValueError('"merges" must be [left, right] pairs of strings in "vocab"')
    vocab = sorted(ids, key=ids.get)
    merges = [[[ids[left], ids[right]], ids.get(left + right)] for left, right in pairs]
    problem = problem_with({'vocab': vocab, 'merges': merges})
    if problem:
        raise ValueError(problem)
    return BPE(vocab, merges)


def main():
    parser = common.parser(__doc__)
    common.add_tokenizer(parser, 'the tokenizer to export')
    common.add_out(parser, OUT, 'where to write it', 'a Hugging Face tokenizer file')
    args = parser.parse_args()
    common.check_output_path(args.out, 'Hugging Face tokenizer file', common.json_with('model'),
                             inputs=[args.tokenizer], force=args.force)
    tok = common.load_tokenizer(args.tokenizer)
    common.save(json.dumps(to_hf(tok), ensure_ascii=False, indent=2) + '\n', args.out)
    from_hf(common.read_json(args.out, 'run python3 -m lab.export_hf again'))  # it reads back
    out = common.shown(str(args.out))
    print(f'wrote {out}: {len(tok.vocab)} tokens, {len(tok.merges)} merges')
    print(f'load it with: tokenizers.Tokenizer.from_file({common.shown(repr(str(out)))})')  # valid Python


if __name__ == '__main__':
    common.run(main)
