"""Dim arithmetic: equal expressions give the same dim (the reference's ``test_dim_math_*`` rules)."""

from returnn.tensor import FeatureDim, SpatialDim


def test_sums_and_products():
    a, b = SpatialDim("a"), SpatialDim("b")
    assert (a + 2 - 2) is a and a + b != b + a and a * b != b * a
    assert 2 * a == a + a and a * 2 != 2 * a and 2 * a + b == a + a + b
    assert a + b - b is a and a + 2 * b - b + -b is a
    assert a * b + b == (a + 1) * b and (a + b) * 2 == a * 2 + b * 2
    assert sum([0, a, 0, a, 0]) == 2 * a and --a is a
    assert (a - b).description == "a+(-1*b)"


def test_division_by_dims():
    a, b = SpatialDim("a"), SpatialDim("b")
    assert (a * b) // b is a and (b * a) // b != a and (b * a).div_left(b) is a
    k, n = FeatureDim("k", 6), SpatialDim("n", 2)
    per_head = k // n
    assert per_head.dimension == 3 and k // n is per_head and repr(per_head) == "Dim{F'k//n'(3)}"
    assert k.div_left(n).dimension == 3 and repr(k.div_left(n)) == "Dim{F'k /l n'(3)}"
    v = FeatureDim("v", 10)
    assert (2 * (k // n) + v // n).dimension == 11 and k + k + v == 2 * k + v


def test_derived_base_and_padding():
    t = SpatialDim("time:var:extern_data:data")
    assert (t * 2).get_same_derived_base() is t and (t * 2).derived_from_tag is t
    assert (2 + t + 2).sub_right(2).sub_left(2) is t
    assert SpatialDim("prefix", 1) + t != 1 + t


def test_substitute_rebuilds_the_expression_on_other_operands():
    from returnn.tensor._dim_math import substitute
    a, b, c = SpatialDim("a"), SpatialDim("b"), SpatialDim("c")
    k = FeatureDim("k", 6)
    expr = (a + 2) * 5 + k // 2
    assert substitute(expr, lambda d: d) is expr  # no operand changed: the dim itself
    rebuilt = substitute(expr, lambda d: c if d is a else d)
    assert rebuilt is (c + 2) * 5 + k // 2 and rebuilt != expr and rebuilt.description == "((c+2)*5)+(k//2)"
    assert substitute(a, lambda d: b if d is a else d) is b
    assert substitute(a * b, lambda d: c if d is b else d) == a * c


def test_batch_dim_recorded_on_a_batch_size_takes_no_lengths():
    from returnn.tensor import Dim, batch_dim

    class Raw:  # a stand-in raw scalar
        pass

    size = Raw()
    assert batch_dim.set_tag_on_size_tensor(size) is batch_dim
    assert Dim.get_tag_from_size_tensor(size) is batch_dim and batch_dim.dyn_size is None


def test_one_expression_made_in_two_graphs_is_equal():
    """As the reference, where ``time_dim.ceildiv_right(2)`` is one object: the dim a config makes before the
    network's graph equals (and hashes as) the one a layer makes in that graph, although each graph has its own."""
    import tensorflow as tf

    import returnn.tf.ops.raw  # noqa: F401  (installs the raw backend: per-graph caches)
    time_dim, a, b = SpatialDim("time"), SpatialDim("a", 2), SpatialDim("b", 3)
    outside, outside_sum = time_dim.ceildiv_right(2), a + b
    with tf.Graph().as_default():
        inside, inside_sum = time_dim.ceildiv_right(2), a + b
        assert inside is not outside and inside_sum is not outside_sum  # one object per graph
        assert inside == outside and hash(inside) == hash(outside) and outside in {inside}
        assert inside_sum == outside_sum and inside_sum.dimension == 5
        assert inside != time_dim.ceildiv_right(3) and inside != time_dim // 2 and inside_sum != b + a
