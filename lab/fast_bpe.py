"""Fast BPE: the very same tokenizer as tokenizer.py, trained in seconds.

    python3 -m lab.fast_bpe [FILE] [--merges N] [--out PATH] [--force]

Why the lesson's version is slow
    Every round, BPE.train counts every pair in the whole text again and rewrites the
    whole text with merge(). For N characters and K merges that is about N * K steps:
    10,000 merges on a 1 MB book is ten billion. BPE.encode replays every merge over the
    whole text in the same way.

What this file does instead
    1. One character for every token. A base token is its own character; a merged token
       gets a character the text does not use. A pair is then a two-character string,
       and merging it in a stretch of text is new.join(text.split(pair)): str.split
       scans left to right and never overlaps, which is exactly the lesson's merge(),
       done in C.
    2. Lines, in chunks. '\\n' never merges, so lines never share a pair. Each distinct
       line is kept once; lines that occur equally often are joined with '\\n' into
       chunks, and a chunk counts with that weight. The first merges touch the whole
       text, so the chunks start large (few to visit); once pairs are rare they are cut
       small (little to rewrite).
    3. Counts, and where to look. Each pair has its weighted count and the chunks it may
       occur in. A merge rewrites only those chunks, and only the pairs beside each
       occurrence change: the last character of each piece before it and the first
       after it. Counting those is C work too (Counter of a list).
    4. A pair that occurs once can never win: counts never grow once a pair exists
       (only pairs that hold the new token are new). Such pairs are not kept at all.
    5. A priority queue (heapq) of (-count, a line no later than the pair's first
       occurrence, pair). An entry may promise more than its pair now has; it is put
       right when it reaches the top.

Why the results are identical
    - Counts include overlapping occurrences ('aaa' holds (a, a) twice), as the lesson's.
    - On a tie the exact first occurrence decides, as in the lesson: lines are numbered in
      order of first appearance, a chunk holds its lines in that order, and str.find
      gives the first occurrence in a chunk; the line number and the position in the
      line are compared. It is worked out only when counts tie at the top.
    - It stops when the best pair occurs fewer than 2 times, or no pair is left.

Encoding: a merge can only use tokens made before it, so replaying the merges in order
is the same as merging, again and again, the neighbouring pair that was learned first
(leftmost on a tie). Each line keeps a heap of (rank, node); a repeated line is
encoded once.

Try next: python3 -m lab.speed, then train on a book of your own:
    python3 -m lab.fast_bpe my-book.txt --merges 5000 --out my-book.json
"""
import json
import multiprocessing
import sys
import time
from collections import Counter
from heapq import heapify, heappop, heappush
from operator import add
from pathlib import Path

if not __package__:  # run as python3 lab/fast_bpe.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.fast_bpe')

from lab import common
from tokenizer import BPE

UNKNOWN = '\ufffd'  # id 0, as in BPE.train
# Characters in a chunk, about. The first merges are of pairs found all over the text:
# few large chunks mean few visits. Later pairs are rare: small chunks mean little to
# rewrite. So training starts with large chunks and cuts them small when the best
# pair occurs fewer than SMALL_FROM times.
LARGE, SMALL, SMALL_FROM = 65536, 4096, 1000


def fresh_characters(used):
    """Characters for new tokens: any code point the text does not use, but no surrogate."""
    for point in range(0x100, 0x110000):
        if not 0xD800 <= point < 0xE000 and chr(point) not in used:
            yield chr(point)


def text_lines(text):
    """(line number, line, weight) for each distinct line of two characters or more (a shorter
    one holds no pair): numbered in order of first appearance, weighted by how often it occurs."""
    return [(number, line, weight) for number, (line, weight) in enumerate(Counter(text.split('\n')).items())
            if len(line) >= 2]


def chunks_of(lines, size):
    """Lines grouped by weight into chunks of about size characters: (chunks as strings,
    weight of each, line numbers in each). A chunk holds its lines in order, and chunks are
    numbered in the order of their first lines."""
    groups, weights, numbers, sizes = [], [], [], []
    filling = {}  # weight -> the chunk being filled
    for number, line, weight in lines:
        k = filling.get(weight)
        if k is None or sizes[k] > size:
            k = filling[weight] = len(groups)
            groups.append([])
            weights.append(weight)
            numbers.append([])
            sizes.append(0)
        groups[k].append(line)
        numbers[k].append(number)
        sizes[k] += len(line) + 1
    return ['\n'.join(group) for group in groups], weights, numbers


def lines_now(chunks, weights, numbers):
    """The lines as the merges so far have made them, in order: for cutting chunks anew."""
    lines = [(number, line, weights[k]) for k, chunk in enumerate(chunks)
             for number, line in zip(numbers[k], chunk.split('\n'))]
    return sorted(lines)


def where_pairs_are(chunks, counts):
    """{pair: the chunks that hold it}, for the pairs counted."""
    where = {pair: [] for pair in counts}
    for k, chunk in enumerate(chunks):
        for pair in set(map(add, chunk, chunk[1:])):
            if pair in where:
                where[pair].append(k)
    return where


def count_pairs(chunks, weights):
    """{pair: weighted count} and {pair: chunks that hold it}, for pairs that occur twice or more."""
    counts, where = {}, {}
    for k, chunk in enumerate(chunks):
        w = weights[k]
        for pair, n in Counter(map(add, chunk, chunk[1:])).items():
            if '\n' in pair:
                continue  # '\n' never merges
            if pair in counts:
                counts[pair] += n * w
                where[pair].append(k)
            else:
                counts[pair], where[pair] = n * w, [k]
    for pair in [pair for pair, n in counts.items() if n < 2]:
        del counts[pair], where[pair]
    return counts, where


def merge_everywhere(pair, new, chunks, weights, where):
    """Merge pair into the character new in every chunk that holds it. Return how the
    counts of the pairs beside it change (lost, made) and, for each pair made twice or
    more, the chunks that hold it."""
    a, b = pair
    befores, afters, starts = {}, {}, Counter()  # by weight: the characters beside each occurrence
    visited = []  # (chunk, characters before, characters after)
    for k in where.pop(pair):
        pieces = chunks[k].split(pair)
        if len(pieces) == 1:
            continue  # it was here once, but not any more
        chunks[k] = new.join(pieces)
        before = [piece[-1:] for piece in pieces[:-1]]  # '' where it follows the start or itself
        after = [piece[:1] for piece in pieces[1:]]  # '' where the chunk ends or itself follows
        visited.append((k, before, after))
        w = weights[k]
        befores.setdefault(w, []).extend(before)
        afters.setdefault(w, []).extend(after)
        starts[w] += pieces[0] == ''
    lost, made = Counter(), Counter()
    for w in befores:  # all chunks of one weight at once: the counting is done in C
        before, after = Counter(befores[w]), Counter(afters[w])
        touching = before.pop('', 0) - starts[w]  # an occurrence right after another: b a
        after.pop('', None)
        before.pop('\n', None)
        after.pop('\n', None)
        if touching:
            lost[b + a] += touching * w
            made[new + new] += touching * w
        for x, n in before.items():
            lost[x + a] += n * w
            made[x + new] += n * w
        for y, n in after.items():
            lost[b + y] += n * w
            made[new + y] += n * w
    kept = {fresh for fresh, n in made.items() if n >= 2}  # a pair seen once can never win
    made_in = {fresh: [] for fresh in kept}
    for k, before, after in visited:
        for fresh in ({(x or new) + new for x in before} | {new + y for y in after}) & kept:
            made_in[fresh].append(k)
    return lost, made, made_in


def train(text, count, progress=None):
    """BPE.train(text, count), fast. progress(done, count) is called after each merge."""
    vocab = [UNKNOWN] + sorted(set(text) - {UNKNOWN})
    id_of = {ch: i for i, ch in enumerate(vocab)}
    fresh = fresh_characters(set(text) | {'\n', UNKNOWN})
    chunks, weights, numbers = chunks_of(text_lines(text), LARGE)
    first_line = [lines[0] for lines in numbers]  # chunks are numbered in this order too
    counts, where = count_pairs(chunks, weights)
    large = True
    heap = [(-n, first_line[where[pair][0]], pair) for pair, n in counts.items()]
    heapify(heap)

    def first_occurrence(pair):
        """(line number, position in the line) where pair occurs first, now."""
        best = None
        for k in where[pair]:
            if best is not None and first_line[k] > best[0]:
                break  # this chunk and all later ones start after it
            chunk = chunks[k]
            at = chunk.find(pair)
            if at >= 0:
                key = (numbers[k][chunk.count('\n', 0, at)], at - chunk.rfind('\n', 0, at) - 1)
                best = key if best is None else min(best, key)
        return best

    def choose():
        """The most frequent pair; on a tie, the one whose first occurrence comes first."""
        best, best_key, looked_at = None, None, []
        while heap:
            n, bound, pair = heap[0]
            if counts.get(pair) != -n:  # merged already, or its count fell: put it right
                heappop(heap)
                if pair in counts:
                    heappush(heap, (-counts[pair], bound, pair))
                continue
            if best is not None and (-n < counts[best] or bound > best_key[0]):
                break  # nothing left in the heap can beat best
            heappop(heap)
            key = first_occurrence(pair)
            if best is None or key < best_key:
                if best is not None:
                    looked_at.append((-counts[best], best_key[0], best))
                best, best_key = pair, key
            else:
                looked_at.append((n, key[0], pair))
        for entry in looked_at:  # back in, with a closer bound: a first occurrence only moves on
            heappush(heap, entry)
        return best

    merges = []
    while len(merges) < count:
        pair = choose()
        if pair is None:
            break  # no pair is left that occurs twice
        n_best = counts[pair]
        new, new_id = next(fresh), len(vocab)
        a, b = id_of[pair[0]], id_of[pair[1]]
        id_of[new] = new_id
        vocab.append(vocab[a] + vocab[b])
        merges.append([[a, b], new_id])
        lost, made, made_in = merge_everywhere(pair, new, chunks, weights, where)
        del counts[pair]
        for old, n in lost.items():
            if old in counts:
                if counts[old] - n >= 2:
                    counts[old] -= n
                else:
                    del counts[old], where[old]
        for fresh_pair, n in made.items():
            if n >= 2:
                counts[fresh_pair], where[fresh_pair] = n, made_in[fresh_pair]
                heappush(heap, (-n, first_line[made_in[fresh_pair][0]], fresh_pair))
        if large and n_best < SMALL_FROM:  # from here on pairs are rare: cut the chunks small
            chunks, weights, numbers = chunks_of(lines_now(chunks, weights, numbers), SMALL)
            first_line[:] = [lines[0] for lines in numbers]
            where.clear()
            where.update(where_pairs_are(chunks, counts))
            large = False
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


def encode(tok, text, jobs=1):
    """tok.encode(text), fast: the same ids. With jobs > 1, blocks of lines are encoded in
    that many processes at once (multiprocessing): worth it for megabytes of text."""
    newline = tok.chars.get('\n')
    if jobs <= 1 or newline is None or len(text) < PARALLEL_FROM:
        return encoder(tok)(text)
    lines = text.split('\n')
    size = -(-len(lines) // (jobs * 4))  # four blocks a process, so that none waits long for the last
    blocks = ['\n'.join(lines[n:n + size]) for n in range(0, len(lines), size)]
    with multiprocessing.Pool(jobs, initializer=start_worker, initargs=(tok.state(),)) as pool:
        encoded = pool.map(encode_in_worker, blocks)
    ids = encoded[0]
    for block in encoded[1:]:  # the blocks were cut at newlines: put them back
        ids.append(newline)
        ids += block
    return ids


PARALLEL_FROM = 100_000  # characters: below this, starting the processes costs more than it saves
worker_encode = None


def start_worker(state):
    global worker_encode
    worker_encode = encoder(BPE(**state))


def encode_in_worker(block):
    return worker_encode(block)


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
    common.add_file(parser, 'the text to train on')
    parser.add_argument('--merges', type=common.whole_number, metavar='N',
                        help='merges to learn (default: what settings.json asks for)')
    parser.add_argument('--out', type=Path, default=common.SAVED, metavar='PATH',
                        help='where to save the tokenizer (default: data/tokenizer.json)')
    parser.add_argument('--force', action='store_true',
                        help='replace PATH even if it is not a tokenizer.json')
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
