"""Where the project's files are, as the lesson's files name them: python3 -m lab.NAME runs in
the project folder, so these paths are relative to it, but for ROOT, the folder itself."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent  # lab/plumbing/ is in it
SETTINGS = Path('settings.json')
TRAIN = Path('data/train.txt')
SAVED = Path('data/tokenizer.json')
SETTINGS_LIMIT = 4096  # bytes: {"merges": 12} needs 14
# A million tokens of a hundred characters, far past anything trained here, fits in this.
TOKENIZER_LIMIT = 256 * 2**20
MAKE_TOKENIZER = 'python3 tokenizer.py makes it'
# at the end of an error for tokenizer.py to mend (cli.ending: SELFCHECK)
TUTOR = 'python3 -m lab.selfcheck'
