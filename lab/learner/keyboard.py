"""Characters a keyboard or a web page puts into code, and the ASCII character to type instead.

A Korean keyboard in full-width mode types `（ ）：，` for `( ) : ,`; the Hangul key left on
types `ㅑ` for `i` (the same key); a page or a word processor copied from gives curly quotes
`‘ ’ “ ”`, a no-break space (U+00A0) or an ideographic space (U+3000). They look like the
ASCII characters Python reads, so the line looks right and Python says only "invalid
character". This names the character (as it looks, and its Unicode name), where it is, and
what to type.

A jamo in a name is no SyntaxError: Python reads `ㅑ` as a letter, and keeps it in NFKC form
(`ᅣ`, U+1163), so an error names a variable that is not what was typed. typed_name() finds
the name as typed.
"""
import re
import unicodedata

# the 2-beolsik layout: the key each Hangul letter is on (shifted for the double ones)
JAMO_KEYS = dict(zip('ㅂㅈㄷㄱㅅㅛㅕㅑㅐㅔㅁㄴㅇㄹㅎㅗㅓㅏㅣㅋㅌㅊㅍㅠㅜㅡㅃㅉㄸㄲㅆㅒㅖ',
                     'qwertyuiopasdfghjklzxcvbnmQWERTOP'))
SPACES = {'\u00a0', '\u3000', '\u2002', '\u2003', '\u2009'}
# zero width: nothing to type instead
INVISIBLE = {'\u200b', '\u200c', '\u200d', '\u2060', '\ufeff'}
QUOTES = {'\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201c': '"', '\u201d': '"', '\u201e': '"'}
DASHES = {'\u2212': '-', '\u2013': '-', '\u2014': '-'}
INVALID = re.compile(r"invalid (?:non-printable )?character(?: '.')? ?\(?U\+([0-9A-Fa-f]{4,6})\)?")


def ascii_for(char):
    """(the kind of slip, the ASCII to type) for a character a keyboard puts in code, or None."""
    if '\uff01' <= char <= '\uff5e':  # full-width forms: the ASCII ones, 0xFEE0 further on
        return 'fullwidth', chr(ord(char) - 0xFEE0)
    if char in SPACES:
        return 'space', ' '
    if char in INVISIBLE:
        return 'invisible', ''
    if char in QUOTES:
        return 'quote', QUOTES[char]
    if char in DASHES:
        return 'dash', DASHES[char]
    if char in JAMO_KEYS:
        return 'jamo', JAMO_KEYS[char]
    return None


def name_of(char):
    return unicodedata.name(char, f'U+{ord(char):04X}')


def slip(char, line, text):
    """[hint key, fields] for char, found on line (its text): what it is, where, what to type."""
    kind, typed = ascii_for(char) or ('other', '')
    column = text.index(char) + 1 if char in text else 0
    shown = repr(char)[1:-1] if not char.isprintable() or char in SPACES | INVISIBLE else char
    return [f'hint.keyboard_{kind}',
            {'char': shown, 'name': name_of(char), 'code': f'U+{ord(char):04X}',
             'line': str(line), 'column': str(column), 'ascii': typed}]


def invalid_character(error, source):
    """The hint for a SyntaxError over a character Python does not read in code, or None."""
    found = INVALID.search(getattr(error, 'msg', '') or '')
    if not found:
        return None
    char = chr(int(found.group(1), 16))
    lines = source.splitlines()
    line = error.lineno or 1
    text = lines[line - 1] if 0 < line <= len(lines) else ''
    return slip(char, line, text)


def typed_name(name, text):
    """The name as typed on a line of text, for a name Python gives in NFKC form (ᅣ for ㅑ),
    or name itself when the line has no such spelling of it."""
    for word in re.findall(r'\w+', text):
        if word != name and unicodedata.normalize('NFKC', word) == name:
            return word
    return name


def as_typed(code, text):
    """code (shown from Python's reading of a line) with each name in the spelling text has it."""
    for word in set(re.findall(r'\w+', text)):
        normal = unicodedata.normalize('NFKC', word)
        if normal != word:
            code = re.sub(rf'(?<!\w){re.escape(normal)}(?!\w)', word, code)
    return code


def jamo_name(name, line, text):
    """The hint for a name typed with the Hangul key on (ㅑ for i), or None: the name as typed
    and the keys it was typed on."""
    char = next((char for char in name if char in JAMO_KEYS), None)
    if char is None:
        return None
    key, fields = slip(char, line, text)
    return key, dict(fields, char=name, ascii=''.join(JAMO_KEYS.get(c, c) for c in name),
                     name=name_of(char))
