"""Other ways of writing the lesson's functions, each as right as lesson/tokenizer.py's: the
tutor compares a function you typed with the way of writing it closest to yours (one of
these, or the lesson's), so that your own style is not taken for a slip. Never imported:
each function below is read as a way of writing the one of its name."""
import json
from collections import Counter
from pathlib import Path


def merge(ids, pair, new_id):  # the pair's two ids, compared one by one
    a, b = pair
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def merge(ids, pair, new_id):  # noqa: F811  (a list of the pair compared with a slice)
    result, i = [], 0
    while i < len(ids):
        if ids[i:i + 2] == list(pair):
            result.append(new_id)
            i += 2
        else:
            result.append(ids[i])
            i += 1
    return result


class BPE:  # counted in a dict, the best pair by max() with the count as key
    def __init__(self, vocab, merges):
        self.vocab = vocab
        self.merges = merges
        self.chars = {}
        for i, piece in enumerate(vocab):
            if len(piece) == 1:
                self.chars[piece] = i

    @classmethod
    def train(cls, text, count):
        vocab = ['\ufffd'] + sorted(set(text) - {'\ufffd'})
        ids = [vocab.index(ch) for ch in text]
        merges = []
        for _ in range(count):
            counts = {}
            for a, b in zip(ids, ids[1:]):
                if '\n' in vocab[a] or '\n' in vocab[b]:
                    continue
                counts[a, b] = counts.get((a, b), 0) + 1
            if not counts:
                break
            pair = max(counts, key=counts.get)
            if counts[pair] < 2:
                break
            a, b = pair
            new_id = len(vocab)
            vocab.append(vocab[a] + vocab[b])
            merges.append([[a, b], new_id])
            ids = merge(ids, pair, new_id)
        return cls(vocab, merges)

    def encode(self, text):
        ids = [self.chars.get(ch, 0) for ch in text]
        for (a, b), new_id in self.merges:
            ids = merge(ids, (a, b), new_id)
        return ids

    def decode(self, ids):
        pieces = [self.vocab[i] for i in ids]
        return ''.join(pieces)

    def state(self):
        return dict(vocab=self.vocab, merges=self.merges)


class BPE:  # noqa: F811  (counted with counts.get in one loop, max(..., default=None))
    @classmethod
    def train(cls, text, count):
        vocab = ['\ufffd'] + sorted(set(text) - {'\ufffd'})
        merges = []
        ids = [vocab.index(ch) for ch in text]
        for _ in range(count):
            counts = {}
            for a, b in zip(ids, ids[1:]):
                if '\n' not in vocab[a] + vocab[b]:
                    counts[a, b] = counts.get((a, b), 0) + 1
            pair = max(counts, key=counts.get, default=None)
            if pair is None or counts[pair] < 2:
                break
            new_id = len(vocab)
            vocab.append(vocab[pair[0]] + vocab[pair[1]])
            merges.append([list(pair), new_id])
            ids = merge(ids, pair, new_id)
        return cls(vocab, merges)


class BPE:  # noqa: F811  (pairs counted by a generator of pairs p, the count named n)
    def __init__(self, vocab, merges):
        self.vocab = vocab
        self.merges = merges
        self.chars = {t: i for i, t in enumerate(vocab) if len(t) == 1}

    @classmethod
    def train(cls, text, count):
        vocab = ['\ufffd'] + sorted(set(text) - {'\ufffd'})
        ids = [vocab.index(c) for c in text]
        merges = []
        for _ in range(count):
            pairs = Counter(p for p in zip(ids, ids[1:]) if '\n' not in vocab[p[0]] + vocab[p[1]])
            if not pairs:
                break
            pair, n = pairs.most_common(1)[0]
            if n < 2:
                break
            new_id = len(vocab)
            vocab.append(vocab[pair[0]] + vocab[pair[1]])
            merges.append([list(pair), new_id])
            ids = merge(ids, pair, new_id)
        return cls(vocab, merges)


if __name__ == '__main__':  # noqa: F811  (the count read at once, the tokenizer called tok)
    count = json.loads(Path('settings.json').read_text())['merges']
    text = Path('data/train.txt').read_text(encoding='utf-8')
    tok = BPE.train(text, count)
    Path('data/tokenizer.json').write_text(json.dumps(tok.state(), ensure_ascii=False), encoding='utf-8')
    assert tok.decode(tok.encode(text)) == text
    print('vocab:', len(tok.vocab), 'merges:', len(tok.merges))
    print('roundtrip: OK', tok.encode('Q: hi\nA: '))
