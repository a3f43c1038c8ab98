"""``Lexicon``: reader of the Bliss lexicon XML format (RASR/Sprint lexica, optionally gzipped), public as
``returnn.datasets.lm.Lexicon`` (legacy ``from LmDataset import Lexicon``).

The format::

    <lexicon>
      <phoneme-inventory>
        <phoneme><symbol>a</symbol><variation>context</variation></phoneme> ...
      </phoneme-inventory>
      <lemma special="silence">
        <orth>[SILENCE]</orth> <orth>...</orth>
        <phon score="0.5">a b</phon> ...
      </lemma> ...
    </lexicon>

Attributes, as the reference builds them (observed): ``phoneme_list`` (symbols in file order), ``phonemes``
(symbol → ``{"index", "symbol", "variation"}``, variation defaults to ``"context"``) and ``lemmas`` (each orth
of a lemma → ``{"orth": orth, "phons": [{"phon": str, "score": float}, ...]}``; orth and phon texts are
stripped, a missing score is 0.0, a lemma without ``<orth>`` is skipped). Progress lines go to ``log.v4``.
"""

from __future__ import annotations

import gzip
import os
import xml.etree.ElementTree as ElementTree
from typing import Any, Dict, List

from returnn.log import log
from returnn.util.files import DataFileNotFoundError, DataFileValueError


class Lexicon:
    """A Bliss XML lexicon, read completely in the constructor.

    :param filename: the XML file (``.gz`` is decompressed)
    :raises DataFileNotFoundError: the file does not exist (a ``FileNotFoundError``)
    :raises DataFileValueError: malformed XML, a ``<phon>`` without text, a non-numeric ``score``, or an orth
        given by two lemmas (all rejected by the reference too); the message names the file and the lemma
    """

    def __init__(self, filename: str):
        print("Loading lexicon", filename, file=log.v4)
        if not os.path.exists(filename):
            raise DataFileNotFoundError(filename, "lexicon file does not exist (expected a Bliss lexicon XML file)")
        self.phoneme_list: List[str] = []
        self.phonemes: Dict[str, Dict[str, Any]] = {}
        self.lemmas: Dict[str, Dict[str, Any]] = {}
        opener = gzip.open if _is_gzip(filename) else open
        try:
            with opener(filename, "rb") as f:
                for _event, elem in ElementTree.iterparse(f, events=("end",)):
                    if elem.tag == "phoneme":
                        self._add_phoneme(elem)
                    elif elem.tag == "phoneme-inventory":
                        print("Finished phoneme inventory, %i phonemes" % len(self.phoneme_list), file=log.v4)
                        elem.clear()
                    elif elem.tag == "lemma":
                        self._add_lemma(filename, elem)
                        elem.clear()
        except ElementTree.ParseError as exc:
            raise DataFileValueError(filename, f"malformed lexicon XML: {exc}") from None
        print("Finished whole lexicon, %i lemmas" % len(self.lemmas), file=log.v4)

    def _add_phoneme(self, elem) -> None:
        symbol = (elem.findtext("symbol") or "").strip()
        variation = (elem.findtext("variation") or "context").strip()
        self.phonemes[symbol] = {"index": len(self.phoneme_list), "symbol": symbol, "variation": variation}
        self.phoneme_list.append(symbol)

    def _add_lemma(self, filename: str, elem) -> None:
        orths = [(e.text or "").strip() for e in elem.findall("orth")]
        if not orths:
            return
        phons = []
        for e in elem.findall("phon"):
            text = (e.text or "").strip()
            if not text:
                raise DataFileValueError(filename, f"lemma {orths[0]!r}: <phon> without phonemes")
            score_text = e.attrib.get("score", "0")
            try:
                score = float(score_text)
            except ValueError:
                raise DataFileValueError(filename, f"lemma {orths[0]!r}: <phon score={score_text!r}> is not a "
                                                   f"number") from None
            phons.append({"phon": text, "score": score})
        for orth in orths:
            lemma = {"orth": orth, "phons": phons}
            if orth in self.lemmas:
                raise DataFileValueError(filename, f"orth {orth!r} is given by two lemmas (old: {self.lemmas[orth]}, "
                                                   f"new: {lemma})")
            self.lemmas[orth] = lemma


def _is_gzip(filename: str) -> bool:
    with open(filename, "rb") as f:
        return f.read(2) == b"\x1f\x8b"
