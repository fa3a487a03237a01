from pathlib import Path

from tokenizer import BPE

text = Path('data/train.txt').read_text(encoding='utf-8')
for count in [0, 6, 12, 24, 48]:
    tok = BPE.train(text, count)
    print('merges', count, 'vocab', len(tok.vocab), 'tokens', len(tok.encode(text)))
