"""Fast BPE: the very same tokenizer as tokenizer.py, in seconds; and other kinds.

    python3 -m lab.fast_bpe [FILE] [--kind KIND] [--rules RULES] [--pattern NAME]
                            [--special NAME ...] [--documents HOW]
                            [--merges N | --vocab-size N] [--out PATH] [--force]

It learns exactly the merges BPE.train learns and gives exactly the ids BPE.encode
gives, and saves the same tokenizer.json, with the engine in lab/fast/: counts kept up to
date instead of counted again for every merge, and tokens written as characters so that
a merge is one str.split or str.replace, done in C. How, and why the results are the
same, is written at the top of lab/fast/training.py and lab/fast/encoding.py.

--kind trains another kind of lab/kinds (word, piece, byte, special) with the same engine
and saves it in a file every --tokenizer lab reads. --pattern cuts the text first (piece:
gpt2 unless given; byte: none unless given), by a name or a regular expression of your
own; --special names the special tokens (special and byte). --vocab-size N asks for N ids
in all, the kind's base ids and then one per merge, as trainers of real tokenizers do;
without it, the merges settings.json asks for. --documents trains on the documents of the
text apart, cut as lab.prepare cuts them (paragraphs, lines, or jsonl: one JSON string or
{"text": ...} a line, as the datasets library writes them): no merge joins two.

--rules tokenizers (byte) learns the merges the Hugging Face tokenizers library learns
with the course's settings: GPT-2's pattern unless another is given, the special tokens
first, the pair of smaller ids on a tie, the newline merged like any byte, until the
vocabulary has the size asked. The lesson's rules (the default) break a tie by the pair
seen first, never merge the newline, and stop below two occurrences.

Try next: python3 -m lab.speed, then train on a book of your own, or the
byte-level tokenizer of 4,096 ids, with <eos>, of the course's next step:
    python3 -m lab.fast_bpe my-book.txt --merges 5000 --out my-book.json
    python3 -m lab.fast_bpe my-book.txt --kind byte --rules tokenizers \\
        --special '<eos>' --vocab-size 4096 --documents paragraphs
"""
import functools
import os
import sys
import time

if not __package__:  # run as python3 lab/fast_bpe.py: then tokenizer cannot be imported
    sys.exit('run this lab from the project folder as: python3 -m lab.fast_bpe')

from lab import fast, kinds
from lab.contract import lessons
from lab.kinds.byte import RULES
from lab.kinds.patterns import PIECE_PATTERNS, pattern_problem
from lab.kinds.texts import HOW, documents, merges_to_learn
from lab.plumbing import cli, locations, reading, saving, terminal

# the options of each kind
TAKES = {'pattern': ['piece', 'byte'], 'special': ['special', 'byte'], 'rules': ['byte']}
# characters of the text encoded and decoded again after training: the whole of a small text, a
# sample of a large one (0.12 s, where 16 MB of documents train in 1.6 s: under a tenth)
CHECKED = 250_000


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
        said = cli.message('fast_bpe.progress', done=f'{done:,}', total=f'{total:,}',
                           rate=f'{rate:,.0f}',
                           left=f'{left:.0f}')
        print(f'\r  {said}  ', end='', file=sys.stderr, flush=True)
    return progress


def arguments():
    parser = cli.parser(__doc__)
    cli.add_file(parser, 'the text to train on')
    parser.add_argument('--kind', choices=list(kinds.KINDS), default='char',
                        help='the kind of tokenizer (default: %(default)s, the lesson\'s)')
    parser.add_argument('--rules', choices=RULES, metavar='RULES',
                        help="whose rules the merges follow: lesson (default) or tokenizers: byte")
    parser.add_argument('--pattern', type=cli.checked_by(pattern_problem), metavar='NAME',
                        help=f'cut the text first ({", ".join(PIECE_PATTERNS)}, or a regular '
                             'expression): piece and byte')
    parser.add_argument('--special', nargs='+', metavar='NAME',
                        help='special tokens, in the order of their ids: special and byte')
    parser.add_argument('--documents', choices=HOW, metavar='HOW',
                        help='train on the documents apart: paragraphs (between blank '
                             'lines) or lines')
    size = parser.add_mutually_exclusive_group()
    size.add_argument('--merges', type=cli.whole_number, metavar='N',
                      help='merges to learn (default: what settings.json asks for)')
    size.add_argument('--vocab-size', type=cli.whole_number, metavar='N',
                      help='ids in all: the base ones, then one per merge')
    cli.add_out(parser, None,
                'where to save the tokenizer (default: data/tokenizer.json for the char '
                'kind, data/tokenizer-KIND.json for another)',
                'a tokenizer file of the same kind')
    args = parser.parse_args()
    for option, kinds_that_take in TAKES.items():
        if getattr(args, option) is not None and args.kind not in kinds_that_take:
            kinds_said = cli.message('cli.or').join(kinds_that_take)
            parser.error(cli.message('fast_bpe.option_for', option=option, kinds=kinds_said,
                                     kind=args.kind))
    for name in args.special or []:
        if os.path.exists(name):  # --special NAME ... takes all that follows: FILE was meant
            parser.error(cli.message('fast_bpe.special_file', name=terminal.quoted(name, 30)))
        if not name.strip():
            parser.error(cli.message('fast_bpe.special_unnamed'))
    if len(set(args.special or [])) < len(args.special or []):
        parser.error(cli.message('fast_bpe.special_twice'))
    return args


def options(args):
    """The keyword arguments of the kind's train() that the command line gives."""
    return {name: getattr(args, name) for name in TAKES if getattr(args, name) is not None}


def merges_for(args):
    """How many merges to learn: --merges, or what settings.json asks for; None with --vocab-size,
    where each kind counts its own base ids (its train(vocab_size=N))."""
    if args.vocab_size is not None:
        return None
    return reading.read_merge_count() if args.merges is None else args.merges


def train(args, texts, count):
    """The tokenizer: the lesson's with the engine's progress line on a
    terminal, or another kind."""
    if args.kind != 'char':
        size = sum(map(len, texts))
        terminal.status(cli.message('fast_bpe.training', kind=args.kind, chars=f'{size:,}'))
        return kinds.KINDS[args.kind].train(texts, count, vocab_size=args.vocab_size,
                                            **options(args))
    if count is None:  # the lesson's base: the unknown character and every character of the text
        base = len(lessons.base_vocabulary(''.join(texts)))
        count = merges_to_learn(None, args.vocab_size, base, 'char')
    interactive = sys.stderr.isatty()
    try:
        tok = fast.train(texts, count, show_progress(time.monotonic()) if interactive else None)
    finally:
        if interactive:
            print(file=sys.stderr)  # end the progress line, also when Ctrl-C stops it
    return kinds.CharBPE(tok.vocab, tok.merges)


def describe(tok):
    """What sets a kind apart, as parts of one line: its kind, pattern and special tokens."""
    say = cli.message
    parts = [say('fast_bpe.kind', kind=tok.kind)]
    if hasattr(tok, 'pattern'):
        parts.append(say('fast_bpe.pattern', pattern=terminal.shown(tok.pattern) if tok.pattern
                         else say('fast_bpe.none')))
    if tok.special_ids:
        named = (f'{terminal.shown(name)}={i}' for name, i in tok.special_ids.items())
        parts.append(say('fast_bpe.special', named=' '.join(named)))
    return parts



def first_characters(texts, most):
    """The first most characters of the texts joined, without joining them all."""
    taken, held = [], 0
    for text in texts:
        if held >= most:
            break
        taken.append(text[:most - held])
        held += len(taken[-1])
    return ''.join(taken)


def main():
    args = arguments()
    args.out = args.out or kinds.default_path(args.kind)
    is_kind = functools.partial(kinds.is_tokenizer_file, kind=args.kind)
    saving.check_output_path(args.out, cli.message('kinds.named', kind=args.kind), is_kind,
                             inputs=[args.file, locations.SETTINGS], force=args.force)
    text = reading.read_text(args.file, 'give a UTF-8 text file')
    cli.say_if_read_otherwise(args.file)
    cli.say_if_not_nfc(text, args.file)
    texts = [text]
    if args.documents:
        texts, how = documents(text, args.documents)
        if not texts:
            raise ValueError(cli.message('prepare.no_document', name=args.file))
        print(cli.message('fast_bpe.documents', count=f'{len(texts):,}', how=cli.phrase(how)))
    count = merges_for(args)
    tok = train(args, texts, count)
    terminal.status()
    kinds.save(tok, args.out)
    merges = len(tok.state()['merges'])
    if args.kind != 'char':
        print(terminal.clip(', '.join(describe(tok)), 80))  # special names may be long
    print('vocab:', tok.vocab_size, 'merges:', merges)
    # the lesson's rules stop below two occurrences, tokenizers' when no pair is left at all
    say = cli.message
    left = say('fast_bpe.none_left' if args.rules == 'tokenizers' else 'fast_bpe.none_twice')
    if args.vocab_size is not None and tok.vocab_size < args.vocab_size:
        print(terminal.fill(say('fast_bpe.fewer_ids', asked=f'{args.vocab_size:,}', left=left,
                                merges=f'{merges:,}', gives=f'{tok.vocab_size:,}'), '', ' '))
    elif count is not None and merges < count:
        print(say('fast_bpe.fewer_merges', asked=count, left=left, merges=merges))
    encode = kinds.plain(tok) if args.kind != 'char' else lambda t: fast.encode(tok.lesson, t)
    # a sample of what it learned from (JSON lines are no text): the check costs a small share of
    # the training, at any size
    checked = first_characters(texts, CHECKED)
    said = 'OK' if tok.decode(encode(checked)) == checked else 'FAILED'
    if sum(map(len, texts)) > CHECKED:
        said += ' ' + say('fast_bpe.sample', chars=f'{CHECKED:,}')
    print('roundtrip:', said, encode('Q: hi\nA: '))
    specials = kinds.special_strings_line(tok, texts)  # one line, or None
    if specials:
        print(specials)
    print(say('fast_bpe.saved', path=terminal.shown(str(args.out))))


if __name__ == '__main__':
    cli.run(main)
