"""Lines that are not code but were pasted among it: what to delete, by line.

Typing along with a lesson in one window and a terminal in another, a learner pastes more
than code: Python's prompts (`>>> `, `... `) copied from an interactive session, the line
numbers of a web page's listing, or what the terminal printed (`$ python3 tokenizer.py`,
`vocab: 40 merges: 12`, a traceback). Python then says only "invalid syntax" at the first
of them. pasted() finds them all and names the lines, so the learner deletes what is not
code instead of retyping what is.
"""
import re

PROMPT = re.compile(r'\s*(>>>|\.\.\.)( |$)')
NUMBERED = re.compile(r'\s*\d+(\s+\S|\s*$)')  # 12    def merge(...): a number, then the code
PRINTED = re.compile(
    r'\s*(\$ |PS [A-Z]:.*> |~.*\$ |Traceback \(most recent call last\)|File ".*", line \d+'
    r'|vocab: \d+ merges: \d+|roundtrip: |[A-Z]\w*(Error|Exception|Warning)\b.*: |'
    r'[\^~ ]*\^[\^~ ]*$|python3? )')


def pasted(source, line):
    """(hint key, {'lines': 'N-M' or 'N, M'}) for the pasted lines around line (where Python
    stopped reading), or None when that line looks like code."""
    lines = source.splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ''
    if PROMPT.match(text):
        found = [n for n, typed in enumerate(lines, 1) if PROMPT.match(typed)]
        return 'hint.pasted_prompt', {'lines': numbers(found)}
    if NUMBERED.match(text) and not _is_code(text):
        found = [n for n, typed in enumerate(lines, 1) if NUMBERED.match(typed) and
                 # a blank line of the listing: its number
                 (not _is_code(typed) or typed.strip().isdigit())]
        # a listing: each line between its numbered lines is of it too, even one that is code to
        # Python (23 @classmethod reads as a product of 23 and classmethod)
        if len(found) > 1 and len(found) >= 0.8 * (found[-1] - found[0] + 1):
            found = range(found[0], found[-1] + 1)
        if len(found) > 1:
            return 'hint.pasted_numbers', {'lines': numbers(found)}
    # Python stopped here: no code, whatever it looks like (roundtrip: OK [29])
    if PRINTED.match(text):
        first = last = line
        while first > 1 and _printed(lines, first - 1):
            first -= 1
        while last < len(lines) and _printed(lines, last + 1):
            last += 1
        return 'hint.pasted_output', {'lines': numbers(range(first, last + 1))}
    return None


def unpasted(line):
    """line without a prompt or a line number pasted before its code: what the learner meant."""
    return re.sub(r'^(>>> ?|\.\.\. ?|\d+ ?)', '', line)


def _printed(lines, n):
    """Whether line n looks like the terminal's, not code (a traceback's quoted code line too)."""
    text = lines[n - 1]
    quoted = n > 1 and re.match(r'\s*File ".*", line \d+', lines[n - 2])
    return bool(text.strip()) and (bool(PRINTED.match(text)) or bool(quoted))


def _is_code(text):
    """Whether a line compiles as Python on its own (dedented; a header with a body added)."""
    code = text.strip()
    for attempt in (code, code + '\n    pass'):
        try:
            compile(attempt, '<line>', 'exec')
            return True
        except (SyntaxError, ValueError):
            continue
    return False


def numbers(found):
    """Line numbers as a person reads them: 5-9 for a run, 5, 7, 9 otherwise (the first six)."""
    found = list(found)
    if len(found) > 1 and found == list(range(found[0], found[-1] + 1)):
        return f'{found[0]}-{found[-1]}'
    shown = ', '.join(map(str, found[:6]))
    return shown + (', ...' if len(found) > 6 else '')
