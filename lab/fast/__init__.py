"""The engine: the lesson's BPE, trained and used on a whole book in seconds, with the same results.

Why the lesson's version is slow
    Every round, BPE.train counts every pair in the whole text again and rewrites the
    whole text with merge(). For N characters and K merges that is about N * K steps:
    10,000 merges on a 1 MB book is ten billion. BPE.encode replays every merge over the
    whole text in the same way.

What is in here
    training.py  train(text, count): the merges BPE.train would learn, and how (read its
                 docstring first: the same tie rule, the same stop); learn(lines, ...):
                 the same over any pieces a text is cut into (lab/kinds train with it)
    units.py     the text as training holds it: distinct lines with weights, in units
    encoding.py  encode(tok, text) and encoder(tok): the ids BPE.encode would give
    letters.py   what both share: a character for every token, so that a pair of tokens
                 is a two-character string and str.split / str.replace merge it in C

train gives a tokenizer.BPE, the learner's own class, and encode takes one, so what the
engine makes is saved, loaded and checked like anything tokenizer.py makes. python3 -m
lab.fast_bpe is its command.
"""
from lab.fast.encoding import PARALLEL_FROM, encode, encoder, idle_cores, in_processes
from lab.fast.training import learn, train
from lab.fast.units import weighted_lines

__all__ = ['train', 'learn', 'weighted_lines', 'encode', 'encoder', 'idle_cores', 'in_processes',
           'PARALLEL_FROM']
