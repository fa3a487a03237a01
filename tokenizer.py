"""A character-level BPE tokenizer: the one you type in this step of the XSLM course.

BPE starts with one token per character, then again and again joins the most frequent
pair of neighbouring tokens into a new token. `python3 tokenizer.py` learns the number
of merges in settings.json from data/train.txt and saves them to data/tokenizer.json.
"""
import json
import os
import sys
from pathlib import Path

UNKNOWN = '\ufffd'  # id 0: every character the training text did not have
HERE = Path(__file__).resolve().parent  # so the files are found from any folder
SETTINGS, TRAIN, SAVED = HERE / 'settings.json', HERE / 'data/train.txt', HERE / 'data/tokenizer.json'


def merge(ids, pair, new_id):
    """Replace each occurrence of pair in ids, scanning left to right, with new_id."""
    a, b = pair  # a tuple, or a list as read back from JSON
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == a and ids[i + 1] == b:
            out.append(new_id)
            i += 2  # both tokens are used up: 'a a a' becomes 'aa a', never 'a aa'
        else:
            out.append(ids[i])
            i += 1
    return out


class BPE:
    def __init__(self, vocab, merges):
        self.vocab = vocab    # vocab[id] is the text of token id
        self.merges = merges  # [[a, b], new_id] in the order they were learned
        self.chars = {piece: i for i, piece in enumerate(vocab) if len(piece) == 1}

    @classmethod
    def train(cls, text, count):
        vocab = [UNKNOWN] + sorted(set(text) - {UNKNOWN})
        merges = []
        ids = cls(vocab, merges).encode(text)
        for _ in range(count):
            counts = {}
            for a, b in zip(ids, ids[1:]):
                # '\n' ends an answer when the model generates, so it stays a token of its own
                if '\n' not in vocab[a] + vocab[b]:
                    counts[a, b] = counts.get((a, b), 0) + 1
            # a dict keeps the order pairs were first seen, so on a tie the earliest wins
            pair = max(counts, key=counts.get, default=None)
            if pair is None or counts[pair] < 2:
                break  # no pair is left that occurs twice: a merge would save nothing
            new_id = len(vocab)
            vocab.append(vocab[pair[0]] + vocab[pair[1]])
            merges.append([list(pair), new_id])
            ids = merge(ids, pair, new_id)
        return cls(vocab, merges)

    def encode(self, text):
        ids = [self.chars.get(ch, 0) for ch in text]
        for pair, new_id in self.merges:  # in the learned order: later merges build on earlier ones
            ids = merge(ids, pair, new_id)
        return ids

    def decode(self, ids):
        for i in ids:  # refuse -1 too, which Python would quietly read as the last token
            if type(i) is not int or not 0 <= i < len(self.vocab):
                raise ValueError(f'id {i!r} is not in this vocabulary of {len(self.vocab)} tokens')
        return ''.join(self.vocab[i] for i in ids)

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges}


# Files. Lines marked "check" turn a user's mistake into one clear line: you may skip them.
def read_text(path, fix):
    try:
        data = Path(path).read_bytes()
        if not data:  # check
            raise ValueError(f'{path} is empty: {fix}')
        return data.decode('utf-8')
    except OSError as e:
        raise ValueError(f'cannot read {path} ({e.strerror}): {fix}') from None
    except UnicodeDecodeError as e:  # check: say where, so the user can find it
        line, byte = data.count(b'\n', 0, e.start) + 1, data[e.start]
        raise ValueError(f'{path} is not UTF-8 (byte 0x{byte:02x}, line {line}): save it as UTF-8') from None


def save(data, path):
    """Write text or bytes to a temporary file, then rename it: a crash never leaves half a file."""
    tmp = path.with_name(path.name + '.tmp')
    try:
        tmp.write_bytes(data.encode('utf-8') if isinstance(data, str) else data)
        os.replace(tmp, path)
    except OSError as e:  # check
        raise ValueError(f'cannot write {path} ({e.strerror})') from None
    finally:
        tmp.unlink(missing_ok=True)


def read_merge_count(path=SETTINGS):
    try:
        settings = json.loads(read_text(path, 'write {"merges": 12} in it'))
    except json.JSONDecodeError as e:  # check
        raise ValueError(f'{path} is not valid JSON ({e}): write {{"merges": 12}} in it') from None
    count = settings.get('merges') if isinstance(settings, dict) else None
    if type(count) is not int or count < 0:  # check: refuses "12", -1, 1.5 and true
        raise ValueError(f'{path}: "merges" must be a whole number >= 0, as in {{"merges": 12}}')
    return count


def main():
    count = read_merge_count()
    text = read_text(TRAIN, 'put your training text there')
    tok = BPE.train(text, count)
    save(json.dumps(tok.state(), ensure_ascii=False) + '\n', SAVED)
    print('vocab:', len(tok.vocab), 'merges:', len(tok.merges))
    if len(tok.merges) < count:
        print(f'(asked for {count} merges; no pair occurs twice after {len(tok.merges)})')
    ok = tok.decode(tok.encode(text)) == text
    print('roundtrip:', 'OK' if ok else 'FAILED', tok.encode('Q: hi\nA: '))


if __name__ == '__main__':
    try:
        main()
    except ValueError as e:  # a mistake in the user's files: one line, no traceback
        sys.exit(f'tokenizer.py: {e}')
    except KeyboardInterrupt:
        sys.exit('tokenizer.py: interrupted; data/tokenizer.json is as it was')
