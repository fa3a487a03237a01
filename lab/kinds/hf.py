"""Every kind in the Hugging Face tokenizers format, and back: the same ids either way.

A tokenizers file (tokenizer.json) is a pipeline: a normalizer, a pre-tokenizer that cuts
the text, a model (here BPE: a vocabulary, a map from string to id, and the merges in the
order learned, as pairs of strings), special tokens (its "added tokens") and a decoder.
Each kind is one setting of it, with nothing switched on that the kind does not do:

  char     no normalizer, no pre-tokenizer, '\\ufffd' the unknown token, a decoder that
           joins the pieces as they are (Fuse)
  piece    the same, cut first by its pattern (a Split pre-tokenizer, lab/kinds/patterns.py)
  word     the same, cut by the word pattern, </w> written as the space it stands for
  special  char, with its special tokens as added tokens
  byte     the ByteLevel pre-tokenizer and decoder: each byte written as one character
           (the printable ones as themselves, the others from U+0100 on, as GPT-2 does),
           GPT-2's pattern or none (another pattern: a Split before it); its special
           tokens as added tokens, each at its id in the vocabulary too (tokenizers reads
           an added token's id from the vocabulary, not from its own entry)

from_hf reads any of these back, and a byte-level BPE as tokenizers trains it (the
course's: models.BPE, pre_tokenizers.ByteLevel(add_prefix_space=False),
decoders.ByteLevel, special tokens such as <eos>): its byte order is its own, kept as the
byte kind's layout. What it cannot read exactly (another model, a normalizer, a merge it
does not know) is a ValueError naming it.

One thing differs by design. tokenizers turns a special string in the text into its id;
the kinds here keep it as text unless asked (allowed=...): the same ids either way on
text that holds none. Letters and numbers are tokenizers' own (lab/kinds/categories.py).
"""
from lab.contract import checks
from lab.kinds.byte import BYTE_CHARACTERS, BYTE_OF, ByteBPE
from lab.kinds.char import CharBPE
from lab.kinds.patterns import PATTERNS, PIECE_PATTERNS, for_tokenizers, pattern_problem
from lab.kinds.piece import PieceBPE
from lab.kinds.special import SpecialBPE
from lab.kinds.word import END, WordBPE
from lab.plumbing import cli, terminal

NO_MODEL_OPTIONS = {'dropout': None, 'continuing_subword_prefix': None, 'end_of_word_suffix': None,
                    'fuse_unk': False, 'byte_fallback': False, 'ignore_merges': False}
FUSE = {'type': 'Fuse'}
BYTE_LEVEL_DECODER = {'type': 'ByteLevel', 'add_prefix_space': True, 'trim_offsets': True,
                      'use_regex': True}


# Ours to theirs ---------------------------------------------------------------------------

def to_hf(tok):
    """The tokenizers file of tok, as a dict; ValueError when the format cannot hold it exactly."""
    pieces = hf_pieces(tok)
    ids = {}
    for i, piece in enumerate(pieces):
        if piece in ids:  # e.g. 'ab' + 'c' and 'a' + 'bc': the format maps a string to one id
            raise ValueError(cli.message('hf.twice', piece=show(tok, piece), first=ids[piece],
                                         second=i))
        ids[piece] = i
    byte_level = tok.kind == 'byte'
    model = {'type': 'BPE', **NO_MODEL_OPTIONS, 'unk_token': None if byte_level else checks.UNKNOWN,
             'vocab': ids,
             'merges': [[pieces[a], pieces[b]] for (a, b), _ in tok.state()['merges']]}
    return {'version': '1.0', 'truncation': None, 'padding': None,
            'added_tokens': [added_token(name, i) for name, i in tok.special_ids.items()],
            'normalizer': None, 'pre_tokenizer': pre_tokenizer(tok), 'post_processor': None,
            'decoder': BYTE_LEVEL_DECODER if byte_level else FUSE, 'model': model}


def hf_pieces(tok):
    """The string of each id as tokenizers keeps it: the text (the word kind's </w> as a space),
    a byte-level token's bytes as byte characters, a special token's name."""
    names = {i: name for name, i in tok.special_ids.items()}
    if tok.kind == 'byte':
        return [names[i] if i in names else ''.join(BYTE_CHARACTERS[b] for b in tok.token_bytes(i))
                for i in range(tok.vocab_size)]
    return [names[i] if i in names else tok.token_bytes(i).decode('utf-8')
            for i in range(tok.vocab_size)]


def show(tok, piece):
    """A vocabulary string as a person reads it: a byte-level one as the bytes it stands for."""
    if tok.kind == 'byte' and all(ch in BYTE_OF for ch in piece):
        return repr(bytes(BYTE_OF[ch] for ch in piece).decode('utf-8', 'replace'))
    return repr(piece)


def added_token(name, i):
    return {'id': i, 'content': name, 'single_word': False, 'lstrip': False, 'rstrip': False,
            'normalized': False, 'special': True}


def split(pattern):
    return {'type': 'Split', 'pattern': {'Regex': for_tokenizers(pattern)}, 'behavior': 'Isolated',
            'invert': False}


def byte_level(use_regex):
    return {'type': 'ByteLevel', 'add_prefix_space': False, 'trim_offsets': True,
            'use_regex': use_regex}


def pre_tokenizer(tok):
    if tok.kind == 'word':
        return split('word')
    if tok.kind == 'piece':
        return split(tok.pattern)
    if tok.kind != 'byte':
        return None
    if tok.pattern in (None, 'gpt2'):  # ByteLevel cuts with GPT-2's pattern itself
        return byte_level(tok.pattern == 'gpt2')
    return {'type': 'Sequence', 'pretokenizers': [split(tok.pattern), byte_level(False)]}


# Theirs to ours ---------------------------------------------------------------------------

def from_hf(data):
    """The kind a tokenizers file holds, with its ids; ValueError naming what it cannot read."""
    model = data.get('model') if isinstance(data, dict) else None
    if not isinstance(model, dict) or model.get('type') != 'BPE':
        raise ValueError(cli.message('hf.not_bpe'))
    for step in ['normalizer', 'post_processor', 'truncation', 'padding']:  # each changes the ids
        if data.get(step) is not None and not (step == 'post_processor'
                                               and is_byte_level(data[step])):
            raise ValueError(cli.message('hf.step', step=step, type=type_of(data[step])))
    for option, value in NO_MODEL_OPTIONS.items():
        if model.get(option, value) != value:
            raise ValueError(cli.message('hf.model_option', option=option,
                                         value=terminal.quoted(model[option], 20)))
    vocab, merges, special = read_model(model, data.get('added_tokens') or [])
    cut = read_pre_tokenizer(data.get('pre_tokenizer'))
    # what gives back the text as a kind here does
    decoder = 'ByteLevel' if cut[0] == 'byte' else 'Fuse'
    if type_of(data.get('decoder')) != decoder:  # no decoder: tokenizers joins tokens with spaces
        if not data.get('decoder'):
            raise ValueError(cli.message('hf.no_decoder', want=decoder))
        raise ValueError(cli.message('hf.decoder', has=type_of(data['decoder']), want=decoder))
    if cut[0] == 'byte':
        if model.get('unk_token') is not None:
            raise ValueError(cli.message('hf.byte_unk'))
        return byte_kind(vocab, merges, special, cut[1])
    if model.get('unk_token') != checks.UNKNOWN:
        raise ValueError(cli.message('hf.unknown'))
    if special:
        last_ids = list(range(len(vocab) - len(special), len(vocab)))
        if cut[0] != 'char' or sorted(special.values()) != last_ids:
            raise ValueError(cli.message('hf.special_last'))
        return SpecialBPE(vocab[:len(vocab) - len(special)], merges, list(special))
    if cut[0] == 'word':  # a space, at the end of a token, is </w>
        return WordBPE([piece[:-1] + END if piece.endswith(' ') else piece for piece in vocab],
                       merges)
    return PieceBPE(vocab, merges, cut[1]) if cut[0] == 'piece' else CharBPE(vocab, merges)


def type_of(step):
    """What a step of the file is, in a few words: its "type", or its value cut short."""
    return terminal.clip(str(step.get('type', '?')) if isinstance(step, dict) else repr(step), 16)


def is_byte_level(step):
    return isinstance(step, dict) and step.get('type') == 'ByteLevel'


def read_model(model, added):
    """(vocab as a list by id, merges as [[a, b], new], {special name: id}) of a BPE model."""
    ids, pairs = model.get('vocab'), model.get('merges')
    if not isinstance(ids, dict) or not all(type(i) is int for i in ids.values()):
        raise ValueError(cli.message('hf.vocab'))
    if not isinstance(added, list):
        raise ValueError(cli.message('hf.added_list'))
    special, after = {}, max(ids.values(), default=-1) + 1
    for token in added:
        if not (isinstance(token, dict) and token.get('special')
                and isinstance(token.get('content'), str)):
            content = token.get('content') if isinstance(token, dict) else token
            raise ValueError(cli.message('hf.added_not_special',
                                         name=terminal.clip(repr(content), 20)))
        name = token['content']
        for option in ('lstrip', 'rstrip', 'single_word'):  # each changes where tokenizers finds it
            if token.get(option):
                raise ValueError(cli.message('hf.added_option', name=terminal.clip(repr(name), 20),
                                             option=option))
        # as tokenizers reads it: the id the vocabulary gives the string, else the next free one
        if name not in special:
            special[name] = ids[name] if name in ids else after
            after += name not in ids
    everything = {**ids, **special}
    if sorted(everything.values()) != list(range(len(everything))):
        raise ValueError(cli.message('hf.ids_once'))
    vocab = sorted(everything, key=everything.get)
    if not isinstance(pairs, list):
        raise ValueError(cli.message('hf.merges_list'))
    merges = []
    for pair in pairs:
        if isinstance(pair, str) and pair.count(' ') == 1:  # the older way to write one: "a b"
            pair = pair.split(' ')
        if not (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(piece, str) for piece in pair)
                and all(piece in ids for piece in pair)
                and pair[0] + pair[1] in ids):
            raise ValueError(cli.message('hf.merge', n=len(merges), pair=terminal.quoted(pair, 24)))
        merges.append([[ids[pair[0]], ids[pair[1]]], ids[pair[0] + pair[1]]])
    return vocab, merges, special


def read_pre_tokenizer(step):
    """('char' | 'word' | 'piece' | 'byte', pattern name or None) for a pre-tokenizer."""
    if step is None:
        return 'char', None
    sequence = isinstance(step, dict) and step.get('type') == 'Sequence'
    steps = step.get('pretokenizers') if sequence else [step]
    if not isinstance(steps, list) or not 1 <= len(steps) <= 2:
        raise ValueError(cli.message('hf.pre_tokenizer', type=type_of(step)))
    pattern = None
    if len(steps) == 2 or not is_byte_level(steps[0]):
        pattern = split_pattern(steps[0])
        if len(steps) == 1:
            return ('word', None) if pattern == 'word' else ('piece', pattern)
    level = steps[-1]
    if not is_byte_level(level) or level.get('add_prefix_space'):
        raise ValueError(cli.message('hf.prefix_space') if is_byte_level(level)
                         else cli.message('hf.pre_tokenizer', type=type_of(level)))
    if level.get('use_regex', True):
        if pattern is not None:
            raise ValueError(cli.message('hf.cuts_twice'))
        pattern = 'gpt2'
    return 'byte', pattern


def split_pattern(step):
    """The pattern a Split pre-tokenizer cuts with: the name of one of ours, else its regular
    expression, when Python reads it (patterns.pattern_problem)."""
    if type_of(step) != 'Split':
        raise ValueError(cli.message('hf.pre_tokenizer', type=type_of(step)))
    regex = step.get('pattern', {}).get('Regex') if isinstance(step.get('pattern'), dict) else None
    name = next((name for name in [*PIECE_PATTERNS, 'word'] if PATTERNS[name] == regex), regex)
    if not isinstance(name, str) or step.get('behavior') != 'Isolated' or step.get('invert') \
            or (name != 'word' and pattern_problem(name)):
        raise ValueError(cli.message('hf.split_pattern', type=type_of(step)))
    return name


def byte_kind(vocab, merges, special, pattern):
    """A byte kind from a byte-level vocabulary: each string a special token, one byte, or made
    by a merge."""
    made = {new for _, new in merges}
    byte_ids = [None] * 256
    for i, piece in enumerate(vocab):
        if piece in special:
            # its byte's id too, as there
            if len(piece) == 1 and piece in BYTE_OF and special[piece] == i:
                byte_ids[BYTE_OF[piece]] = i
            continue
        if len(piece) == 1 and piece in BYTE_OF:
            byte_ids[BYTE_OF[piece]] = i
        elif i not in made:
            raise ValueError(cli.message('hf.not_byte', piece=terminal.quoted(piece, 30)))
    return ByteBPE(merges, special, byte_ids, pattern)
