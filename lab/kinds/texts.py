"""What a kind trains on: one text, or a list of documents; and how a text is cut into them.

Every kind's train() takes either. A list is what the tokenizers library trains from
(train_from_iterator): each document is cut into pieces on its own, and no merge joins two
documents, just as none joins two lines in the lesson. documents() cuts a text the way
lab.prepare and lab.fast_bpe --documents cut it, so that a tokenizer is trained on the very
documents its data is prepared from.
"""
HOW = ['paragraphs', 'lines']  # what --documents takes


def texts_of(text):
    """text as a list of documents: [text] for a str, the list itself for a list or tuple of str;
    TypeError for anything else."""
    if isinstance(text, str):
        return [text]
    if isinstance(text, (list, tuple)) and all(isinstance(doc, str) for doc in text):
        return list(text)
    raise TypeError(f'train takes a str or a list of str (documents), not {type(text).__name__}')


def merges_to_learn(count, vocab_size, base, kind):
    """How many merges to learn: count, or as many as make vocab_size ids when base ids come first.
    Exactly one of the two is given."""
    if (count is None) == (vocab_size is None):
        raise TypeError('train takes count (merges to learn) or vocab_size (ids in all), one of the two')
    number = count if vocab_size is None else vocab_size
    if type(number) is not int or number < 0:
        raise TypeError(f'{"count" if vocab_size is None else "vocab_size"} must be a whole number >= 0')
    if vocab_size is None:
        return count
    if vocab_size < base:
        raise ValueError(f'{vocab_size:,} ids asked for: a {kind} tokenizer of this text starts with '
                         f'{base:,} ids')
    return vocab_size - base


def documents(text, how=None):
    """(documents, how they were cut): one a line ('lines'), paragraphs between blank lines
    ('paragraphs'), or by default Q/A pairs when every line is Q: or A: in turn (the lesson's
    data), else paragraphs. Blank lines are no document."""
    lines = [line for line in text.split('\n') if line.strip()]
    if how == 'lines':
        return lines, 'one a line'
    if how is None and lines and all(line.startswith('QA'[n % 2] + ': ') for n, line in enumerate(lines)):
        return ['\n'.join(lines[n:n + 2]) for n in range(0, len(lines), 2)], 'one Q/A pair each'
    paragraphs = [p.strip('\n') for p in text.split('\n\n')]
    return [p for p in paragraphs if p.strip()], 'paragraphs between blank lines'
