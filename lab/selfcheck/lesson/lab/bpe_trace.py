from tokenizer import BPE, merge

text = 'low lower lowest'
tok = BPE.train(text, 4)
ids = [tok.chars[c] for c in text]
print('start:', '|'.join(tok.vocab[i] for i in ids), len(ids))
for pair, new_id in tok.merges:
    ids = merge(ids, pair, new_id)
    a, b = pair
    print(f'{tok.vocab[a]!r} + {tok.vocab[b]!r} ->', '|'.join(tok.vocab[i] for i in ids), len(ids))
