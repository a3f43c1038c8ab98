"""tools/collect-orth-symbols.py and tools/collect-words.py (returnn/datasets/corpus_text.py): the expected lines
and files were printed / written by the reference's tools on the same inputs (its start-up lines left out)."""

import gzip
import os
import subprocess
import sys

import numpy
import pytest

from returnn.datasets.corpus_text import WordStats, corpus_kind, orth_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_CORPUS = """<?xml version="1.0" encoding="utf8"?>
<corpus name="test">
  <recording name="rec1" audio="a1.wav">
    <segment name="seg1" start="0.0" end="1.5">
      <orth> hello world </orth>
    </segment>
    <segment name="seg2" start="1.5" end="3.25">
      <orth>Hello there, [noise] world!</orth>
    </segment>
  </recording>
  <recording name="rec2" audio="a2.wav">
    <segment name="seg1" start="0.0" end="0.8">
      <orth>zebra apfel</orth>
    </segment>
  </recording>
</corpus>
"""

_LEXICON = """<?xml version="1.0" encoding="utf8"?>
<lexicon>
  <phoneme-inventory>
    <phoneme><symbol>h</symbol></phoneme>
  </phoneme-inventory>
  <lemma special="silence"><orth>[SILENCE]</orth><phon>si</phon></lemma>
  <lemma><orth>hello</orth><phon>h e l o</phon></lemma>
  <lemma><orth>world</orth><orth>World</orth><phon>w o r l d</phon></lemma>
  <lemma><orth>zebra</orth><phon>z e b r a</phon></lemma>
</lexicon>
"""

_NO_RANGES = ["--add_numbers", "0", "--add_lower_alphabet", "0", "--add_upper_alphabet", "0"]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.xml.gz"
    with gzip.open(path, "wt", encoding="utf8") as f:
        f.write(_CORPUS)
    return str(path)


def _run(tool, *args, rc=0):
    out = subprocess.run([sys.executable, f"tools/{tool}.py", *args], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == rc, out.stderr
    return out.stdout.splitlines()


def _syms(*args):
    lines = _run("collect-orth-symbols", *args)
    assert lines[0] == "RETURNN collect-orth-symbols starting up."
    return lines[1:]


def test_orth_symbols_output_file(corpus, tmp_path):
    out = str(tmp_path / "syms.txt")
    assert _syms(corpus, "--output", out) == [
        "Total frame len: 405.0 time: 0:00:04",
        "Total orth len: 46 (46) fraction: 0.11358024691358025",
        "Average orth len: 15.333333333333334",
        "Num symbols: 67",
        f"Wrote orthography symbols to {out}",
    ]
    expected = ([" ", "!", ","] + list("0123456789") + [chr(c) for c in range(65, 91)] + ["[END]", "[NOISE]"]
                + [chr(c) for c in range(97, 123)])
    with open(out, encoding="utf8") as f:
        assert f.read() == "".join(s + "\n" for s in expected)
    # an existing output file is not overwritten (the reference refuses it too)
    out2 = _run("collect-orth-symbols", corpus, "--output", out, rc=1)
    assert out2 == ["RETURNN collect-orth-symbols starting up."]


def test_orth_symbols_dump_filter_remove(corpus):
    assert _syms(corpus, "--dump_orth_syms", "--filter_orth_sym", "z", "--remove_symbols", "!,o", *_NO_RANGES) == [
        "Orth: hello world[END]",
        "Orth: Hello there, [NOISE] world![END]",
        "Orth: zebra apfel[END]",
        "Found orth: zebra apfel[END]",
        "Total frame len: 405.0 time: 0:00:04",
        "Total orth len: 46 (46) fraction: 0.11358024691358025",
        "Average orth len: 15.333333333333334",
        "Num symbols: 16",
        "Provide --output to save the symbols.",
    ]
    assert _syms(corpus, "--filter_orth_syms_seq", "[noise] w", *_NO_RANGES)[0] == (
        "Found orth: Hello there, [NOISE] world![END]")
    assert _syms(corpus, "--filter_orth_syms_seq", "d[END]", *_NO_RANGES)[:2] == [
        "Found orth: hello world[END]", "Total frame len: 405.0 time: 0:00:04"]
    assert _syms(corpus, "--filter_orth_sym", "z", "--filter_orth_syms_seq", "wor", *_NO_RANGES)[:3] == [
        "Found orth: hello world[END]", "Found orth: Hello there, [NOISE] world![END]", "Found orth: zebra apfel[END]"]


def test_orth_symbols_limits_and_time(corpus):
    # limits are exclusive: a sequence of exactly max frames / symbols is skipped (and not dumped)
    assert _syms(corpus, "--max_seq_frame_len", "150", "--dump_orth_syms", "--filter_orth_sym", "o",
                 *_NO_RANGES) == [
        "Orth: zebra apfel[END]",
        "Total frame len: 80.0 time: 0:00:00",
        "Total orth len: 12 (12) fraction: 0.15",
        "Average orth len: 12.0",
        "Num symbols: 10",
        "Provide --output to save the symbols.",
    ]
    assert _syms(corpus, "--max_seq_orth_len", "22", *_NO_RANGES)[:4] == [
        "Total frame len: 230.0 time: 0:00:02", "Total orth len: 24 (24) fraction: 0.10434782608695652",
        "Average orth len: 12.0", "Num symbols: 14"]
    assert _syms(corpus, "--max_seq_orth_len", "80", "--frame_time", "20", *_NO_RANGES)[:2] == [
        "Total frame len: 202.5 time: 0:00:04", "Total orth len: 46 (46) fraction: 0.2271604938271605"]
    assert _syms(corpus, "--collect_time", "0", *_NO_RANGES)[:3] == [
        "No time stats (--collect_time False).", "Total orth len: 46 (46) ", "Average orth len: 15.333333333333334"]


def test_orth_symbols_big_count(tmp_path):
    path = tmp_path / "big.xml"
    path.write_text('<?xml version="1.0" encoding="utf8"?>\n<corpus name="c"><recording name="r" audio="a.wav">'
                    '<segment name="s" start="0" end="100"><orth>' + "ab " * 400 + "</orth></segment></recording>"
                    "</corpus>\n")
    assert _syms(str(path))[:2] == ["Total frame len: 10000.0 time: 0:01:40", "Total orth len: 1200 (1.2K) fraction: 0.12"]


def test_orth_symbols_text_and_config(tmp_path):
    # text files: the reference fails on them (it reads bytes); here each line is a transcription
    txt = tmp_path / "t.txt.gz"
    with gzip.open(txt, "wt", encoding="utf8") as f:
        f.write("hello world\n[noise] hi (x)\n")
    assert _syms(str(txt), "--dump_orth_syms", *_NO_RANGES) == [
        "No time-info in txt.", "Orth: hello world[END]", "Orth: [NOISE] hi x[END]",
        "No time stats (--collect_time False).", "Total orth len: 19 (19) ", "Average orth len: 9.5",
        "Num symbols: 12", "Provide --output to save the symbols."]
    cfg = tmp_path / "x.config"
    cfg.write_text('#!rnn.py\nimport numpy\ndef _seq(text, n):\n'
                   '    return {"data": numpy.zeros((n, 3), "float32"), '
                   '"orth": numpy.frombuffer(text.encode("utf8"), dtype="uint8")}\n'
                   'train = {"class": "StaticDataset", "data": [_seq("hello world", 7), _seq("foo [laughter] bar", 12)],'
                   ' "output_dim": {"data": (3, 2), "orth": (256, 1)}}\n')
    assert _syms(str(cfg), *_NO_RANGES)[:2] == ["Total frame len: 19 time: 0:00:00",
                                                "Total orth len: 22 (22) fraction: 1.1578947368421053"]


def test_collect_words(corpus, tmp_path):
    assert _run("collect-words", corpus, "--dump_orth") == [
        f"Read Bliss corpus: {corpus}",
        "Returnn collect-words starting up.",
        "Orth: ['hello', 'world']",
        "Orth: ['Hello', 'there,', '[NOISE]', 'world!']",
        "Orth: ['zebra', 'apfel']",
        "Total word len: 8 (8)",
        "Average orth len: 2.6666666666666665",
        "Num word symbols: 8",
        "No lexicon provided (--lexicon).",
    ]
    lex = tmp_path / "lex.xml.gz"
    with gzip.open(lex, "wt", encoding="utf8") as f:
        f.write(_LEXICON)
    assert _run("collect-words", corpus, "--lexicon", str(lex))[5:] == [
        f"Lexicon: {lex}", "Words not in lexicon:", "Hello", "[NOISE]", "apfel", "there,", "world!",
        "Count: 5 (62.500000%)"]


def test_word_stats_all_in_lexicon(capsys):
    stats = WordStats(stream=sys.stdout)
    stats.add("a b [x]")
    assert stats.report_lexicon({"a": 1, "b": 1, "[X]": 1}) == []
    assert capsys.readouterr().out.splitlines() == ["Words not in lexicon:", "Count: 0 (0.000000%)"]


def test_corpus_kind_and_orth_text():
    assert [corpus_kind(p) for p in ("c.xml.gz", "c.xml", "t.txt", "t.txt.gz", "my.config")] == [
        "bliss", "bliss", "txt", "txt", "config"]
    assert orth_text(numpy.frombuffer("äb".encode("utf8"), dtype="uint8")) == "äb"
    assert orth_text(numpy.array("x y")) == "x y"
    with pytest.raises(TypeError, match=r"expected text \(a string, or UTF-8 bytes as uint8 1-D\), got int32 \(3,\)"):
        orth_text(numpy.zeros((3,), "int32"))
