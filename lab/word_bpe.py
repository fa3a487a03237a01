"""Word-level BPE: merges inside words only, the classic way (Sennrich et al.).

    python3 -m lab.word_bpe [FILE] [--merges N]

The text is cut into words at whitespace. Each word is spelled as characters, and a
word that has a single space after it gets an end marker, </w>, in place of that
space; any other whitespace (a newline, a second space) is a token of its own. So
'low lower\\n' becomes  l o w </w> | l o w e r | \\n  and decoding, with </w> read as a
space, gives the text back exactly. The marker also tells 'er' at the end of a word
('er</w>', as in 'lower ') from 'er' inside one ('ere').

Pairs are counted inside words, each word weighted by how often it occurs; a pair
never joins two words. On a tie the pair that sorts first (by its two pieces) wins,
so two runs on the same text learn the same merges. The lab prints the first 20
merges, checks the round trip (exit 1 if it fails), and compares characters per
token with the character-level tokenizer trained with as many merges.

Try next: a book from your own shelf with --merges 2000, and look at which whole
words become single tokens first:
    python3 -m lab.word_bpe my-book.txt --merges 2000
"""
import heapq
import re
import sys
from collections import Counter

if not __package__:  # run as python3 lab/word_bpe.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.word_bpe')

from lab import common, fast
from lab.common import UNKNOWN
from tokenizer import merge

END = '</w>'  # shown for the space it stands for


def words(text):
    """The text as words and whitespace: a word followed by one space carries END."""
    out = []
    for word, space in re.findall(r'(\S*)(\s*)', text):
        if word:
            out.append(tuple(word) + ((END,) if space[:1] == ' ' else ()))
            space = space[1:] if space[:1] == ' ' else space
        out += [(ch,) for ch in space]  # other whitespace: one token a character
    return out


def train(text, count):
    """(vocab, merges) learned inside words; ties go to the pair that sorts first.

    Each distinct word is kept once with its count. Pair counts are kept up to date rather
    than counted again: a merge changes only the words that hold its pair, so only their
    pairs are taken away and put back (as subword-nmt does). The best pair comes off a heap
    whose stale entries, left by counts that changed, are skipped when they surface."""
    vocab = [UNKNOWN, END] + common.base_vocabulary(text)[1:]  # END at id 1
    index = {piece: i for i, piece in enumerate(vocab)}
    counted = Counter(tuple(index[s] for s in word) for word in words(text))
    spelled = [list(word) for word in counted]  # each distinct word, as it is merged so far
    weight = list(counted.values())
    pairs, holders = Counter(), {}  # pair -> its count; pair -> the words that hold it
    for w, word in enumerate(spelled):
        for pair in zip(word, word[1:]):
            pairs[pair] += weight[w]
            holders.setdefault(pair, set()).add(w)
    heap = [entry(pair, n, vocab) for pair, n in pairs.items()]
    heapq.heapify(heap)
    merges = []
    while len(merges) < count and heap:
        minus_n, _, _, pair = heapq.heappop(heap)
        if pairs.get(pair, 0) != -minus_n:
            continue  # stale: this pair's count has changed since it was pushed
        if -minus_n < 2:
            break
        new_id = len(vocab)
        vocab.append(vocab[pair[0]] + vocab[pair[1]])
        merges.append([list(pair), new_id])
        changed = set()
        for w in holders.pop(pair):
            word = spelled[w]
            for old in zip(word, word[1:]):
                pairs[old] -= weight[w]
                changed.add(old)
            spelled[w] = word = merge(word, pair, new_id)
            for new in zip(word, word[1:]):
                pairs[new] += weight[w]
                holders.setdefault(new, set()).add(w)
                changed.add(new)
        for other in changed:
            if pairs[other] > 0:
                heapq.heappush(heap, entry(other, pairs[other], vocab))
            else:
                del pairs[other]
    return vocab, merges


def entry(pair, n, vocab):
    """A heap entry: the most frequent pair first, then the one whose two pieces sort first."""
    return (-n, vocab[pair[0]], vocab[pair[1]], pair)


def encode(vocab, merges, text):
    """Ids of text: each word's symbols, then the merges in the order learned. A word is
    merged by taking, again and again, its pair learned first: for merges that train made
    (each joins tokens made before it) that is the same as applying all of them in order,
    and a word of a few symbols meets a few merges, not thousands."""
    # the base symbols only: a merge may spell out '</w>' from a text's own '<', '/', 'w', '>'
    index = {piece: i for i, piece in enumerate(vocab[:len(vocab) - len(merges)])}
    rank = {}
    for n, (pair, new_id) in enumerate(merges):
        rank.setdefault(tuple(pair), (n, new_id))  # a pair learned twice: the first takes it all
    done, ids = {}, []
    for word in words(text):
        if word not in done:
            symbols = [index.get(s, 0) for s in word]
            while len(symbols) > 1:
                found = [rank[pair] for pair in zip(symbols, symbols[1:]) if pair in rank]
                if not found:
                    break
                n, new_id = min(found)
                symbols = merge(symbols, merges[n][0], new_id)
            done[word] = symbols
        ids += done[word]
    return ids


def decode(vocab, merges, ids):
    """The text of ids, END read as the space it stands for (a literal '</w>' stays)."""
    spoken = [' ' if piece == END else piece for piece in vocab[:len(vocab) - len(merges)]]
    for (a, b), _ in merges:
        spoken.append(spoken[a] + spoken[b])
    return ''.join(spoken[i] for i in ids)


def main():
    parser = common.parser(__doc__)
    common.add_file(parser, 'the text to train on')
    parser.add_argument('--merges', type=common.whole_number, default=120, metavar='N',
                        help='merges to learn (default: %(default)s)')
    args = parser.parse_args()
    text = common.read_text(args.file)
    vocab, merges = train(text, args.merges)
    print(f'word-level BPE on {common.shown(args.file.name)}: {len(merges)} merges, vocab {len(vocab)}')
    for n, ((a, b), new_id) in enumerate(merges[:20], 1):
        print(f'  {n:>2}  {vocab[a]!r:>14} + {vocab[b]!r:<14} -> {vocab[new_id]!r}'[:80])

    ids = encode(vocab, merges, text)
    back = decode(vocab, merges, ids)
    if back != text:
        raise ValueError(f'round trip FAILED at character {common.first_difference(back, text)}')
    print(f'round trip: OK ({len(text):,} characters, spaces and newlines restored exactly)\n')

    char_tok = fast.train(text, args.merges)
    char_ids = fast.encode(char_tok, text)
    rows = [['tokenizer', 'merges', 'tokens', 'chars/token']]
    for name, made, n in [('word-level', len(merges), len(ids)), ('character-level', len(char_tok.merges),
                                                                  len(char_ids))]:
        rows.append([name, str(made), f'{n:,}', f'{len(text) / n:.2f}'])
    print(common.table(rows, right={1, 2, 3}))


if __name__ == '__main__':
    common.run(main)
