"""The text as the trainer holds it (lab/fast/training.py): each distinct line once, with its
weight (how often it occurs), numbered in order of first appearance, and lines of one weight
joined into units, a stretch of unit numbers to a weight."""
from bisect import bisect_left
from collections import Counter
from itertools import groupby
from operator import itemgetter


def weighted_lines(pieces):
    """What learn() takes for a text cut into pieces: each piece cut again at '\\n' (never
    merged), each distinct line with how often it occurs, in order of first appearance."""
    lines = Counter()
    for piece, n in Counter(pieces).items():
        for line in piece.split('\n'):
            lines[line] += n
    return lines


def numbered(lines):
    """(line number, line, weight) for each distinct line of two characters or more (a shorter
    one holds no pair), numbered in order of first appearance."""
    return [(number, line, weight)
            for number, (line, weight) in enumerate(lines.items()) if len(line) >= 2]


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
