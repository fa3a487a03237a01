"""Character-level BPE, typed in the XSLM course: one token per character, then again and again
the most frequent pair of neighbouring tokens joined into a new one. Lines marked "check" you may skip."""
import json
import os
import signal
import sys
from pathlib import Path


def merge(ids, pair, new_id):  # each pair in ids, scanning left to right, replaced by new_id
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
        self.vocab, self.merges = vocab, merges  # vocab[id]: the text of id; merges: [[a, b], new_id]
        self.chars = {piece: i for i, piece in enumerate(vocab) if len(piece) == 1}

    @classmethod
    def train(cls, text, count):
        if not isinstance(text, str) or type(count) is not int or count < 0:  # check
            raise TypeError('train(text, count) takes a str and a whole number >= 0')  # check
        vocab = ['\ufffd'] + sorted(set(text) - {'\ufffd'})  # id 0: any character not in text
        merges = []
        ids = [vocab.index(ch) for ch in text]  # '\ufffd' in the text is id 0 too
        for _ in range(count):
            counts = {}
            for a, b in zip(ids, ids[1:]):
                if '\n' not in vocab[a] + vocab[b]:  # '\n' ends an answer: it stays a token of its own
                    counts[a, b] = counts.get((a, b), 0) + 1
            pair = max(counts, key=counts.get, default=None)  # on a tie, the first seen: dicts keep order
            if pair is None or counts[pair] < 2:
                break  # no pair is left that occurs twice: a merge would save nothing
            new_id = len(vocab)
            vocab.append(vocab[pair[0]] + vocab[pair[1]])
            merges.append([list(pair), new_id])
            ids = merge(ids, pair, new_id)
        return cls(vocab, merges)

    def encode(self, text):
        if not isinstance(text, str):  # check: bytes or a list would become unknown ids
            raise TypeError(f'encode takes a str, not {type(text).__name__}')  # check
        ids = [self.chars.get(ch, 0) for ch in text]
        for pair, new_id in self.merges:  # in the learned order: later merges build on earlier ones
            ids = merge(ids, pair, new_id)
        return ids

    def decode(self, ids):
        ids = list(ids)  # check: the loop below would use up a generator
        for i in ids:  # check: -1 too, which Python would quietly read as the last token
            if isinstance(i, bool) or not hasattr(i, '__index__') or not 0 <= i < len(self.vocab):  # check
                raise ValueError(f'id {i!r} is not in this vocabulary of {len(self.vocab)} tokens')  # check
        return ''.join(self.vocab[i] for i in ids)

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges}


HERE = Path(__file__).resolve().parent  # settings.json and data/ beside this file, from any folder;
HERE = HERE if (HERE / 'settings.json').exists() else Path.cwd()  # pip-installed: the folder you are in


def read_text(path, fix, limit=2**26):  # 64 MiB: train needs ~20 bytes a character, ~30 s a merge
    if os.path.exists(path) and (not os.path.isfile(path) or os.path.getsize(path) > limit):  # check: a pipe
        raise ValueError(f'{path} must be a regular file of at most {limit:,} bytes: {fix}')  # check
    try:
        text = Path(path).read_bytes().decode('utf-8-sig')  # -sig: leave out Notepad's byte order mark
    except OSError as e:
        raise ValueError(f'cannot read {path} ({e.strerror}): {fix}') from None
    except UnicodeDecodeError as e:  # check: say where, so the user can find it
        line, byte = e.object.count(b'\n', 0, e.start) + 1, e.object[e.start]  # check: after a BOM
        raise ValueError(f'{path} is not UTF-8 (byte 0x{byte:02x}, line {line}): save it as UTF-8')  # check
    if not text or '\x00' in text:  # check: UTF-16 read as UTF-8 has a NUL beside every letter
        raise ValueError(f'{path} is UTF-16: save as UTF-8' if text else f'{path} is empty: {fix}')  # check
    return text.replace('\r\n', '\n').replace('\r', '\n')  # as Path.read_text reads text


def read_merge_count(path):
    raw = read_text(path, 'write {"merges": 12} in it', 4096)
    try:
        settings = json.loads(raw)
    except (ValueError, RecursionError) as e:  # not JSON, or nested too deeply
        raise ValueError(f'{path} is not valid JSON ({e}): write {{"merges": 12}} in it') from None
    count = settings.get('merges') if isinstance(settings, dict) else None
    if type(count) is not int or count < 0 or raw.count('"merges"') > 1:  # check: "12", -1, 1.5, true
        raise ValueError(f'{path}: write "merges" once, as a whole number >= 0: {{"merges": 12}}')  # check
    return count


def save(text, path):  # a whole file beside path, then a rename: never half a file
    path = Path(os.path.realpath(path))  # check: through a symlink, so the link stays a link
    tmp = path.with_name(f'.{path.name}.{os.getpid()}.tmp')
    try:
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(text)
            f.flush()  # check: on the disk before the rename, even if the power goes
            os.fsync(f.fileno())  # check
        if path.exists():  # check: keep its permissions: a private (0600) file stays private
            os.chmod(tmp, path.stat().st_mode)  # check
        os.replace(tmp, path)
    except OSError as e:
        raise ValueError(f'cannot write {path} ({e.strerror})') from None
    finally:  # check: what is left of a failed write (a read-only disk refuses to unlink a missing file)
        tmp.exists() and tmp.unlink()  # check


def main():
    if sys.argv[1:]:  # check: it takes no arguments, and --help must not train and overwrite the file
        raise ValueError('usage: python3 tokenizer.py (it reads settings.json, data/train.txt)')  # check
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # check: kill ends it as Ctrl-C: nothing left
    count = read_merge_count(HERE / 'settings.json')
    text = read_text(HERE / 'data/train.txt', 'put your training text there (lab.fast_bpe for large ones)')
    if len(text) > 100_000:  # every merge counts all of the text again: about 0.7 s a megabyte each
        print(f'about {len(text) * count // 1_400_000 + 1} s to train; lab.fast_bpe learns it in seconds')
    tok = BPE.train(text, count)
    save(json.dumps(tok.state(), ensure_ascii=False) + '\n', HERE / 'data/tokenizer.json')
    print('vocab:', len(tok.vocab), 'merges:', len(tok.merges))
    if len(tok.merges) < count:
        print(f'(asked for {count} merges; no pair occurs twice after {len(tok.merges)})')
    ok = 'OK' if tok.decode(tok.encode(text)) == text else 'FAILED'
    print('roundtrip:', ok, tok.encode('Q: hi\nA: '), flush=True)  # flush: a full disk says so, in a line


if __name__ == '__main__':
    try:
        main()
    except (ValueError, OSError) as e:  # a mistake in the user's files, a full disk: one line, no traceback
        sys.stdout = None  # check: what stdout could not write is not tried again on the way out
        sys.exit('tokenizer.py: ' + ''.join(c if c.isprintable() else ascii(c)[1:-1] for c in str(e)))
    except KeyboardInterrupt:  # check: the save comes last, and is all or nothing
        sys.exit('tokenizer.py: interrupted; data/tokenizer.json is as it was')  # check
