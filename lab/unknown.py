"""What happens to characters the tokenizer never saw: they all become id 0.

Loads data/tokenizer.json and prints, for a few words, the ids and the UTF-8 bytes.
'cat' is known; 'C' never appears in the training text, nor does any Korean or emoji,
so they turn into 0 and decode as '\ufffd'. A byte-level tokenizer (python3 -m lab.byte_bpe)
has no unknowns: every text is made of the 256 byte values.
"""
import sys

if not __package__:  # run as python3 lab/unknown.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.unknown')

from lab.check import load

WORDS = ['cat', 'Cat', '안녕', '😀']


def main():
    tok = load()
    for word in WORDS:
        print(word, tok.encode(word), list(word.encode('utf-8')))


if __name__ == '__main__':
    try:
        main()
    except ValueError as e:
        sys.exit(f'lab.unknown: {e}')
