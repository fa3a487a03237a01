"""The benchmark corpus that python3 -m lab.speed --make-corpus writes: Python's own standard
library source, file after file, text every machine with Python already has.
"""
import os
import sysconfig
from pathlib import Path

from lab.plumbing import saving

SIZE = 12_000_000  # characters of standard library source: some 760 files of Python 3.11's


def stdlib_texts():
    """The texts of the standard library's own .py files (not its tests), in the order the
    corpus takes them; one that cannot be read as UTF-8 left out."""
    for source in python_files(Path(sysconfig.get_paths()['stdlib'])):
        try:
            yield source.read_text(encoding='utf-8')
        except (OSError, UnicodeDecodeError):
            continue


def python_files(folder):
    """The .py files under folder in the order of their paths, folders read only as the order
    reaches them (the first file is found at once: is_corpus asks for no more), and the
    installed packages and the tests left out: the files sorted(folder.rglob('*.py')) gives."""
    try:  # in the order Path sorts them: by name, without case where the system has none
        entries = sorted(os.scandir(folder), key=lambda entry: os.path.normcase(entry.name))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):  # as rglob, which goes into no linked folder
            if entry.name not in ('site-packages', 'test', 'tests'):
                yield from python_files(Path(entry.path))
        elif entry.name.endswith('.py'):
            yield Path(entry.path)


def is_corpus(path):
    """Whether path holds such a corpus: the first file of the standard library it reads."""
    try:
        with open(path, encoding='utf-8') as f:
            return f.read(4096) == next(stdlib_texts(), '')[:4096]
    except (OSError, UnicodeDecodeError):
        return False


def write(path, force=False):
    """(characters, files): the corpus, up to SIZE characters, saved at path. A corpus written
    before may be replaced, any other file (data/mixed.txt, say) only with force."""
    saving.check_output_path(path, 'corpus written by --make-corpus', is_corpus, force=force,
                             fix='give --make-corpus another file name')
    parts, size = [], 0
    for text in stdlib_texts():
        parts.append(text)
        size += len(text)
        if size >= SIZE:
            break
    saving.save(''.join(parts), path)
    return size, len(parts)
