"""Text post-processing functions for transcriptions (``orth_post_process`` of ``LibriSpeechCorpus``,
``targets_post_process`` of ``OggZipDataset``), public at the reference's path ``returnn.datasets.lm``.

Behaviour observed from the reference:

- ``lowercase``; ``lowercase_keep_special``: lower-cases every space-separated token except those starting with
  ``[`` or ``<`` (``[NOISE]``, ``<UNK>``)
- ``collapse_whitespace``: runs of whitespace become one space, stripped at both ends
- ``expand_abbreviations``: ``mr.`` -> ``mister``, ``dr.`` -> ``doctor``, ... (case-insensitive, at a word start)
- ``convert_to_ascii``: transliteration with the ``unidecode`` package
- ``normalize_numbers``: numbers as English words with the ``inflect`` package (``$3.50`` -> ``three dollars,
  fifty cents``, ``2nd`` -> ``second``, ``1999`` -> ``nineteen ninety-nine``)
- ``basic_cleaners`` = lowercase + collapse_whitespace; ``transliteration_cleaners`` = ascii + lowercase +
  collapse; ``english_cleaners`` = ascii + lowercase + numbers (with spacing) + abbreviations + collapse;
  ``english_cleaners_keep_special`` the same with ``lowercase_keep_special``
- ``get_remove_chars(chars)``: each of ``chars`` becomes a space, then whitespace is collapsed;
  ``get_replace(old, new)``: ``str.replace``
- ``get_post_processor_function(opts)``: a name, a function, or a list of these applied in order; an unknown name
  raises ``KeyError`` (as the reference)
"""

from __future__ import annotations

import re
from typing import Callable, List, Sequence, Union

from returnn.errors import DatasetArgError

_ABBREVIATIONS = [(re.compile(r"\b%s\." % short, re.IGNORECASE), long) for short, long in [
    ("mrs", "misses"), ("mr", "mister"), ("dr", "doctor"), ("st", "saint"), ("co", "company"), ("jr", "junior"),
    ("maj", "major"), ("gen", "general"), ("drs", "doctors"), ("rev", "reverend"), ("lt", "lieutenant"),
    ("hon", "honorable"), ("sgt", "sergeant"), ("capt", "captain"), ("esq", "esquire"), ("ltd", "limited"),
    ("col", "colonel"), ("ft", "fort"),
]]
_WHITESPACE = re.compile(r"\s+")


def expand_abbreviations(text: str) -> str:
    """``mr.`` -> ``mister`` etc. (case-insensitive)."""
    for regex, replacement in _ABBREVIATIONS:
        text = regex.sub(replacement, text)
    return text


def lowercase(text: str) -> str:
    """``text.lower()``."""
    return text.lower()


def lowercase_keep_special(text: str) -> str:
    """Lower-cases the space-separated tokens that do not start with ``[`` or ``<``."""
    return " ".join(tok if tok.startswith(("[", "<")) else tok.lower() for tok in text.split(" "))


def collapse_whitespace(text: str) -> str:
    """Whitespace runs -> one space; stripped."""
    return _WHITESPACE.sub(" ", text).strip()


def convert_to_ascii(text: str) -> str:
    """ASCII transliteration (``unidecode``).

    :raises DatasetArgError: the ``unidecode`` package is not installed
    """
    try:
        from unidecode import unidecode
    except ImportError:
        raise DatasetArgError("text post-processing 'convert_to_ascii' (used by the *_cleaners) needs the "
                              "'unidecode' package: pip install unidecode") from None
    return unidecode(text)


def basic_cleaners(text: str) -> str:
    """lowercase + collapse_whitespace."""
    return collapse_whitespace(lowercase(text))


def transliteration_cleaners(text: str) -> str:
    """convert_to_ascii + lowercase + collapse_whitespace."""
    return collapse_whitespace(lowercase(convert_to_ascii(text)))


def english_cleaners(text: str) -> str:
    """convert_to_ascii + lowercase + normalize_numbers + expand_abbreviations + collapse_whitespace."""
    text = lowercase(convert_to_ascii(text))
    text = normalize_numbers(text, with_spacing=True)
    return collapse_whitespace(expand_abbreviations(text))


def english_cleaners_keep_special(text: str) -> str:
    """As :func:`english_cleaners` with :func:`lowercase_keep_special`."""
    text = lowercase_keep_special(convert_to_ascii(text))
    text = normalize_numbers(text, with_spacing=True)
    return collapse_whitespace(expand_abbreviations(text))


def get_remove_chars(chars: Union[str, Sequence[str]]) -> Callable[[str], str]:
    """A function replacing each of ``chars`` by a space, then collapsing whitespace."""
    chars = list(chars)

    def remove_chars(text: str) -> str:
        for c in chars:
            text = text.replace(c, " ")
        return collapse_whitespace(text)

    return remove_chars


def get_replace(old: str, new: str) -> Callable[[str], str]:
    """A function doing ``text.replace(old, new)``."""

    def replace(text: str) -> str:
        return text.replace(old, new)

    return replace


_COMMA_NUMBER = re.compile(r"([0-9][0-9,]+[0-9])")
_DECIMAL_NUMBER = re.compile(r"([0-9]+\.[0-9]+)")
_POUNDS = re.compile(r"£([0-9,]*[0-9]+)")
_DOLLARS = re.compile(r"\$([0-9.,]*[0-9]+)")
_ORDINAL = re.compile(r"[0-9]+(st|nd|rd|th)")
_NUMBER = re.compile(r"[0-9]+")


def _inflect():
    try:
        import inflect
    except ImportError:
        raise DatasetArgError("text post-processing 'normalize_numbers' (used by english_cleaners) needs the "
                              "'inflect' package: pip install inflect") from None
    return inflect.engine()


def _expand_dollars(m) -> str:
    match = m.group(1)
    parts = match.split(".")
    if len(parts) > 2:
        return match + " dollars"
    dollars = int(parts[0]) if parts[0] else 0
    cents = int(parts[1]) if len(parts) > 1 and parts[1] else 0
    if dollars and cents:
        return "%s %s, %s %s" % (dollars, "dollar" if dollars == 1 else "dollars", cents,
                                 "cent" if cents == 1 else "cents")
    if dollars:
        return "%s %s" % (dollars, "dollar" if dollars == 1 else "dollars")
    if cents:
        return "%s %s" % (cents, "cent" if cents == 1 else "cents")
    return "zero dollars"


def normalize_numbers(text: str, with_spacing: bool = False) -> str:
    """Numbers as English words (``inflect``); ``with_spacing`` puts spaces around the words."""
    engine = _inflect()

    def number(m) -> str:
        num = int(m.group(0))
        if 1000 < num < 3000:
            if num == 2000:
                words = "two thousand"
            elif 2000 < num < 2010:
                words = "two thousand " + engine.number_to_words(num % 100)
            elif num % 100 == 0:
                words = engine.number_to_words(num // 100) + " hundred"
            else:
                words = engine.number_to_words(num, andword="", zero="oh", group=2).replace(", ", " ")
        else:
            words = engine.number_to_words(num, andword="")
        return f" {words} " if with_spacing else words

    text = _COMMA_NUMBER.sub(lambda m: m.group(1).replace(",", ""), text)
    text = _POUNDS.sub(r"\1 pounds", text)
    text = _DOLLARS.sub(_expand_dollars, text)
    text = _DECIMAL_NUMBER.sub(lambda m: m.group(1).replace(".", " point "), text)
    text = _ORDINAL.sub(lambda m: engine.number_to_words(m.group(0)), text)
    return _NUMBER.sub(number, text)


_FUNCTIONS = {f.__name__: f for f in [
    expand_abbreviations, lowercase, lowercase_keep_special, collapse_whitespace, convert_to_ascii, basic_cleaners,
    transliteration_cleaners, english_cleaners, english_cleaners_keep_special, normalize_numbers]}


def get_post_processor_function(opts: Union[str, Callable, Sequence[Union[str, Callable]]]) -> Callable[[str], str]:
    """A function str -> str from a name of this module's functions, a function, or a list of these (applied in
    order).

    :raises KeyError: an unknown name (as the reference)
    """
    if callable(opts):
        return opts
    if isinstance(opts, str):
        if opts not in _FUNCTIONS:
            raise KeyError(f"{opts!r} (known: {', '.join(sorted(_FUNCTIONS))})")
        return _FUNCTIONS[opts]
    funcs: List[Callable[[str], str]] = [get_post_processor_function(o) for o in opts]

    def chained(text: str) -> str:
        for func in funcs:
            text = func(text)
        return text

    return chained
