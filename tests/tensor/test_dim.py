"""Tests for returnn.tensor.Dim (DimensionTag): constructor forms, kinds, equality, arithmetic, copying, size
tensors. Expected values observed from the reference (returnn 1.20261022, ``returnn.tf.util.data``)."""

import copy
import pickle

import pytest

from returnn.errors import ReturnnError, TensorArgError
from returnn.tensor import Data, Dim, DimensionTag, FeatureDim, SpatialDim, batch_dim


# ---- constructor forms


def test_dimension_tag_without_dimension_is_the_old_dynamic_dim(capsys):
    # 65 published configs do this. The current reference fails ("missing 1 required positional argument:
    # 'dimension'"); the releases 1.20211229 and 1.20220601 (run with TF 2.8) gave a dynamic dim:
    # Dim{'time'[?]}, dimension None, kind spatial; in Data(dim_tags=[batch, it, F'f'(3)]): shape (None, 3),
    # time_dim_axis 1, feature_dim_axis 2. Here: the same, with the dropped-API warning.
    from returnn.util.dropped_api import dropped_api_uses, reset_dropped_api_uses

    reset_dropped_api_uses()
    tag = DimensionTag(kind=DimensionTag.Types.Spatial, description="time")
    feat = DimensionTag(kind=DimensionTag.Types.Feature, description="feat")
    assert tag.dimension is None and tag.kind == Dim.Types.Spatial and tag.description == "time"
    assert feat.dimension is None and feat.kind == Dim.Types.Feature
    assert tag.is_dynamic() and not tag.is_batch_dim()
    x = Data("x", dim_tags=[batch_dim, tag, FeatureDim("f", 3)])
    assert x.shape == (None, 3) and x.time_dim_axis == 1 and x.feature_dim_axis == 2
    out = capsys.readouterr().out
    assert out.count("WARNING: dropped API: DimensionTag(kind=..., description=...) without dimension") == 1
    assert "Use DimensionTag(kind=..., description=..., dimension=None)." in out
    assert dropped_api_uses() == ["dim_without_dimension"]
    reset_dropped_api_uses()


@pytest.mark.parametrize("call", [lambda: Dim(5, "foo"), lambda: Dim(None, "foo")])
def test_positional_description_is_rejected_like_reference(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("value", [3.0, "3"])
def test_dimension_type_checked(value):
    with pytest.raises(TensorArgError, match="unexpected dimension type"):
        Dim(value)


def test_unknown_keyword_is_rejected():
    with pytest.raises(TensorArgError, match="unexpected keyword argument 'foo'"):
        Dim(5, name="x", foo=3)


@pytest.mark.parametrize("make, kind, description, dimension, text", [
    (lambda: DimensionTag(kind=DimensionTag.Types.Spatial, description="time", dimension=None),
     Dim.Types.Spatial, "time", None, "Dim{'time'[?]}"),
    (lambda: Dim(dimension=None, kind=Dim.Types.Spatial, description="time"), Dim.Types.Spatial, "time", None,
     "Dim{'time'[?]}"),
    (lambda: Dim(5), None, None, 5, "Dim{-(5)}"),
    (lambda: Dim(5, name="x"), None, "x", 5, "Dim{'x'(5)}"),
    (lambda: Dim(5, name="x", description="y"), None, "x", 5, "Dim{'x'(5)}"),
    (lambda: SpatialDim("t"), Dim.Types.Spatial, "t", None, "Dim{'t'[?]}"),
    (lambda: SpatialDim("t", 3), Dim.Types.Spatial, "t", 3, "Dim{'t'(3)}"),
    (lambda: FeatureDim("f", 3), Dim.Types.Feature, "f", 3, "Dim{F'f'(3)}"),
    (lambda: DimensionTag(kind=DimensionTag.Types.Time, description="self-att-keys", dimension=None),
     Dim.Types.Spatial, "self-att-keys", None, "Dim{'self-att-keys'[?]}"),
    (lambda: Dim(-1), None, None, -1, "Dim{-(-1)}"),
])
def test_accepted_forms_like_reference(make, kind, description, dimension, text):
    dim = make()
    assert (dim.kind, dim.description, dim.name, dim.dimension, repr(dim)) == (kind, description, description,
                                                                                dimension, text)


def test_types_like_reference():
    assert Dim.Types.Time is Dim.Types.Spatial and Dim.Types.Unspecified is None
    assert repr(Dim.Types.Spatial) == "<spatial Entity>" and repr(Dim.Types.Feature) == "<feature Entity>"
    assert repr(Dim.Types.Batch) == "<batch Entity>"
    assert (batch_dim.kind, batch_dim.description, batch_dim.dimension, repr(batch_dim)) == (
        Dim.Types.Batch, "global batch", None, "Dim{B}")
    dim = Dim(3, name="a")
    assert not dim.is_spatial_dim() and not dim.is_feature_dim() and not dim.is_batch_dim()
    assert SpatialDim("t").is_dynamic() and not SpatialDim("t").is_static() and not batch_dim.is_dynamic()
    assert SpatialDim("t").dyn_size is None and SpatialDim("t").dyn_size_ext is None


# ---- equality


def test_equality_is_identity_of_the_same_base_like_reference():
    assert FeatureDim("a", 5) != FeatureDim("a", 5) and not FeatureDim("a", 5).is_equal(FeatureDim("a", 5))
    assert Dim(5) != Dim(5) and SpatialDim("time") != SpatialDim("time")
    t, t2 = SpatialDim("time"), SpatialDim("time2")
    assert t2.get_same_base() is t2
    t2.declare_same_as(t)
    assert t2 == t and t2.is_equal(t) and t2.get_same_base() is t and t.get_same_base() is t and t2.same_as is t
    assert hash(t2) == hash(t) and {t, t2} == {t}


def test_declare_same_as_different_sizes_is_an_error():
    with pytest.raises(TensorArgError, match="different sizes"):
        SpatialDim("a", 3).declare_same_as(SpatialDim("b", 4))


# ---- arithmetic


def _dims():
    return SpatialDim("time"), FeatureDim("feat", 5), Dim(3, name="s")


@pytest.mark.parametrize("expr, text, kind", [
    # (expression on t=SpatialDim("time"), f=FeatureDim("feat", 5), s=Dim(3, name="s"), reference repr, kind)
    ("t*2", "Dim{'time*2'[?]}", "spatial"), ("2*t", "Dim{'2*time'[?]}", "spatial"),
    ("t+1", "Dim{'time+1'[?]}", "spatial"), ("1+t", "Dim{'1+time'[?]}", "spatial"),
    ("t//2", "Dim{'time//2'[?]}", "spatial"), ("t-1", "Dim{'time+-1'[?]}", "spatial"),
    ("t.ceildiv_right(2)", "Dim{'⌈time/2⌉'[?]}", "spatial"), ("t.ceildiv_left(2)", "Dim{'⌈time /l 2⌉'[?]}", "spatial"),
    ("t.div_right(2)", "Dim{'time/2'[?]}", "spatial"), ("t.div_left(2)", "Dim{'time /l 2'[?]}", "spatial"),
    ("t.sub_right(1)", "Dim{'time+-1'[?]}", "spatial"), ("t.sub_left(1)", "Dim{'-1+time'[?]}", "spatial"),
    ("f*2", "Dim{F'feat*2'(10)}", "feature"), ("2*f", "Dim{F'2*feat'(10)}", "feature"),
    ("f+1", "Dim{F'feat+1'(6)}", "feature"), ("f//2", "Dim{F'feat//2'(2)}", "feature"),
    ("f.ceildiv_right(2)", "Dim{F'⌈feat/2⌉'(3)}", "feature"), ("f-1", "Dim{F'feat+-1'(4)}", "feature"),
    ("f+s", "Dim{F'feat+s'(8)}", "feature"), ("f*s", "Dim{F'feat*s'(15)}", "feature"),
    ("t+t", "Dim{'2*time'[?]}", "spatial"), ("t*t", "Dim{'time*time'[?]}", "spatial"),
    ("t+s", "Dim{'time+s'[?]}", "spatial"), ("-t", "Dim{'-1*time'[?]}", "spatial"),
    ("t/2", "Dim{'time/2'[?]}", "spatial"), ("f/5", "Dim{F'feat/5'(1)}", "feature"),
    ("f.ceildiv_right(2)*2", "Dim{F'(⌈feat/2⌉)*2'(6)}", "feature"),
    ("(t+1)+1", "Dim{'time+2'[?]}", "spatial"), ("(t*2)*3", "Dim{'time*6'[?]}", "spatial"),
    ("(t+1)*2", "Dim{'(time+1)*2'[?]}", "spatial"), ("2*(t+1)", "Dim{'2*(time+1)'[?]}", "spatial"),
    ("(t//2)*2", "Dim{'(time//2)*2'[?]}", "spatial"), ("(t//2)//2", "Dim{'time//4'[?]}", "spatial"),
    ("t.ceildiv_right(2).ceildiv_right(2)", "Dim{'⌈time/4⌉'[?]}", "spatial"),
    ("(t+1)//2", "Dim{'(time+1)//2'[?]}", "spatial"),
    ("t+2*t", "Dim{'3*time'[?]}", "spatial"), ("2*t+t", "Dim{'3*time'[?]}", "spatial"),
    ("t*2+1", "Dim{'time*2+1'[?]}", "spatial"), ("t*2*2", "Dim{'time*4'[?]}", "spatial"),
    ("2*2*t", "Dim{'4*time'[?]}", "spatial"), ("(t+1).ceildiv_right(2)", "Dim{'⌈(time+1)/2⌉'[?]}", "spatial"),
    ("3+s", "Dim{'3+s'(6)}", "spatial"), ("s+3", "Dim{'s+3'(6)}", "spatial"),
])
def test_arithmetic_like_reference(expr, text, kind):
    t, f, s = _dims()
    dim = eval(expr)  # noqa: S307 (fixed test expressions)
    assert repr(dim).replace("[B]", "[?]") == text and repr(dim.kind) == f"<{kind} Entity>"
    assert eval(expr) is dim  # the same expression gives the same dim  # noqa: S307


@pytest.mark.parametrize("expr", ["t*1", "t+0", "(t*2)//2", "(t+1)-1", "t//1", "t.ceildiv_right(1)", "t*3//3",
                                  "(t*3).ceildiv_right(3)", "(t-1)+1", "(t+u)-u"])
def test_arithmetic_simplifies_to_the_operand_like_reference(expr):
    t, u = SpatialDim("time"), SpatialDim("u")
    assert eval(expr) is t  # noqa: S307


def test_arithmetic_order_matters_like_reference():
    t, u = SpatialDim("time"), SpatialDim("u")
    assert t * 2 != 2 * t and t + 1 != 1 + t and t + u != u + t
    assert (t * 2).derived_from_tag is t and (2 * t).derived_from_tag is t and t.derived_from_tag is None


def test_arithmetic_errors():
    t = SpatialDim("time")
    with pytest.raises(TensorArgError, match="not divisible"):
        FeatureDim("f", 5).div_right(2)
    with pytest.raises(TensorArgError, match="positive"):
        t // 0
    with pytest.raises(TensorArgError, match="int"):
        t * 1.5


def test_arithmetic_lengths_follow_the_operand():
    class Lengths:  # a stand-in raw tensor: Python operators are all the dim arithmetic uses
        def __init__(self, values):
            self.values = values

        def __add__(self, other):
            return Lengths([v + other for v in self.values])

        def __mul__(self, other):
            return Lengths([v * other for v in self.values])

        def __floordiv__(self, other):
            return Lengths([v // other for v in self.values])

        def __neg__(self):
            return Lengths([-v for v in self.values])

    t = SpatialDim("time")
    t.dyn_size = Lengths([7, 4])
    assert (t * 2).dyn_size.values == [14, 8] and (t + 1).dyn_size.values == [8, 5]
    assert (t // 2).dyn_size.values == [3, 2] and t.ceildiv_right(2).dyn_size.values == [4, 2]
    assert repr(t * 3) == "Dim{'time*3'[B]}"


# ---- copying, pickling


def test_copy_and_pickle_like_reference():
    t, f = SpatialDim("t"), FeatureDim("f", 3)
    assert copy.copy(t) is t and copy.deepcopy(t) is t
    data = Data("x", dims=[batch_dim, t, f])
    assert copy.deepcopy(data).dims[1] is t
    p = pickle.loads(pickle.dumps(f))
    assert repr(p) == "Dim{F'f'(3)}" and p is not f and p != f and p.kind is Dim.Types.Feature
    assert pickle.loads(pickle.dumps(batch_dim)) is batch_dim
    assert repr(pickle.loads(pickle.dumps(FeatureDim("f", 3) * 2))) == "Dim{F'f*2'(6)}"
    assert repr(pickle.loads(pickle.dumps(Data("t", dim=3)))) == (
        "Tensor{'t', [B,T|'time:var-unk:t'[B],F|F'feature:t'(3)]}")


def test_dim_copy_like_reference():
    t = SpatialDim("t")
    assert t.copy() == t and t.copy().kind is Dim.Types.Spatial
    assert repr(t.copy(same_as_self=False, description="foo")) == "Dim{'foo'[?]}"
    assert t.copy(same_as_self=False, description="foo") != t
    assert t.copy(kind=Dim.Types.Feature).is_feature_dim()
    with pytest.raises(TensorArgError, match="new description"):
        t.copy(same_as_self=False)


# ---- size tensors


class _Raw:
    """A stand-in raw tensor (any object that takes attributes), with a TF-like name."""

    def __init__(self, name):
        self.name = name


def test_size_tensor_remembers_its_dim_like_reference():
    t = SpatialDim("mytime")
    size = _Raw("add_2:0")
    assert t.set_tag_on_size_tensor(size) is t
    assert Dim.get_tag_from_size_tensor(size) is t and t.dyn_size is size and t.is_same_size_tensor(size)
    t2 = SpatialDim("mytime2")
    size2 = _Raw("mul_2:0")
    t2.dyn_size = size2
    assert Dim.get_tag_from_size_tensor(size2) is t2
    assert repr(t2.dyn_size_ext) == "Tensor{'mytime2:dyn_size', [B], dtype='int32'}"
    assert t2.dyn_size_ext.placeholder is size2
    assert Dim.get_tag_from_size_tensor(_Raw("x")) is None
    # a dim built from a tagged size tensor is that dim, as the reference
    other = Dim(None, description="a", dyn_size=size)
    assert other == t and other.dyn_size is size


def test_lazily_computed_lengths_remember_their_dim():
    t = SpatialDim("time")
    t.dyn_size = _Raw("len:0")
    derived = SpatialDim("derived")
    derived.dyn_size_fn = lambda: _Raw("derived_len:0")
    size = derived.dyn_size
    assert Dim.get_tag_from_size_tensor(size) is derived
    assert Data("y", dim=2, size_placeholder={0: size}).dims[1] is derived


def test_unnamed_dims_in_axis_lookup():
    data = Data("x", dims=[batch_dim, SpatialDim("t"), Dim(5)], dtype="float32")
    assert data.get_axes_from_description("stag:t") == [1] and data.get_axis_from_description(data.dims[2]) == 2
    other = SpatialDim("other")
    data.dims[1].declare_same_as(other)
    assert data.get_axes_from_description("stag:other") == [1] and data.get_axes_from_description("stag:t") == [1]


def test_undefined_dynamic_dim_declared_same_as_static_becomes_static():
    # as the reference (observed), whichever of the two is declared the same as the other
    a, b = Dim(None, name="a"), Dim(4, name="b")
    a.declare_same_as(b)
    assert a.dimension == 4 and not a.is_dynamic() and a == b and a.get_same_base() is b
    c, d = Dim(None, name="c"), Dim(4, name="d")
    d.declare_same_as(c)
    assert c.dimension == 4 and c == d and c.get_same_base() is d
    with pytest.raises(TensorArgError):
        Dim(5, name="e").declare_same_as(b)


def test_derived_from_op():
    time = Dim(None, name="time")
    out = time.sub_left(1).ceildiv_right(2)
    assert out.derived_from_op.kind == "ceildiv" and out.derived_from_op.inputs == [time.sub_left(1), 2]
    assert time.derived_from_op is None
    named = Dim(None, name="named")
    named.declare_same_as(out)
    assert named.derived_from_op is None and named.get_same_base().derived_from_op.kind == "ceildiv"
