"""The plumbing every lab stands on, a module a job; none of it knows anything of tokenizers.

  locations.py  where the project's files are (settings.json, data/train.txt, ...)
  reading.py    a text read as the lesson reads it, JSON read strictly, one line for each
                way a file can be wrong
  saving.py     a file written all at once, and only where the user meant
  terminal.py   text for people: escaped, clipped and wrapped to 80 columns, tables
  measures.py   figures of a text: percentiles, held-out lines, characters not in NFC
  processes.py  children bounded in time and output, ended with their parent
  cli.py        a lab as a command: --help, the shared arguments, one-line errors, run(main)
  bins.py       the .bin files of lab.prepare, read back
  corpus.py     the benchmark corpus of lab.speed --make-corpus: the standard library's source

A lab reads as: cli.parser(__doc__), reading.read_text(...), saving.save(...), cli.run(main).
"""
