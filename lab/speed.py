"""How fast is lab.fast_bpe, and how does it grow with the text? A benchmark.

    python3 -m lab.speed [FILE ...] [--merges N] [--lesson-merges K]

For each file: the time to train N merges (default 10,000) and to encode the whole
file with them, and the peak memory of doing so. Then the lesson's own BPE.train on K
merges (default 20, few enough to finish in seconds) next to fast_bpe on the same K,
and the lesson's time scaled up to all N merges: an estimate, since running it on a
book would take half an hour or more. A last table trains on the first quarter, the first half and the whole
file: if the time roughly doubles with the size, the work grows linearly.

Each file is measured in a fresh Python process, so one file's memory does not count
against the next. Times are wall-clock and vary from run to run; compare ratios.
With no FILE it measures data/train.txt, which is far too small to say much: give
it a book.

Try next: python3 -m lab.speed my-book.txt --merges 5000
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

if not __package__:  # run as python3 lab/speed.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.speed')

from lab import common, fast_bpe
from lab.common import table
from tokenizer import BPE

try:
    import resource  # not on Windows
except ImportError:
    resource = None


def seconds(work, *args):
    """(result of work(*args), seconds it took)."""
    start = time.perf_counter()
    result = work(*args)
    return result, time.perf_counter() - start


def peak_mb():
    if resource is None:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == 'darwin' else peak / 2**10  # bytes on macOS, KiB elsewhere


def measure(path, merges, lesson_merges):
    """Every figure for one file, as a dict; run in a process of its own."""
    text = common.read_text(path)
    tok, train_s = seconds(fast_bpe.train, text, merges)
    ids, encode_s = seconds(fast_bpe.encode, tok, text)
    peak = peak_mb()  # before the smaller runs below, which cannot raise it
    if tok.decode(ids) != text:
        raise ValueError(f'{path}: the text does not come back from decode(encode(text))')
    _, lesson_s = seconds(BPE.train, text, lesson_merges)
    _, fast_k_s = seconds(fast_bpe.train, text, lesson_merges)
    growth = [seconds(fast_bpe.train, text[:len(text) * part // 4], merges)[1] for part in (1, 2)]
    return {'chars': len(text), 'merges': len(tok.merges), 'train': train_s, 'encode': encode_s,
            'peak': peak, 'lesson': lesson_s, 'fast_k': fast_k_s, 'growth': growth + [train_s]}


def measure_apart(path, merges, lesson_merges):
    """measure() in a fresh interpreter, so its peak memory is this file's alone."""
    done = subprocess.run([sys.executable, '-m', 'lab.speed', '--one', str(path), '--merges', str(merges),
                           '--lesson-merges', str(lesson_merges)],
                          cwd=common.ROOT, capture_output=True, text=True, encoding='utf-8')
    if done.returncode:
        raise ValueError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f'{path}: failed')
    return json.loads(done.stdout)


def report(results, merges, lesson_merges):
    k = f'{lesson_merges:,}'
    speed = [['file', 'chars', 'merges', 'train s', 'encode s', 'peak MB']]
    lesson = [['file', f'lesson {k} s', f'fast {k} s', 'speedup', 'lesson all s (est.)', 'speedup (est.)']]
    growth = [['file', '1/4 s', '1/2 s', 'whole s', 'whole / (1/4)']]
    for name, r in results:
        speed.append([name, f"{r['chars']:,}", f"{r['merges']:,}", f"{r['train']:.2f}", f"{r['encode']:.2f}",
                      '-' if r['peak'] is None else f"{r['peak']:.0f}"])
        estimate = r['lesson'] / lesson_merges * r['merges']
        lesson.append([name, f"{r['lesson']:.2f}", f"{r['fast_k']:.2f}",
                       f"{r['lesson'] / max(r['fast_k'], 1e-9):.0f}x",
                       f'{estimate:,.0f}', f"{estimate / max(r['train'], 1e-9):,.0f}x"])
        quarter, half, whole = r['growth']
        growth.append([name, f'{quarter:.2f}', f'{half:.2f}', f'{whole:.2f}',
                       f'{whole / max(quarter, 1e-9):.1f}'])
    print(f'lab.fast_bpe, {merges:,} merges asked (fewer when no pair occurs twice)\n')
    print(table(speed, right=range(1, 6)))
    print('\nthe lesson\'s BPE.train against lab.fast_bpe\n')
    print(table(lesson, right=range(1, 6)))
    print(f'(est.: the lesson\'s time for {k} merges times merges / {k}: rough, and high,')
    print(' as its later rounds are cheaper on a shorter text. At few merges fast_bpe')
    print(' mostly sets up.)')
    print(f'\ntraining time against the length of the text ({merges:,} merges asked)\n')
    print(table(growth, right=range(1, 5)))


def main():
    parser = common.parser(__doc__)
    parser.add_argument('files', nargs='*', type=Path, default=[common.TRAIN], metavar='FILE',
                        help='text files to measure (default: data/train.txt)')
    parser.add_argument('--merges', type=common.whole_number, default=10_000, metavar='N',
                        help='merges to learn (default: 10000)')
    parser.add_argument('--lesson-merges', type=common.positive, default=20, metavar='N',
                        help="merges for the lesson's own trainer, which is slow (default: 20)")
    parser.add_argument('--one', type=Path, help=argparse.SUPPRESS)  # the child process's job
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.merges, args.lesson_merges)))
        return
    paths = [path.resolve() for path in args.files]
    for path in paths:
        common.read_text(path)  # refuse a bad file before the long runs
    results = [(common.shown(path.name), measure_apart(path, args.merges, args.lesson_merges)) for path in paths]
    report(results, args.merges, args.lesson_merges)


if __name__ == '__main__':
    common.run(main)
