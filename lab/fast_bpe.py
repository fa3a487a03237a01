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
    2. Distinct lines, with weights. '\\n' never merges, so lines never share a pair. Each
       distinct line is kept once and counts as often as it occurs (its weight).
    3. Units. The first merges are of pairs found all over the text: lines of one weight
       are joined into large units (about 65,000 characters), so a merge is a few big
       splits. Once the best pair is rare, each line becomes a unit of its own, and a
       merge rewrites only the lines that hold the pair: all of one weight joined, split
       once, cut apart.
    4. Counts, and where to look. Each pair has its weighted count and a list of units
       that may hold it (all that do, perhaps a few more: a pair made by a merge is
       listed in every unit that merge touched). A merge changes only the pairs beside
       each occurrence: the last character of each piece before it and the first after
       it, counted in C (Counter over map()).
    5. A pair that occurs once can never win: counts never grow once a pair exists
       (only pairs that hold the new token are new). Such pairs are not kept at all.
    6. A priority queue (heapq) of (-count, a place no later than the pair's first
       occurrence, pair). An entry may promise more than its pair now has; it is put
       right when it reaches the top.

Why the results are identical
    - Counts include overlapping occurrences ('aaa' holds (a, a) twice), as the lesson's.
    - On a tie the first occurrence decides, as in the lesson. A place in the text is the
      line (numbered in order of first appearance) and the characters of text before it
      in the line: merges never move it, so a place once found stays a true lower bound
      for the pair. Units of one weight hold their lines in order, so str.find in the
      first unit that holds the pair finds its first occurrence in that weight. This is
      worked out only when two pairs tie at the top of the queue.
    - It stops when the best pair occurs fewer than 2 times, or no pair is left.

Encoding
    - A long text is encoded just as BPE.encode does it, merge after merge, but in C:
      tokens are characters again and a merge is str.replace, over the whole text while
      the pair is common, then over only the lines that hold both of its tokens, joined
      for one replace. Each distinct line is merged once.
    - That costs some milliseconds a call, so a short text goes line by line: a merge can
      only use tokens made before it, so merging the neighbouring pair learned first,
      again and again (leftmost on a tie), gives the same ids. Each line keeps a heap of
      (rank, node).

Try next: python3 -m lab.speed, then train on a book of your own:
    python3 -m lab.fast_bpe my-book.txt --merges 5000 --out my-book.json
"""
import json
import multiprocessing
import os
import sys
import time
from bisect import bisect_left
from collections import Counter, defaultdict
from heapq import heapify, heappop, heappush
from itertools import chain, compress, groupby, repeat
from operator import add, contains, itemgetter, not_

if not __package__:  # run as python3 lab/fast_bpe.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.fast_bpe')

from lab import common
from tokenizer import BPE

UNKNOWN = common.UNKNOWN  # id 0, as in BPE.train
# Units start at about LARGE characters; each line becomes a unit of its own once the best
# pair occurs less than once in LINES_EVERY characters. Listing the pairs of every line
# anew costs seconds on a large text, so it is done once. Switching at once in 180 to once
# in 12,000 characters was measured on the shared corpora and the stdlib one: once in
# about 2,000 was the fastest or within 5 % of it on all three.
LARGE, LINES_EVERY = 65536, 2000
last_char = itemgetter(slice(-1, None))  # piece[-1:], done in C by map()
first_char = itemgetter(slice(0, 1))


def fresh_characters(used):
    """Characters for new tokens: any code point the text does not use, but no surrogate."""
    for point in range(0x100, 0x110000):
        if not 0xD800 <= point < 0xE000 and chr(point) not in used:
            yield chr(point)


def spare(used):
    """How many characters fresh_characters(used) has: fewer than a text needs only when it
    uses nearly every code point there is."""
    taken = sum(1 for ch in used if ord(ch) >= 0x100 and not 0xD800 <= ord(ch) < 0xE000)
    return 0x110000 - 0x100 - 0x800 - taken


def text_lines(text):
    """(line number, line, weight) for each distinct line of two characters or more (a shorter
    one holds no pair): numbered in order of first appearance, weighted by how often it occurs."""
    return [(number, line, weight) for number, (line, weight) in enumerate(Counter(text.split('\n')).items())
            if len(line) >= 2]


def units_of(lines, size):
    """Lines joined with '\\n' into units of about size characters (0: a line each), never
    mixing weights. Returns the units, the line numbers in each, and for each unit the run
    of units that share its weight: (first unit, unit after the last, weight). Units are
    numbered by weight, then by line, so that one weight is one stretch of numbers."""
    units, numbers, run_of = [], [], []
    for weight, same in groupby(sorted(lines, key=itemgetter(2)), key=itemgetter(2)):
        start, filled = len(units), 0
        for number, line, _ in same:
            if len(units) == start or filled > size:  # a new unit
                units.append([])
                numbers.append([])
                filled = 0
            units[-1].append(line)
            numbers[-1].append(number)
            filled += len(line) + 1
        run_of += [(start, len(units), weight)] * (len(units) - start)
    return ['\n'.join(unit) for unit in units], numbers, run_of


def lines_now(units, numbers, run_of):
    """The lines as the merges so far have made them: to cut the units anew."""
    return sorted((number, line, run_of[k][2]) for k, unit in enumerate(units)
                  for number, line in zip(numbers[k], unit.split('\n')))


def weight_runs(ks, run_of):
    """Cut a sorted list of unit numbers where the weight changes: (from, to, weight)."""
    i = 0
    while i < len(ks):
        _, end, weight = run_of[ks[i]]
        j = bisect_left(ks, end, i)
        yield i, j, weight
        i = j


def count_pairs(units, run_of):
    """{pair: weighted count} and {pair: the units that hold it}, for pairs that occur twice or more."""
    counts, where = {}, {}
    for k, unit in enumerate(units):
        weight = run_of[k][2]
        for pair, n in Counter(map(add, unit, unit[1:])).items():
            if pair in counts:
                counts[pair] += n * weight
                where[pair].append(k)
            else:
                counts[pair], where[pair] = n * weight, [k]
    for pair in [pair for pair, n in counts.items() if n < 2 or '\n' in pair]:  # '\n' never merges
        del counts[pair], where[pair]
    return counts, where


def where_pairs_are(units, counts):
    """{pair: the units that hold it}, for the pairs counted."""
    where = {pair: [] for pair in counts}
    for k, unit in enumerate(units):
        for pair in set(map(add, unit, unit[1:])):
            if pair in where:
                where[pair].append(k)
    return where


def weighted_sum(counters):
    """One Counter from [(Counter, weight), ...]: the counts times their weights, added up."""
    if len(counters) == 1 and counters[0][1] == 1:
        return counters[0][0]  # the usual case: every unit it touched has weight 1
    total = Counter()
    for counter, weight in counters:
        for key, n in counter.items():
            total[key] += n * weight
    return total


def train(text, count, progress=None):
    """BPE.train(text, count), fast. progress(done, count) is called after each merge."""
    vocab = common.base_vocabulary(text)
    id_of = {ch: i for i, ch in enumerate(vocab)}
    width = dict.fromkeys(vocab, 1)  # characters of text in each token
    used = set(vocab) | {'\n'}
    if count and spare(used) <= count:  # a spacer and a character for each new token: too few left
        raise ValueError(f'the text uses {len(vocab) - 1:,} distinct characters, leaving {spare(used):,} '
                         'code points free; lab.fast_bpe writes each new token as a free one: ask for '
                         f'at most {max(spare(used) - 1, 0):,} merges')
    fresh = fresh_characters(used)
    spacer = next(fresh)  # joins the units of one weight for a merge: no pair holds it
    lines = text_lines(text)
    # a place in the text as one number, line * stride + characters before it in the line,
    # for a heap that compares numbers rather than tuples
    stride = 1 + max((len(line) for _, line, _ in lines), default=0)
    units, numbers, run_of = units_of(lines, LARGE)
    del lines  # the units hold them now: a few MB less at peak
    first_line = [unit_lines[0] for unit_lines in numbers]
    counts, where = count_pairs(units, run_of)  # where: units that may hold the pair; all that do
    lines_from, large_units = len(text) // LINES_EVERY, True
    heap = [(-n, min(map(first_line.__getitem__, where[pair])) * stride, pair) for pair, n in counts.items()]
    heapify(heap)

    # pair -> (-count, first occurrence) when it was last worked out: a pair never gains an
    # occurrence, so while its count stays the same, so does its first occurrence
    worked_out = {}

    def first_occurrence(pair):
        """Where pair occurs first now: line number * stride + characters of the line before it."""
        ks, first, gone = where[pair], None, 0
        for i, j, _ in weight_runs(ks, run_of):  # units of one weight are in line order
            m = next((m for m in range(i, j) if pair in units[ks[m]]), j)
            if i == 0:
                gone = m  # units before the first that holds it: gone from a unit, gone for good
            if m < j:
                unit = units[ks[m]]
                at = unit.find(pair)
                start = unit.rfind('\n', 0, at) + 1
                key = (numbers[ks[m]][unit.count('\n', 0, start)] * stride
                       + sum(map(width.__getitem__, unit[start:at])))
                first = key if first is None else min(first, key)
        if gone:
            where[pair] = ks[gone:]
        return first

    def top():
        """The first heap entry whose count is up to date, left on the heap; None if none is."""
        while heap:
            n, bound, pair = heap[0]
            if counts.get(pair) == -n:
                return heap[0]
            heappop(heap)  # merged already, or its count fell: put it right
            if pair in counts:
                heappush(heap, (-counts[pair], bound, pair))
        return None

    def choose():
        """The most frequent pair; on a tie, the one whose first occurrence comes first."""
        while top():
            n, bound, pair = heappop(heap)
            rival = top()
            if rival is None or rival[0] > n:
                return pair  # no other pair has its count
            if worked_out.get(pair) == (n, bound):
                return pair  # bound is its first occurrence (below), and every other bound is no earlier
            first = first_occurrence(pair)
            worked_out[pair] = (n, first)
            if first == bound or first < rival[1]:
                return pair  # every other bound is no earlier, and no two pairs start at one place
            heappush(heap, (n, first, pair))  # its bound was too early: back in its place

    def merge_everywhere(pair, new):
        """Merge pair into the character new in every unit that holds it. Returns the
        weighted counts of the characters before and after the occurrences, how often one
        occurrence directly follows another, and the units that now hold new."""
        ks = [k for k in where.pop(pair) if pair in units[k]]
        befores, afters, touching = [], [], 0
        for i, j, weight in weight_runs(ks, run_of):
            if large_units:  # a few large units: split each
                split_up = [units[k].split(pair) for k in ks[i:j]]
                for k, pieces in zip(ks[i:j], split_up):
                    units[k] = new.join(pieces)
            else:  # many short lines: one split for all of them, then cut them apart again
                split_up = [spacer.join([units[k] for k in ks[i:j]]).split(pair)]
                for k, unit in zip(ks[i:j], new.join(split_up[0]).split(spacer)):
                    units[k] = unit
            # '' before an occurrence: it directly follows another one, or it starts a unit
            before = Counter(chain.from_iterable(map(last_char, pieces[:-1]) for pieces in split_up))
            touching += (before.pop('', 0) - sum(pieces[0] == '' for pieces in split_up)) * weight
            befores.append((before, weight))
            afters.append((Counter(chain.from_iterable(map(first_char, pieces[1:]) for pieces in split_up)),
                           weight))
        before, after = weighted_sum(befores), weighted_sum(afters)
        for edge in ('\n', spacer, ''):  # line ends, unit ends: no pair there
            before.pop(edge, None)
            after.pop(edge, None)
        return before, after, touching, ks

    def forget(lost):
        """Take (pair, occurrences) off the counts; a pair left with fewer than 2 goes."""
        for old, n in lost:
            left = counts.get(old, 0) - n
            if left >= 2:
                counts[old] = left
            elif old in counts:
                del counts[old], where[old]

    merges = []
    while len(merges) < count:
        pair = choose()
        if pair is None:
            break  # no pair is left that occurs twice
        n_best = counts.pop(pair)
        new, new_id = next(fresh), len(vocab)
        a, b = pair
        id_of[new], width[new] = new_id, width[a] + width[b]
        vocab.append(vocab[id_of[a]] + vocab[id_of[b]])
        merges.append([[id_of[a], id_of[b]], new_id])
        before, after, touching, holders = merge_everywhere(pair, new)
        # x a b y became x new y: (x, a) and (b, y) lost, (x, new) and (new, y) made
        forget((x + a, n) for x, n in before.items())
        forget((b + y, n) for y, n in after.items())
        made = {x + new: n for x, n in before.items() if n >= 2}  # a pair seen once can never win
        made.update({new + y: n for y, n in after.items() if n >= 2})
        if touching:  # a b a b became new new: (b, a) lost, (new, new) made
            forget([(b + a, touching)])
            if touching >= 2:
                made[new + new] = touching
        if made:
            counts.update(made)
            where.update(dict.fromkeys(made, holders))  # shared: lists are replaced, never changed
            bound = min(map(first_line.__getitem__, holders)) * stride
            for fresh_pair, n in made.items():
                heappush(heap, (-n, bound, fresh_pair))
        if large_units and n_best < lines_from:  # from here on pairs are rare: a line to a unit
            units, numbers, run_of = units_of(lines_now(units, numbers, run_of), 0)
            first_line[:] = [unit_lines[0] for unit_lines in numbers]
            where.clear()
            where.update(where_pairs_are(units, counts))
            large_units = False
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
    replay = None  # built the first time it is needed
    in_order = made_as_train_makes(tok)

    def encode_text(text):
        nonlocal replay
        if len(text) >= REPLAY_FROM or not in_order:
            if replay is None:
                replay = replayer(tok)
            return replay(text)
        ids = []
        for n, line in enumerate(text.split('\n') if newline else [text]):
            if line not in done:
                done[line] = encode_line([tok.chars.get(ch, 0) for ch in line], ranks, made, size)
            if n:
                ids += newline
            ids += done[line]
        return ids
    return encode_text


def made_as_train_makes(tok):
    """True if each merge joins tokens that exist before it into a token never seen before,
    and none joins '\n', as in every tokenizer BPE.train makes. Then no merge can make a pair
    of an earlier merge, and merging the pair learned first, again and again, is the same as
    replaying the merges in order. A hand-made tokenizer may break this: it is replayed."""
    known = set(tok.chars.values()) | {0}
    known.discard(tok.chars.get('\n'))
    for (a, b), new in tok.merges:
        if a not in known or b not in known or new in known:
            return False
        known.add(new)
    return True


def encode(tok, text, jobs=None):
    """tok.encode(text), fast: the same ids. jobs: processes, one per core unless given (a text
    under PARALLEL_FROM characters stays in this one). With jobs > 1, blocks of lines are encoded in
    that many processes at once (multiprocessing): worth it for megabytes of text."""
    jobs = os.cpu_count() or 1 if jobs is None else jobs
    if jobs <= 1 or '\n' not in tok.chars or len(text) < PARALLEL_FROM or not made_as_train_makes(tok):
        return encoder(tok)(text)
    size = -(-len(text) // (jobs * 4))  # four blocks a process, so that none waits long for the last
    try:
        with multiprocessing.Pool(jobs, initializer=start_worker, initargs=(common.state_of(tok),)) as pool:
            encoded = pool.map(encode_in_worker, line_blocks(text, size))
    except OSError as e:  # no more processes allowed (ulimit -u), or no memory for them
        raise ValueError(f'cannot start {jobs} processes to encode with ({e.strerror}): '
                         'use fewer --jobs') from None
    return list(chain.from_iterable(encoded))  # each block but the last ends in '\n', and holds its id


# characters: below this, starting the processes costs more than it saves (Swann's Way, 5,000
# merges, 2 cores: 100,000 characters 0.11 s in one process or two; 200,000: 0.25 s, 0.17 s)
PARALLEL_FROM = 100_000
# Replaying the merges costs some milliseconds a call, whatever the text: on Swann's Way and
# the stdlib corpus it was faster than going line by line from 60,000 to 100,000 characters.
REPLAY_FROM = 100_000
# The whole text is merged at once while a pair occurs at least once in WHOLE_EVERY
# characters; on Swann's Way, 500 and 1,000 were fastest of 20 to 8,000.
WHOLE_EVERY = 500
# A long text is replayed in blocks of lines: the sets of lines that hold each token grow
# with the block. Measured, memory above the text and the tokenizer: Swann's Way 1.73 s
# and 18 MB in blocks of 250,000 characters, 1.58 s and 31 MB in blocks of 500,000; the
# stdlib corpus 13.4 s and 40 MB, 12.6 s and 50 MB, and 16.9 s and 450 MB in one block.
# The smaller blocks keep encoding below the peak memory of training.
BLOCK = 250_000
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


def replayer(tok):
    """A function that does tok.encode(text) for a long text just as BPE.encode does it: each
    merge in turn over all of the text. Tokens are characters again, and a merge is
    str.replace: over the whole text while the pair is common, then over only the lines
    that hold both of its tokens."""
    base = {i: ch for ch, i in tok.chars.items()}  # a base token is its own character
    if spare(tok.chars) <= len(tok.vocab) - len(base):  # nearly every code point is a token:
        return tok.encode  # no characters are left to write the others with; the lesson's way needs none
    fresh = fresh_characters(tok.chars)
    char_of = [base.get(i) or next(fresh) for i in range(len(tok.vocab))]
    id_of = {ch: i for i, ch in enumerate(char_of)}
    spacer = next(fresh)  # joins lines for one replace: no pair holds it, so none is merged across
    merges = [(char_of[a] + char_of[b], char_of[new]) for (a, b), new in tok.merges]  # as characters
    # BPE.train never merges '\n', so lines can be merged apart; a hand-made merge may
    across_lines = any('\n' in pair for pair, _ in merges)

    def encode_lines(lines):
        distinct = list(dict.fromkeys(lines))  # a repeated line is merged once
        whole, done = replay_on_whole(spacer.join(distinct), merges)
        merged = dict(zip(distinct, replay_on_lines(whole.split(spacer), merges[done:], spacer)))
        return list(map(id_of.__getitem__, '\n'.join(map(merged.__getitem__, lines))))

    def replay(text):
        unknown = set(text) - tok.chars.keys()
        if unknown:  # id 0, as in BPE.encode (and an unknown '\n' is no line end)
            text = text.translate(dict.fromkeys(map(ord, unknown), char_of[0]))
        if across_lines:
            return encode_lines([text])
        ids = []
        for block in line_blocks(text, BLOCK):
            ids += encode_lines(block.split('\n'))
        return ids
    return replay


def line_blocks(text, size):
    """text cut into blocks of about size characters, each but the last ending in '\\n'."""
    start = 0
    while start < len(text):
        end = text.find('\n', start + size) + 1 or len(text)
        yield text[start:end]
        start = end


def replay_on_whole(text, merges):
    """Replace each pair in text in turn, until one occurs less than once in WHOLE_EVERY
    characters. Returns the text and how many merges were done."""
    for done, (pair, new) in enumerate(merges, 1):
        before = len(text)
        text = text.replace(pair, new)  # each occurrence makes the text one character shorter
        if (before - len(text)) * WHOLE_EVERY < before:
            return text, done
    return text, len(merges)


def replay_on_lines(lines, merges, spacer):
    """Replace each pair in turn in the lines that hold it: all such lines joined, one
    str.replace, cut apart. Where to look: {token: the lines that hold it}."""
    lines = dict(enumerate(lines))
    holders = defaultdict(set)
    for k, line in lines.items():
        for token in set(line):
            holders[token].add(k)
    for pair, new in merges:
        a, b = pair
        if a not in holders or b not in holders:
            continue
        both = holders[a] & holders[b]
        ks = list(compress(both, map(contains, map(lines.__getitem__, both), repeat(pair))))
        if not ks:
            continue
        merged = spacer.join(map(lines.__getitem__, ks)).replace(pair, new).split(spacer)
        lines.update(zip(ks, merged))
        holders[new].update(ks)
        for token in {a, b} - {new}:  # lines where every one of them was merged
            holders[token].difference_update(compress(ks, map(not_, map(contains, merged, repeat(token)))))
    return lines.values()


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
    common.add_out(parser, common.SAVED, 'where to save the tokenizer', 'a tokenizer.json')
    args = parser.parse_args()
    count = common.read_merge_count() if args.merges is None else args.merges
    common.check_output_path(args.out, 'tokenizer.json', common.json_with('vocab', 'merges'),
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
    print(f'saved {common.shown(str(args.out))}')


def save_tokenizer(tok, path):
    """Save as tokenizer.py saves: the same bytes for the same tokenizer."""
    common.save(json.dumps(common.state_of(tok), ensure_ascii=False) + '\n', path)


if __name__ == '__main__':
    common.run(main)
