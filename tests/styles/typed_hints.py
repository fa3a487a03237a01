"""The lesson's tokenizer, written with type hints, f-strings and a few names of one's own."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path


def merge(ids: list[int], pair, new_id: int) -> list[int]:
    out: list[int] = []
    i = 0
    while i < len(ids):
        if tuple(ids[i:i + 2]) == tuple(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


class BPE:
    def __init__(self, vocab: list[str], merges: list) -> None:
        self.vocab = vocab
        self.merges = merges
        self.chars = {ch: n for n, ch in enumerate(vocab) if len(ch) == 1}

    @classmethod
    def train(cls, text: str, count: int) -> BPE:
        vocab = ['\ufffd'] + sorted(set(text) - {'\ufffd'})
        ids = [vocab.index(ch) for ch in text]
        merges = []
        for _ in range(count):
            counts = Counter((a, b) for a, b in zip(ids, ids[1:])
                             if '\n' not in vocab[a] + vocab[b])
            if not counts:
                break
            best, seen = counts.most_common(1)[0]
            if seen < 2:
                break
            new_id = len(vocab)
            vocab.append(vocab[best[0]] + vocab[best[1]])
            merges.append([list(best), new_id])
            ids = merge(ids, best, new_id)
        return cls(vocab, merges)

    def encode(self, text: str) -> list[int]:
        ids = [self.chars.get(ch, 0) for ch in text]
        for pair, new_id in self.merges:
            ids = merge(ids, pair, new_id)
        return ids

    def decode(self, ids: list[int]) -> str:
        return ''.join(self.vocab[i] for i in ids)

    def state(self) -> dict:
        return {'vocab': self.vocab, 'merges': self.merges}


if __name__ == '__main__':
    settings = json.loads(Path('settings.json').read_text())
    text = Path('data/train.txt').read_text(encoding='utf-8')
    tokenizer = BPE.train(text, settings['merges'])
    saved = json.dumps(tokenizer.state(), ensure_ascii=False)
    Path('data/tokenizer.json').write_text(saved, encoding='utf-8')
    assert tokenizer.decode(tokenizer.encode(text)) == text
    print(f'vocab: {len(tokenizer.vocab)} merges: {len(tokenizer.merges)}')
    print('roundtrip: OK', tokenizer.encode('Q: hi\nA: '))
