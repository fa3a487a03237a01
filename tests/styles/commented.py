"""The lesson's tokenizer, with docstrings, comments, other names and blank lines of one's own."""
import json
from collections import Counter
from pathlib import Path

UNKNOWN = '\ufffd'


def merge(ids, pair, new_id):
    """Replace each pair in ids, left to right, by new_id."""
    merged, pos = [], 0
    while pos < len(ids):
        # the pair starts here: one new token for two
        if tuple(ids[pos:pos + 2]) == tuple(pair):
            merged.append(new_id)
            pos += 2
        else:
            merged.append(ids[pos])
            pos += 1
    return merged


class BPE:
    """A character-level byte pair encoder."""

    def __init__(self, vocab, merges):
        self.vocab, self.merges = vocab, merges
        self.chars = {char: index for index, char in enumerate(vocab) if len(char) == 1}

    @classmethod
    def train(cls, text, count):
        """Learn count merges from text."""
        vocab = [UNKNOWN] + sorted(set(text) - {UNKNOWN})
        tokens = [vocab.index(char) for char in text]
        merges = []

        for _ in range(count):
            stats = Counter((left, right) for left, right in zip(tokens, tokens[1:])
                            if '\n' not in vocab[left] + vocab[right])
            if not stats:
                break

            top, times = stats.most_common(1)[0]
            if times < 2:
                break

            new_id = len(vocab)
            vocab.append(vocab[top[0]] + vocab[top[1]])
            merges.append([list(top), new_id])
            tokens = merge(tokens, top, new_id)

        return cls(vocab, merges)

    def encode(self, text):
        """Text to ids."""
        tokens = [self.chars.get(char, 0) for char in text]
        for pair, new_id in self.merges:
            tokens = merge(tokens, pair, new_id)
        return tokens

    def decode(self, ids):
        """Ids to text."""
        return ''.join([self.vocab[index] for index in ids])

    def state(self):
        return dict(vocab=self.vocab, merges=self.merges)


if __name__ == '__main__':
    settings = json.loads(Path('settings.json').read_text())
    text = Path('data/train.txt').read_text(encoding='utf-8')

    tokenizer = BPE.train(text, settings['merges'])
    Path('data/tokenizer.json').write_text(json.dumps(tokenizer.state(), ensure_ascii=False),
                                           encoding='utf-8')

    assert tokenizer.decode(tokenizer.encode(text)) == text
    print('vocab:', len(tokenizer.vocab), 'merges:', len(tokenizer.merges))
    print('roundtrip: OK', tokenizer.encode('Q: hi\nA: '))
