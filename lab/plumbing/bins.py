"""The files lab.prepare writes for a tiny GPT, and reading them back: train.bin and val.bin
(the ids, little-endian, 16 bits each, or 32 once the vocabulary reaches 65,536) and
meta.json (what describes them: id type, token count and sha256 of each .bin). A .bin is
trusted only when it matches meta.json, so a run stopped between two renames, or a .bin of
another run, is caught. Nothing here knows a tokenizer: ids in, ids out."""
import hashlib
import random
import sys
from array import array
from pathlib import Path

from lab.plumbing import cli, reading, terminal

SPLITS = ['train', 'val']  # train.bin, val.bin
UINT16_LIMIT = 2 ** 16  # the lesson's rule: 32 bits once the vocabulary reaches 65,536
MAKE_THEM = 'run python3 -m lab.prepare to make it'
META_LIMIT = 2 ** 16  # bytes: a meta.json is a few hundred
WINDOW_SEED = 1337  # the batch drawn when no seed is given (nanoGPT's seed)


def id_type(vocab_size):
    """(array typecode, name) of the integers the ids are stored as."""
    return ('H', 'uint16') if vocab_size < UINT16_LIMIT else ('I', 'uint32')


def to_bytes(ids, typecode):
    data = array(typecode, ids)
    if sys.byteorder == 'big':
        data.byteswap()  # the files are little-endian on every machine
    return data.tobytes()


def from_bytes(raw, typecode):
    data = array(typecode)
    data.frombytes(raw)
    if sys.byteorder == 'big':
        data.byteswap()
    return data


def read_meta(folder):
    """meta.json of folder, as a dict that names an id type and the .bin files."""
    meta = reading.read_json(Path(folder) / 'meta.json', MAKE_THEM, META_LIMIT)
    if not isinstance(meta, dict) or meta.get('dtype') not in ('uint16', 'uint32') \
            or not isinstance(meta.get('files'), dict):
        raise ValueError(cli.message('bins.not_meta', path=Path(folder) / 'meta.json'))
    return meta


def read_ids(folder, name):
    """The ids of folder/name (train.bin, val.bin), refused unless they match folder/meta.json."""
    folder = Path(folder)
    meta = read_meta(folder)
    entry = meta['files'].get(name)
    if not isinstance(entry, dict):
        raise ValueError(cli.message('bins.not_in_meta', path=folder / 'meta.json', name=name))
    raw = reading.read_bytes(folder / name, MAKE_THEM)
    if hashlib.sha256(raw).hexdigest() != entry.get('sha256'):
        raise ValueError(cli.message('bins.other_file', path=folder / name))
    typecode = 'H' if meta['dtype'] == 'uint16' else 'I'
    if len(raw) % array(typecode).itemsize:  # a meta.json whose dtype was edited by hand
        raise ValueError(cli.message('bins.odd_length', path=folder / name, dtype=meta['dtype']))
    return from_bytes(raw, typecode)


def window_starts(tokens, block_size, batch_size, seed=None):
    """batch_size seeded starts of windows of block_size + 1 tokens (x, and y one step after it)
    among tokens; ValueError when not one window fits, or a size is not a whole number >= 1."""
    if not all(type(size) is int and size >= 1 for size in (block_size, batch_size)):
        raise ValueError(cli.message('bins.sizes', block=terminal.clip(repr(block_size), 20),
                                     batch=terminal.clip(repr(batch_size), 20)))
    if tokens < block_size + 1:
        raise ValueError(cli.message('bins.no_window', tokens=f'{tokens:,}',
                                     block=f'{block_size:,}',
                                     needs=f'{block_size + 1:,}'))
    rng = random.Random(seed)
    return [rng.randrange(tokens - block_size) for _ in range(batch_size)]


def shifted_by_one(x, y, block_size):
    """Whether every window of y is its window of x one step on, block_size ids each: what the
    model predicts at each place is the id that comes next."""
    return all(b[:-1] == a[1:] and len(b) == block_size for a, b in zip(x, y))


def windows(data, starts, block_size):
    """(x, y): for each start, data's block_size ids from it, and the block_size ids one after."""
    x = [list(data[start:start + block_size]) for start in starts]
    y = [list(data[start + 1:start + 1 + block_size]) for start in starts]
    return x, y
