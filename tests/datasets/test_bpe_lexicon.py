"""tools/bpe-create-lexicon.py (returnn/datasets/util/bpe_lexicon.py): the expected lines and XML were written by
the reference's tool on the same vocabularies."""

import os
import subprocess
import sys

from returnn.datasets.util.bpe_lexicon import BpePrefixTree, build_bpe_lexicon, is_special_word

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_BPE_VOCAB = """\
{
'<s>': 0,
'</s>': 0,
'<unk>': 1,
'he@@': 2,
'llo': 3,
'h@@': 4,
'e@@': 5,
'hello': 6,
'[noise]': 7,
'a&b': 8,
}
"""

_WORD_VOCAB = "{'hello': 0, 'Hello': 1, '<unk>': 2, 'xyz': 3, '[noise]': 4, '</s>': 5, 'a&b': 6}\n"

_EXPECTED_XML = """\
<lexicon>
  <phoneme-inventory>
    <phoneme>
      <symbol>&lt;s&gt;</symbol>
      <variation>context</variation>
    </phoneme>
    <phoneme>
      <symbol>&lt;unk&gt;</symbol>
      <variation>context</variation>
    </phoneme>
    <phoneme>
      <symbol>he@@</symbol>
      <variation>context</variation>
    </phoneme>
    <phoneme>
      <symbol>llo</symbol>
      <variation>context</variation>
    </phoneme>
    <phoneme>
      <symbol>h@@</symbol>
      <variation>context</variation>
    </phoneme>
    <phoneme>
      <symbol>e@@</symbol>
      <variation>context</variation>
    </phoneme>
    <phoneme>
      <symbol>hello</symbol>
      <variation>context</variation>
    </phoneme>
    <phoneme>
      <symbol>[noise]</symbol>
      <variation>context</variation>
    </phoneme>
    <phoneme>
      <symbol>a&amp;b</symbol>
      <variation>context</variation>
  </phoneme>
  </phoneme-inventory>
  <lemma>
    <orth>hello</orth>
    <phon>h@@ e@@ llo</phon>
    <phon>he@@ llo</phon>
    <phon>hello</phon>
  </lemma>
  <lemma>
    <orth>&lt;unk&gt;</orth>
    <phon>&lt;unk&gt;</phon>
  </lemma>
  <lemma>
    <orth>[noise]</orth>
    <phon>[noise]</phon>
  </lemma>
  <lemma>
    <orth>a&amp;b</orth>
    <phon>a&amp;b</phon>
  </lemma>
</lexicon>
"""


def _run(tmp_path, *args):
    (tmp_path / "bpe.vocab").write_text(_BPE_VOCAB, encoding="utf8")
    (tmp_path / "words.vocab").write_text(_WORD_VOCAB, encoding="utf8")
    out = subprocess.run([sys.executable, "tools/bpe-create-lexicon.py", "--bpe_vocab", str(tmp_path / "bpe.vocab"),
                          "--word_vocab", str(tmp_path / "words.vocab"), *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_bpe_create_lexicon_xml(tmp_path):
    out = str(tmp_path / "lex.xml")
    assert _run(tmp_path, "--output", out) == [
        "BPE symbols: num 9, first '<s>'",  # '</s>' has the id of '<s>': the first label of an id counts
        "Words: num 7, first 'hello'",
        "Build BPE prefix tree...",
        "Build lexicon...",
        "no BPE seq found for word 'Hello'",
        "no BPE seq found for word 'xyz'",
        "no BPE seq found for word '</s>'",
        f"Wrote XML: {out}",
    ]
    with open(out, encoding="utf8") as f:
        assert f.read() == _EXPECTED_XML


def test_bpe_create_lexicon_skip_special_lower_case(tmp_path):
    out = str(tmp_path / "lex.xml")
    lines = _run(tmp_path, "--output", out, "--skip_special", "--lower_case", "--unk", "X")
    assert lines[4:] == ["no BPE seq found for word 'xyz'", f"Wrote XML: {out}"]
    with open(out, encoding="utf8") as f:
        text = f.read()
    lemmas = text[text.index("  <lemma>"):]
    # 'Hello' lower-cased is 'hello' (counted once); the special words that are BPE symbols come last, in BPE order
    assert lemmas == (
        "  <lemma>\n    <orth>hello</orth>\n    <phon>h@@ e@@ llo</phon>\n    <phon>he@@ llo</phon>\n"
        "    <phon>hello</phon>\n  </lemma>\n"
        "  <lemma>\n    <orth>a&amp;b</orth>\n    <phon>a&amp;b</phon>\n  </lemma>\n"
        "  <lemma>\n    <orth>&lt;unk&gt;</orth>\n    <phon>&lt;unk&gt;</phon>\n  </lemma>\n"
        "  <lemma>\n    <orth>[noise]</orth>\n    <phon>[noise]</phon>\n  </lemma>\n"
        "</lexicon>\n")
    assert _run(tmp_path)[-1] == "Specify --output to save the XML."


def test_build_bpe_lexicon_special_words_as_written():
    # observed: with --skip_special --lower_case, '[NOISE]' is skipped as written and not matched to '[noise]'
    lemmas = build_bpe_lexicon(["<s>", "<unk>", "[noise]", "a"], ["[NOISE]", "<unk>", "A", "<S>"],
                               skip_special=True, lower_case=True)
    assert lemmas == [("a", ["a"]), ("<unk>", ["<unk>"])]
    assert is_special_word("<s>") and is_special_word("[x]") and not is_special_word("x<y") and not is_special_word("<")


def test_prefix_tree_segmentations():
    tree = BpePrefixTree(["ab@@", "a@@", "b@@", "c", "bc", "abc@@"])
    assert tree.segmentations("abc") == ["a@@ b@@ c", "a@@ bc", "ab@@ c"]
    assert tree.segmentations("ab") == [] and tree.segmentations("") == []
