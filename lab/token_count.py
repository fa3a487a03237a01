"""How the number of merges trades vocabulary size against text length.

Trains on data/train.txt with 0, 6, 12, 24 and 48 merges and prints the vocabulary
size and how many tokens the training text becomes. Every merge adds one row to the
model's embedding table and (while pairs repeat) removes tokens from the text.
"""
import sys

if not __package__:  # run as python3 lab/token_count.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.token_count')

from tokenizer import BPE, TRAIN, read_text

COUNTS = [0, 6, 12, 24, 48]


def main():
    text = read_text(TRAIN, 'put your training text there')
    for count in COUNTS:
        tok = BPE.train(text, count)
        print('merges', count, 'vocab', len(tok.vocab), 'tokens', len(tok.encode(text)))


if __name__ == '__main__':
    try:
        main()
    except ValueError as e:
        sys.exit(f'lab.token_count: {e}')
