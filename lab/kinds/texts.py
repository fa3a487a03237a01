"""What a kind trains on: one text, or a list of documents; and how a text is cut into them.

Every kind's train() takes either. A list is what the tokenizers library trains from
(train_from_iterator): each document is cut into pieces on its own, and no merge joins two
documents, just as none joins two lines in the lesson. documents() cuts a text the way
lab.prepare and lab.fast_bpe --documents cut it, so that a tokenizer is trained on the very
documents its data is prepared from.
"""
from lab.plumbing import cli, reading

HOW = ['paragraphs', 'lines', 'jsonl']  # what --documents takes


def texts_of(text):
    """text as a list of documents: [text] for a str, a list of the documents for any
    iterable of str (a list, a generator, as tokenizers' train_from_iterator takes);
    TypeError for anything else."""
    if isinstance(text, str):
        return [text]
    if not isinstance(text, (bytes, bytearray, dict)):
        try:
            docs = list(text)
        except TypeError:
            docs = None
        if docs is not None and all(isinstance(doc, str) for doc in docs):
            return docs
    raise TypeError(
        f'train takes a str or an iterable of str (documents), not {type(text).__name__}')


def merges_to_learn(count, vocab_size, base, kind):
    """How many merges to learn: count, or as many as make vocab_size ids when base ids come first.
    Exactly one of the two is given."""
    if (count is None) == (vocab_size is None):
        raise TypeError(
            'train takes count (merges to learn) or vocab_size (ids in all), one of the two')
    number = count if vocab_size is None else vocab_size
    if type(number) is not int or number < 0:
        raise TypeError(
            f'{"count" if vocab_size is None else "vocab_size"} must be a whole number >= 0')
    if vocab_size is None:
        return count
    if vocab_size < base:
        raise ValueError(cli.message('texts.too_few_ids', asked=f'{vocab_size:,}', kind=kind,
                                     base=f'{base:,}'))
    return vocab_size - base


def documents(text, how=None):
    """(documents, how they were cut): one a line ('lines'), paragraphs between blank lines
    ('paragraphs'), one JSON document a line ('jsonl': a string, or an object with "text", as
    datasets writes them), or by default Q/A pairs when every line is Q: or A: in turn (the
    lesson's data), else paragraphs. Blank lines are no document."""
    if how == 'jsonl':
        return [json_document(line, n)
                for n, line in enumerate(text.split('\n'), 1) if line.strip()], \
            'one JSON document a line'
    if how in ('lines', None):  # (paragraphs of a large text need no list of its lines)
        lines = [line for line in text.split('\n') if line.strip()]
        if how == 'lines':
            return lines, 'one a line'
        q_then_a = ('Q: ', 'A: ')  # the lesson's data: a question's line, then its answer's
        if lines and all(line.startswith(q_then_a[n % 2]) for n, line in enumerate(lines)):
            return ['\n'.join(lines[n:n + 2]) for n in range(0, len(lines), 2)], \
                'one Q/A pair each'
    paragraphs = [p.strip('\n') for p in text.split('\n\n')]
    return [p for p in paragraphs if p.strip()], 'paragraphs between blank lines'


def json_document(line, number):
    """The text of one line of JSON lines: a string, or an object's "text";
    ValueError naming the line."""
    try:
        value = reading.strict_json(line)  # a number of 5,000 digits or nesting too deep: said, too
    except (RecursionError, ValueError) as e:
        why = reading.json_problem(e)
        raise ValueError(cli.message('texts.not_json', line=f'{number:,}', why=why)) from None
    value = value.get('text') if isinstance(value, dict) else value
    if not isinstance(value, str):
        raise ValueError(cli.message('texts.no_text', line=f'{number:,}'))
    return value
