"""Watch BPE learn: train on 'low lower lowest' with 4 merges and print the text after each one.

Each line shows the pair that was merged, the sequence with tokens joined by '|',
and how many tokens remain. Try another word list or more merges in the REPL:
    from lab.bpe_trace import trace; trace('low lower newest widest', 8)
"""
import sys

if not __package__:  # run as python3 lab/bpe_trace.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.bpe_trace')

from tokenizer import BPE, merge


def show(tok, ids):
    return '|'.join(tok.vocab[i] for i in ids) + f' {len(ids)}'


def trace(text, count):
    """Train on text, then replay the learned merges one at a time, printing each step."""
    tok = BPE.train(text, count)
    ids = BPE(tok.vocab, []).encode(text)
    print('start:', show(tok, ids))
    for (a, b), new_id in tok.merges:
        ids = merge(ids, (a, b), new_id)
        print(f'{tok.vocab[a]!r} + {tok.vocab[b]!r} ->', show(tok, ids))


if __name__ == '__main__':
    trace('low lower lowest', 4)
