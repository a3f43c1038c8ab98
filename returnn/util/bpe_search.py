"""Splitting a word into the labels of a BPE vocabulary without the merge codes: a prefix tree of the labels and
two searches over it (depth-first, for one split, optionally sampled; char-synchronous, for all splits).

Two label conventions (:class:`BpeOpts`):

* postfix merge symbol (``label_postfix_merge_symbol="@@"``): a label inside a word ends with ``@@``
  (``he@@ llo``); the last label of the word has none.
* word prefix symbol (``word_prefix_symbol="▁"``, SentencePiece style): the first label of a word starts with
  ``▁`` (``▁hel lo``); the others have none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

BpePostMergeSymbol = "@@"
"""The usual postfix merge symbol of subword-nmt labels."""


@dataclass
class BpeOpts:
    """Which label convention the vocabulary uses (see the module doc); set one of the two."""

    label_postfix_merge_symbol: Optional[str] = None
    word_prefix_symbol: Optional[str] = None


class PrefixTree:
    """A node of the prefix tree of labels; the root has ``prefix=""``.

    ``arcs`` maps the next character to the child node. ``finished``: a label ends here (a word-final label in the
    postfix convention, any label in the prefix convention). ``bpe_finished`` (postfix convention): ``prefix + @@``
    is a label, i.e. a label may end here inside a word; the merge symbol itself is also stored as one arc to a
    finished node.

    :param prefix: the characters from the root to this node
    :param opts: the label convention
    """

    def __init__(self, *, prefix: str = "", opts: BpeOpts):
        self.prefix = prefix
        self.arcs: Dict[str, PrefixTree] = {}
        self.finished = False
        self.bpe_finished = False
        self.opts = opts

    def __repr__(self) -> str:
        return f"<PrefixTree {self.prefix!r} finished={self.finished} bpe_finished={self.bpe_finished}>"

    def _child(self, arc: str) -> PrefixTree:
        node = self.arcs.get(arc)
        if node is None:
            node = PrefixTree(prefix=self.prefix + arc, opts=self.opts)
            self.arcs[arc] = node
        return node

    def add(self, postfix: str) -> PrefixTree:
        """Adds the label ``postfix`` below this node; returns the node where it ends."""
        merge = self.opts.label_postfix_merge_symbol
        node = self
        if merge and postfix.endswith(merge):
            for c in postfix[:-len(merge)]:
                node = node._child(c)
            node.bpe_finished = True
            node = node._child(merge)
        else:
            for c in postfix:
                node = node._child(c)
        node.finished = True
        return node


@dataclass
class Hyp:
    """A partial split: the labels so far and the tree node of the label being read."""

    bpe_sym_history: List[str]
    cur_node: PrefixTree


def _start_node(tree: PrefixTree) -> Optional[PrefixTree]:
    prefix = tree.opts.word_prefix_symbol
    return tree.arcs.get(prefix) if prefix else tree


def _label_end(node: PrefixTree) -> Optional[str]:
    """The label that ends at ``node`` inside a word, if one may end there."""
    merge = node.opts.label_postfix_merge_symbol
    if merge:
        return node.prefix + merge if node.bpe_finished else None
    return node.prefix if node.finished else None


def _next_hyps(tree: PrefixTree, hyp: Hyp, c: str, split_first: bool) -> List[Hyp]:
    """The hyps after reading character ``c``: continue the current label, or end it and start a new one."""
    out = []
    cont = hyp.cur_node.arcs.get(c)
    if cont is not None:
        out.append(Hyp(hyp.bpe_sym_history, cont))
    label = _label_end(hyp.cur_node)
    if label is not None:
        new = tree.arcs.get(c)
        if new is not None:
            split = Hyp(hyp.bpe_sym_history + [label], new)
            out.insert(0 if split_first else len(out), split)
    return out


class DepthFirstSearch:
    """Finds one split of ``word`` into labels of ``bpe``, depth first.

    Without ``sampler``, a label is continued as long as possible (``hello`` before ``he@@ llo``), backtracking
    on dead ends. With ``sampler``, it is called once per character read; when it returns True, ending the label
    there is tried first.

    :param bpe: the root of the label tree
    :param word: the word (without separators or prefix symbol)
    :param sampler: ``() -> bool``
    """

    def __init__(self, bpe: PrefixTree, word: str, sampler: Optional[Callable[[], bool]] = None):
        self.bpe = bpe
        self.word = word
        self.sampler = sampler

    def search(self) -> Optional[List[str]]:
        """The labels of one split, or None when the word cannot be split."""
        start = _start_node(self.bpe)
        if start is None:
            return None
        stack = [(Hyp([], start), 0)]
        while stack:
            hyp, pos = stack.pop()
            if pos == len(self.word):
                if hyp.cur_node.finished:
                    return hyp.bpe_sym_history + [hyp.cur_node.prefix]
                continue
            split_first = bool(self.sampler()) if self.sampler is not None else False
            nexts = _next_hyps(self.bpe, hyp, self.word[pos], split_first)
            for next_hyp in reversed(nexts):  # the preferred one is popped first
                stack.append((next_hyp, pos + 1))
        return None


class CharSyncSearch:
    """Finds all splits of ``word[word_pos:]`` into labels of ``bpe``, reading the word character by character
    with all partial splits in parallel.

    :param bpe: the root of the label tree
    :param word: the word (without separators or prefix symbol)
    :param word_pos: where to start in ``word``
    """

    def __init__(self, bpe: PrefixTree, word: str, word_pos: int = 0):
        self.bpe = bpe
        self.word = word
        self.word_pos = word_pos

    def search(self) -> List[List[str]]:
        """Every split, each as its label list; splits that end a label earlier come first."""
        start = _start_node(self.bpe)
        if start is None:
            return []
        hyps = [Hyp([], start)]
        for c in self.word[self.word_pos:]:
            hyps = [new for hyp in hyps for new in _next_hyps(self.bpe, hyp, c, split_first=True)]
            if not hyps:
                return []
        return [hyp.bpe_sym_history + [hyp.cur_node.prefix] for hyp in hyps if hyp.cur_node.finished]
