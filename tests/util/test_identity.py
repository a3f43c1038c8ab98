import numpy
import pytest

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


def test_dict_ref_keys_by_identity_as_observed():
    """Observed in the reference: equal but distinct keys are separate entries, insertion order kept, a missing key
    raises KeyError naming its ``TensorRef``, the repr lists ``key: value``."""
    from returnn.util.basic import DictRefKeys
    a, b = [1], [1]
    d = DictRefKeys()
    d[a], d[b] = "x", "y"
    assert (d[a], d[b], a in d, [1] in d) == ("x", "y", True, False)
    assert list(d.keys()) == [[1], [1]] and list(d.values()) == ["x", "y"]
    assert list(d.items())[0][0] is a
    d.update({"k": 1})
    assert repr(d) == "DictRefKeys([1]: 'x', [1]: 'y', 'k': 1)"
    assert list(DictRefKeys({1: 2}, z=3).items()) == [(1, 2), ("z", 3)]
    with pytest.raises(KeyError, match=r"TensorRef\{\[2\]\}"):
        d[[2]]
