"""The lesson's parts, in one table: what a learner types, in the order the lesson teaches it.

Each part has its number (the catalogs' 'part.N' says its title), the units it types (a
function of tokenizer.py as the tutor names it: 'merge', 'BPE.train', '__main__'), and the
start of the line that begins it in a file being typed. The tutor's rules (which part each
checks), its report, its comparison of your file with the lesson's and the explainer of an
error all read it: a part is added here, and its rules in lab/selfcheck/rules.py.
"""
import re
from typing import NamedTuple, Optional, Pattern


class Part(NamedTuple):
    number: int
    units: tuple  # the functions it types, as 'merge' or 'BPE.train'
    starts: Optional[Pattern]  # the line that begins it in your file (None: none of its own)


PARTS = [
    Part(0, ('<imports>',), None),  # the first lines: what comes before any part
    Part(1, ('merge',), re.compile(r'def merge\b')),
    Part(2, ('BPE.__init__',), re.compile(r'class BPE\b')),
    Part(3, ('BPE.train',), re.compile(r'\s+(@classmethod|def train\b)')),
    Part(4, ('BPE.encode',), re.compile(r'\s+def encode\b')),
    Part(5, ('BPE.decode', 'BPE.state'), re.compile(r'\s+def (decode|state)\b')),
    Part(6, ('__main__',), re.compile(r'if __name__\b')),
    Part(7, (), None),  # the lesson's three labs, each a file of its own
]
NUMBERS = range(len(PARTS))
LABS = PARTS[-1].number
UNITS = {unit: part.number for part in PARTS for unit in part.units}  # {'BPE.train': 3, ...}
METHODS = {unit[len('BPE.'):]: number for unit, number in UNITS.items() if unit.startswith('BPE.')}
# part -> its one function
FUNCTIONS = {number: unit.split('.')[-1] for unit, number in UNITS.items()
             if unit not in ('<imports>', '__main__') and len(PARTS[number].units) == 1}
STARTS = [(part.number, part.starts) for part in PARTS if part.starts is not None]
