"""A tutor for the tokenizer.py you type: does each part you have typed keep the lesson's rules?

    python3 -m lab.selfcheck [FILE] [--watch] [--lang ko|en]

The lesson has you type tokenizer.py part by part (merge, BPE.__init__, train, encode,
decode and state, the __main__ block) and run things in between. The tutor follows you:
for each part it prints the part's title, then each of its rules as 'OK', or 'FAILED'
with what was called, what came back, what the lesson expects, the line of your file and
where to look. A part you have not typed yet is 'TODO', and the last line names the next
part to type. '--' marks a rule not checked: a rule of an earlier part it needs fails
(fix that one first), or your code did not finish the rule before it.

The rules run on the lesson's own text and settings, never on your data/train.txt or
settings.json, so a correct file passes whatever you train on. Your code runs in a child
process with limits on time, memory and output (a loop that never ends is reported, not
waited for), and your prints are ignored. It speaks the language of your locale
(LANGUAGE, LC_ALL, LC_MESSAGES or LANG), or the one --lang names; its words are in
lab/locale/, one file a language.

Exit status: 0 when every rule holds, 1 when a rule FAILED, 3 when nothing failed but
parts are not typed yet. --watch checks again each time the file is saved (Ctrl-C ends it).

What is where:
  __main__.py  the command: its arguments, the language, --watch
  check.py     the verdict: what is typed, the child's answers, one answer a rule
  rules.py     the lesson's rules, one function each, and the reference they compare with
  runner.py    the child process that runs your code, started, bounded and read
  child.py     in the child: the rules run on your code, each slip looked for, the answers sent
  main_block.py  part 6 in the child: python3 tokenizer.py as you run it, its lines kept
  locate.py    where the slip is (compare.py: your functions beside the lesson's ways): the
               line whose trial makes the failed rule hold
  traced.py    which lines of your file run while a rule fails
  written.py   a line as code, its names read as yours or the lesson's (compare.py reads by it)
  slip_lines.py  the slip in words: your line beside the lesson's, among the rule's lines
  smallest.py  inside a line that differs, the smallest expression that does
  repair.py    a trial: a line of yours put back as the lesson's way writes it
  mutations.py a trial: one token of yours changed (a name renamed at one end, an operator)
  trial.py     the failed rule run again on a trial, in a fork of the child, bounded
  labs.py      the lesson's three labs you type, run and held to what the lesson prints
  report.py    the answers in your language, part by part
  lesson/      the lesson's files exactly as printed, and other_ways.py: what yours are
               compared with
What an error means, and the words in each language, are lab/learner/'s: the labs say them too.

Try next: make one mistake on purpose (step one instead of two in merge, forget
the sorted() of the base vocabulary) and see which rule catches it.
"""
