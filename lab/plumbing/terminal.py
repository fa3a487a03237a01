"""Text for people at a terminal: escaped (shown), measured in columns where Hangul takes two
(width), clipped and wrapped to 80 columns, aligned in tables, and a status line on stderr."""
import codecs
import os
import reprlib
import sys
import unicodedata

COLUMNS = 80  # what every lab's output fits in: a terminal's default width
_NAMED = {'\n': '\\n', '\t': '\\t', '\r': '\\r'}


def shown(text):
    """text safe for a terminal: every character that is not printable (control characters,
    escape sequences, bidirectional overrides, line breaks) written as its escape."""
    if text.isprintable():
        return text
    return ''.join(ch if ch.isprintable() else _NAMED.get(ch) or ascii(ch)[1:-1] for ch in text)


def width(text):
    """Columns text takes on a terminal: wide (CJK, emoji) 2, combining marks 0."""
    if text.isascii():  # most of what the labs print: a column a character
        return len(text)
    return sum(0 if unicodedata.combining(ch) else
               2 if unicodedata.east_asian_width(ch) in 'WF' else 1 for ch in text)


def quoted(value, columns=40):
    """repr(value) for a message, cut to columns (see clip): a value read from a file may be a
    megabyte, and a message is one line. The repr of a long string is taken of its start only."""
    if isinstance(value, str):
        return clip(repr(value[:columns + 1]), columns)
    # a list of a million, nested a million deep: only its start, no RecursionError
    short = reprlib.Repr()
    short.maxlevel, short.maxlist, short.maxdict = 3, 4, 4
    short.maxstring = short.maxother = columns
    return clip(short.repr(value), columns)


def clip(text, columns=80):
    """text cut to at most columns display columns (see width), ending in '...' if cut: in time
    that grows with the columns, not with the text (a token of a million characters, say)."""
    cut = _fitting(text, columns)
    if cut == len(text):
        return text
    return text[:_fitting(text, columns - 3)] + '...'


def fill(text, first='', rest='', columns=COLUMNS):
    """text wrapped at spaces into lines of at most columns display columns (see width),
    the first starting with first, the others with rest. A space inside brackets does not
    break (code such as self.chars.get(c, 0) stays whole); a word too long for a line is cut."""
    lines, line = [], first
    for word in _words_of(text, columns - width(rest)):
        joined = line + word if line in (first, rest) else f'{line} {word}'
        if width(joined) <= columns:
            line = joined
            continue
        if line not in (first, rest):
            lines.append(line)
        start, room = 0, max(columns - width(rest), 1)
        cut = _fitting(word, room)
        while start + cut < len(word):  # a word too long for a line, cut by characters, in one pass
            lines.append(rest + word[start:start + cut])
            start += cut
            cut = _fitting(word, room, start)
        line = rest + word[start:]
    return '\n'.join(lines + [line])


def code_lines(code, indent, columns=80):
    """Lines of code (several, a statement over lines keeping its own indentation), each escaped
    and put after indent; a line too wide is broken at a space outside any string, and what
    follows put four columns further in: a line of code is never cut inside a string."""
    out = []
    for line in code.split('\n'):
        line, room = shown(line), columns - width(indent)
        while width(line) > room:
            cut = _code_break(line, room)
            if cut is None:
                break  # no space to break at: a string longer than the line, kept whole
            out.append(indent + line[:cut].rstrip())
            line = '    ' + line[cut:].lstrip()
        out.append(indent + line)
    return out


def _code_break(line, columns):
    """Where to break a line of code: after the last space outside a string that leaves at most
    columns before it (None where there is none)."""
    best, quote, escaped = None, None, False
    for at, ch in enumerate(line):
        if width(line[:at]) > columns:
            break
        if quote:
            closed = ch == quote and not escaped
            escaped, quote = ch == '\\' and not escaped, None if closed else quote
        elif ch in '\'"':
            quote = ch
        elif ch == ' ' and line[:at].strip():
            best = at + 1
    return best


def _words_of(text, columns):
    """The words fill() wraps: text cut at each space outside brackets; a word that would
    still be wider than columns (brackets left open, say) is cut at its spaces after all."""
    words, start, depth = [], 0, 0
    for at, ch in enumerate(text):
        depth = max(depth + (ch in '([{') - (ch in ')]}'), 0)
        if ch == ' ' and depth == 0:
            words.append(text[start:at])
            start = at + 1
    words.append(text[start:])
    return [part for word in words
            for part in (word.split(' ') if width(word) > columns else [word])]


def _fitting(text, columns, start=0):
    """How many characters of text, from start, fit in columns display columns (at least one,
    unless none is left): it stops at the first that does not, so a long text costs no more."""
    used = 0
    for n in range(start, len(text)):
        used += width(text[n])
        if used > columns:
            return max(n - start, 1)
    return len(text) - start


def labelled(label, text, column):
    """A line of output: label, padded to column (by display width: Hangul is two), then text
    filled within COLUMNS, its further lines indented under it."""
    return fill(text, label + ' ' * max(column - width(label), 1), ' ' * column)


def table(rows, right=()):
    """Rows of strings as aligned columns, two spaces apart; columns in right align right."""
    widths = [max(width(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [' ' * (w - width(cell)) + cell if c in right else cell + ' ' * (w - width(cell))
                 for c, (cell, w) in enumerate(zip(row, widths))]
        lines.append('  '.join(cells).rstrip())
    return '\n'.join(lines)


def figure(n):
    """A count as a table shows it: exact, with commas, below a million; then three significant
    digits and M or G (1.04M, 52.4M, 9.88G), so that a column stays narrow whatever the text."""
    if n < 1_000_000:
        return f'{n:,}'
    if n < 999_500_000:  # 999.5M would round to 1e+03M
        return f'{n / 1e6:.3g}M'
    return f'{n / 1e9:.3g}G' if n < 999_500_000_000 else f'{n / 1e9:,.0f}G'


_STATUS = {'shown': False}  # whether a status line stands on stderr now, for fail() to clear


def status(text=''):
    """Show on a terminal what long work is doing, on one line of stderr drawn over in place;
    status() clears it. Nothing when stderr is not a terminal: a log or a pipe gets results only."""
    if not (sys.stderr and sys.stderr.isatty()) or not (text or _STATUS['shown']):
        return
    # by the columns shown: a line wider than the terminal wraps, and \r redraws half
    text = clip(text, 79)
    print(f'\r{text}{" " * (79 - width(text))}' if text else f'\r{" " * 79}\r', end='',
          file=sys.stderr,
          flush=True)
    _STATUS['shown'] = bool(text)


def use_colour(stream=None):
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get('NO_COLOR') and os.environ.get('TERM') != 'dumb'


# punctuation a terminal's encoding may lack (EUC-KR has no em dash), as the ASCII that looks
# like it
_LOOKALIKES = {'\u2014': '-', '\u2013': '-', '\u2212': '-', '\u00b7': '.', '\u2026': '...',
              '\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"', '\u2192': '->'}


def _lookalike(error):
    """A codec error handler: a character the terminal lacks as the ASCII it looks like, else as
    an escape (\\uXXXX), so that one dash never turns a Korean screen into English."""
    bad = error.object[error.start:error.end]
    said = ''.join(_LOOKALIKES.get(c) or c.encode('ascii', 'backslashreplace').decode()
                   for c in bad)
    return said, error.end


codecs.register_error('lookalike', _lookalike)  # stdout of the tutor, under EUC-KR say
