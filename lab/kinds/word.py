"""Word-level BPE: merges inside words only, the classic way (Sennrich et al., 2016).

The text is cut into words at whitespace. Each word is spelled as characters, and a word
that has a single space after it gets an end marker, </w>, in place of that space; any
other whitespace (a newline, a second space) is a token of its own. So 'low lower\\n' is
l o w </w> | l o w e r | \\n, and decoding, with </w> read as a space, gives the text back
exactly. The marker also tells 'er' at the end of a word ('er</w>', as in 'lower ') from
'er' inside one ('ere').

Pairs are counted inside words, each distinct word once, weighted by how often it occurs;
no pair joins two words. On a tie the pair whose two pieces sort first wins, so two runs
learn the same merges. Training keeps the counts up to date rather than counting again: a
merge changes only the words that hold its pair, so only their pairs are taken away and
put back (as subword-nmt does); the best pair comes off a heap whose stale entries, left
by counts that changed, are skipped when they surface.
"""
import heapq
import re
from collections import Counter

from lab import common
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


class WordBPE:
    """Word-level BPE: id 0 unknown, id 1 END, then the characters, then the merges."""
    unknown_id = 0

    def __init__(self, vocab, merges):
        self.vocab, self.merges = vocab, merges
        self.vocab_size = len(vocab)
        # the base symbols only: a merge may spell out '</w>' from a text's own '<', '/', 'w', '>'
        base = vocab[:len(vocab) - len(merges)]
        self.index = {piece: i for i, piece in enumerate(base)}
        self.rank = {}
        for n, (pair, new_id) in enumerate(merges):
            self.rank.setdefault(tuple(pair), (n, new_id))  # a pair learned twice: the first takes it all
        self.spoken = [' ' if piece == END else piece for piece in base]  # END read as its space
        for (a, b), _ in merges:
            self.spoken.append(self.spoken[a] + self.spoken[b])
        self.done = {}  # word -> its ids: a word is merged once

    @classmethod
    def train(cls, text, count):
        """Merges learned inside words; ties go to the pair that sorts first."""
        vocab = [common.UNKNOWN, END] + common.base_vocabulary(text)[1:]
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
            for w in holders.pop(pair):  # only the words that hold the pair change
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
        return cls(vocab, merges)

    def encode(self, text):
        ids = []
        for word in words(text):
            if word not in self.done:
                self.done[word] = self.encode_word(word)
            ids += self.done[word]
        return ids

    def encode_word(self, word):
        """Take the word's pair learned first, again and again: for merges that train made
        (each joins tokens made before it) that is applying all of them in order, and a word
        of a few symbols meets a few merges, not thousands."""
        symbols = [self.index.get(s, 0) for s in word]
        while len(symbols) > 1:
            found = [self.rank[pair] for pair in zip(symbols, symbols[1:]) if pair in self.rank]
            if not found:
                break
            n, new_id = min(found)
            symbols = merge(symbols, self.merges[n][0], new_id)
        return symbols

    def decode(self, ids):
        """The text of ids, END read as the space it stands for (a literal '</w>' stays)."""
        return ''.join(map(self.spoken.__getitem__, common.known_ids(ids, self.vocab_size)))

    def state(self):
        return {'vocab': self.vocab, 'merges': self.merges}

    def pieces(self, text):
        """The text cut where no token may cross: its words, each with its END space."""
        return [''.join(' ' if s == END else s for s in word) for word in words(text)]


def entry(pair, n, vocab):
    """A heap entry: the most frequent pair first, then the one whose two pieces sort first."""
    return (-n, vocab[pair[0]], vocab[pair[1]], pair)

