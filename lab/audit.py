"""Audit a tokenizer on a corpus before a model is trained with it: an acceptance report.

    python3 -m lab.audit [FILE] [--tokenizer PATH] [--max-unk RATE]

What it checks, line by line of FILE (default data/train.txt):
  - round trip: decode(encode(line)) gives the line back. A character the tokenizer
    never saw comes back as '\\ufffd'; that is counted as unknown, not as a failure.
    Anything else that differs is a failure, listed with its first differing position.
  - unknown rate: the share of characters that became id 0, and which characters.
  - characters per token, and tokens per line at p50/p95/p99 and the longest line.
  - vocabulary rows never used, or used fewer than 3 times, on this corpus: rows the
    model pays for but can hardly learn.
  - offsets: each token's (start, end) in the line gives back the token's text.
  - fingerprint: sha256 of the tokenizer's canonical JSON. Store it with a model, and
    the model can refuse a tokenizer that is not the one it was trained with.
It exits 1 when a gate fails: a round trip failure, an offsets failure, or an unknown
rate above --max-unk (default 0.001, that is 0.1 %).

Try next: audit data/mixed.txt; then train on it and audit again.
"""
import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

if not __package__:  # run as python3 lab/audit.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.audit')

from lab import fast_bpe
from lab.check import load
from lab.compression import percentile
from tokenizer import SAVED, TRAIN, UNKNOWN, read_text

RARE = 3  # a row used fewer times than this is "rarely used"
SHOWN = 12  # how many characters, rows or failures to list before "and N more"


def fingerprint(tok):
    """sha256 of the canonical JSON of the state: the same for the same tokenizer, however saved."""
    canonical = json.dumps(tok.state(), ensure_ascii=False, separators=(',', ':'))
    return hashlib.sha256(canonical.encode('utf-8')).hexdigest()


def first_difference(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def offsets_ok(tok, line, ids):
    """Each token's (start, end) in line gives back its text, unknown characters as '\\ufffd'."""
    start = 0
    for i in ids:
        end = start + len(tok.vocab[i])
        if ''.join(ch if ch in tok.chars else UNKNOWN for ch in line[start:end]) != tok.vocab[i]:
            return False
        start = end
    return start == len(line)


def row(label, value):
    print(f'{label:<13}{value}')


def listed(items):
    items = list(items)
    more = f' and {len(items) - SHOWN} more' if len(items) > SHOWN else ''
    return ' '.join(items[:SHOWN]) + more if items else 'none'


def audit(tok, text):
    """Every figure of the report, as a dict."""
    encode = fast_bpe.encoder(tok)
    lines = text.split('\n')
    if text.endswith('\n'):
        lines.pop()  # the text's last newline ends a line; it does not start one
    used, unknown, failures, offsets_bad, per_line, tokens = Counter(), Counter(), [], 0, [], 0
    for n, line in enumerate(lines, 1):
        ids = encode(line)
        used.update(ids)
        per_line.append(len(ids))
        tokens += len(ids)
        unknown.update(ch for ch in line if ch not in tok.chars)
        known = ''.join(ch if ch in tok.chars else UNKNOWN for ch in line)
        back = tok.decode(ids)
        if back != known:
            failures.append((n, first_difference(back, known)))
        offsets_bad += not offsets_ok(tok, line, ids)
    newline = tok.chars.get('\n')
    if newline is not None:
        used[newline] += text.count('\n')
    chars = sum(map(len, lines))
    return {'lines': len(lines), 'chars': chars, 'tokens': tokens, 'per_line': per_line or [0],
            'unknown': unknown, 'unknown_rate': sum(unknown.values()) / max(chars, 1),
            'failures': failures, 'offsets_bad': offsets_bad,
            'never': [i for i in range(len(tok.vocab)) if not used[i]],
            'rare': [i for i in range(len(tok.vocab)) if 0 < used[i] < RARE]}


def main():
    parser = argparse.ArgumentParser(prog='python3 -m lab.audit', description=__doc__.splitlines()[0])
    parser.add_argument('file', nargs='?', type=Path, default=TRAIN, help='corpus (default: %(default)s)')
    parser.add_argument('--tokenizer', type=Path, default=SAVED, help='tokenizer.json (default: %(default)s)')
    parser.add_argument('--max-unk', type=float, default=0.001,
                        help='highest unknown rate that passes (default: %(default)s)')
    args = parser.parse_args()
    if not 0 <= args.max_unk <= 1:
        parser.error('--max-unk is a rate from 0 to 1, e.g. 0.001 for 0.1 %')
    tok = load(args.tokenizer)
    r = audit(tok, read_text(args.file, 'give a UTF-8 text file'))

    unknown_ok = r['unknown_rate'] <= args.max_unk
    gates = [not r['failures'], not r['offsets_bad'], unknown_ok]
    print(f'audit of {args.tokenizer.name} on {args.file.name}\n')
    row('fingerprint', f'sha256:{fingerprint(tok)}')
    row('vocabulary', f'{len(tok.vocab)} tokens ({len(tok.vocab) - len(tok.merges) - 1} characters, '
                      f'{len(tok.merges)} merges)')
    row('corpus', f"{r['lines']:,} lines, {r['chars']:,} characters, {r['tokens']:,} tokens "
                  f"(newlines not counted), {r['chars'] / max(r['tokens'], 1):.2f} characters per token")
    row('tokens/line', '  '.join(f'p{p} {percentile(r["per_line"], p)}' for p in (50, 95, 99))
        + f'  max {max(r["per_line"])}')
    row('round trip', f"{r['lines'] - len(r['failures']):,} of {r['lines']:,} lines "
                      f"{'PASS' if gates[0] else 'FAIL'}")
    for n, at in r['failures'][:SHOWN]:
        print(f'{"":<13}  line {n}: first difference at character {at}')
    row('offsets', 'PASS (every token maps back to its text)' if gates[1]
        else f"FAIL ({r['offsets_bad']} lines have a token whose (start, end) does not)")
    row('unknown', f"{sum(r['unknown'].values()):,} characters, {r['unknown_rate']:.3%} "
                   f"(gate {args.max_unk:.3%}) {'PASS' if unknown_ok else 'FAIL'}")
    if r['unknown']:
        print(f'{"":<13}{listed(f"{ch!r}×{n}" for ch, n in r["unknown"].most_common())}')
    row('never used', f"{len(r['never'])} rows: {listed(repr(tok.vocab[i]) for i in r['never'])}")
    row(f'used < {RARE}', f"{len(r['rare'])} rows: {listed(repr(tok.vocab[i]) for i in r['rare'])}")
    print()
    if not all(gates):
        failed = [name for name, ok in zip(['round trip', 'offsets', 'unknown rate'], gates) if not ok]
        sys.exit(f'lab.audit: FAIL ({", ".join(failed)})')
    print('result: PASS')


if __name__ == '__main__':
    try:
        main()
    except ValueError as e:
        sys.exit(f'lab.audit: {e}')
