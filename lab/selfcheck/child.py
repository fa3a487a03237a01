"""The tutor's child (forked for runner.py by forks.py): it runs the rules on your file, one after
another, each bounded in CPU time, then looks for the slip behind each rule that failed, in a
fork, and writes every answer, marked with the secret it was given before your code ran, to its
answer pipe.
"""
import contextlib
import functools
import json
import os
import signal
import sys
import types
from pathlib import Path

from lab.learner import explain, parts
from lab.selfcheck import labs, locate, main_block, rules, slip_lines, traced
from lab.selfcheck import trial as trial_run
from lab.selfcheck.runner import ANSWER, FILE_SIZE, MEMORY, SECONDS, kill_below
from lab.selfcheck.trial import time_limit


def serve(fd, jobs, seconds, search, secret):
    """The child's main: answers for jobs ([folder, rules] each) to the answer pipe fd, each rule
    given seconds, the slips of the rules that failed looked for if search, each answer marked
    with secret."""
    limit_resources()
    adopt_orphans()
    out = os.fdopen(fd, 'w', encoding='utf-8', buffering=1)
    RUNNING.update(send=sender(out, secret), pid=os.getpid())
    del secret
    # the rules' limit is CPU time: a busy machine changes nothing
    signal.signal(signal.SIGPROF, time_is_up)
    # and the clock's, WALL times as long, for code that sleeps
    signal.signal(signal.SIGALRM, time_is_up)
    searches = [] if search else None  # each job's failed rules, searched after all the rules
    RUNNING['searches'] = searches  # (searched at once if a job's code makes the child give up)
    for n, (folder, names) in enumerate(jobs):
        RUNNING['job'] = n
        for name, answer in run_job(folder, names, seconds, searches):
            RUNNING['send'](n, name, answer)
    for n, name, answer in named_slips(searches or []):
        RUNNING['send'](n, name, answer)
    out.close()
    end_child()


def sender(out, secret):
    """send(job, rule, answer): one answer written to out, a JSON line that starts with the secret
    (one over ANSWER characters, of values your code made grow without end, is said, not sent)."""
    def send(job, name, answer):
        line = json.dumps([secret, job, name, answer])
        if len(line) > ANSWER:
            grown = ['failed', [['could_not_finish', {'last': 'MemoryError'}]]]
            line = json.dumps([secret, job, name, grown])
        out.write(line + '\n')
    return send


def end_child():
    kill_below(os.getpid())  # what your code started and left, adopted: it ends here
    os._exit(0)  # now: a thread your code started, and did not end, is not waited for


# in the child: how it sends an answer, and the rule running now (what time_is_up needs)
RUNNING = {}
# times the time limit may fire in one rule: once more, and your code is holding on to it
SWALLOWED = 1


def time_is_up(signum, frame):
    """The time limit of a rule: rules.TooLong where your code is. Code that catches it (a bare
    except in a loop) and goes on gets it again; then the child answers for that rule from where
    it is, says the rules after it are not checked, and ends (give_up)."""
    RUNNING['fired'] = RUNNING.get('fired', 0) + 1
    if RUNNING['fired'] > SWALLOWED and RUNNING.get('name') and RUNNING.get('pid') == os.getpid():
        give_up(frame)
    raise rules.TooLong


def give_up(frame):
    """The answer for the rule running now, a TimeoutError said where frame is, and not checked for
    the rules after it, written at once; then the child ends: nothing your code catches."""
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)
    trace = None
    while frame is not None:  # the traceback of where your code was, outermost first
        trace = types.TracebackType(trace, frame, frame.f_lasti, frame.f_lineno)
        frame = frame.f_back
    error = TimeoutError().with_traceback(trace)
    said = explain.explain(error, 'tokenizer.py', RUNNING['source'], RUNNING['limit'],
                           RUNNING['settled'])
    send, job = RUNNING['send'], RUNNING.get('job', 0)
    send(job, RUNNING['name'], ['failed', said])
    for name in RUNNING['after']:
        send(job, name, ['not_checked', [['not_checked_stuck', {}]]])
    for n, name, answer in named_slips(RUNNING.get('searches') or []):  # the jobs' before it
        send(n, name, answer)
    end_child()


def adopt_orphans():
    """Make the child the parent of any process your code starts and leaves (Linux's subreaper):
    then the tutor finds it below the child, whatever it did to its group or its environment."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # 36: PR_SET_CHILD_SUBREAPER
    except (ImportError, OSError, AttributeError):  # not Linux: the group and the mark still hold
        pass


def limit_resources():
    try:  # a loop that appends forever hits these, not the machine's memory or disk
        import resource
        for which, most in [(resource.RLIMIT_AS, MEMORY), (resource.RLIMIT_FSIZE, FILE_SIZE),
                            (resource.RLIMIT_CORE, 0)]:
            resource.setrlimit(which, (most, most))
    except (ImportError, ValueError, OSError):  # not on Windows: there only the tutor's limit holds
        pass


def run_job(folder, names, seconds=SECONDS, searches=None):
    """(rule, answer) for each rule on the tokenizer.py in folder, in order, each given seconds
    (the command line twice as many), given as each is found. searches: a list to add the
    failed rules whose slips are to be looked for to (named_slips), or None."""
    os.chdir(folder)
    sys.modules.pop('tokenizer', None)
    sys.path[0] = folder  # as python3 tokenizer.py puts its own folder first
    rules.lesson_text.cache_clear()
    rules.lesson_text()  # read before your code runs: nothing it does to the folder changes it
    source = Path('tokenizer.py').read_text(encoding='utf-8', errors='replace')
    # the parts whose code did not finish a rule: the rules that call them would wait too
    stuck = set()
    held, broke = set(), set()  # the parts with a rule that held, that did not
    answers, wanted = [], []
    for name in names:
        if rules.CALLS[name] & stuck:
            answers.append((name, ['not_checked', [['not_checked_stuck', {}]]]))
            yield answers[-1]
            continue
        limit = seconds * (2 if name == rules.COMMAND_LINE else 1)
        settled = held - broke - {rules.PART_OF[name]}  # the earlier parts whose rules all hold
        RUNNING.update(name=name, source=source, limit=limit, settled=settled, fired=0,
                       after=names[names.index(name) + 1:])
        answer, stopped = answer_for(name, folder, source, limit, settled)
        RUNNING['name'] = None
        stuck |= set(rules.PARTS) if name == 'rule_imports' and answer[0] == 'failed' else stopped
        # an earlier part this rule calls broke: then this rule is not checked
        before = {p for p in rules.CALLS[name] & broke if p < rules.PART_OF[name]}
        # a lab names its own slip
        if answer[0] == 'failed' and name not in rules.LABS and not before:
            wanted.append((len(answers), name, limit, settled, stopped,
                           rules.PART_OF[name] not in broke))
        (held if answer[0] == 'passed' else broke).add(rules.PART_OF[name])
        answers.append((name, answer))
        yield name, answer
    if searches is not None and wanted:  # as the rules left it: the module your file made
        searches.append((RUNNING.get('job', 0), folder, source, sys.modules.get('tokenizer'),
                         [(name, answers[at][1], limit, settled, stopped, first, names)
                          for at, name, limit, settled, stopped, first in wanted]))


def named_slips(searches):
    """(job, rule, its answer again, naming the slip) for each failed rule of searches whose slip
    is found. Every slip is looked for in one fork of the child (trial.in_a_fork), after all the
    rules of all the jobs: the search runs changed copies of your code, and nothing they do may
    reach the child. A fork that ends before it is done (a trial may end its process) is
    followed by another, from the rule after the one it was on; an answer given is kept if the
    search runs out of the child's time."""
    tasks = [(job, folder, source, module, *rule) for job, folder, source, module, failed
             in searches for rule in failed]
    done = 0
    while done < len(tasks):
        left = tasks[done:]
        try:  # the trials' folder, its files copied from a job's, wherever your code went
            os.chdir(left[0][1])
            scratch = trial_run.scratch_folder(tasks[0][1])
        except OSError:  # your code took its folder (or the lesson's files in it) away
            done += 1
            continue
        try:
            found = trial_run.in_a_fork(functools.partial(slips_of, left, scratch),
                                        SEARCH * len(left), scratch)
        except OSError:  # no fork to be had (too many processes, no memory): the answers stand
            return
        for (job, _, _, _, name, answer, *_), slip in zip(left, found):
            if slip:  # said as found: a child ended later keeps them
                yield job, name, [answer[0], slip_lines.said(answer[1], slip)]
        done += len(found) + (len(found) < len(left))  # none for the task it was on


def slips_of(tasks, scratch):
    """In the fork: the slip of each task (or None), each job's tasks run in scratch, with the
    module its tokenizer.py made (imported from its own folder) and nothing learned of another
    job's file."""
    folder = None
    for job, there, source, module, name, answer, limit, settled, stopped, first, names in tasks:
        if there != folder:
            folder = there
            sys.path[0] = folder
            if module is None:
                sys.modules.pop('tokenizer', None)
            else:
                sys.modules['tokenizer'] = module
            os.chdir(scratch)
            locate.forget()
        try:
            yield slip_for(name, names, folder, source, limit, settled, stopped,
                           raised_at(answer[1]), first)
        except rules.TooLong:
            # its search took too long: the rule's answer stands; on to the next
            yield None
        except Exception:
            # a file of a shape the finder did not foresee: the rule's answer stands
            # XSLM_TUTOR_RAISE, for whoever works on the finder: its own error
            if os.environ.get('XSLM_TUTOR_RAISE'):
                raise
            yield None


def answer_for(name, folder, source, limit, settled, ran=None):
    """(the answer for one rule, the parts whose code did not finish it: empty, or the one where
    time ran out). ran: a set to add the lines of tokenizer.py that run to, or None."""
    rules.SECONDS = limit
    try:
        lines = traced.lines_run(ran) if ran is not None else contextlib.nullcontext()
        with time_limit(limit), lines:
            if name == rules.COMMAND_LINE:
                return main_block.command_line(source), set()
            if name in rules.LABS:
                lab = rules.LABS[name]
                printed = main_block.Printed
                return labs.check(lab, folder, printed, rules.lesson_text(),
                                  rules.LESSON_MERGES), set()
            return ['passed', rules.CHECKS[name]()], set()
    except rules.Wrong as e:
        return ['failed', returned_in_a_loop(e.args[0], rules.PART_OF[name], source)], set()
    except BaseException as e:  # the learner's code failed: say what and where, in their file
        # (a KeyboardInterrupt too: the child has a session of its own, so no Ctrl-C of the
        # terminal reaches it; one raised here is the learner's code's)
        stopped = set()
        # said as the TimeoutError it is, where it was when time ran out
        if isinstance(e, rules.TooLong):
            e = TimeoutError().with_traceback(e.__traceback__)
            line, _ = explain.where(e, 'tokenizer.py', source, settled)
            stopped = {explain.part_of_line(source, line) if line else rules.PART_OF[name]}
        return ['failed', explain.explain(e, 'tokenizer.py', source, limit, settled)], stopped


def raised_at(lines):
    """The line of tokenizer.py an error was raised at, from the lines explain() says, or None."""
    return next((int(fields['line'])
                 for key, fields in lines if key in ('at_line', 'at_line_only')), None)


def slip_for(name, names, folder, source, limit, settled, stopped, raised=None, first=True):
    """The slip behind a failed rule (locate.locate): the line of yours that, put back as the
    lesson writes it, makes the rule hold (tried on the rule, trial by trial, in this child),
    ranked by the lines that ran when the rule is run again, traced (run once untraced, a rule
    that holds costs no tracing, nor a later rule of the part, which tries only the slip found
    before); for a rule that did not finish, the part where time ran out.
    raised: the line an error of your code was raised at, which stands when no trial holds.
    first: the first rule of its part to fail: its slip is looked for; a later rule of the part
    is said to fail for the same slip when that slip's trial makes it hold too, else for none."""
    unsure = {rules.PART_OF[rule] for rule in rules.PART_OF if rule not in names}  # not all checked
    suspects = set(rules.PARTS) if name == 'rule_imports' else \
        ({rules.PART_OF[name]} | rules.CALLS[name]) - (settled - unsure)
    rules.SECONDS = limit  # what the rule is given, on every trial of it too
    trial = trial_run.on_trial(name, source, min(limit, TRIAL))
    ran = None
    if not stopped and first:  # a later rule of the part tries the slip found before, no line
        ran = set()
        answer_for(name, folder, source, limit, settled, ran)
    with trial_run.time_limit(SEARCH):
        return locate.locate(source, ran, stopped or suspects, holds=trial,
                             raised=None if stopped else raised, effort=first)


# seconds of CPU time for the rule on one trial of your file: the lesson's code needs ms
TRIAL = 0.3
SEARCH = 3  # seconds of CPU time for the search of one slip, all its trials together


def returned_in_a_loop(lines, part, source):
    """lines, looking at the return of the part's function when it stands inside a loop: that
    return, not the code the rule's own look names, is what to fix."""
    function = parts.FUNCTIONS.get(part)
    if function not in explain.returns_in_a_loop(source):
        return lines
    return [['look', {'where': f'look.{function}_return'}] if key == 'look' else [key, fields]
            for key, fields in lines]
