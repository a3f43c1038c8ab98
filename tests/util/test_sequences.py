import numpy

from returnn.util.basic import parse_orthography, parse_orthography_into_symbols, slice_pad_zeros, uniq


def test_uniq():
    assert uniq(numpy.array([0, 1, 1, 1, 2, 2])).tolist() == [0, 1, 2]
    assert uniq(numpy.array([2, 1, 1, 2])).tolist() == [2, 1, 2]  # runs only (observed in the reference)
    assert uniq(numpy.array([], dtype="int32")).tolist() == []


def test_slice_pad_zeros():
    x = numpy.array([1, 2, 3, 4])
    assert slice_pad_zeros(x, begin=-2, end=2).tolist() == [0, 0, 1, 2]
    assert slice_pad_zeros(x, begin=-2, end=6).tolist() == [0, 0, 1, 2, 3, 4, 0, 0]
    m = numpy.arange(6).reshape(2, 3)
    assert slice_pad_zeros(m, begin=2, end=4, axis=1).tolist() == [[2, 0], [5, 0]]


def test_parse_orthography():
    # observed in the reference
    assert parse_orthography_into_symbols("hi [foo] x", word_based=True) == ["hi", "[FOO]", "x"]
    assert parse_orthography_into_symbols("hi [foo] x", upper_case_special=False) == (
        list("hi ") + ["[foo]"] + list(" x"))
    assert parse_orthography_into_symbols("hi [foo x", square_brackets_for_specials=False) == list("hi [foo x")
    assert parse_orthography(" a  (b) {c}  ") == ["a", " ", "b", " ", "c", "[END]"]
    assert parse_orthography(" a  b ", collapse_spaces=False, final_strip=False) == [
        " ", "a", " ", " ", "b", " ", "[END]"]
