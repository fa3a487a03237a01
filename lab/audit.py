"""Audit a tokenizer on a corpus before a model trains with it: acceptance report.

    python3 -m lab.audit [FILE] [--tokenizer PATH] [--max-unk RATE]

What it checks, line by line of FILE (default data/train.txt):
  - round trip: decode(encode(line)) gives the line back. A character the tokenizer
    never saw comes back as '\\ufffd'; that is counted as unknown, not as a failure.
    Anything else that differs is a failure, listed with its first differing position.
  - unknown rate: the share of characters that became id 0, and which characters.
  - characters per token, and tokens per line at p50/p95/p99 and the longest line.
    Lines are counted as lab.compression counts them: every line, blank ones too,
    without its newline.
  - vocabulary rows never used, or used fewer than 3 times, on this corpus: rows the
    model pays for but can hardly learn.
  - offsets: each token's (start, end) in the line gives back the token's text.
  - fingerprint: sha256 of the tokenizer's canonical JSON. Store it with a model, and
    the model can refuse a tokenizer that is not the one it was trained with.
It exits 1 when a gate fails: a round trip failure, an offsets failure, or an unknown
rate above --max-unk (default 0.001, that is 0.1 %).

Try next: python3 -m lab.audit data/mixed.txt; then train on it
(python3 -m lab.fast_bpe data/mixed.txt --merges 300) and audit it again.
"""
import sys
from collections import Counter

if not __package__:  # run as python3 lab/audit.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.audit')

from lab import common, fast
from lab.common import UNKNOWN, percentile, shown

RARE = 3  # a row used fewer times than this is "rarely used"
SHOWN = 12  # how many characters, rows or failures to list before "and N more"


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
    """A label and its value; a value of several lines is indented under the first."""
    print(f'{label:<13}' + value.replace('\n', '\n' + ' ' * 13))


def listed(items, start=0, columns=80 - 13):
    """Up to SHOWN items, escaped and wrapped to fit after the label column."""
    items = [shown(item) for item in items]
    if not items:
        return 'none'
    words = items[:SHOWN] + ([f'and {len(items) - SHOWN} more'] if len(items) > SHOWN else [])
    lines, used = [[]], start
    for word in words:
        if lines[-1] and used + 1 + common.width(word) > columns:
            lines.append([])
            used = 0
        used += common.width(word) + bool(lines[-1])
        lines[-1].append(word)
    return '\n'.join(' '.join(line) for line in lines)


def audit(tok, text):
    """Every figure of the report, as a dict."""
    encode = fast.encoder(tok)
    lines = common.lines_of(text)
    report = common.count_lines(tok, encode, lines)
    used, failures, offsets_bad = Counter(), [], 0
    for n, line in enumerate(lines, 1):
        ids = encode(line)
        used.update(ids)
        known = ''.join(ch if ch in tok.chars else UNKNOWN for ch in line)
        back = tok.decode(ids)
        if back != known:
            failures.append((n, common.first_difference(back, known)))
        offsets_bad += not offsets_ok(tok, line, ids)
    newline = tok.chars.get('\n')
    if newline is not None:
        used[newline] += text.count('\n')
    report.update(unknown_rate=sum(report['unknown'].values()) / max(report['chars'], 1),
                  failures=failures, offsets_bad=offsets_bad,
                  never=[i for i in range(len(tok.vocab)) if not used[i]],
                  rare=[i for i in range(len(tok.vocab)) if 0 < used[i] < RARE])
    return report


def main():
    parser = common.parser(__doc__)
    common.add_file(parser, 'the corpus to audit on')
    common.add_tokenizer(parser, 'a saved tokenizer')
    parser.add_argument('--max-unk', type=float, default=0.001, metavar='RATE',
                        help='the highest unknown rate that passes (default: 0.001, that is 0.1 %%)')
    args = parser.parse_args()
    if not 0 <= args.max_unk <= 1:
        parser.error('--max-unk is a rate from 0 to 1, e.g. 0.001 for 0.1 %')
    tok = common.load_tokenizer(args.tokenizer)
    r = audit(tok, common.read_text(args.file))
    print(f'audit of {shown(args.tokenizer.name)} on {shown(args.file.name)}\n')
    gates = show(tok, r, args.max_unk)
    print()
    if not all(gates.values()):
        raise ValueError(f'FAILED ({", ".join(name for name, ok in gates.items() if not ok)})')
    print('result: OK')


def show(tok, r, max_unk):
    """Print the report of audit() as rows; {gate: whether it passed}."""
    gates = {'round trip': not r['failures'], 'offsets': not r['offsets_bad'],
             'unknown rate': r['unknown_rate'] <= max_unk}
    row('fingerprint', "sha256 of the tokenizer's canonical JSON:")
    row('', common.fingerprint(tok))
    row('vocabulary', f'{len(tok.vocab)} tokens ({len(tok.vocab) - len(tok.merges) - 1} characters, '
                      f'{len(tok.merges)} merges)')
    row('corpus', f"{r['lines']:,} lines, {r['chars']:,} characters (newlines not counted)")
    row('tokens', f"{r['tokens']:,}, {r['chars'] / max(r['tokens'], 1):.2f} characters per token")
    row('tokens/line', '  '.join(f'p{p} {percentile(r["per_line"], p)}' for p in (50, 95, 99))
        + f'  max {max(r["per_line"])}')
    row('round trip', f"{r['lines'] - len(r['failures']):,} of {r['lines']:,} lines "
                      f"{'OK' if gates['round trip'] else 'FAILED'}")
    for n, at in r['failures'][:SHOWN]:
        row('', f'  line {n}: first difference at character {at}')
    row('offsets', 'OK (every token maps back to its text)' if gates['offsets']
        else f"FAILED ({r['offsets_bad']} lines have a token whose (start, end) does not)")
    row('unknown', f"{sum(r['unknown'].values()):,} characters, {r['unknown_rate']:.3%} "
                   f"(gate {max_unk:.3%}) {'OK' if gates['unknown rate'] else 'FAILED'}")
    if r['unknown']:
        row('', listed(f'{ch!r}×{n}' for ch, n in r['unknown'].most_common()))
    for label, ids in [('never used', r['never']), (f'used < {RARE}', r['rare'])]:
        head = f'{len(ids)} rows: '
        row(label, head + listed((repr(tok.vocab[i]) for i in ids), start=len(head)))
    return gates


if __name__ == '__main__':
    common.run(main)
