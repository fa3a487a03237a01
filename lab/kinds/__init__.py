"""The tokenizer kinds the labs teach, each in the one shape tokenizer.BPE has.

    tok = Kind.train(text, count)   # count: merges to learn, as in the lesson
    ids = tok.encode(text)
    text = tok.decode(ids)
    tok = Kind(**tok.state())       # state(): what JSON can hold, all it takes to rebuild

  char     char.py     the lesson's BPE, trained and encoding with the engine (lab/fast)
  word     word.py     merges inside words only, with an end-of-word marker
  piece    piece.py    a regular expression cuts the text first; merges stay in a piece
  byte     byte.py     UTF-8 bytes are the base: no text is ever unknown
  special  special.py  markers such as <eos>, with ids that BPE can never make

Besides the shape, each kind says how many ids it has (vocab_size) and which id stands for
what it does not know (unknown_id; None where nothing can be unknown), so that they can
stand side by side (python3 -m lab.compare). Each lab that teaches a kind is its command.

To add a kind: copy the file of the kind closest to it, add its row above and its line to
KINDS below; tests/test_kinds.py then holds it to the shape, and a test of its own rule
goes there.
"""
from lab.kinds.byte import ByteBPE
from lab.kinds.char import CharBPE
from lab.kinds.piece import PieceBPE
from lab.kinds.special import SpecialBPE
from lab.kinds.word import WordBPE

KINDS = {'char': CharBPE, 'word': WordBPE, 'piece': PieceBPE, 'byte': ByteBPE, 'special': SpecialBPE}
