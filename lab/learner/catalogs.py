"""The tutor's words, one catalog a language: lab/locale/LANG.json, en.json the reference.

A message is a string, or a list of lines, with {fields} filled in. Adding a language is adding
one file there. A catalog with a message missing, or of the wrong type, falls back to English
for that message, so a half-done translation still runs.
"""
import functools
import json
import os
from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / 'locale'


class BadCatalog(ValueError):
    """A catalog that cannot be used at all, said in English: one line, as any mistake in a file."""


def languages():
    """The languages there are words for: the names of the files in lab/locale/."""
    return sorted(path.stem for path in LOCALE.glob('*.json'))


def load(lang):
    """{key: text} of one catalog; BadCatalog when it is missing or not a JSON object of texts."""
    path = LOCALE / f'{lang}.json'
    try:
        stat = os.stat(path)
    except OSError:
        stat = None  # said as read() says it
    return dict(read(path, lang, stat and (stat.st_mtime_ns, stat.st_size)))


@functools.lru_cache(maxsize=8)
def read(path, lang, version):
    """load()'s catalog, read once a version of the file (a process that says many messages, the
    tests', reads it once, and again when it is edited)."""
    try:
        # -sig: a byte order mark, as Notepad saves
        words = json.loads(path.read_text(encoding='utf-8-sig'))
    except (OSError, ValueError) as e:
        raise BadCatalog(f'{path} cannot be read ({getattr(e, "strerror", None) or e}): '
                         f'git checkout -- lab/locale/{lang}.json') from None
    if not isinstance(words, dict):
        raise BadCatalog(
            f'{path} is not a JSON object of messages: git checkout -- lab/locale/{lang}.json')
    return {key: '\n'.join(value) if isinstance(value, list) else value
            for key, value in words.items()
            if isinstance(value, str) or isinstance(value, list)
            and all(isinstance(v, str) for v in value)}


def language_code(name):
    """The language code a locale name or a --lang value holds: ko_KR.UTF-8, KO and ko-KR are ko."""
    return name.split('.')[0].split('@')[0].replace('-', '_').split('_')[0].lower()


def language(argv, environ):
    """The language to speak: the last --lang given, else the first language of the locale there
    are words for, read as gettext reads it (LANGUAGE, a list such as fr:ko, then LC_ALL,
    LC_MESSAGES, LANG), else English."""
    chosen, known = None, languages()
    for n, arg in enumerate(argv):
        if arg.startswith('--lang='):
            chosen = arg.split('=', 1)[1]
        elif arg == '--lang' and n + 1 < len(argv):
            chosen = argv[n + 1]
    if chosen is not None and language_code(chosen) in known:
        return language_code(chosen)  # one there are no words for: the locale's, to say so in
    for name in ['LANGUAGE', 'LC_ALL', 'LC_MESSAGES', 'LANG']:
        if environ.get(name):
            for item in environ[name].split(':'):
                if language_code(item) in known:
                    return language_code(item)
            if name != 'LANGUAGE':
                return 'en'  # the locale is set, to a language with no words here
    return 'en'


def catalog(lang):
    """The tutor's words in lang, any message it lacks in English."""
    english = load('en')
    return english if lang == 'en' else {**english, **load(lang)}


def can_show(words, stream):
    """Whether stream can show the letters of a catalog's words (an ASCII terminal cannot show
    Korean; EUC-KR can, though it lacks a dash of the titles, which is then shown as '-')."""
    try:
        letters_of(tuple(words.values())).encode(getattr(stream, 'encoding', None) or 'utf-8')
        return True
    except (UnicodeEncodeError, LookupError):
        return False


@functools.lru_cache(maxsize=4)
def letters_of(texts):
    """The letters of texts, each once: found once a catalog (every lab asks as it starts, and
    joining a catalog's texts takes a millisecond)."""
    return ''.join(sorted({ch for ch in set(''.join(texts)) if ch.isalpha()}))


def render(words, key, fields):
    """One message: its text with the fields filled in. A field named 'where' or 'text' names
    another message, whose text (filled in from the same fields) goes in its place."""
    filled = dict(fields)
    for name in ('where', 'text'):  # in this order: a hint's text may say a place, in its where
        if name in fields:
            filled[name] = fill_in(words, fields[name], filled)
    if 'n' in fields:  # the nth, in words where a language has them: 첫 번째, not 1번째
        filled.setdefault('nth', ordinal(words, fields['n']))
    return fill_in(words, key, filled)


def ordinal(words, n):
    """n as an ordinal in the catalog's words ('ordinals': first|second|...), else n itself."""
    said = words.get('ordinals', '').split('|')
    return said[int(n) - 1] if str(n).isdigit() and 0 < int(n) <= len(said) and said[0] else str(n)


def fill_in(words, key, fields):
    try:
        return words[key].format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation with a field of its own: as it is
        return words.get(key, key)
