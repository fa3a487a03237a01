"""Audit a tokenizer on a corpus before a model trains with it; write its record.

    python3 -m lab.audit [FILE] [--tokenizer PATH] [--max-unk RATE] [--out MANIFEST]
    python3 -m lab.audit --manifest MANIFEST [--tokenizer PATH]

What it checks, line by line of FILE (default data/train.txt), for a tokenizer of any
kind (lab/kinds):
  - round trip: decode(encode(line)) gives the line back. A character the tokenizer
    never saw comes back as '\\ufffd'; that is counted as unknown, not as a failure.
    Anything else that differs is a failure, listed with its first differing position.
  - unknown rate: the share of characters it does not know, and which ones. A byte-level
    tokenizer knows every character; for it, the byte-fallback share instead: characters
    not held whole by one token, spelled in bytes that mean nothing alone.
  - special strings: text that spells a special token (<eos> in a README, say). It is
    encoded as plain text, never as the special id; each is counted as a collision.
  - characters per token, and tokens per line at p50/p95/p99 and the longest line.
    Lines are counted as lab.compression counts them: every line, blank ones too,
    without its newline.
  - vocabulary rows never used, or used fewer than 3 times, on this corpus: rows the
    model pays for but can hardly learn.
  - offsets: each token's (start, end) in the line's UTF-8 bytes gives back its bytes.
It exits 1 when a gate fails: a round trip failure, an offsets failure, or an unknown
rate above --max-unk (default 0.001, that is 0.1 %).

--out MANIFEST then writes the release record, only when every gate passed: the sha256 of
the tokenizer file, its kind and vocabulary size, a sha256 of what every id stands for,
the special ids, the normalization policy and the end-of-document policy, and the
audit's figures. Serving code keeps it beside the model and fails closed when the
tokenizer no longer matches: --manifest MANIFEST checks PATH against it, one line and
exit 1 at the first difference.

Try next: python3 -m lab.audit data/mixed.txt; then train a byte-level tokenizer
on it, audit that, write its record and check it against the record:
    python3 -m lab.fast_bpe data/mixed.txt --kind byte --merges 100 --out b.json
    python3 -m lab.audit data/mixed.txt --tokenizer b.json --out record.json
    python3 -m lab.audit --manifest record.json --tokenizer b.json
"""
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

if not __package__:  # run as python3 lab/audit.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.audit')

from lab import kinds
from lab.contract import lessons
from lab.contract.checks import UNKNOWN
from lab.plumbing import cli, locations, measures, reading, saving, terminal
from lab.plumbing.measures import percentile
from lab.plumbing.terminal import shown

LABEL = 13  # characters of the labels' column: "vocabulary" and room after it
RARE = 3  # a row used fewer times than this is "rarely used"
SHOWN = 12  # how many characters, rows or failures to list before "and N more"
NORMALIZATION = 'none: text is encoded as given; NFC is checked by the audit, never applied'
# What the record holds of the tokenizer, compared by --manifest in this order: what tells most
# first, the file's own bytes last (the same tokenizer saved again with other spacing differs
# only there, and is refused too: the record is of that file).
RECORDED = ['kind', 'vocab_size', 'special_ids', 'end_of_document', 'id_to_token_sha256',
            'normalization', 'tokenizer_sha256']


def offsets_ok(tok, line, ids):
    """Each token's (start, end) in the line's UTF-8 bytes gives back its bytes, unknown
    characters as '\\ufffd'."""
    data, start = known(tok, line).encode('utf-8'), 0
    for i in ids:
        piece = tok.token_bytes(i)
        if data[start:start + len(piece)] != piece:
            return False
        start += len(piece)
    return start == len(data)


def known(tok, line):
    """The line as the tokenizer can give it back: each character it does not know as '\\ufffd'."""
    return ''.join(ch if tok.knows(ch) else UNKNOWN for ch in line)


def split_characters(tok, line, ids):
    """How many characters of line are not held whole by one token (byte fallback)."""
    ends, at = set(), 0
    for i in ids:
        at += len(tok.token_bytes(i))
        ends.add(at)
    split, start = 0, 0
    for ch in line:
        size = len(ch.encode('utf-8'))
        split += size > 1 and any(start + k in ends for k in range(1, size))
        start += size
    return split


def audit(tok, text):
    """Every figure of the report, as a dict."""
    encode = kinds.plain(tok)
    lines = measures.lines_of(text)
    report = lessons.count_lines(tok, encode, lines)
    used, failures, offsets_bad, split = Counter(), [], 0, 0
    for n, line in enumerate(lines, 1):
        ids = encode(line)
        used.update(ids)
        back, want = tok.decode(ids), known(tok, line)
        if back != want:
            failures.append((n, measures.first_difference(back, want)))
        offsets_bad += not offsets_ok(tok, line, ids)
        split += split_characters(tok, line, ids) if tok.unknown_id is None else 0
    newline = encode('\n')
    if len(newline) == 1:  # lines were encoded without it: their newlines use it all the same
        used[newline[0]] += text.count('\n')
    specials = set(tok.special_ids.values())
    report.update(unknown_rate=sum(report['unknown'].values()) / max(report['chars'], 1),
                  fallback_rate=split / max(report['chars'], 1) if tok.unknown_id is None else None,
                  collisions=Counter({name: text.count(name) for name in tok.special_ids
                                      if name in text}),
                  failures=failures, offsets_bad=offsets_bad, not_nfc=measures.not_nfc(text),
                  never=[i for i in range(tok.vocab_size) if not used[i] and i not in specials],
                  rare=[i for i in range(tok.vocab_size) if 0 < used[i] < RARE])
    return report


def row(label, value):
    """A label and its value; a value of several lines is indented under the first."""
    pad = ' ' * max(LABEL - terminal.width(label), 1)  # by the columns shown: Hangul takes two
    print(label + pad + value.replace('\n', '\n' + ' ' * LABEL))


def listed(items, start=0, columns=terminal.COLUMNS - LABEL):
    """Up to SHOWN items, escaped and wrapped to fit after the label column."""
    items = [terminal.clip(shown(item), columns) for item in items]
    if not items:
        return cli.message('audit.none')
    more = [cli.message('audit.more', n=len(items) - SHOWN)] if len(items) > SHOWN else []
    words = items[:SHOWN] + more
    lines, used = [[]], start
    for word in words:
        if lines[-1] and used + 1 + terminal.width(word) > columns:
            lines.append([])
            used = 0
        used += terminal.width(word) + bool(lines[-1])
        lines[-1].append(word)
    return '\n'.join(' '.join(line) for line in lines)


def gates_of(r, max_unk):
    """{gate: whether the report of audit() passes it}."""
    return {'round trip': not r['failures'], 'offsets': not r['offsets_bad'],
            'unknown rate': r['unknown_rate'] <= max_unk}


def show(tok, r, max_unk):
    """Print the report of audit() as rows."""
    gates, say = gates_of(r, max_unk), cli.message
    row(say('audit.label_fingerprint'), say('audit.fingerprint'))
    row('', kinds.fingerprint(tok))
    row(say('audit.label_vocabulary'), terminal.fill(say('audit.vocabulary', kind=tok.kind,
                                                         described=kinds.describe(tok)),
                                                     columns=terminal.COLUMNS - LABEL))
    row(say('audit.label_corpus'),
        say('audit.corpus', lines=f"{r['lines']:,}", chars=f"{r['chars']:,}"))
    # encoded as given all the same: NFD Korean gets other ids than the NFC a user types
    if r['not_nfc']:
        row('', say('audit.not_nfc', chars=f"{r['not_nfc'][0]:,}", lines=f"{r['not_nfc'][1]:,}"))
    row(say('audit.label_tokens'), say('audit.tokens', tokens=f"{r['tokens']:,}",
                                       per=f"{r['chars'] / max(r['tokens'], 1):.2f}"))
    row(say('audit.label_per_line'),
        '  '.join(f'p{p} {percentile(r["per_line"], p)}' for p in (50, 95, 99))
        + f'  max {max(r["per_line"])}')
    row(say('audit.label_round_trip'),
        say('audit.round_trip', lines=f"{r['lines']:,}") if gates['round trip']
        else say('audit.round_trip_failed', failed=f"{len(r['failures']):,}",
                 lines=f"{r['lines']:,}"))
    for n, at in r['failures'][:SHOWN]:
        row('', '  ' + say('audit.failure', n=n, at=at))
    row(say('audit.label_offsets'), say('audit.offsets') if gates['offsets']
        else say('audit.offsets_failed', n=r['offsets_bad']))
    row(say('audit.label_unknown'), say('audit.unknown', chars=f"{sum(r['unknown'].values()):,}",
                                        rate=f"{r['unknown_rate']:.3%}", gate=f'{max_unk:.3%}',
                                        verdict='OK' if gates['unknown rate'] else 'FAILED'))
    if r['unknown']:
        row('', listed(f'{ch!r}×{n}' for ch, n in r['unknown'].most_common()))
    if r['fallback_rate'] is not None:
        row(say('audit.label_fallback'), say('audit.fallback', rate=f"{r['fallback_rate']:.2%}"))
    if tok.special_ids:
        found = ' '.join(f'{shown(name)}×{n}' for name, n in r['collisions'].most_common())
        row(say('audit.label_collisions'),
            say('audit.collisions', n=f"{sum(r['collisions'].values()):,}")
            + (f': {found}' if found else ''))
    labels = [say('audit.label_never'), say('audit.label_rare', rare=RARE)]
    for label, ids in zip(labels, [r['never'], r['rare']]):
        head = say('audit.rows', n=len(ids)) + ' '
        tokens = (f"'{shown(kinds.token_text(tok, i))}'" for i in ids)
        row(label, head + listed(tokens, start=terminal.width(head)))


def identity(tok, path):
    """What a release record holds of the tokenizer saved at path: what --manifest compares."""
    end = kinds.document_end(tok)
    raw = reading.read_bytes(path, locations.MAKE_TOKENIZER)
    return {'tokenizer_sha256': hashlib.sha256(raw).hexdigest(),
            'kind': tok.kind, 'vocab_size': tok.vocab_size,
            'id_to_token_sha256': kinds.mapping_fingerprint(tok), 'special_ids': tok.special_ids,
            'normalization': NORMALIZATION,
            'end_of_document': {'token': end[1], 'id': end[0], 'bos': None} if end else None}


def record(tok, path, corpus, text, r):
    """The release record of a tokenizer that passed its audit: its identity, then what the
    audit saw on the corpus."""
    return {**identity(tok, path), 'audit': {
        'corpus': str(corpus), 'corpus_sha256': hashlib.sha256(text.encode('utf-8')).hexdigest(),
        'corpus_nfc': measures.not_nfc(text) is None, 'lines': r['lines'], 'characters': r['chars'],
        'tokens': r['tokens'], 'unknown_rate': r['unknown_rate'],
        'byte_fallback_rate': r['fallback_rate'],
        'collisions': dict(r['collisions']),
        'tokens_per_line': {f'p{p}': percentile(r['per_line'], p) for p in (50, 95, 99)}}}


def check_manifest(manifest, path):
    """The tokenizer at path, compared with its release record: ValueError at
    the first difference."""
    fix = 'write it with python3 -m lab.audit FILE --out MANIFEST'
    saved = reading.read_json(manifest, fix, 2**20)
    if not isinstance(saved, dict) or not set(RECORDED) <= set(saved):
        raise ValueError(cli.message('audit.not_record', path=manifest))
    tok = kinds.load(path)
    found = identity(tok, path)
    for key in RECORDED:
        where, ours, theirs = first_difference(key, found[key], saved[key])
        if where:
            where = terminal.clip(where, 32)
            raise ValueError(cli.message('audit.mismatch', path=path, manifest=manifest,
                                         where=where,
                                         ours=brief(ours), theirs=brief(theirs)))
    return tok, saved


def first_difference(where, ours, theirs):
    """(where, our value, the recorded one) of the first difference between two JSON values, or
    (None, ...) when there is none. Compared as JSON writes them: 1, 1.0 and true all differ."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(ours.keys() | theirs.keys()):
            inside = f'{where}[{json.dumps(key, ensure_ascii=False)}]'
            if key not in ours or key not in theirs:
                return inside, ours.get(key, '(none)'), theirs.get(key, '(none)')
            found = first_difference(inside, ours[key], theirs[key])
            if found[0]:
                return found
        return None, ours, theirs
    if json.dumps(ours, sort_keys=True) != json.dumps(theirs, sort_keys=True):
        return where, ours, theirs
    return None, ours, theirs


def brief(value):
    """A value cut to a few words: enough to see what differs."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 16 else text[:12] + '...'


def arguments():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the corpus to audit on')
    cli.add_tokenizer(parser, 'a saved tokenizer, of any kind')
    parser.add_argument('--max-unk', type=float, default=0.001, metavar='RATE',
                        help='the highest unknown rate that passes (default: 0.001, '
                             'that is 0.1 %%)')
    cli.add_out(parser, None, 'write the release record there when every gate passes',
                'a release record')
    parser.add_argument('--manifest', type=Path, metavar='MANIFEST',
                        help='check the tokenizer against this release record, and nothing else')
    args = parser.parse_args()
    if not 0 <= args.max_unk <= 1:
        parser.error(cli.message('audit.max_unk'))
    if args.manifest and args.out:
        parser.error(cli.message('audit.one_of'))
    return args


def main():
    args = arguments()
    if args.manifest:
        tok, saved = check_manifest(args.manifest, args.tokenizer)
        print(cli.message('audit.matches', path=shown(str(args.tokenizer)),
                          manifest=shown(str(args.manifest)), kind=tok.kind,
                          ids=f'{tok.vocab_size:,}'))
        print(
            f"  sha256 {saved['tokenizer_sha256'][:16]}..., ids "
            f"{saved['id_to_token_sha256'][:16]}...")
        return
    if args.out:
        saving.check_output_path(args.out, 'release record', saving.json_with(*RECORDED),
                                 inputs=[args.file, args.tokenizer], force=args.force)
    tok = kinds.load(args.tokenizer)
    text = reading.read_text(args.file)
    r = audit(tok, text)
    gates = gates_of(r, args.max_unk)
    # before the report: a reader gone (| head) does not lose it
    if args.out and all(gates.values()):
        made = record(tok, args.tokenizer, args.file, text, r)
        saving.save(json.dumps(made, ensure_ascii=False, indent=2) + '\n', args.out)
    say = cli.message
    print(say('audit.of', tokenizer=shown(args.tokenizer.name), file=shown(args.file.name)) + '\n')
    show(tok, r, args.max_unk)
    print()
    if not all(gates.values()):
        failed = ', '.join(say('audit.gate_' + gate.replace(' ', '_')) for gate, ok in gates.items()
                           if not ok)
        raise ValueError(say('audit.failed_no_record' if args.out else 'audit.failed',
                             failed=failed))
    print(say('audit.result'))
    if args.out:
        print(say('audit.record', path=shown(str(args.out))))


if __name__ == '__main__':
    cli.run(main)
