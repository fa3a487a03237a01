"""What the learner's own code did, said in the learner's words: for the tutor and every lab alike.

  parts.py     the lesson's parts, one table: number, the functions each types, its first line
  explain.py   what an error raised by tokenizer.py means: the error in words, the line, the
               part of the lesson, a hint for the usual slips
  keyboard.py  the characters a keyboard or a web page puts into code, and what to type instead
  pasted.py    what was pasted among the code (prompts, line numbers, output): lines to delete
  catalogs.py  the words themselves, one catalog a language (lab/locale/LANG.json)
  errors.py    an error of tokenizer.py met in a lab, said in a few lines before the tutor's name

It stands below both that use it: the tutor (lab/selfcheck/) and the labs' one-line errors
(lab/plumbing/cli.py). It imports neither, nor anything of the project but the catalogs' files.
"""
