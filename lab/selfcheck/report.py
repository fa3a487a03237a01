"""The tutor's answers as a person reads them, in the learner's language, within 80 columns.

Part by part, in the order the lesson teaches them: the part's title, then each rule as OK,
FAILED with the lines that say why, -- when it was not checked, or the whole part as TODO
when it is not typed yet. Then how many rules hold, and the one thing to do next.

The words are the catalogs' (lab/learner/catalogs.py, one JSON file a language in lab/locale/).
"""
from lab.learner import parts
from lab.learner.catalogs import render
from lab.plumbing import terminal
from lab.selfcheck.check import SYNTAX, syntax_part
from lab.selfcheck.rules import LABS, PART_OF, PARTS

MARKERS = {'passed': 'OK', 'failed': 'FAILED', 'not_checked': '--', 'todo': 'TODO'}
EXIT_NOT_TYPED = 3  # nothing failed, but parts of the lesson are still to be typed


def report(words, answers, shown_file):
    """The lines a person reads, part by part, and the exit status."""
    out = [render(words, 'heading', {'file': shown_file}), '']
    broken = syntax_part(answers)
    # why parts were not checked, said once: a 24-line screen keeps the FAILED in view
    reasons = set()
    slips = set()  # the lines of a slip already shown beside the lesson's
    for part in PARTS:
        names = [name for name, its in PART_OF.items() if its == part and name in answers]
        if not names:
            continue  # the labs, with no lab/ folder beside the file checked
        title = render(words, 'part_title', {'n': str(part), 'title': words[f'part.{part}']})
        states = {answers[name][0] for name in names}
        if part == broken:
            out.append(title)
            out += rule_lines(words, SYNTAX, answers[SYNTAX], shown_file)
        elif states == {'todo'}:
            out.append(terminal.fill(title, 'TODO    ', ' ' * 8))
        elif states == {'not_checked'} and len({str(answers[name][1]) for name in names}) == 1:
            # the part on one line, and why once
            out.append(terminal.fill(title, '--      ', ' ' * 8))
            reason = str(answers[names[0]][1])
            if reason not in reasons:
                out += said_lines(words, answers[names[0]][1], shown_file)
            reasons.add(reason)
        else:
            out.append(title)
            before, failed = None, False
            for name in names:
                answer = answers[name]
                if mistake(answer) is not None and mistake(answer) == mistake(before):
                    shown = ['failed', [['same_as_above', {}]]]  # one mistake said once
                elif answer[0] == 'not_checked' and (answer == before or str(answer[1]) in reasons):
                    shown = ['not_checked', None]  # and why, once
                elif answer[0] == 'failed' and failed:  # often the first one's mistake again, seen
                    shown = ['failed', again(answer[1], slips)]  # otherwise
                else:
                    shown = answer
                out += rule_lines(words, name, shown, shown_file)
                if answer[0] == 'failed':
                    slips.update(str(line) for line in answer[1] if line[0].startswith('slip_'))
                if answer[0] == 'not_checked':
                    reasons.add(str(answer[1]))
                before, failed = answer, failed or answer[0] == 'failed'
    lines, status = summary(words, answers)
    return out + lines, status


def fit(words, lines, height):
    """lines cut to a screen of height lines, as --watch draws it anew on each save: the first
    FAILED and all it says stay in view, and so do the last lines (how many rules hold, what
    to do next); one line says how many were left out between."""
    if len(lines) <= height:
        return lines
    tail = lines[-3:]
    first = next((n for n, line in enumerate(lines) if line.startswith(MARKERS['failed'])),
                 len(lines) - 3)
    end = first + 1
    while end < len(lines) - 3 and lines[end].startswith(' '):
        end += 1  # what the FAILED says, indented under it
    room = max(height - len(tail) - 1, 1)
    head = lines[:max(end, room)][-room:]  # what comes before the FAILED goes first
    left = len(lines) - len(head) - len(tail)
    return head + [render(words, 'cut_for_screen', {'n': str(left)})] + tail


def again(said, slips):
    """What a FAILED after the first says: no look (the first one's), and a slip already shown
    above as one line that says so."""
    kept = [line for line in said if line[0] != 'look' and str(line) not in slips]
    if len(kept) < len([line for line in said if line[0] != 'look']):
        line = next(fields['line'] for key, fields in said if key.startswith('slip_'))
        kept.append(['same_slip', {'line': line}])
    return kept


def mistake(answer):
    """What an error or a missing return says of the code, whatever rule called it: the same
    for two rules means the same mistake, said once. None for a value that differs."""
    if not answer or answer[0] != 'failed' or answer[1][0][0] not in ('raised', 'returned_none'):
        return None
    return [line for line in answer[1] if line[0] != 'returned_none']


def summary(words, answers):
    """The last lines, and the exit status: how many rules hold, then the one thing to do next."""
    rules = [name for name in PART_OF if name in answers]
    held = sum(answers[name][0] == 'passed' for name in rules)
    # a part Python could not read is typed too: it failed, and counts
    typed = sum(answers[name][0] != 'todo' for name in rules) + (SYNTAX in answers)
    failed = [name for name in [SYNTAX, *rules] if name in answers and answers[name][0] == 'failed']
    lines = ['', render(words, 'summary', {'held': str(held), 'typed': str(typed)})]
    if failed:
        rule = words['rule.rule_syntax'] if failed[0] == SYNTAX else words[f'rule.{failed[0]}']
        return lines + [terminal.fill(render(words, 'fix_first', {'rule': rule}), '', '  ')], 1
    todo = sorted({PART_OF[name] for name in rules if answers[name][0] == 'todo'})
    labs = [LABS[name] for name in rules if name in LABS and answers[name][0] == 'todo']
    # the file is done: the lesson's labs next, by the file to type
    if todo == [parts.LABS] and labs:
        return lines + [terminal.fill(render(words, 'next_lab', {'lab': labs[0]}), '',
                                      '  ')], EXIT_NOT_TYPED
    if todo:
        return lines + [render(words, 'next_part',
                               {'n': str(todo[0]), 'title': words[f'part.{todo[0]}']})], \
            EXIT_NOT_TYPED
    return lines + [words['all_hold']], 0


def rule_lines(words, name, answer, shown_file):
    """The rule's marker and words, then, for FAILED and --, the lines that say why."""
    state, said = answer
    lines = [terminal.fill(words[f'rule.{name}'], f'{MARKERS[state]:<8}', ' ' * 8)]
    if state not in ('failed', 'not_checked'):
        return lines
    return lines + said_lines(words, said, shown_file)


def said_lines(words, said, shown_file):
    """Lines [[key, fields]] in words, indented under their rule, escaped, within 80 columns. A line
    of code (a field 'code', the last of its message) ends the line where it fits whole; else it
    follows on lines of its own, each as typed: a statement over lines, all of them."""
    lines = []
    for key, fields in said or []:
        if 'part' in fields:  # a part by its number and title
            fields = dict(fields, title=words[f'part.{fields["part"]}'])
        text = terminal.shown(render(words, key, {'file': shown_file, **fields}))
        # a keyboard hint's code is U+...
        code = fields.get('code', '') if key.startswith('slip_') else ''
        if '\n' in code or code and terminal.width(text) > 80 - 10:
            said_first = render(words, key, {'file': shown_file, **fields, 'code': ''}).rstrip()
            said_first = terminal.shown(said_first)
            lines.append(terminal.fill(said_first, ' ' * 10, ' ' * 12))
            lines += terminal.code_lines(code, ' ' * 12)
            continue
        lines.append(terminal.fill(text, ' ' * 10, ' ' * 12))
    return lines
