import json
from pathlib import Path

from tokenizer import BPE

tok = BPE(**json.loads(Path('data/tokenizer.json').read_text()))
for word in ['cat', 'Cat', '안녕', '😀']:
    print(word, tok.encode(word), list(word.encode('utf-8')))
