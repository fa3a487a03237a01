"""The source distribution ships everything its tests need, and they run from it unpacked.

Building needs setuptools 77 or newer (pip install -U setuptools); without it these tests
skip, and .ci/run installs it so that they run there. The archive is built by setuptools'
PEP 517 hook, build_sdist, called in a fork of this process as python3 -m build --sdist
--no-isolation calls it in a Python of its own (the same archive, without starting two
Pythons). The tests use only files git tracks (CI runs them in a fresh clone), so "every
tracked file is in the archive" is the whole promise; running all of the suite again inside
the archive would only double the time of python3 -m unittest for anyone who has setuptools.
The lesson's rule tests are run there as well, to show the unpacked folder works as a
project: imports, data, labs.
"""
import contextlib
import functools
import importlib.metadata
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import warnings
from pathlib import Path

from tests import gate
from tests.project import ROOT, in_a_fork, working_in


def setuptools_new_enough():
    """Whether the setuptools that builds without isolation reads pyproject.toml's SPDX license
    (77 and newer, PEP 639): an older one, or none, skips the tests with the reason."""
    try:
        major = importlib.metadata.version('setuptools').split('.')[0]
    except importlib.metadata.PackageNotFoundError:
        return False
    return major.isdigit() and int(major) >= 77


# for the repository, not for someone who unpacks the archive
NOT_SHIPPED = ('.ci/', '.gitignore')
# (test_lesson_encode needs nothing of the archive that these do not)
LESSON_RULE_TESTS = ['tests.test_lesson_merge', 'tests.test_lesson_train',
                     'tests.test_lesson_output']


@functools.lru_cache(maxsize=None)
def tracked_files():
    """The files git tracks, or None outside a git checkout."""
    listed = subprocess.run(['git', 'ls-files'], cwd=ROOT, capture_output=True, text=True)
    return listed.stdout.splitlines() if listed.returncode == 0 else None


def build_and_run(tracked):
    """(the names the archive holds, the finished run of the lesson's rule tests in it, what the
    build printed): the archive built from a clean tree of the tracked files (linked), unpacked,
    and its tests run."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / 'source'
        for name in tracked:  # a clean tree: building writes an .egg-info beside the sources
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            linked_or_copied(ROOT / name, source / name)
        built, said = in_a_fork(functools.partial(build_sdist, source, Path(tmp) / 'dist'), 300)
        with tarfile.open(built) as tar:
            # names inside are 'xslm_tokenizer-0.1.0/lab/plumbing/cli.py': drop the top folder
            shipped = {name.partition('/')[2] for name in tar.getnames()}
            if hasattr(tarfile, 'data_filter'):  # refuse links and paths that leave the folder
                tar.extractall(Path(tmp) / 'unpacked', filter='data')
            else:
                tar.extractall(Path(tmp) / 'unpacked')
        unpacked = next((Path(tmp) / 'unpacked').iterdir())
        ran = subprocess.run([sys.executable, '-m', 'unittest', *LESSON_RULE_TESTS], cwd=unpacked,
                             capture_output=True, text=True, timeout=300)
        return shipped, ran, said


def linked_or_copied(existing, new):
    """new, a hard link to existing (not a file made: the build only reads its sources; what it
    archives, it copies into a folder of its own first), or a copy where a link cannot be made."""
    try:
        os.link(existing, new)
    except OSError:  # another file system, or none that links
        shutil.copyfile(existing, new)


def build_sdist(source, folder):
    """(the archive, what the build said, its warnings among it): setuptools' build_sdist hook
    called in source, as a build frontend calls it. Run in a fork (in_a_fork): setuptools, as it
    works, patches distutils, sets sys.argv and adds handlers to the root logger."""
    said = io.StringIO()
    with working_in(source), contextlib.redirect_stdout(said), contextlib.redirect_stderr(said), \
            warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter('always')
        from setuptools import build_meta
        archive = folder / build_meta.build_sdist(str(folder))
    return archive, said.getvalue() + ''.join(f'warning: {w.message}\n' for w in warned)


@functools.lru_cache(maxsize=None)
def built():
    """build_and_run on the tracked files: once, by the first test that asks."""
    return build_and_run(tracked_files())


@unittest.skipUnless(setuptools_new_enough(),
                     'needs setuptools 77 or newer (pip install -U setuptools)')
class SourceDistributionTest(unittest.TestCase):
    def setUp(self):
        if tracked_files() is None:
            self.skipTest('needs a git checkout to know which files are the project')

    def test_every_tracked_file_is_in_the_archive(self):
        shipped, _, _ = built()
        wanted = [name for name in tracked_files() if not name.startswith(NOT_SHIPPED)]
        self.assertGreater(len(wanted), 40)  # the project, not an empty listing
        self.assertEqual([name for name in wanted if name not in shipped], [])

    def test_the_build_warns_of_nothing(self):
        said = built()[2]
        self.assertEqual([line for line in said.splitlines() if 'warn' in line.lower()], [])

    def test_the_lesson_rule_tests_pass_in_the_unpacked_archive(self):
        gate.skip_unless_the_file_holds()  # the archive holds the learner's file, as it is
        _, done, _ = built()
        self.assertEqual(done.returncode, 0, done.stderr[-3000:])
        ran = int(done.stderr.split('\nRan ')[1].split()[0])
        self.assertGreater(ran, 20)  # they ran, not 'Ran 0 tests ... OK'


class RepositoryTest(unittest.TestCase):
    def test_what_the_readmes_commands_write_is_ignored_by_git(self):
        if tracked_files() is None:
            self.skipTest('needs a git checkout')
        readme = (ROOT / 'README.md').read_text(encoding='utf-8')
        written = set(re.findall(r'(?:--out|--make-corpus|--tokenizer) (data/[\w./-]+|[\w-]+\.txt)',
                                 readme))
        written -= {'data/train.txt', 'data/mixed.txt'}  # what the commands read, not write
        self.assertIn('data/gpt.json', written)  # the README's commands, read: not an empty list
        # a folder (--out data/gpt, for its bins) as a file in it: git ignores a folder by its files
        paths = sorted(path if '.' in path.rsplit('/', 1)[-1] else f'{path}/train.bin'
                       for path in written)
        listed = subprocess.run(['git', 'check-ignore', '--no-index', *paths], cwd=ROOT,
                                capture_output=True, text=True)
        self.assertEqual(sorted(listed.stdout.split()), paths)


if __name__ == '__main__':
    unittest.main()
