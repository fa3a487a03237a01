"""Training: the merges BPE.train learns, found without recounting the text for each one.

What it does instead of the lesson's loop
    1. One character for every token (letters.py). A pair is a two-character string, and
       merging it in a stretch of text is new.join(text.split(pair)): str.split scans left
       to right and never overlaps, which is exactly the lesson's merge(), done in C.
    2. Distinct lines, with weights. '\\n' never merges, so lines never share a pair. Each
       distinct line is kept once and counts as often as it occurs (its weight).
    3. Units. The first merges are of pairs found all over the text: lines of one weight
       are joined into large units (about LARGE characters), so a merge is a few big
       splits. Once the best pair is rare, each line becomes a unit of its own, and a
       merge rewrites only the lines that hold the pair: those of weight 1 joined, split
       once, cut apart, and the heavier ones so too, each occurrence counted times the
       weight of its line.
    4. Counts, and where to look. Each pair has its weighted count and a list of units
       that may hold it (all that do, perhaps a few more: a pair made by a merge is
       listed in every unit that merge touched). A merge changes only the pairs beside
       each occurrence: the last character of each piece before it and the first after
       it, counted in C (Counter over map()).
    5. A pair that occurs once can never win under the lesson's rules: counts never grow
       once a pair exists (only pairs that hold the new token are new). Such pairs are not
       kept at all (least=2; tokenizers' rules merge them too, least=1).
    6. A priority queue (heapq) of (-count, a place no later than the pair's first
       occurrence, pair). An entry may promise more than its pair now has; it is put
       right when it reaches the top.
All of this between two merges is one Trainer; train() is the lesson's loop around it.

Why the results are identical
    - Counts include overlapping occurrences ('aaa' holds (a, a) twice), as the lesson's.
    - On a tie the first occurrence decides, as in the lesson. A place in the text is the
      line (numbered in order of first appearance) and the characters of text before it
      in the line: merges never move it, so a place once found stays a true lower bound
      for the pair. Units of one weight hold their lines in order, so str.find in the
      first unit that holds the pair finds its first occurrence in that weight. This is
      worked out only when two pairs tie at the top of the queue.
    - It stops when the best pair occurs fewer than 2 times, or no pair is left.
"""
from bisect import bisect_left
from collections import Counter
from heapq import heapify, heappop, heappush
from itertools import accumulate, chain, repeat
from operator import add, itemgetter, methodcaller

from lab.contract import lessons
from lab.fast.letters import fresh_characters, spare
from lab.fast.units import lines_now, numbered, units_of, weight_runs
from lab.plumbing import cli, terminal

# Units start at about LARGE characters; each line becomes a unit of its own once the best
# pair occurs less than once in LINES_EVERY characters. Listing the pairs of every line
# anew costs seconds on a large text, so it is done once. Switching at once in 180 to once
# in 12,000 characters was measured on the shared corpora and the stdlib one: once in
# about 2,000 was the fastest or within 5 % of it on all three.
LARGE, LINES_EVERY = 65536, 2000
BLOCK = 1024  # tokens summed at a time for a place in a long unit (text_before)
last_char = itemgetter(slice(-1, None))  # piece[-1:], done in C by map()
first_char = itemgetter(slice(0, 1))


def train(text, count, progress=None):
    """BPE.train(text, count), fast. text may also be a list of documents, which no merge joins
    (as if each stood on lines of its own). progress(done, count) is called after each merge."""
    if isinstance(text, str):
        base, lines = lessons.base_vocabulary(text), Counter(text.split('\n'))
    else:
        base = lessons.base_vocabulary(''.join(text))
        lines = Counter(line for doc in text for line in doc.split('\n'))
    vocab, merges = learn(lines, dict(zip(base, base)), count, progress=progress)
    return lessons.lesson_bpe(vocab, merges)


def learn(lines, base, count, tie='first', progress=None, least=2):
    """(vocab, merges) as BPE keeps them: up to count merges learned with the lesson's rules over
    lines, a dict of each distinct line (no '\n' in it) and how often it occurs, in order of
    first appearance. Any way of cutting a text into pieces that merges stay inside comes down
    to such lines (lab/kinds). base maps each character to its text in the vocabulary, in id
    order. tie: 'first', the pair whose first occurrence comes first wins a tie, as in the
    lesson; 'sorted', the pair whose two texts sort first (then the smaller ids); 'ids', the
    pair of smaller ids (the first id, then the second), as the tokenizers library breaks them.
    least: the fewest occurrences of a pair worth a merge (2 in the lesson, 1 in tokenizers)."""
    if not count:
        return list(base.values()), []  # the base alone: no pairs to count
    used = set(base) | {'\n'}
    if spare(used) <= count:  # a spacer and a character for each new token: too few left
        raise ValueError(cli.message('training.no_code_points', used=f'{len(used):,}',
                                     free=f'{spare(used):,}', most=f'{max(spare(used) - 1, 0):,}'))
    trainer = Trainer(lines, base, tie, least)
    while len(trainer.merges) < count:
        pair = trainer.choose()
        if pair is None:
            break  # no pair is left that occurs least times
        trainer.merge(pair)
        if progress:
            progress(len(trainer.merges), count)
    return trainer.vocab, trainer.merges


def count_pairs(units, run_of, least=2):
    """{pair: weighted count} and {pair: the units that hold it}, for pairs that
    occur least times or more."""
    counts, where = {}, {}
    for k, unit in enumerate(units):
        weight = run_of[k][2]
        for pair, n in Counter(map(add, unit, unit[1:])).items():
            if pair in counts:
                counts[pair] += n * weight
                where[pair].append(k)
            else:
                counts[pair], where[pair] = n * weight, [k]
    # '\n' never merges
    for pair in [pair for pair, n in counts.items() if n < least or '\n' in pair]:
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


def weighted(occurrences):
    """A Counter of keys from (key, weight) pairs, one for each occurrence: each key counted
    weight times (the pairs counted in C, then each distinct one multiplied)."""
    total = Counter()
    for (key, weight), n in Counter(occurrences).items():
        total[key] += n * weight
    return total


class Trainer:
    """The text and its pairs between two merges: the units, each pair's count and the units
    that may hold it, the queue of pairs by count, and what has been learned (vocab, merges).
    choose() finds the next pair by the rules; merge(pair) makes it one token everywhere and
    puts the counts right."""

    def __init__(self, lines, base, tie='first', least=2):
        self.vocab, self.merges, self.least = list(base.values()), [], least
        self.id_of = {ch: i for i, ch in enumerate(base)}
        used = set(base) | {'\n'}
        self.fresh = fresh_characters(used)
        # joins the units of one weight for a merge: no pair holds it
        self.spacer = next(self.fresh)
        self.width = dict.fromkeys(used, 1)  # characters of text in each token
        self.by_text, self.by_ids = tie == 'sorted', tie == 'ids'
        # what tokenizers checks a new token against
        self.texts = set(self.vocab) if self.by_ids else None
        self.lines_from = sum((len(line) + 1) * weight
                              for line, weight in lines.items()) // LINES_EVERY
        lines = numbered(lines)
        # a place in the text as one number, line * stride + characters before it in the line,
        # for a heap that compares numbers rather than tuples
        self.stride = 1 + max((len(line) for _, line, _ in lines), default=0)
        self.units, self.numbers, self.run_of = units_of(lines, LARGE)
        del lines  # the units hold them now: a few MB less at peak
        self.first_line = [unit_lines[0] for unit_lines in self.numbers]
        # where: may hold the pair
        self.counts, self.where = count_pairs(self.units, self.run_of, least)
        self.large_units = True
        self.heap = [(-n, self.tie_key(pair, self.where[pair]), pair)
                     for pair, n in self.counts.items()]
        heapify(self.heap)
        # pair -> (-count, first occurrence) when it was last worked out: a pair never gains an
        # occurrence, so while its count stays the same, so does its first occurrence
        self.worked_out = {}
        self.block_sums = {}  # unit -> widths added up block by block, until the next merge

    def tie_key(self, pair, ks):
        """What decides between pairs of one count: their two ids, the texts of the two tokens
        (then their ids) when sorting by text, else a place no later than the pair's first
        occurrence."""
        if not (self.by_ids or self.by_text):
            return self.first_place(ks)
        a, b = self.id_of[pair[0]], self.id_of[pair[1]]
        if self.by_ids:
            return a << 32 | b  # (a, b) as one number: ids stay far below 2**32
        return self.vocab[a], self.vocab[b], a, b

    def first_place(self, ks):
        """A place no later than anything in units ks: the start of the first line among them."""
        return min(map(self.first_line.__getitem__, ks)) * self.stride

    def choose(self):
        """The most frequent pair; on a tie, the one whose first occurrence comes first (or whose
        texts sort first). None when no pair is left."""
        heap = self.heap
        # each pair's key is known and never changes: the top entry wins
        if self.by_text or self.by_ids:
            return heappop(heap)[2] if self.top() else None
        while self.top():
            n, bound, pair = heappop(heap)
            rival = self.top()
            if rival is None or rival[0] > n:
                return pair  # no other pair has its count
            if self.worked_out.get(pair) == (n, bound):
                # bound is its first occurrence (below), and every other bound is no earlier
                return pair
            first = self.first_occurrence(pair)
            self.worked_out[pair] = (n, first)
            if first == bound or first < rival[1]:
                return pair  # every other bound is no earlier, and no two pairs start at one place
            heappush(heap, (n, first, pair))  # its bound was too early: back in its place
        return None

    def top(self):
        """The first heap entry whose count is up to date, left on the heap; None if none is."""
        heap, counts = self.heap, self.counts
        while heap:
            n, bound, pair = heap[0]
            if counts.get(pair) == -n:
                return heap[0]
            heappop(heap)  # merged already, or its count fell: put it right
            if pair in counts:
                heappush(heap, (-counts[pair], bound, pair))
        return None

    def first_occurrence(self, pair):
        """Where pair occurs first now: line number * stride + characters of the line before it."""
        ks, units, first, gone = self.where[pair], self.units, None, 0
        for i, j, _ in weight_runs(ks, self.run_of):  # units of one weight are in line order
            m = next((m for m in range(i, j) if pair in units[ks[m]]), j)
            if i == 0:
                gone = m  # units before the first that holds it: gone from a unit, gone for good
            if m < j:
                unit = units[ks[m]]
                at = unit.find(pair)
                start = unit.rfind('\n', 0, at) + 1
                line = self.numbers[ks[m]][unit.count('\n', 0, start)]
                key = line * self.stride + self.text_between(ks[m], start, at)
                first = key if first is None else min(first, key)
        if gone:
            self.where[pair] = ks[gone:]
        return first

    def text_between(self, k, start, at):
        """Characters of text in units[k][start:at]: the widths of its tokens added up, from the
        block sums (text_before) when the stretch is long."""
        if at - start < 2 * BLOCK:  # a line of a book, say: quicker added up than looked up
            return sum(map(self.width.__getitem__, self.units[k][start:at]))
        return self.text_before(k, at) - self.text_before(k, start)

    def text_before(self, k, at):
        """Characters of text in units[k][:at]. The sums of whole blocks of BLOCK tokens are
        kept until the next merge, so that the places of many pairs in one long line are not
        each added up from its start: ties between pairs of one count may ask for hundreds
        between two merges."""
        unit, width, block = self.units[k], self.width.__getitem__, at // BLOCK
        sums = self.block_sums.setdefault(k, [0])  # sums[j]: the text of the first j blocks
        while len(sums) <= block:
            done = (len(sums) - 1) * BLOCK
            sums.append(sums[-1] + sum(map(width, unit[done:done + BLOCK])))
        return sums[block] + sum(map(width, unit[block * BLOCK:at]))

    def merge(self, pair):
        """Make pair one new token everywhere and put the counts right. Returns its character."""
        self.block_sums = {}  # the units change
        n_best = self.counts.pop(pair)
        new, (a, b) = next(self.fresh), pair
        self.width[new] = self.width[a] + self.width[b]
        self.id_of[new] = len(self.vocab)
        self.vocab.append(self.vocab[self.id_of[a]] + self.vocab[self.id_of[b]])
        if self.by_ids:
            self.refuse_twice(self.vocab[-1])
        self.merges.append([[self.id_of[a], self.id_of[b]], self.id_of[new]])
        before, after, touching, holders = self.merge_everywhere(pair, new)
        # x a b y became x new y: (x, a) and (b, y) lost, (x, new) and (new, y) made
        self.forget((x + a, n) for x, n in before.items())
        self.forget((b + y, n) for y, n in after.items())
        least = self.least  # the lesson's: a pair seen once can never win
        made = {x + new: n for x, n in before.items() if n >= least}
        made.update({new + y: n for y, n in after.items() if n >= least})
        if touching:  # a b a b became new new: (b, a) lost, (new, new) made
            self.forget([(b + a, touching)])
            if touching >= least:
                made[new + new] = touching
        if made:
            self.counts.update(made)
            # shared: lists are replaced, never changed
            self.where.update(dict.fromkeys(made, holders))
            fixed = self.by_text or self.by_ids
            bound = None if fixed else self.first_place(holders)
            for fresh_pair, n in made.items():
                key = self.tie_key(fresh_pair, holders) if fixed else bound
                heappush(self.heap, (-n, key, fresh_pair))
        if self.large_units and n_best < self.lines_from:  # from here on pairs are rare
            self.cut_into_lines()
        return new

    def merge_everywhere(self, pair, new):
        """Merge pair into the character new in every unit that holds it. Returns the
        weighted counts of the characters before and after the occurrences, how often one
        occurrence directly follows another, and the units that now hold new."""
        run_of = self.run_of
        ks = [k for k in self.where.pop(pair) if pair in self.units[k]]
        # units are numbered by weight, the lightest first (units_of), and ks is in that order:
        # those of weight 1 (most lines of a text) come first and are counted as they are, the
        # others each occurrence times its unit's weight
        end_of_ones = bisect_left(ks, run_of[0][1] if run_of and run_of[0][2] == 1 else 0)
        before, after, touching = self.merge_in(ks[:end_of_ones], pair, new)
        if end_of_ones < len(ks):
            heavier = ks[end_of_ones:]
            more = self.merge_in(heavier, pair, new, [run_of[k][2] for k in heavier])
            before.update(more[0])
            after.update(more[1])
            touching += more[2]
        for edge in ('\n', self.spacer, ''):  # line ends, unit ends: no pair there
            before.pop(edge, None)
            after.pop(edge, None)
        return before, after, touching, ks

    def merge_in(self, ks, pair, new, weights=None):
        """Merge pair into new in the units ks. Returns the counts of the characters before and
        after the occurrences, and how often one directly follows another, each occurrence
        counted times the weight of its unit in weights (None: once)."""
        units, spacer = self.units, self.spacer
        if not ks:  # joined, no lines would read as one empty line that starts with the pair
            return Counter(), Counter(), 0
        if self.large_units:  # a few large units: split each
            split_up = [units[k].split(pair) for k in ks]
            for k, pieces in zip(ks, split_up):
                units[k] = new.join(pieces)
            lasts = chain.from_iterable(map(last_char, pieces[:-1]) for pieces in split_up)
            firsts = chain.from_iterable(map(first_char, pieces[1:]) for pieces in split_up)
            # the unit of each occurrence
            unit_of = chain.from_iterable(repeat(n, len(pieces) - 1)
                                          for n, pieces in enumerate(split_up))
            starting = [n for n, pieces in enumerate(split_up) if pieces[0] == '']
        else:  # many short lines: one split for all of them, then cut them apart again
            pieces = spacer.join([units[k] for k in ks]).split(pair)
            for k, unit in zip(ks, new.join(pieces).split(spacer)):
                units[k] = unit
            lasts, firsts = map(last_char, pieces[:-1]), map(first_char, pieces[1:])
            # the line of each occurrence: the spacers before it
            unit_of = accumulate(map(methodcaller('count', spacer), pieces[:-1]))
            starting = [0] if pieces[0] == '' else []
        if weights is None:
            before, after, starts = Counter(lasts), Counter(firsts), len(starting)
        else:
            each = list(map(weights.__getitem__, unit_of))
            before, after = weighted(zip(lasts, each)), weighted(zip(firsts, each))
            starts = sum(map(weights.__getitem__, starting))
        # '' before an occurrence: it directly follows another one, or it starts a unit
        return before, after, before.pop('', 0) - starts

    def refuse_twice(self, text):
        """A ValueError when a merge makes a token that is already in the vocabulary. tokenizers
        gives such a merge the id the token has; a tokenizer here gives every merge an id of its
        own. It has not been seen on real text or in the fuzz tests, so it is said, not hidden."""
        if text in self.texts:
            raise ValueError(cli.message('training.made_again', n=f'{len(self.merges) + 1:,}',
                                         piece=terminal.clip(repr(text), 30)))
        self.texts.add(text)

    def forget(self, lost):
        """Take (pair, occurrences) off the counts; a pair left with fewer than least goes."""
        counts, where, least = self.counts, self.where, self.least
        for old, n in lost:
            left = counts.get(old, 0) - n
            if left >= least:
                counts[old] = left
            elif old in counts:
                del counts[old], where[old]

    def cut_into_lines(self):
        """A line to a unit from now on: a merge then rewrites only the lines that hold its pair."""
        lines = lines_now(self.units, self.numbers, self.run_of)
        self.units, self.numbers, self.run_of = units_of(lines, 0)
        self.first_line = [unit_lines[0] for unit_lines in self.numbers]
        self.where = where_pairs_are(self.units, self.counts)
        self.large_units = False
