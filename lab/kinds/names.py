"""The names a user of the tokenizers library reaches for, on every kind: token_to_id,
id_to_token, encode_batch, decode_batch (lab/kinds/__init__.py gives them to each kind, with
save(path) and from_file(path)).

A token's string is the one tokenizers keeps for it (lab/kinds/hf.py): its text, a byte-level
token's bytes as byte characters ('Ġhello'), a special token's name; so an id and a string
map to each other here as they do in the tokenizer exported with lab.export_hf.
"""
from lab.kinds.hf import hf_pieces


def _strings(tok):
    """(the string of each id, {string: id}), worked out once for tok."""
    if getattr(tok, '_strings', None) is None:
        pieces = hf_pieces(tok)
        ids = {}
        for i, piece in enumerate(pieces):
            # a string under two ids (ab+c, a+bc): the first, as the file refuses
            ids.setdefault(piece, i)
        tok._strings = pieces, ids
    return tok._strings


def token_to_id(tok, token):
    """The id of a token's string, or None when the vocabulary has no such token (as tokenizers)."""
    return _strings(tok)[1].get(token)


def id_to_token(tok, i):
    """The string of id i, or None for an id the vocabulary does not have (as tokenizers)."""
    pieces = _strings(tok)[0]
    return pieces[i] if type(i) is int and 0 <= i < len(pieces) else None


def encode_batch(tok, texts):
    """[tok.encode(text) for each text]: the ids of each, as tokenizers' encode_batch (its .ids)."""
    return [tok.encode(text) for text in texts]


def decode_batch(tok, batch):
    """[tok.decode(ids) for each list of ids]."""
    return [tok.decode(ids) for ids in batch]
