"""The lesson's tokenizer, written with plain loops and a dict where the lesson uses Counter."""
import json


def merge(ids, pair, new_id):
    a, b = pair
    result = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
            result.append(new_id)
            i = i + 2
        else:
            result.append(ids[i])
            i = i + 1
    return result


class BPE:
    def __init__(self, vocab, merges):
        self.vocab = vocab
        self.merges = merges
        self.chars = {}
        for i in range(len(vocab)):
            if len(vocab[i]) == 1:
                self.chars[vocab[i]] = i

    @classmethod
    def train(cls, text, count):
        vocab = ['\ufffd'] + sorted(set(text) - {'\ufffd'})
        ids = []
        for c in text:
            ids.append(vocab.index(c))
        merges = []
        for step in range(count):
            pairs = {}
            for i in range(len(ids) - 1):
                pair = (ids[i], ids[i + 1])
                if '\n' in vocab[pair[0]] + vocab[pair[1]]:
                    continue
                pairs[pair] = pairs.get(pair, 0) + 1
            if len(pairs) == 0:
                break
            best = max(pairs, key=pairs.get)  # the first counted wins a tie, as most_common
            if pairs[best] < 2:
                break
            new_id = len(vocab)
            vocab.append(vocab[best[0]] + vocab[best[1]])
            merges.append([[best[0], best[1]], new_id])
            ids = merge(ids, best, new_id)
        return cls(vocab, merges)

    def encode(self, text):
        ids = []
        for c in text:
            ids.append(self.chars.get(c, 0))
        for pair, new_id in self.merges:
            ids = merge(ids, pair, new_id)
        return ids

    def decode(self, ids):
        pieces = []
        for i in ids:
            pieces.append(self.vocab[i])
        return ''.join(pieces)

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges}


if __name__ == '__main__':
    with open('settings.json') as file:
        settings = json.load(file)
    with open('data/train.txt', encoding='utf-8') as file:
        text = file.read()
    tokenizer = BPE.train(text, settings['merges'])
    with open('data/tokenizer.json', 'w', encoding='utf-8') as file:
        file.write(json.dumps(tokenizer.state(), ensure_ascii=False))
    assert tokenizer.decode(tokenizer.encode(text)) == text
    print('vocab:', len(tokenizer.vocab), 'merges:', len(tokenizer.merges))
    print('roundtrip: OK', tokenizer.encode('Q: hi\nA: '))
