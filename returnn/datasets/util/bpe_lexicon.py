"""A Bliss lexicon whose "phonemes" are BPE symbols: each word with every way to spell it in BPE pieces
(what ``tools/bpe-create-lexicon.py`` writes, e.g. for RASR decoding with a BPE model).

A BPE symbol ending in ``@@`` is a piece that another piece follows; any other symbol ends a word. ``hello``
with the symbols ``he@@``, ``llo``, ``hello``, ``h@@``, ... gets the pronunciations ``he@@ llo``, ``hello``,
``h@@ e@@ llo``, ... (all of them, sorted). The phoneme inventory lists the BPE symbols in id order.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Sequence, Tuple
from xml.sax.saxutils import escape

Lemma = Tuple[str, List[str]]


class BpePrefixTree:
    """The BPE symbols as a character trie: each node knows whether a word piece (``x@@``) and / or a word
    end (``x``) ends there."""

    def __init__(self, symbols: Iterable[str]):
        self._root: Dict = {}
        for sym in symbols:
            if not sym:
                continue
            piece, final = (sym[:-2], False) if sym.endswith("@@") else (sym, True)
            if not piece:
                continue
            node = self._root
            for c in piece:
                node = node.setdefault(c, {})
            node["$final" if final else "$piece"] = True

    def segmentations(self, word: str) -> List[str]:
        """Every spelling of ``word`` in BPE symbols, as space-joined strings (sorted, no duplicates)."""
        memo: Dict[int, List[List[str]]] = {}

        def from_pos(pos: int) -> List[List[str]]:
            if pos in memo:
                return memo[pos]
            out: List[List[str]] = []
            node = self._root
            for end in range(pos, len(word)):
                node = node.get(word[end])
                if node is None:
                    break
                piece = word[pos:end + 1]
                if end + 1 == len(word):
                    if node.get("$final"):
                        out.append([piece])
                elif node.get("$piece"):
                    out.extend([piece + "@@"] + rest for rest in from_pos(end + 1))
            memo[pos] = out
            return out

        if not word:
            return []
        return sorted({" ".join(seq) for seq in from_pos(0)})


def is_special_word(word: str) -> bool:
    """``<s>``, ``[NOISE]``: a word in angle or square brackets."""
    return len(word) >= 2 and ((word[0] == "<" and word[-1] == ">") or (word[0] == "[" and word[-1] == "]"))


def build_bpe_lexicon(bpe_symbols: Sequence[str], words: Sequence[str], *, skip_special: bool = False,
                      lower_case: bool = False, on_missing=None) -> List[Lemma]:
    """The lemmas ``(orth, [phon, ...])`` of ``words`` (in their order) that have a BPE spelling.

    :param lower_case: lower-case the words first (duplicates then count once, at their first place)
    :param skip_special: leave out special words (:func:`is_special_word`); those among them that are BPE symbols
        themselves (as written, before ``lower_case``) come last, in BPE id order, spelled as themselves
    :param on_missing: called with each word that has no BPE spelling
    """
    tree = BpePrefixTree(bpe_symbols)
    seen = set()
    skipped = set()
    lemmas: List[Lemma] = []
    for word in words:
        if skip_special and is_special_word(word):
            skipped.add(word)  # as written in the word vocabulary (not lower-cased)
            continue
        if lower_case:
            word = word.lower()
        if word in seen:
            continue
        seen.add(word)
        phons = tree.segmentations(word)
        if not phons:
            if on_missing is not None:
                on_missing(word)
            continue
        lemmas.append((word, phons))
    if skip_special:
        lemmas.extend((sym, [sym]) for sym in bpe_symbols if sym in skipped)
    return lemmas


def lexicon_xml(phonemes: Sequence[str], lemmas: Sequence[Lemma]) -> str:
    """The Bliss lexicon XML text, laid out as the reference's tool writes it (no XML declaration; the last
    ``</phoneme>`` indented like ``</phoneme-inventory>``)."""
    out = ["<lexicon>", "  <phoneme-inventory>"]
    for i, sym in enumerate(phonemes):
        out += ["    <phoneme>", f"      <symbol>{escape(sym)}</symbol>", "      <variation>context</variation>",
                "  </phoneme>" if i == len(phonemes) - 1 else "    </phoneme>"]
    out.append("  </phoneme-inventory>")
    for orth, phons in lemmas:
        out += ["  <lemma>", f"    <orth>{escape(orth)}</orth>"]
        out += [f"    <phon>{escape(p)}</phon>" for p in phons]
        out.append("  </lemma>")
    out.append("</lexicon>")
    return "\n".join(out) + "\n"


def vocab_labels(filename: str) -> List[str]:
    """The labels of a vocabulary file (a dict literal label → id, or one label per line) in id order; of
    several labels with one id the first counts.

    :raises returnn.errors.ReturnnError: the file cannot be read
    """
    from returnn.datasets.util.vocabulary import Vocabulary
    return [label for label in Vocabulary(filename, unknown_label=None).labels if label is not None]

