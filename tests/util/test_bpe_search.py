"""The prefix-tree BPE searches; the expected splits are those of the reference's own tests and observations."""

import itertools

from returnn.util.bpe import BpeOpts, BpePostMergeSymbol, CharSyncSearch, DepthFirstSearch, PrefixTree


def _postfix_tree(*labels):
    tree = PrefixTree(opts=BpeOpts(label_postfix_merge_symbol=BpePostMergeSymbol))
    for label in labels:
        tree.add(label)
    return tree


def _prefix_tree(*labels):
    tree = PrefixTree(opts=BpeOpts(word_prefix_symbol="▁"))
    for label in labels:
        tree.add(label)
    return tree


def test_tree_structure():
    tree = _postfix_tree("hello", "helo@@")
    node = tree.arcs["h"].arcs["e"].arcs["l"]
    assert set(node.arcs) == {"l", "o"}
    assert node.arcs["o"].bpe_finished and not node.arcs["o"].finished
    assert node.arcs["o"].arcs["@@"].finished and node.arcs["o"].arcs["@@"].prefix == "helo@@"
    assert node.arcs["l"].arcs["o"].finished


def test_depth_first_postfix():
    tree = _postfix_tree("llo", "helo@@", "he@@")
    assert DepthFirstSearch(tree, "hello").search() == ["he@@", "llo"]  # backtracks from hel
    assert DepthFirstSearch(tree, "helo").search() is None
    tree.add("hello")
    tree.add("hel@@")
    tree.add("lo")
    assert DepthFirstSearch(tree, "hello").search() == ["hello"]  # longest label first
    assert DepthFirstSearch(tree, "hello", sampler=lambda: True).search() == ["he@@", "llo"]
    # the sampler is asked once per character read: only its 4th answer is True -> split after "hel"
    assert DepthFirstSearch(tree, "hello", sampler=lambda _it=itertools.count(): next(_it) == 3).search() == [
        "hel@@", "lo"]


def test_depth_first_word_prefix():
    tree = _prefix_tree("▁hello", "▁hel", "lo")
    assert DepthFirstSearch(tree, "hello").search() == ["▁hello"]
    assert DepthFirstSearch(tree, "hello", sampler=lambda: True).search() == ["▁hel", "lo"]
    assert DepthFirstSearch(tree, "lo").search() is None  # a word starts with a "▁" label


def test_char_sync():
    tree = _postfix_tree("llo", "helo@@", "he@@", "hello")
    assert CharSyncSearch(tree, "hello").search() == [["he@@", "llo"], ["hello"]]
    assert CharSyncSearch(tree, "x").search() == []
    tree = _prefix_tree("▁hello", "▁hel", "lo", "▁hi")
    assert CharSyncSearch(tree, "hello").search() == [["▁hel", "lo"], ["▁hello"]]
    assert CharSyncSearch(tree, "hi").search() == [["▁hi"]]
    assert CharSyncSearch(tree, "xhi", word_pos=1).search() == [["▁hi"]]
