"""Encoding: the ids BPE.encode gives, for a line or for a book.

Two ways, each right where the other is slow
    - A long text is encoded just as BPE.encode does it, merge after merge, but in C:
      tokens are characters again (letters.py) and a merge is str.replace, over the whole
      text while the pair is common, then over only the lines that hold both of its
      tokens, joined for one replace. Each distinct line is merged once.
    - That costs some milliseconds a call, so a short text goes line by line: a merge can
      only use tokens made before it, so merging the neighbouring pair learned first,
      again and again (leftmost on a tie), gives the same ids. Each line keeps a heap of
      (rank, node).
A text of PARALLEL_FROM characters or more is cut into blocks of lines, encoded in one
process per idle core (idle_cores).
"""
import os
import signal
import threading
from array import array
from collections import defaultdict
from heapq import heapify, heappop, heappush
from itertools import chain, compress, repeat
from operator import contains, not_

from lab.contract import lessons
from lab.fast.letters import fresh_characters, spare
from lab.plumbing import cli, processes

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
# Lines an encoder keeps encoded, so that a line met again costs nothing; past this many it
# forgets them all and starts again, so that encoding text after text never grows without end
# (100,000 lines of 100 characters held about 100 MB). A book has far fewer distinct lines.
REMEMBERED = 50_000
# Tokens in a line from which encode_line keeps its links in arrays: slower to index than lists
# on the short lines of a book (Swann's Way: 1.03 s against 0.80 s), faster and a third of the
# memory on one line of 400,000 bytes (0.38 s against 0.58 s; 15 MB against 48 MB).
LONG_LINE = 1000


def idle_cores():
    """How many processes pay off now: one per core that other work leaves idle (the load
    average of the last minute), at least one. On 2 cores, 4 MB took 2.8 s in two processes and
    4.3 s in one when idle, but 13.4 s in two and 10.1 s in one beside a load of 5."""
    cores = os.cpu_count() or 1
    try:
        busy = round(os.getloadavg()[0])
    except (AttributeError, OSError):  # Windows has no load average
        busy = 0
    return max(1, min(cores, cores - busy + 1))  # this process's own share of the load is its own


def jobs_for(size, least, jobs=None):
    """(whether jobs were given, how many processes to work in): one for work of fewer than
    least characters, which is not worth a process (and then idle_cores, which reads two files a
    call, is not asked); else jobs, or one per idle core."""
    if size < least:
        return jobs is not None, 1
    return jobs is not None, idle_cores() if jobs is None else jobs


def encode(tok, text, jobs=None):
    """tok.encode(text), fast: the same ids. jobs: processes, one per idle core unless given (a
    text under PARALLEL_FROM characters stays in this one). With jobs > 1, blocks of lines are
    encoded in that many processes at once (multiprocessing): worth it for megabytes of text."""
    asked, jobs = jobs_for(len(text), PARALLEL_FROM, jobs)
    if jobs <= 1 or '\n' not in tok.chars or not made_as_train_makes(tok):
        return encoder(tok)(text)
    # four blocks a process, so that none waits long for the last
    size = -(-len(text) // (jobs * 4))
    blocks = line_blocks(text, size)
    encoded = in_processes_or_here(start_worker, lessons.state_of(tok), encode_in_worker, blocks,
                                   jobs, asked,
                                   lambda: [encoder(tok)(text)])
    # each block but the last ends in '\n', and holds its id
    return list(chain.from_iterable(encoded))


def in_processes(start, state, work, blocks, jobs):
    """[work(block) for block in blocks], in jobs processes, each made ready once by start(state)
    (start and work are functions of a module, so that each process can find them), process n
    given every jobs-th block from the nth, its answers sent back block by block on a pipe.

    A process that dies (the kernel kills one that takes too much memory) ends it at once with
    a ValueError: its pipe closes before it sent all it owes. Ctrl-C, SIGTERM or any error here
    kills every process before it goes on, and a process whose parent is killed ends too. The
    processes ignore Ctrl-C themselves: the terminal sends it to all of them, and this one says
    it once.

    A process forked while another thread holds a lock (of an import, of a stream) waits for it
    for ever, so with other threads running the processes start afresh ('spawn'): a script that
    calls this from a thread then needs its if __name__ == '__main__', as multiprocessing says."""
    # here, not above: most runs never start a process, and start faster without it
    import multiprocessing
    from multiprocessing.connection import wait
    alone = threading.active_count() == 1
    how = 'fork' if alone and 'fork' in multiprocessing.get_all_start_methods() else 'spawn'
    context, blocks = multiprocessing.get_context(how), list(blocks)
    found, owed, started = [None] * len(blocks), {}, []
    try:
        try:
            for n in range(min(jobs, len(blocks))):
                # spawn pickles its own only
                share = [(k, blocks[k]) for k in range(n, len(blocks), jobs)]
                answers, sender = context.Pipe(duplex=False)
                args = (start, state, os.getpid(), work, share, sender)
                started.append(start_process(context, serve, args))
                sender.close()  # the process holds it now: its end closes the pipe
                owed[answers] = len(share)
        except OSError as e:
            # no more processes allowed (ulimit -u), no memory, no /dev/shm to share
            raise NoProcesses(cli.message('encoding.no_processes', jobs=jobs,
                                          why=cli.os_error(e))) from None
        while owed:
            for answers in wait(list(owed), timeout=0.2):  # in short turns: Ctrl-C or SIGTERM that
                try:  # another thread of this process received is handled between them
                    k, value, error = answers.recv()
                except EOFError:  # it ended without sending all it owed: killed
                    raise ValueError(cli.message('encoding.died', jobs=jobs)) from None
                if error is not None:
                    raise error
                found[k] = value
                owed[answers] -= 1
                if not owed[answers]:
                    del owed[answers]
                    answers.close()
        return found
    finally:
        for process in started:
            process.kill()
            process.join()
        for answers in owed:
            answers.close()


def start_process(context, target, args):
    """A process of context (fork or spawn) running target(*args), started; daemonic, so that
    multiprocessing ends it too if this process exits some way the caller did not see."""
    process = context.Process(target=target, args=args, daemon=True)
    process.start()
    return process


def serve(start, state, parent, work, share, sender):
    """In each process: made ready (ready), then work(block) for each (k, block) of its share,
    each sent as (k, what it gave, None), or (k, None, the error it raised), which ends it."""
    ready(start, state, parent)
    for k, block in share:
        try:
            sender.send((k, work(block), None))
        except Exception as e:  # said by the parent, as if raised there
            try:
                sender.send((k, None, e))
            except Exception:  # an error pickle cannot carry: said by its name and words
                sender.send((k, None, RuntimeError(repr(e))))
            break
    sender.close()


class NoProcesses(ValueError):
    """The processes to encode with could not be started: said when --jobs asked for them; when
    the number was this module's choice, the text is encoded in this process instead."""


def in_processes_or_here(start, state, work, blocks, jobs, asked, here):
    """in_processes, or here() when the processes cannot start and jobs was not asked for."""
    try:
        return in_processes(start, state, work, blocks, jobs)
    except NoProcesses:
        if asked:
            raise
        return here()


def ready(start, state, parent):
    """In each process of the pool: Ctrl-C left to the parent, an end with it however it ends
    (killed for its memory, a worker would otherwise wait for ever to write what it encoded),
    then start(state)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    processes.die_with_parent(parent)
    start(state)


def encoder(tok):
    """A function that does tok.encode(text), fast: to encode many texts with one tokenizer."""
    size = len(tok.vocab)
    if not all(type(i) is int and 0 <= i < size for pair, new in tok.merges for i in (*pair, new)):
        # a hand-made merge with an id that is no place in vocab (-1, NaN): as it says
        return tok.encode
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
            # no characters left to replay with (nearly every code point a token): the lesson's own
            # loop, O(text x merges), only where it must be; else line by line, which needs none
            if replay is not tok.encode or not in_order:
                return replay(text)
        ids = []
        for n, line in enumerate(text.split('\n') if newline else [text]):
            if line not in done:
                if len(done) >= REMEMBERED:
                    done.clear()
                done[line] = encode_line([tok.chars.get(ch, 0) for ch in line], ranks, made, size)
            if n:
                ids += newline
            ids += done[line]
        return ids
    encode_text.remembered = done  # to see how much it holds
    return encode_text


def made_as_train_makes(tok):
    """True if each merge joins tokens that exist before it into a token never seen before,
    and none joins '\\n', as in every tokenizer BPE.train makes. Then no merge can make a pair
    of an earlier merge, and merging the pair learned first, again and again, is the same as
    replaying the merges in order. A hand-made tokenizer may break this: it is replayed."""
    known = set(tok.chars.values()) | {0}
    known.discard(tok.chars.get('\n'))
    for (a, b), new in tok.merges:
        if a not in known or b not in known or new in known or type(new) is not int or new < 0:
            return False  # a new id of -1 or NaN (JSON allows it) is no id train makes
        known.add(new)
    return True


worker_encode = None  # in each process of the pool: the encoder, set by start_worker


def start_worker(state):
    """In each process of the pool: the encoder, built once."""
    global worker_encode
    worker_encode = encoder(lessons.lesson_bpe(**state))


def encode_in_worker(block):
    return worker_encode(block)


# Line by line ------------------------------------------------------------------------

def encode_line(ids, ranks, made, size):
    """Merge the pair learned first, leftmost first, until no learned pair is left. A heap entry
    is rank * n + node, one int in the order of (rank, node) without a tuple for each; a long
    line keeps its links in arrays, 8 bytes a node where a list holds an int object of 32."""
    n = len(ids)
    nxt, prv = range(1, n + 1), range(-1, n - 1)
    nxt, prv = (array('q', nxt), array('q', prv)) if n > LONG_LINE else (list(nxt), list(prv))
    if n:
        nxt[-1] = -1
    heap = [ranks[p] * n + i
            for i, p in enumerate(a * size + b for a, b in zip(ids, ids[1:])) if p in ranks]
    heapify(heap)
    while heap:
        rank, i = divmod(heappop(heap), n)
        j = nxt[i]
        if ids[i] < 0 or j < 0 or ranks.get(ids[i] * size + ids[j]) != rank:
            continue  # this node has merged since the entry was pushed
        new, k, h = made[rank], nxt[j], prv[i]
        ids[i], ids[j], nxt[i] = new, -1, k
        if k >= 0:
            prv[k] = i
            if new * size + ids[k] in ranks:
                heappush(heap, ranks[new * size + ids[k]] * n + i)
        if h >= 0 and ids[h] * size + new in ranks:
            heappush(heap, ranks[ids[h] * size + new] * n + h)
    return [t for t in ids if t >= 0]


# Merge after merge, as BPE.encode ------------------------------------------------------

def replayer(tok):
    """A function that does tok.encode(text) for a long text just as BPE.encode does it: each
    merge in turn over all of the text. Tokens are characters again, and a merge is
    str.replace: over the whole text while the pair is common, then over only the lines
    that hold both of its tokens."""
    base = {i: ch for ch, i in tok.chars.items()}  # a base token is its own character
    if spare(tok.chars) <= len(tok.vocab) - len(base):  # nearly every code point is a token:
        # no characters are left to write the others with; the lesson's way needs none
        return tok.encode
    fresh = fresh_characters(tok.chars)
    char_of = [base.get(i) or next(fresh) for i in range(len(tok.vocab))]
    id_of = {ch: i for i, ch in enumerate(char_of)}
    spacer = next(fresh)  # joins lines for one replace: no pair holds it, so none is merged across
    # as characters
    merges = [(char_of[a] + char_of[b], char_of[new]) for (a, b), new in tok.merges]
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
            gone = map(not_, map(contains, merged, repeat(token)))
            holders[token].difference_update(compress(ks, gone))
    return lines.values()
