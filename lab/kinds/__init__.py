"""The tokenizer kinds the labs teach, each in the one shape tokenizer.BPE has.

    tok = Kind.train(text, count)   # count: merges to learn, as in the lesson
    tok = Kind.train(docs, vocab_size=4096)   # or a list of documents, to a vocabulary size
    ids = tok.encode(text)
    text = tok.decode(ids)
    tok = Kind(**tok.state())       # state(): what JSON can hold, all it takes to rebuild

  char     char.py     the lesson's BPE, trained and encoding with the engine (lab/fast)
  word     word.py     merges inside words only; every space is the end-of-word token </w>
  piece    piece.py    a regular expression cuts the text first (patterns.py); merges stay
                       in a piece
  byte     byte.py     UTF-8 bytes are the base: no text is ever unknown
  special  special.py  the lesson's BPE and markers such as <eos>, with ids BPE can never make

A list of documents is cut apart (lab/kinds/texts.py): no merge joins two of them. A
special string in a text is text: encode(text) never makes a special id of it unless the
string is in allowed (a list, or 'all'); disallowed='refuse' refuses it instead.

Besides the shape, each kind tells the tools what they need to hold it beside the others:
  kind            its name above, also in its file
  vocab           what each id stands for, vocab[i] for id i as in the lesson: its text
                  (the byte kind: its bytes, since a token may hold part of a character)
  vocab_size      how many ids it has, len(vocab)
  unknown_id      the id of what it does not know (None where nothing can be unknown)
  special_ids     {name: id} of its special tokens ({} when it has none)
  knows(ch)       whether a character is encoded as itself, not as unknown
  token_bytes(i)  the UTF-8 bytes token i stands for (a special token: its name)
A state it cannot trust is a ValueError from its constructor, before anything is built.

One file holds any kind: the lesson's tokenizer.json as it is ({"vocab", "merges"}: the
char kind), any other as {"kind": NAME, ...its state}. load(path) gives back the right kind
and is how every lab that takes --tokenizer reads one; save(tok, path) writes one. Every kind
also answers to the tokenizers library's names (names.py): tok.token_to_id, tok.id_to_token,
tok.encode_batch, tok.decode_batch, tok.save(path), Kind.from_file(path).

To add a kind: copy the file of the kind closest to it, add its row above and its line to
KINDS below; tests/test_kinds.py then holds it to the shape, and a test of its own rule
goes there.
"""
import hashlib
import inspect
import json
import os
from array import array
from collections import Counter

from lab.contract import checks, lessons
from lab.fast import encoding
from lab.kinds import names, special
from lab.kinds.byte import ByteBPE
from lab.kinds.char import CharBPE
from lab.kinds.piece import PieceBPE
from lab.kinds.special import SpecialBPE
from lab.kinds.word import WordBPE
from lab.learner import errors
from lab.plumbing import cli, locations, reading, saving, terminal

KINDS = {'char': CharBPE, 'word': WordBPE, 'piece': PieceBPE, 'byte': ByteBPE,
         'special': SpecialBPE}

# what the labs and a user's code take from here: the kinds, their files, their special strings
__all__ = ['KINDS', 'ByteBPE', 'CharBPE', 'PieceBPE', 'SpecialBPE', 'WordBPE',
           'load', 'load_lesson', 'save', 'default_path', 'is_tokenizer_file', 'file_state',
           'kind_of', 'describe', 'fingerprint', 'mapping_fingerprint', 'plain', 'token_text',
           'shown_ids', 'encode_documents', 'document_end', 'special_strings',
           'special_strings_line', 'said_of_special_strings']


def file_state(tok):
    """What a tokenizer's file holds: the lesson's state for the char kind,
    else its kind and state."""
    return tok.state() if tok.kind == 'char' else {'kind': tok.kind, **tok.state()}


def save(tok, path):
    """Write tok to path, all at once (saving.save); the same bytes for the same tokenizer."""
    saving.save(json.dumps(file_state(tok), ensure_ascii=False) + '\n', path)


def kind_of(data):
    """(kind name, state) of a tokenizer file's contents; ValueError, with what to do, when no
    kind fits."""
    if isinstance(data, dict) and 'kind' in data:
        state = dict(data)
        kind = state.pop('kind')
        if not isinstance(kind, str) or kind not in KINDS:
            written = terminal.clip(json.dumps(kind, ensure_ascii=False), 40)
            raise ValueError(cli.message('kinds.kind_unknown', kind=written,
                                         kinds=', '.join(KINDS)))
        keys = list(inspect.signature(KINDS[kind]).parameters)
        # none left to a default: a file says all it is
        missing = [key for key in keys if key not in state]
        unknown = sorted(key for key in state if key not in keys)
        if missing:
            raise ValueError(cli.message('kinds.lacks', kind=kind, name=missing[0]))
        if unknown:
            name = terminal.clip(json.dumps(unknown[0], ensure_ascii=False), 30)
            raise ValueError(cli.message('kinds.unknown_key', kind=kind, keys=', '.join(keys),
                                         name=name))
        return kind, state
    # lab.byte_bpe's files of old
    if isinstance(data, dict) and sorted(data) == ['merges', 'special']:
        # what they were: the contract, no pattern
        return 'byte', {**data, 'byte_ids': None, 'pattern': None}
    if isinstance(data, dict) and 'model' in data:
        raise ValueError(cli.message('kinds.hf_file'))
    problem = checks.problem_with(data)
    if problem and isinstance(data, dict) and {'vocab', 'merges'} & set(data):
        # written by a tokenizer.py whose state() is not the lesson's: training again cannot mend it
        raise ValueError(f'{problem}: {locations.TUTOR}')
    if problem:
        raise ValueError(cli.message('kinds.make_again', problem=problem))
    return 'char', data


def load(path=locations.SAVED):
    """The tokenizer saved at path, of whatever kind, checked before it is built: ValueError in
    one line naming the file, the kind and what is wrong with it (it fails closed)."""
    if os.path.isdir(path):  # tokenizer.py cannot write over a folder: say so first
        raise ValueError(cli.message('kinds.folder', path=path))
    data = reading.read_json(path, locations.MAKE_TOKENIZER)
    try:
        kind, state = kind_of(data)
    except ValueError as e:
        raise ValueError(f'{path}: {e}') from None
    try:
        return KINDS[kind](**state)
    except ValueError as e:
        if errors.learners_error(e) is not None or errors.raised_in_learners_file(e):
            raise  # tokenizer.py's, not the file's: said as such
        raise ValueError(cli.message('kinds.file_problem', path=path, kind=kind,
                                     problem=e)) from None


def load_lesson(path=locations.SAVED, bpe=None):
    """The lesson's BPE rebuilt from a saved tokenizer.json, for the labs whose idea is the
    lesson's alone: of the class bpe (the learner's tokenizer.BPE, for a lab that shows it), else
    the library's own; ValueError names the file and its first problem, or its other kind."""
    tok = load(path)
    if tok.kind != 'char':
        raise ValueError(cli.message('kinds.not_lessons', path=path, kind=tok.kind))
    return lessons.learners_bpe(bpe, tok.vocab, tok.merges) if bpe else tok.lesson


def is_tokenizer_file(path, kind=None):
    """Whether path holds a tokenizer file (of that kind, when one is named): for --out, such a
    file may be replaced without --force."""
    try:
        text = reading.read_text(path, '', locations.TOKENIZER_LIMIT)
        found, _ = kind_of(reading.strict_json(text))
        return kind is None or found == kind
    except (ValueError, RecursionError):
        return False


def default_path(kind):
    """Where a tokenizer of a kind is saved unless told: the lesson's data/tokenizer.json for the
    char kind, data/tokenizer-KIND.json for any other, so that one never replaces the other."""
    return locations.SAVED if kind == 'char' else locations.SAVED.with_name(
        f'tokenizer-{kind}.json')


def plain(tok):
    """A function that encodes text with tok as plain text: a special string in it stays its
    characters, never a special id (every kind's encode() does that unless told otherwise).
    What the tools measure and prepare with."""
    if tok.special_ids:
        return lambda text: tok.encode(text, disallowed='plain')
    return tok.encode


def special_strings(tok, texts):
    """Counter of tok's special strings as texts spell them: what a lab
    encodes as text, and says."""
    found = Counter()
    if tok.special_ids:
        firsts = list(tok.special_index)
        for text in texts:
            # most texts hold no first character of a name: passed over at once
            if any(map(text.__contains__, firsts)):
                found.update(name for _, name in special.find(text, tok.special_index))
    return found


def said_of_special_strings(found, columns=80):
    """One line for the special strings a lab met in a text and kept as text (special_strings)."""
    listed = ' '.join(f'{terminal.shown(name)}×{n:,}' for name, n in found.most_common(3))
    more = ' ...' if len(found) > 3 else ''
    said = cli.message('special.spelled', n=f'{sum(found.values()):,}', listed=listed + more)
    return terminal.clip(said, columns)


def special_strings_line(tok, texts):
    """'special strings: ...' when texts spell any of tok's special strings, else None: what a lab
    that encodes a user's text says of them, in one line."""
    found = special_strings(tok, texts)
    said = cli.message('special.strings') + ' '
    return said + said_of_special_strings(found, terminal.COLUMNS - len(said)) if found else None


def describe(tok):
    """What a tokenizer's ids are, in words: '40 ids: 1 unknown, 27 characters, 12 merges'."""
    merges, special = len(tok.state()['merges']), len(tok.special_ids)
    say = cli.message  # in the words of the lab that asks (English from Python)
    if tok.kind == 'byte':
        parts = [say('describe.bytes', n=sum(i is not None for i in tok.byte_ids))]
    else:
        marker = [say('describe.end_of_word')] if tok.kind == 'word' else []
        characters = tok.vocab_size - merges - special - 1 - len(marker)
        parts = [say('describe.unknown'), *marker, say('describe.characters', n=characters)]
    if special:
        parts.insert(0 if tok.kind == 'byte' else len(parts), say('describe.special', n=special))
    parts.append(say('describe.merges', n=merges))
    return say('describe.ids', n=f'{tok.vocab_size:,}', parts=', '.join(parts))


def token_text(tok, i):
    """Token i as text to show: its characters, or for a token that holds only part of a
    character (the byte kind's), its bytes as escapes such as \\xec."""
    return tok.token_bytes(i).decode('utf-8', 'backslashreplace')


def shown_ids(tok, ids, columns):
    """Ids as the text they stand for, quoted and cut to columns: a character they cut in two as
    its bytes (\\xec), escaped once, not again by repr()."""
    text = b''.join(tok.token_bytes(i) for i in ids).decode('utf-8', 'backslashreplace')
    return terminal.clip("'" + terminal.shown(text) + "'", columns)


def fingerprint(tok):
    """sha256 of the canonical JSON of tok's file: the same for the same
    tokenizer, however saved."""
    canonical = json.dumps(file_state(tok), ensure_ascii=False, separators=(',', ':'))
    return hashlib.sha256(canonical.encode('utf-8')).hexdigest()


def mapping_fingerprint(tok):
    """sha256 of what each id stands for, id by id: ["special", name] or ["bytes", hex]. Two
    tokenizers that give every id the same meaning have the same one, whatever their kind."""
    names = {i: name for name, i in tok.special_ids.items()}
    mapping = [['special', names[i]] if i in names else ['bytes', tok.token_bytes(i).hex()]
               for i in range(tok.vocab_size)]
    return hashlib.sha256(json.dumps(mapping, separators=(',', ':')).encode('utf-8')).hexdigest()


def document_end(tok):
    """(id, name) of the token that ends a document for a model: <eos> when tok has it, else the
    newline token, as in the lesson, whose generator stops when it samples '\\n'. None when
    tok has neither."""
    if '<eos>' in tok.special_ids:
        return tok.special_ids['<eos>'], '<eos>'
    ids = plain(tok)('\n')
    if len(ids) == 1 and tok.decode(ids) == '\n':
        return ids[0], '\\n'
    return None


def encode_documents(tok, texts, end, typecode='I', jobs=None):
    """(ids, lengths): plain(tok)(text) + [end] for every text, one after another in an array of
    typecode (2 or 4 bytes an id, where a list spends 36), and an array of how many ids each
    has. In jobs processes (one per idle core unless given, and one for less than
    PARALLEL_FROM characters), each rebuilding tok from its file and sending back arrays."""
    size = sum(map(len, texts))
    asked, jobs = encoding.jobs_for(size, encoding.PARALLEL_FROM, jobs)
    if jobs <= 1 or len(texts) < 2:
        return _encoded_block(plain(tok), texts, end, typecode)
    blocks, block, filled = [], [], 0
    for text in texts:  # four blocks a process, so that none waits long for the last
        block.append(text)
        filled += len(text)
        if filled * jobs * 4 >= size:
            blocks.append(block)
            block, filled = [], 0
    def here():  # no processes: all in this one
        return [_encoded_block(plain(tok), texts, end, typecode)]
    task = [file_state(tok), end, typecode]
    encoded = encoding.in_processes_or_here(_start_worker, task, _encode_in_worker,
                                            blocks + [block], jobs, asked, here)
    ids, lengths = array(typecode), array('I')
    for block_ids, block_lengths in encoded:
        ids += block_ids
        lengths += block_lengths
    return ids, lengths


def _encoded_block(encode, texts, end, typecode):
    """encode_documents of texts, here."""
    ids, lengths = array(typecode), array('I')
    for text in texts:
        before = len(ids)
        ids.extend(encode(text))
        ids.append(end)
        lengths.append(len(ids) - before)
    return ids, lengths


_WORKER = {}  # in each process of encode_documents: its encoder, the end and the typecode


def _start_worker(task):
    data, _WORKER['end'], _WORKER['typecode'] = task
    kind, state = kind_of(data)
    _WORKER['encode'] = plain(KINDS[kind](**state))


def _encode_in_worker(texts):
    return _encoded_block(_WORKER['encode'], texts, _WORKER['end'], _WORKER['typecode'])


def _from_file(cls, path):
    """Kind.from_file(path): the tokenizer of that kind saved at path (load: any kind)."""
    tok = load(path)
    if not isinstance(tok, cls):
        raise ValueError(
            f'{path}: a {tok.kind} tokenizer, not a {cls.kind} one: kinds.load reads any kind')
    return tok


# the names of the tokenizers library, on every kind: tok.save(path), Kind.from_file(path),
# tok.token_to_id(string), tok.id_to_token(id), tok.encode_batch(texts), tok.decode_batch(batch)
for _kind in KINDS.values():
    _kind.save, _kind.from_file = save, classmethod(_from_file)
    _kind.token_to_id, _kind.id_to_token = names.token_to_id, names.id_to_token
    _kind.encode_batch, _kind.decode_batch = names.encode_batch, names.decode_batch
del _kind
