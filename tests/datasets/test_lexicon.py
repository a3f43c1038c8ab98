"""Tests for returnn.datasets.lm.Lexicon (Bliss XML lexicon); the expected attributes were observed from the
reference's Lexicon on the same files."""

import gzip

import pytest

from returnn.errors import DataFileError
from returnn.log import log

LEXICON_XML = """<?xml version="1.0" encoding="utf-8"?>
<lexicon>
  <phoneme-inventory>
    <phoneme><symbol>a</symbol><variation>context</variation></phoneme>
    <phoneme><symbol> b </symbol></phoneme>
    <phoneme><symbol>[SILENCE]</symbol><variation>none</variation></phoneme>
  </phoneme-inventory>
  <lemma special="silence">
    <orth>[SILENCE]</orth>
    <orth>[silence]</orth>
    <phon score="0.0">[SILENCE]</phon>
    <synt><tok>x</tok></synt>
    <eval/>
  </lemma>
  <lemma>
    <orth>ab</orth>
    <phon score="0.5">a b</phon>
    <phon>b   a</phon>
  </lemma>
  <lemma>
    <orth> ba </orth>
    <phon score="1.25">
      b a
    </phon>
  </lemma>
  <lemma><orth>nophon</orth></lemma>
  <lemma><phon>a</phon></lemma>
  <lemma><orth>r</orth><orth></orth><phon>a</phon></lemma>
</lexicon>
"""

EXPECTED_PHONEMES = {
    "a": {"index": 0, "symbol": "a", "variation": "context"},
    "b": {"index": 1, "symbol": "b", "variation": "context"},
    "[SILENCE]": {"index": 2, "symbol": "[SILENCE]", "variation": "none"},
}
EXPECTED_LEMMAS = {
    "[SILENCE]": {"orth": "[SILENCE]", "phons": [{"phon": "[SILENCE]", "score": 0.0}]},
    "[silence]": {"orth": "[silence]", "phons": [{"phon": "[SILENCE]", "score": 0.0}]},
    "ab": {"orth": "ab", "phons": [{"phon": "a b", "score": 0.5}, {"phon": "b   a", "score": 0.0}]},
    "ba": {"orth": "ba", "phons": [{"phon": "b a", "score": 1.25}]},
    "nophon": {"orth": "nophon", "phons": []},
    "r": {"orth": "r", "phons": [{"phon": "a", "score": 0.0}]},
    "": {"orth": "", "phons": [{"phon": "a", "score": 0.0}]},
}


@pytest.mark.parametrize("compressed", [False, True])
def test_lexicon(tmp_path, compressed):
    from LmDataset import Lexicon  # the legacy path published configs use

    path = tmp_path / ("lex.xml.gz" if compressed else "lex.xml")
    data = LEXICON_XML.encode("utf8")
    path.write_bytes(gzip.compress(data) if compressed else data)
    lex = Lexicon(str(path))
    assert lex.phoneme_list == ["a", "b", "[SILENCE]"]
    assert lex.phonemes == EXPECTED_PHONEMES
    assert lex.lemmas == EXPECTED_LEMMAS
    assert list(lex.lemmas) == list(EXPECTED_LEMMAS)  # file order


def test_lexicon_log_lines(tmp_path, capsys):
    from returnn.datasets.lm import Lexicon

    path = tmp_path / "lex.xml"
    path.write_text(LEXICON_XML)
    log.initialize(verbosity=[4])
    Lexicon(str(path))
    assert capsys.readouterr().out == (f"Loading lexicon {path}\nFinished phoneme inventory, 3 phonemes\n"
                                       f"Finished whole lexicon, 7 lemmas\n")
    log.initialize(verbosity=[3])
    Lexicon(str(path))
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("body, match", [
    ("<lemma><orth>x  y</orth><phon>a</phon></lemma><lemma><orth>x  y</orth><phon>a a</phon></lemma>",
     r"orth 'x  y' is given by two lemmas"),
    ("<lemma><orth>q</orth><phon score='x'>z</phon></lemma>", r"lemma 'q': <phon score='x'> is not a number"),
    ("<lemma><orth>s</orth><phon/></lemma>", r"lemma 's': <phon> without phonemes"),
    ("<lemma><orth>s</orth>", r"malformed lexicon XML"),
])
def test_lexicon_errors(tmp_path, body, match):
    from returnn.datasets.lm import Lexicon

    path = tmp_path / "bad.xml"
    path.write_text("<lexicon>" + body + ("</lexicon>" if body.endswith("</lemma>") else ""))
    with pytest.raises(ValueError, match=match) as info:
        Lexicon(str(path))
    assert isinstance(info.value, DataFileError) and str(path) in str(info.value)


def test_lexicon_missing_file(tmp_path):
    from returnn.datasets.lm import Lexicon

    with pytest.raises(FileNotFoundError, match="lexicon file does not exist"):
        Lexicon(str(tmp_path / "missing.xml"))
