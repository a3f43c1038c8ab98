import numpy

from returnn.util.basic import RefIdEq


def test_ref_id_eq_compares_by_identity():
    a, b = numpy.zeros(3), numpy.zeros(3)
    assert RefIdEq(a) == RefIdEq(a) and not (RefIdEq(a) != RefIdEq(a))
    assert RefIdEq(a) != RefIdEq(b)
    assert RefIdEq(a) != a
    d = {RefIdEq(a): 1, RefIdEq(b): 2}
    assert d[RefIdEq(a)] == 1 and d[RefIdEq(b)] == 2
    assert RefIdEq(a).obj is a


def test_ref_id_eq_repr():
    assert repr(RefIdEq([1])) == "TensorRef{[1]}"  # observed from the reference
