"""The contract of a tokenizer file: what a sound tokenizer.json holds, and the lesson's BPE
rebuilt from one. Below the engine and the kinds, which build on it; above the plumbing.

  checks.py   what a file must keep (problem_with, vocabulary_problem), each problem one line
  lessons.py  the lesson's BPE, the library's own copy (lesson_bpe), and the learner's rebuilt
              for the labs that show it (learners_bpe), used and checked as the labs use it
"""
