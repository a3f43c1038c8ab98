"""Tests for returnn.util.edit_distance against hand-counted alignments and a brute-force reference."""

import itertools
import random

from returnn.util.edit_distance import (
    ErrorCounts,
    char_error_counts,
    char_error_rate,
    chars,
    edit_distance_counts,
    word_error_counts,
    word_error_rate,
)


def _brute_force_distance(a, b):
    """Plain recursive Levenshtein distance (independent of the DP under test)."""
    if not a:
        return len(b)
    if not b:
        return len(a)
    return min(
        _brute_force_distance(a[1:], b[1:]) + (a[0] != b[0]),
        _brute_force_distance(a[1:], b) + 1,
        _brute_force_distance(a, b[1:]) + 1,
    )


def test_identical_and_empty():
    assert edit_distance_counts("abc", "abc") == ErrorCounts(0, 0, 0, 3)
    assert edit_distance_counts("", "") == ErrorCounts(0, 0, 0, 0)
    assert edit_distance_counts("abc", "") == ErrorCounts(0, 3, 0, 3)
    assert edit_distance_counts("", "ab") == ErrorCounts(0, 0, 2, 0)
    assert ErrorCounts(0, 0, 0, 0).rate == 0.0
    assert ErrorCounts(0, 0, 2, 0).rate == float("inf")


def test_kitten_sitting():
    # kitten -> sitting: k->s, e->i substitutions, g inserted
    assert edit_distance_counts("kitten", "sitting") == ErrorCounts(2, 0, 1, 6)


def test_word_level_hand_counted():
    ref = "the cat sat on the mat"
    # sat->sit (S), the second "the" deleted (D): the only alignment of cost 2
    assert word_error_counts(ref, "the cat sit on mat") == ErrorCounts(1, 1, 0, 6)
    assert word_error_counts("a b c", "a b x c") == ErrorCounts(0, 0, 1, 3)
    assert abs(word_error_rate(ref, "the cat sit on mat") - 2 / 6) < 1e-12
    # cost 3 either as 3 S or as S + D + I: substitutions are preferred
    assert word_error_counts(ref, "the cat sit on mat today") == ErrorCounts(3, 0, 0, 6)


def test_tie_break_prefers_substitution():
    # "ab" vs "ba": distance 2, either 2 substitutions or 1 deletion + 1 insertion; substitutions preferred
    assert edit_distance_counts("ab", "ba") == ErrorCounts(2, 0, 0, 2)


def test_chars_count_spaces_and_normalize_whitespace():
    assert chars("  a  b ") == ["a", " ", "b"]
    # missing word boundary: "ab c" vs "a b c"? ref "a b" (3 chars), hyp "ab" -> one deletion (the space)
    assert char_error_counts("a b", "ab") == ErrorCounts(0, 1, 0, 3)
    assert char_error_rate("hello world", "hello  world") == 0.0
    assert abs(char_error_rate("hello world", "hallo world") - 1 / 11) < 1e-12


def test_sum_of_counts():
    total = word_error_counts("a b c", "a x c") + word_error_counts("d e", "d e f")
    assert total == ErrorCounts(1, 0, 1, 5)
    assert total.errors == 2 and abs(total.rate - 0.4) < 1e-12


def test_distance_matches_brute_force():
    rnd = random.Random(42)
    for _ in range(200):
        a = [rnd.choice("abc") for _ in range(rnd.randint(0, 6))]
        b = [rnd.choice("abc") for _ in range(rnd.randint(0, 6))]
        counts = edit_distance_counts(a, b)
        assert counts.errors == _brute_force_distance(a, b)
        # the S/D/I split must be consistent with the lengths
        assert len(a) - counts.deletions + counts.insertions == len(b)
        assert counts.substitutions <= min(len(a), len(b))


def test_all_pairs_small_alphabet_symmetry():
    for a, b in itertools.product(["", "a", "ab", "ba", "aab"], repeat=2):
        ab, ba = edit_distance_counts(a, b), edit_distance_counts(b, a)
        assert ab.errors == ba.errors
        assert ab.insertions - ab.deletions == len(b) - len(a)
