"""Fast BPE: the very same tokenizer as tokenizer.py, trained in seconds.

    python3 -m lab.fast_bpe [FILE] [--merges N] [--out PATH] [--force]

Why the lesson's version is slow
    Every round, BPE.train counts every pair in the whole text again and rewrites the
    whole text with merge(). For N characters and K merges that is about N * K steps:
    10,000 merges on a 1 MB book is ten billion. BPE.encode replays every merge over the
    whole text in the same way.

What this file does instead
    1. Lines. '\\n' never merges, so each line learns on its own, and a line that occurs
       many times is kept once, with a weight: how many times it occurs.
    2. Linked tokens. Each line is a chain of nodes with links to the previous and the
       next node, so a merge rewrites only the places where its pair occurs.
    3. An index from each pair to the nodes where it starts, with its count. A merge
       changes only the pairs right beside each occurrence, so only those are updated.
    4. A priority queue (heapq) of (-count, first node, pair). An entry goes out of date
       when its pair's count or first node changes; rather than search the heap for it,
       a fresh entry is pushed, and the old one is thrown away when it reaches the top.

Why the results are identical
    - Nodes are numbered in text order (lines in order of first appearance), so the
      smallest node where a pair starts is its first occurrence in the lesson's current
      sequence: the tie rule is the same.
    - Counts include overlapping occurrences ('aaa' holds (a, a) twice), as the lesson's.
    - The occurrences of the chosen pair are merged in node order, and one whose tokens
      were already used is skipped: 'a a a' becomes 'aa a', as merge() makes it.
    - It stops when the best pair occurs fewer than 2 times, or no pair is left.

Encoding: a merge can only use tokens made before it, so replaying the merges in order
is the same as merging, again and again, the neighbouring pair that was learned first
(leftmost on a tie). Each line keeps a heap of (rank, node); a repeated line is
encoded once.

Try next: python3 -m lab.speed, then train on a book of your own:
    python3 -m lab.fast_bpe my-book.txt --merges 5000 --out my-book.json
"""
import json
import sys
import time
from collections import Counter
from heapq import heapify, heappop, heappush
from pathlib import Path

if not __package__:  # run as python3 lab/fast_bpe.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.fast_bpe')

from lab import common
from tokenizer import BPE

UNKNOWN = '\ufffd'  # id 0, as in BPE.train


def link_lines(text, chars):
    """Nodes for each distinct line of length 2 or more: (tokens, next, prev, weight)."""
    lines = [(line, n) for line, n in Counter(text.split('\n')).items() if len(line) >= 2]
    # every link refers to an int of this one list, so a million links share a million ints
    number = list(range(sum(len(line) for line, _ in lines) + 1))
    tokens, nxt, prv, weight = [], [], [], []
    for line, count in lines:  # in order of first appearance
        start, end = len(tokens), len(tokens) + len(line)
        tokens += [chars[ch] for ch in line]
        nxt += number[start + 1:end]
        nxt.append(-1)
        prv.append(-1)
        prv += number[start:end - 1]
        weight += [count] * len(line)
    return tokens, nxt, prv, weight


def train(text, count, progress=None):
    """BPE.train(text, count), fast. progress(done, count) is called after each merge."""
    vocab = [UNKNOWN] + sorted(set(text) - {UNKNOWN})
    merges = []
    tokens, nxt, prv, weight = link_lines(text, {ch: i for i, ch in enumerate(vocab)})
    size = len(vocab) + count  # no id reaches this, so a * size + b names the pair (a, b)

    # pair -> weighted count, the nodes where it started at some time, its first node.
    # A merge leaves old nodes in `where` (removing them costs more than skipping them
    # later): a node is an occurrence of (a, b) only while tokens[node] == a and the
    # next token is b. The pair at a node only ever changes to one that holds a newer
    # token, so a node never comes back to a pair, and never stands twice in its list.
    counts, where, first = {}, {}, {}
    for j in nxt:
        if j >= 0:
            i = prv[j]  # the same int object as in the links, not a new one
            pair = tokens[i] * size + tokens[j]
            if pair in counts:
                counts[pair] += weight[i]
                where[pair].append(i)
            else:
                counts[pair], where[pair], first[pair] = weight[i], [i], i
    # An entry may promise more than its pair now has (a merge took occurrences away,
    # perhaps the first one): it is corrected when it reaches the top of the heap.
    heap = [(-n, first[pair], pair) for pair, n in counts.items() if n >= 2]
    heapify(heap)

    while len(merges) < count and heap:
        n, node, pair = heappop(heap)
        if pair not in counts:
            continue  # merged already, or no occurrence is left
        a, b = divmod(pair, size)
        f = first[pair]
        if tokens[f] != a or nxt[f] < 0 or tokens[nxt[f]] != b:  # its first occurrence is gone
            where[pair] = [i for i in where[pair] if tokens[i] == a and nxt[i] >= 0 and tokens[nxt[i]] == b]
            first[pair] = min(where[pair])
        if (-n, node) != (counts[pair], first[pair]):
            if counts[pair] >= 2:
                heappush(heap, (-counts[pair], first[pair], pair))
            continue
        new = len(vocab)
        vocab.append(vocab[a] + vocab[b])
        merges.append([[a, b], new])
        made = {}  # pairs that hold the new token: all of them are new

        # The updates for the left and the right neighbour are written out in full, not
        # shared through a function: a call per occurrence cost a third of the run time.
        for i in sorted(where.pop(pair)):
            j = nxt[i]
            if tokens[i] != a or j < 0 or tokens[j] != b:
                continue  # not an occurrence any more, or its tokens were used by the one before
            w, h, k = weight[i], prv[i], nxt[j]
            if h >= 0:  # (x, a) at h becomes (x, new)
                old, fresh = tokens[h] * size + a, tokens[h] * size + new
                book = made if tokens[h] == new else counts  # in 'a b a b', x is new
                book[old] -= w
                if not book[old]:
                    del book[old], where[old], first[old]
                if fresh in made:
                    made[fresh] += w
                    where[fresh].append(h)
                else:  # nodes are visited in order, so the first one seen is the first
                    made[fresh], where[fresh], first[fresh] = w, [h], h
            if k >= 0:  # (b, y) at j becomes (new, y) at i
                old, fresh = b * size + tokens[k], new * size + tokens[k]
                if old != pair:  # in 'a a a' the chosen pair is its own neighbour
                    counts[old] -= w
                    if not counts[old]:
                        del counts[old], where[old], first[old]
                if fresh in made:
                    made[fresh] += w
                    where[fresh].append(i)
                else:
                    made[fresh], where[fresh], first[fresh] = w, [i], i
                prv[k] = i
            tokens[i], tokens[j], nxt[i] = new, -1, k
        del counts[pair], first[pair]

        counts.update(made)
        for fresh, n in made.items():
            if n >= 2:
                heappush(heap, (-n, first[fresh], fresh))
        if progress:
            progress(len(merges), count)
    return BPE(vocab, merges)


def encoder(tok):
    """A function that does tok.encode(text), fast: to encode many texts with one tokenizer."""
    size = len(tok.vocab)
    ranks, made = {}, []
    for rank, ((a, b), new) in enumerate(tok.merges):
        ranks.setdefault(a * size + b, rank)  # a repeated pair: the first merge takes it all
        made.append(new)
    # '\n' splits the text only when it is a known token: merges never use it then
    newline = [tok.chars['\n']] if '\n' in tok.chars else []
    done = {}  # line -> its ids: a repeated line is encoded once

    def encode_text(text):
        ids = []
        for n, line in enumerate(text.split('\n') if newline else [text]):
            if line not in done:
                done[line] = encode_line([tok.chars.get(ch, 0) for ch in line], ranks, made, size)
            if n:
                ids += newline
            ids += done[line]
        return ids
    return encode_text


def encode(tok, text):
    """tok.encode(text), fast: the same ids."""
    return encoder(tok)(text)


def encode_line(ids, ranks, made, size):
    """Merge the pair learned first, leftmost first, until no learned pair is left."""
    nxt = list(range(1, len(ids) + 1))
    nxt[-1:] = [-1]
    prv = list(range(-1, len(ids) - 1))
    heap = [(ranks[p], i) for i, p in enumerate(a * size + b for a, b in zip(ids, ids[1:]))
            if p in ranks]
    heapify(heap)
    while heap:
        rank, i = heappop(heap)
        j = nxt[i]
        if ids[i] < 0 or j < 0 or ranks.get(ids[i] * size + ids[j]) != rank:
            continue  # this node has merged since the entry was pushed
        new, k, h = made[rank], nxt[j], prv[i]
        ids[i], ids[j], nxt[i] = new, -1, k
        if k >= 0:
            prv[k] = i
            if new * size + ids[k] in ranks:
                heappush(heap, (ranks[new * size + ids[k]], i))
        if h >= 0 and ids[h] * size + new in ranks:
            heappush(heap, (ranks[ids[h] * size + new], h))
    return [t for t in ids if t >= 0]


def show_progress(started):
    """A progress(done, total) that redraws one line on stderr, at most 4 times a second."""
    last = [0.0]

    def progress(done, total):
        now = time.monotonic()
        if now - last[0] < 0.25 and done < total:
            return
        last[0] = now
        rate = done / max(now - started, 1e-9)
        left = (total - done) / rate if rate else 0
        print(f'\r  merges {done:,}/{total:,}  {rate:,.0f}/s  {left:.0f} s left  ',
              end='', file=sys.stderr, flush=True)
    return progress


def main():
    parser = common.parser(__doc__)
    parser.add_argument('file', nargs='?', type=Path, default=common.TRAIN, metavar='FILE',
                        help='the text to train on (default: data/train.txt)')
    parser.add_argument('--merges', type=common.whole_number, metavar='N',
                        help='merges to learn (default: what settings.json asks for)')
    parser.add_argument('--out', type=Path, default=common.SAVED, metavar='PATH',
                        help='where to save the tokenizer (default: data/tokenizer.json)')
    parser.add_argument('--force', action='store_true', help='replace PATH even if it is not a tokenizer.json')
    args = parser.parse_args()
    count = common.read_merge_count() if args.merges is None else args.merges
    common.check_out(args.out, 'tokenizer.json', common.json_with('vocab', 'merges'),
                     inputs=[args.file, common.SETTINGS], force=args.force)
    text = common.read_text(args.file, 'give a UTF-8 text file')
    interactive = sys.stderr.isatty()
    try:
        tok = train(text, count, show_progress(time.monotonic()) if interactive else None)
    finally:
        if interactive:
            print(file=sys.stderr)  # end the progress line, also when Ctrl-C stops it
    save_tokenizer(tok, args.out)
    print('vocab:', len(tok.vocab), 'merges:', len(tok.merges))
    if len(tok.merges) < count:
        print(f'(asked for {count} merges; no pair occurs twice after {len(tok.merges)})')
    ok = tok.decode(encode(tok, text)) == text
    print('roundtrip:', 'OK' if ok else 'FAILED', encode(tok, 'Q: hi\nA: '))


def save_tokenizer(tok, path):
    """Save as tokenizer.py saves: the same bytes for the same tokenizer."""
    common.save(json.dumps(tok.state(), ensure_ascii=False) + '\n', path)


if __name__ == '__main__':
    common.run(main)
