"""combine with an input whose dynamic axis is undefined (``Tensor(shape=(None, 3))`` without lengths): the output
takes the defined dim of the other input, as the reference (its tests ``test_CombineLayer_match_unknown*``)."""

import pytest

from returnn.errors import LayerArgError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.basic import CombineLayer, InternalLayer
from returnn.tf.network import ExternData, TFNetwork


def _layers(undefined, defined):
    net = TFNetwork(extern_data=ExternData())
    return net, [InternalLayer(name="a", network=net, output=undefined),
                 InternalLayer(name="b", network=net, output=defined)]


@pytest.mark.parametrize("derived", [False, True])
def test_defined_dim_wins(session, derived):
    undefined = Tensor(name="undefined", shape=(None, 3))
    if derived:
        dims = list(undefined.dims)
        dims[1] = Dim(None, kind=Dim.Types.Spatial, description="derived", derived_from_tag=dims[1])
        undefined = Tensor(name="undefined_derived", dims=dims)
    defined = Tensor(name="defined", shape=(None, 3), auto_create_placeholders=True)
    net, sources = _layers(undefined, defined)
    out = CombineLayer.get_out_data_from_opts(name="combine", network=net, sources=sources)  # no kind: a template
    assert out.dims[:2] == defined.dims[:2] and out.batch_shape == defined.batch_shape
    out = CombineLayer.get_out_data_from_opts(name="combine", network=net, sources=sources, kind="add",
                                              out_type={"dim": 3, "shape": (None, 3)})
    assert out.dims[:2] == defined.dims[:2]


def test_kind_still_needed_to_build(session):
    defined = Tensor(name="defined", shape=(None, 3), auto_create_placeholders=True)
    net = TFNetwork(extern_data=ExternData())
    src = InternalLayer(name="a", network=net, output=defined)
    with pytest.raises(LayerArgError, match="kind"):
        CombineLayer.get_out_data_from_opts(name="combine", network=net, sources=[src], kind="plus")
    with pytest.raises(LayerArgError, match="kind"):
        net.add_layer(name="c", layer_class=CombineLayer, sources=[src], kind=None)
