"""The source distribution ships everything its tests need: they run, and pass, unpacked.

Building needs the `build` package (pip install build); without it the test skips, and
.ci/run installs it so that it runs there. The unpacked copy's own suite is run with
XSLM_INSIDE_SDIST set, so that this test does not build again inside it.
"""
import os
import subprocess
import sys
import tarfile
import tempfile
import unittest
from pathlib import Path

from tests.project import ROOT

try:
    import build  # only whether it is there
except ImportError:
    build = None


@unittest.skipIf(build is None, 'needs the build package (pip install build)')
@unittest.skipIf(os.environ.get('XSLM_INSIDE_SDIST'), 'already inside an unpacked source distribution')
class SourceDistributionTest(unittest.TestCase):
    def test_the_unpacked_sdist_runs_the_whole_suite_and_passes(self):
        with tempfile.TemporaryDirectory() as tmp:
            tracked = subprocess.run(['git', 'ls-files'], cwd=ROOT, capture_output=True, text=True)
            files = tracked.stdout.split() if tracked.returncode == 0 else None
            if files is None:
                self.skipTest('needs a git checkout to know which files are the project')
            source = Path(tmp) / 'source'
            for name in files:  # a clean copy: building writes an .egg-info beside the sources
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                (source / name).write_bytes((ROOT / name).read_bytes())
            built = subprocess.run([sys.executable, '-m', 'build', '--sdist', '--no-isolation', '--outdir',
                                    str(Path(tmp) / 'dist'), str(source)], capture_output=True, text=True)
            self.assertEqual(built.returncode, 0, built.stderr[-2000:])
            archive = next((Path(tmp) / 'dist').glob('*.tar.gz'))
            with tarfile.open(archive) as tar:
                if hasattr(tarfile, 'data_filter'):  # refuse links and paths that leave the folder
                    tar.extractall(Path(tmp) / 'unpacked', filter='data')
                else:
                    tar.extractall(Path(tmp) / 'unpacked')
            unpacked = next((Path(tmp) / 'unpacked').iterdir())
            done = subprocess.run([sys.executable, '-m', 'unittest'], cwd=unpacked, capture_output=True,
                                  text=True, env=dict(os.environ, XSLM_INSIDE_SDIST='1'), timeout=600)
            self.assertEqual(done.returncode, 0, done.stderr[-3000:])
            ran = int(done.stderr.split('\nRan ')[1].split()[0])
            self.assertGreater(ran, 150)  # the whole suite, not 'Ran 0 tests ... OK'


if __name__ == '__main__':
    unittest.main()
