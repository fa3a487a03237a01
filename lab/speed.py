"""How fast lab.fast_bpe is beside the Rust trainer, and how it grows: a benchmark.

    python3 -m lab.speed [FILE ...] [--merges N] [--jobs N] [--lesson-merges K] [--kinds]

For each file, every figure measured in a Python process of its own, so that one run's
memory never counts against the next:
  - lab.fast_bpe: the time to learn N merges (default 10,000), to encode the whole file
    with them, in one process and in --jobs processes, and the peak memory, also per
    character of text;
  - the Hugging Face tokenizers library (Rust), when it is installed, on the same file:
    each line a word (the lesson never merges across '\\n'), the same number of merges
    asked, encode_batch of the lines; and our time and memory over theirs;
  - the first quarter, the first half and the whole file: if time and memory double
    with the text, they grow linearly;
  - the lesson's own BPE.train on K merges (default 20) of the first 200,000
    characters, next to fast_bpe on the same: the reason fast_bpe exists;
  - the course's next-step tokenizer (byte-level, tokenizers' rules, <eos>, 4,096 ids,
    the paragraphs as documents), trained and encoded here (lab.fast_bpe --rules
    tokenizers, then every document as lab.prepare encodes them) and by tokenizers
    (train_from_iterator, encode_batch), with the peak memory of each.
Times are wall-clock and vary from run to run: compare ratios, and run it twice.

With --kinds, every tokenizer kind instead (lab/kinds/: char, word, piece, byte, special) on
each file: the time to train N merges and to encode the file, and the peak memory for each
byte of text, beside what the labs assume (reading.MEMORY_PER_TEXT_BYTE) when they refuse a
text too large for the memory. A text without spaces (Chinese, Japanese, a long run of
letters) is the hard case: a word or a piece is then a whole line.

A large text that is already on every machine: the Python standard library's source.
    python3 -m lab.speed --make-corpus stdlib.txt    (about 12 MB)

Try next: python3 -m lab.speed ../my-book.txt --merges 5000 --jobs 2
"""
import argparse
import functools
import json
import os
import sys
from importlib import metadata
from pathlib import Path

if not __package__:  # run as python3 lab/speed.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.speed')

from lab import fast, kinds
from lab.contract import checks, lessons
from lab.fast.encoding import NoProcesses
from lab.kinds.texts import documents
from lab.plumbing import cli, corpus, locations, measures, processes, reading, terminal
from lab.plumbing.timing import peak_mb, seconds
from tokenizer import BPE

LESSON_CHARS = 200_000  # the lesson's trainer needs about a second a merge for this much text
MEASURABLE_FROM = 100_000  # characters: on less, timings are mostly the cost of starting
# seconds one measurement may take before it is stopped: Swann's Way (1 MB, 10,000 merges)
# takes about 2 s to train; an hour is room for a text a thousand times larger
CHILD_SECONDS = 3600
# starts a child's answer, so that a print in tokenizer.py is never read as one
ANSWER = '@@lab.speed '
COURSE_IDS = 4096  # the course's next step: a byte-level tokenizer of 4,096 ids, <eos> among them


def measure_ours(path, merges, part, jobs):
    text = measures.first_part(reading.read_text(path), part)
    tok, train_s = seconds(fast.train, text, merges)
    ids, encode_s = seconds(fast.encode, tok, text, 1)  # one process: --jobs below
    peak = peak_mb()  # before the parallel run, whose processes are not counted here
    if tok.decode(ids) != text:
        raise ValueError(cli.message('speed.not_back', path=path))
    figures = {'chars': len(text), 'merges': len(tok.merges), 'train': train_s, 'encode': encode_s,
               'peak': peak}
    asked, jobs = jobs is not None, jobs or cores()
    if jobs > 1:
        try:
            again, figures['parallel'] = seconds(fast.encode, tok, text, jobs)
        except NoProcesses as e:
            # no /dev/shm in a container, a limit of processes: said, not fatal
            if asked:
                raise
            # said by the parent, which prints what a child measured
            figures['no_parallel'] = str(e)
            return figures
        if again != ids:
            raise ValueError(cli.message('speed.other_ids', path=path, jobs=jobs))
    return figures


def cores():
    """The processes to encode with when --jobs does not say: one per core."""
    return os.cpu_count() or 1


def measure_kind(path, kind, merges):
    """One kind on the whole text: train, encode, the peak memory of this process, and what
    it had before the text was read (Python and the labs: some 30 MB, whatever the text)."""
    start = peak_mb()
    text = reading.read_text(path)
    tok, train_s = seconds(kinds.KINDS[kind].train, text, merges)
    ids, encode_s = seconds(kinds.plain(tok), text)
    if tok.decode(ids) != text and tok.kind in ('byte', 'special'):  # the others may lose unknowns
        raise ValueError(cli.message('speed.not_back_kind', path=path, kind=kind))
    return {'bytes': len(text.encode('utf-8', 'surrogatepass')), 'ids': tok.vocab_size,
            'train': train_s, 'encode': encode_s, 'peak': peak_mb(), 'start': start}


def measure_theirs(path, merges, part):
    """The tokenizers library on the same text: lines as words, the same merges asked."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    text = measures.first_part(reading.read_text(path), part)
    alphabet = lessons.base_vocabulary(text)[1:]
    tok = Tokenizer(models.BPE(unk_token=checks.UNKNOWN))
    tok.pre_tokenizer = pre_tokenizers.Split('\n', behavior='isolated')
    trainer = trainers.BpeTrainer(vocab_size=1 + len(alphabet) + merges, min_frequency=2,
                                  show_progress=False,
                                  special_tokens=[checks.UNKNOWN], initial_alphabet=alphabet,
                                  limit_alphabet=len(alphabet) + 1)
    _, train_s = seconds(tok.train_from_iterator, [text], trainer)
    _, encode_s = seconds(tok.encode_batch, text.split('\n'))
    return {'train': train_s, 'encode': encode_s, 'peak': peak_mb()}


def measure_course(path, who):
    """The course's tokenizer trained on the paragraphs of path, every one encoded, here
    (who='ours') or by tokenizers ('theirs'); peak memory: this process's and its largest child's
    (RUSAGE_CHILDREN)."""
    docs, _ = documents(reading.read_text(path), 'paragraphs')
    if who == 'ours':
        tok, train_s = seconds(functools.partial(kinds.KINDS['byte'].train, docs,
                                                 vocab_size=COURSE_IDS,
                                                 special=['<eos>'], rules='tokenizers'))
        _, encode_s = seconds(kinds.encode_documents, tok, docs, 0, 'H')
    else:
        # (no decoder: nothing is decoded)
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers
        tok = Tokenizer(models.BPE(unk_token=None))
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        trainer = trainers.BpeTrainer(vocab_size=COURSE_IDS, special_tokens=['<eos>'],
                                      show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        _, train_s = seconds(tok.train_from_iterator, docs, trainer)
        _, encode_s = seconds(tok.encode_batch, docs)
    children = peak_mb(children=True) or 0  # the largest of its children, the encoding's
    peak = peak_mb()
    return {'train': train_s, 'encode': encode_s, 'peak': peak and peak + children}


def measure_lesson(path, merges):
    text = reading.read_text(path)[:LESSON_CHARS]
    _, lesson_s = seconds(BPE.train, text, merges)
    _, fast_s = seconds(fast.train, text, merges)
    return {'lesson': lesson_s, 'fast': fast_s}


def in_fresh_python(*args):
    """Run this lab with args in a fresh Python: its figures, as a dict."""
    # the child speaks the language this process speaks
    argv = [sys.executable, '-m', 'lab.speed', *map(str, args), '--lang', cli.language()]
    code, out, err = processes.run_bounded(argv, locations.ROOT, CHILD_SECONDS)
    if code:  # the child's own message, said once: each of its lines, a wrapped one joined again
        said = []
        for line in err.strip().splitlines():
            if line.startswith('lab.speed: '):
                said.append(line.removeprefix('lab.speed: '))
            elif said and line.startswith('  '):
                said[-1] += ' ' + line.strip()
        raise cli.Said(said or [(err.strip().splitlines() or ['a child failed'])[-1]])
    return figures_in(out)


def figures_in(out):
    """The figures a child printed: the marked line, printed last (a print in tokenizer.py is not
    it, and one without a newline may stand before it)."""
    answers = [line[line.index(ANSWER) + len(ANSWER):] for line in out.splitlines()
               if ANSWER in line]
    if not answers:
        raise ValueError(cli.message('speed.no_figures', out=repr(terminal.clip(out, 40))))
    return json.loads(answers[-1])


def has_tokenizers():
    """The version of the tokenizers package, or None when it is not installed (not imported:
    this process stays small, see main)."""
    try:
        return metadata.version('tokenizers')
    except metadata.PackageNotFoundError:
        return None


def report_course(results, theirs_version):
    """The course's tokenizer, here and in tokenizers: a row each, and ours over theirs."""
    say = cli.message
    rows = [[say(f'speed.{column}')
             for column in ['file', 'trained_by', 'train_s', 'encode_s', 'peak_mb']]]
    for name, r in results:
        ours, theirs = r['course'], r.get('course theirs')
        figures = [f"{ours['train']:.2f}", f"{ours['encode']:.2f}", mb(ours['peak'])]
        rows.append([name, say('speed.this_project'), *figures])
        if theirs:
            figures = [f"{theirs['train']:.2f}", f"{theirs['encode']:.2f}", mb(theirs['peak'])]
            rows.append(['', 'tokenizers', *figures])
            over = [f"{ours[k] / theirs[k]:.2f}" if ours[k] and theirs[k] else '-'
                    for k in ('train', 'encode', 'peak')]
            rows.append(['', say('speed.ours_theirs'), *over])
    print('\n' + terminal.fill(say('speed.course', ids=f'{COURSE_IDS:,}')) + '\n')
    print(terminal.table(rows, right=range(2, 5)))
    if not theirs_version:
        print(say('speed.install_course'))


def report(results, merges, jobs, lesson_merges, theirs_version):
    say = cli.message
    keys = ['file', 'train_s', 'encode_s', 'peak_mb']
    file, train_s, encode_s, peak = (say('speed.' + key) for key in keys)
    ours = [[file, say('speed.chars'), say('speed.merges'), train_s, encode_s,
             say('speed.jobs_s', jobs=jobs),
             peak, 'B/char']]
    versus = [[file, train_s, encode_s, peak, say('speed.train'), say('speed.encode'),
               say('speed.memory')]]
    growth = [[file, '1/4 s', '1/2 s', say('speed.all_s'), '1/4 MB', '1/2 MB', say('speed.all_mb'),
               say('speed.time_x'), say('speed.mem_x')]]
    lesson = [[file, say('speed.lesson_s', n=lesson_merges), say('speed.fast_s', n=lesson_merges),
               say('speed.fast_is')]]
    for name, r in results:
        whole = r['ours'][-1]
        ours.append([name, f"{whole['chars']:,}", f"{whole['merges']:,}", f"{whole['train']:.2f}",
                     f"{whole['encode']:.2f}",
                     f"{whole['parallel']:.2f}" if 'parallel' in whole else '-',
                     mb(whole['peak']),
                     f"{whole['peak'] * 2**20 / whole['chars']:.0f}" if whole['peak'] else '-'])
        theirs = r.get('theirs')
        if theirs:
            versus.append([name, f"{theirs['train']:.2f}", f"{theirs['encode']:.2f}",
                           mb(theirs['peak']),
                           f"{whole['train'] / theirs['train']:.2f}",
                           f"{whole['encode'] / theirs['encode']:.2f}",
                           f"{whole['peak'] / theirs['peak']:.2f}" if theirs['peak'] else '-'])
        quarter = r['ours'][0]
        growth.append([name] + [f"{p['train']:.2f}" for p in r['ours']]
                      + [mb(p['peak']) for p in r['ours']]
                      + [f"{whole['train'] / max(quarter['train'], 1e-9):.1f}",
                         f"{whole['peak'] / quarter['peak']:.1f}" if quarter['peak'] else '-'])
        times = r['lesson']['lesson'] / max(r['lesson']['fast'], 1e-9)
        lesson.append([name, f"{r['lesson']['lesson']:.2f}", f"{r['lesson']['fast']:.2f}",
                       say('speed.times_faster', n=f'{times:.0f}')])
    print(terminal.table(ours, right=range(1, 8)))
    print(say('speed.b_char'))
    if theirs_version:
        print('\n' + terminal.fill(say('speed.theirs', version=theirs_version)) + '\n')
        print(terminal.table(versus, right=range(1, 7)))
    else:
        print('\n' + say('speed.install'))
    print('\n' + terminal.fill(say('speed.growth')) + '\n')
    print(terminal.table(growth, right=range(1, 9)))
    print('\n' + terminal.fill(say('speed.lesson', merges=lesson_merges,
                                   chars=f'{LESSON_CHARS:,}')) + '\n')
    print(terminal.table(lesson, right=range(1, 4)))
    report_course(results, theirs_version)


def report_kinds(results, merges):
    """Every kind on every file: the table --kinds prints."""
    say = cli.message
    keys = ['file', 'kind', 'ids', 'train_s', 'encode_s', 'peak_mb']
    rows = [[say('speed.' + key) for key in keys] + ['B/byte']]
    for name, by_kind in results:
        for kind, r in by_kind.items():
            per_byte = f"{(r['peak'] - r['start']) * 2**20 / max(r['bytes'], 1):.0f}" \
                if r['peak'] else '-'
            rows.append([name, kind, f"{r['ids']:,}", f"{r['train']:.2f}", f"{r['encode']:.2f}",
                         mb(r['peak']), per_byte])
    print(say('speed.every_kind', merges=f'{merges:,}') + '\n')
    print(terminal.table(rows, right=range(2, 7)))
    print('\n' + terminal.fill(say('speed.b_byte', most=reading.MEMORY_PER_TEXT_BYTE)))


def mb(value):
    return '-' if value is None else f'{value:.0f}'


def make_corpus(path, force=False):
    """Python's standard library source written to path (lab/plumbing/corpus.py), and said."""
    chars, files = corpus.write(path, force)
    print(cli.message('speed.wrote', path=terminal.shown(str(path)), chars=f'{chars:,}',
                      files=files))


def arguments():
    parser = cli.parser(__doc__)
    parser.add_argument('files', nargs='*', type=Path, default=[locations.TRAIN], metavar='FILE',
                        help='text files to measure (default: data/train.txt)')
    parser.add_argument('--merges', type=cli.whole_number, default=10_000, metavar='N',
                        help='merges to learn (default: %(default)s)')
    parser.add_argument('--jobs', type=cli.jobs, metavar='N',
                        help='processes for the parallel encoding (default: one per core, '
                             'where they start)')
    parser.add_argument('--lesson-merges', type=cli.positive, default=20, metavar='K',
                        help="merges for the lesson's own trainer, which is slow "
                             "(default: %(default)s)")
    parser.add_argument('--make-corpus', type=Path, metavar='PATH',
                        help='write the standard library corpus to PATH and stop')
    parser.add_argument('--force', action='store_true',
                        help='with --make-corpus: replace a file that is not such a corpus')
    parser.add_argument('--kinds', action='store_true',
                        help='measure every tokenizer kind on each file instead, memory '
                             'per byte too')
    parser.add_argument('--child', nargs=3, help=argparse.SUPPRESS)  # WHAT PATH PART: a child's job
    return parser


def child_figures(args):
    """What a child measures, as --child WHAT PATH PART asks."""
    what, path, part = args.child
    figures = {'ours': lambda: measure_ours(path, args.merges, float(part), args.jobs),
               'theirs': lambda: measure_theirs(path, args.merges, float(part)),
               'lesson': lambda: measure_lesson(path, args.lesson_merges),
               'course': lambda: measure_course(path, 'ours'),
               'course-theirs': lambda: measure_course(path, 'theirs'),
               **{f'kind-{kind}': functools.partial(measure_kind, path, kind, args.merges)
                  for kind in kinds.KINDS},
               'read': lambda: len(reading.read_text(path))}
    if what not in figures:
        raise ValueError(f'--child {what}: not one of {", ".join(figures)}')
    return figures[what]()


def measurable(files):
    """The files large enough to measure, as absolute paths (the children run elsewhere); the
    others are said to be too small. Each is read in a child first, so that a bad file stops
    it before the long runs (and a child starts with its parent's peak memory, not ours)."""
    try:
        paths = [path.resolve() for path in files]
    except (RuntimeError, OSError) as e:
        # a symlink loop: RuntimeError before Python 3.13, OSError after
        raise ValueError(cli.message('speed.cannot_follow', error=e)) from None
    sizes = {}
    for typed, path in zip(files, paths):
        try:
            sizes[path] = in_fresh_python('--child', 'read', path, 1)
        except ValueError as e:  # said of the file as the user typed it, not of where it is
            raise ValueError(str(e).replace(str(path), str(typed))) from None
    for path in [path for path in paths if sizes[path] < MEASURABLE_FROM]:
        print(terminal.fill(cli.message('speed.too_small', name=terminal.shown(path.name),
                                        chars=f'{sizes[path]:,}'), '', '  '))
    return [path for path in paths if sizes[path] >= MEASURABLE_FROM]


def measure(path, args, theirs_version):
    """The figures of one file: ours on a quarter, a half and all of it, the lesson's, theirs."""
    asked = ['--jobs', args.jobs] if args.jobs else []  # else one per core, where they can start
    r = {'ours': [in_fresh_python('--child', 'ours', path, part, '--merges', args.merges,
                                  *(asked if part == 1 else ['--jobs', 1]))
                  for part in (0.25, 0.5, 1)],
         'lesson': in_fresh_python('--child', 'lesson', path, 1, '--lesson-merges',
                                   args.lesson_merges)}
    r['course'] = in_fresh_python('--child', 'course', path, 1)
    if theirs_version:
        r['theirs'] = in_fresh_python('--child', 'theirs', path, 1, '--merges', args.merges)
        r['course theirs'] = in_fresh_python('--child', 'course-theirs', path, 1)
    if 'no_parallel' in r['ours'][-1]:
        print(terminal.fill(cli.message('speed.one_process', why=r['ours'][-1]['no_parallel']),
                            '', '  '), file=sys.stderr)
    return r


def main():
    args = arguments().parse_args()
    if args.make_corpus:
        make_corpus(args.make_corpus, args.force)
        return
    if args.child:
        processes.die_with_parent()  # killed, lab.speed runs no clean-up: its child must not run on
        print(ANSWER + json.dumps(child_figures(args)))
        return
    paths = measurable(args.files)
    if not paths:
        print(cli.message('speed.give', chars=f'{MEASURABLE_FROM:,}') + '\n'
              '  python3 -m lab.speed --make-corpus stdlib.txt\n  python3 -m lab.speed stdlib.txt')
        return
    if args.kinds:
        measured = [(terminal.shown(path.name),
                     {kind: in_fresh_python('--child', f'kind-{kind}', path, 1, '--merges',
                                            args.merges)
                      for kind in kinds.KINDS})
                    for path in paths]
        report_kinds(measured, args.merges)
        return
    theirs_version = has_tokenizers()
    print(cli.message('speed.asked', merges=f'{args.merges:,}') + '\n', flush=True)
    results = [(terminal.shown(path.name), measure(path, args, theirs_version)) for path in paths]
    report(results, args.merges, args.jobs or cores(), args.lesson_merges, theirs_version)


if __name__ == '__main__':
    cli.run(main)
