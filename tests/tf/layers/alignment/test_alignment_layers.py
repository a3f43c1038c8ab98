"""forced_align and fast_bw layers: outputs observed from the reference on fixed inputs, options, errors."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, make_feed

EXTERN = {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}}
X = np.random.RandomState(0).normal(size=(2, 6, 5)).astype("float32")
Y = np.array([[1, 2, 2], [3, 0, 0]], "int32")


def _run(session, layer, fetch=("output",)):
    net = build_net({"lp": {"class": "activation", "activation": "log_softmax", "from": "data"}, "output": layer},
                    EXTERN, train_flag=False)
    out = net.get_layer("output")
    tensors = {"output": out.output.placeholder, "scores": getattr(out, "scores", None),
               "output_loss": getattr(out, "output_loss", None)}
    feed = make_feed(net, {"data": X, "classes": Y}, {"data": [6, 4], "classes": [3, 1]})
    return net, session.run([tensors[k] for k in fetch], feed)


@pytest.mark.parametrize("opts, align, scores", [
    ({"topology": "ctc"}, [[4, 4], [1, 4], [1, 3], [2, 4], [4, 0], [2, 0]], [-8.478886, -6.0465493]),
    ({"topology": "rna"}, [[4, 4], [1, 4], [2, 3], [2, 4], [4, 0], [4, 0]], [-7.5155783, -6.0465493]),
    # log-probs given as "prob": all below 1e-20, so every frame scores log(1e-20) (ties: labels late)
    ({"topology": "ctc", "input_type": "prob"}, [[4, 4], [4, 4], [1, 4], [2, 3], [4, 0], [2, 0]],
     [-276.3102, -184.20682]),
])
def test_forced_align_observed_from_reference(session, opts, align, scores):
    layer = {"class": "forced_align", "from": "lp", "input_type": "log_prob", "align_target": "data:classes", **opts}
    net, (out, sc) = _run(session, layer, ("output", "scores"))
    np.testing.assert_array_equal(out, align)
    np.testing.assert_allclose(sc, scores, rtol=1e-6)
    data = net.get_layer("output").output
    assert data.time_dim_axis == 0 and data.batch_dim_axis == 1 and data.dtype == "int32" and data.dim == 5


@pytest.mark.parametrize("opts, loss", [
    ({}, [7.041358, 5.036347]),
    ({"am_scale": 0.5}, [2.0778203, 1.5781893]),
    ({"min_prob": 0.1}, [6.3993807, 4.387392]),
    ({"am_scale": 0.5, "min_prob": 0.1}, [1.6711559, 1.1480956]),
    ({"input_type": "prob"}, [272.97803, 181.90424]),
    ({"ctc_opts": {"blank_idx": 0}}, [9.449358, 4.516608]),
    ({"ctc_opts": {"label_loop": False}}, [6.5882645, 5.9366584]),
    ({"tdp_scale": 0.5}, [7.041358, 5.036347]),  # only for RASR FSAs
])
def test_fast_bw_ctc_observed_from_reference(session, opts, loss):
    layer = {"class": "fast_bw", "from": "lp", "align_target": "ctc", "align_target_key": "classes", **opts}
    net, (post, out_loss) = _run(session, layer, ("output", "output_loss"))
    np.testing.assert_allclose(out_loss, loss, rtol=1e-5)
    assert post.shape == (6, 2, 5)
    np.testing.assert_allclose(post[:4, 1].sum(-1), 1.0, rtol=1e-5)
    assert not post[4:, 1].any()
    if not opts:
        np.testing.assert_allclose(post[0], [[0, 0.2617261, 0, 0, 0.7382741], [0, 0, 0, 0.0930928, 0.906907]],
                                   atol=2e-6)
    # no gradient, as the reference's op
    assert tf.gradients(net.get_layer("output").output.placeholder, net.get_layer("lp").output.placeholder) == [None]


def test_fast_bw_staircase(session):
    layer = {"class": "fast_bw", "from": "lp", "align_target": "staircase", "staircase_seq_len_source": "data:classes"}
    _, (post, loss) = _run(session, layer, ("output", "output_loss"))
    np.testing.assert_allclose(loss, [3.9359918, 1.2016305], rtol=1e-6)  # observed from the reference
    np.testing.assert_array_equal(post[:, 0].argmax(-1)[:3], [0, 1, 2])
    assert not post[3:, 0].any() and not post[1:, 1].any()


@pytest.mark.parametrize("layer, arg, text", [
    ({"class": "forced_align", "topology": "rnnt", "input_type": "log_prob"}, "topology", "rna"),
    ({"class": "forced_align", "topology": "ctc", "input_type": "logits"}, "input_type", "log_prob"),
    ({"class": "forced_align", "topology": "ctc", "input_type": "log_prob", "blank_idx": 0}, "blank_idx", "last"),
    ({"class": "forced_align", "topology": "ctc", "input_type": "log_prob", "blank_included": True},
     "blank_included", "last"),
    ({"class": "fast_bw", "align_target": "sprint", "sprint_opts": {}}, "align_target", "RASR"),
    ({"class": "fast_bw", "align_target": "hmm"}, "align_target", "ctc"),
    ({"class": "fast_bw", "align_target": "ctc", "align_target_key": "classes", "ctc_opts": {"foo": 1}},
     "ctc_opts", "label_loop"),
    ({"class": "fast_bw", "align_target": "ctc"}, "align_target_key", "extern data"),
    ({"class": "fast_bw", "align_target": "staircase"}, "staircase_seq_len_source", "layer"),
])
def test_rejected(session, layer, arg, text):
    layer = dict({"from": "lp", "align_target": "data:classes"} if layer["class"] == "forced_align" else
                 {"from": "lp"}, **layer)
    with pytest.raises(LayerArgError) as info:
        build_net({"lp": {"class": "activation", "activation": "log_softmax", "from": "data"}, "output": layer},
                  EXTERN, train_flag=False)
    assert info.value.arg == arg and text in str(info.value)
