"""Run the project's commands end to end in a throwaway copy, so tests never touch the checkout."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARTS = ['tokenizer.py', 'settings.json', 'data/train.txt', 'data/mixed.txt', 'lab']


def copy_project(test):
    """A fresh copy of the project for one test, removed when the test ends."""
    tmp = tempfile.TemporaryDirectory()
    test.addCleanup(tmp.cleanup)
    root = Path(tmp.name) / 'project'
    for part in PARTS:
        source, target = ROOT / part, root / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns('__pycache__'))
        else:
            shutil.copy(source, target)
    return root


def run(root, *args, cwd=None, env=None, stdin=None):
    """Run python3 with args in the project copy; return the finished process (text mode)."""
    environment = dict(os.environ, PYTHONIOENCODING='utf-8', **(env or {}))
    environment.pop('NO_COLOR', None)
    return subprocess.run([sys.executable, *args], cwd=cwd or root, env=environment, input=stdin,
                          capture_output=True, text=True, encoding='utf-8', timeout=120)
