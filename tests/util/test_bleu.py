"""compute_bleu: values observed by running the reference's compute_bleu; one also checked by hand."""

import math

import numpy
import pytest

from returnn.util.basic import compute_bleu


def test_by_hand():
    # precisions 2/3, 1/2, smoothed 1/(2*1), order 4 without possible n-grams left out; divided by 4
    expected = math.exp((math.log(2 / 3) + math.log(1 / 2) + math.log(1 / 2)) / 4)
    numpy.testing.assert_allclose(compute_bleu([[2, 3]], [[1, 2, 3]]), expected, rtol=1e-6)


@pytest.mark.parametrize("refs, hyps, kwargs, expected", [
    ([[2, 3]], [[1, 2, 3]], {}, 0.6389431),
    ([[2, 3]], [[1, 2, 3]], {"max_order": 2}, 0.57735026),
    ([[2, 3]], [[1, 2, 3]], {"max_order": 1}, 0.6666667),
    ([[2, 3]], [[1, 2, 3]], {"max_order": 3}, 0.5503212),
    ([[1, 2, 3]], [[1, 2, 3]], {}, 1.0),
    ([[1, 2, 3, 4, 5]], [[1, 2, 3]], {}, 0.5134171),
    ([[1, 2, 3, 4, 5]], [[1, 2, 3]], {"use_bp": False}, 1.0),
    ([[2, 3]], [[]], {}, 0.0),
    ([[1, 2], [3, 4, 5]], [[1, 2], [3, 4]], {}, 0.7788008),
    ([[1, 1, 1]], [[1, 1, 1, 1]], {}, 0.59460354),
    ([[1, 2, 3, 4]], [[5, 6, 7, 8]], {}, 0.079867885),
    ([[1, 2, 3, 4]], [[1, 6, 7, 8]], {}, 0.15973577),
])
def test_observed(refs, hyps, kwargs, expected):
    res = compute_bleu(refs, hyps, **kwargs)
    assert isinstance(res, numpy.float32)
    numpy.testing.assert_allclose(res, expected, rtol=1e-6)


def test_no_reference_tokens():
    with pytest.raises(ZeroDivisionError):
        compute_bleu([[]], [[1]])
