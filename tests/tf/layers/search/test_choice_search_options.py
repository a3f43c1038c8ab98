"""Search options of ``choice`` and several choices in one rec unit, against the reference: hypotheses, lengths,
scores (and the alignment choice's hypotheses) observed from the reference (PyPI ``returnn``) on the same networks
with the same parameters (uniform random, ``RandomState(0)``, variables in name order).

- ``custom_score_combine``: the function gets the masked log-probabilities without ``prob_scale``, the beam scores,
  ``base_beam_in`` 1 at the first step; what it returns is searched.
- ``keep_beams``: each extended hypothesis keeps its own best extensions.
- two choices in one step (an alignment ``t``, then the label ``output``, as in the latent-attention setups of
  returnn-experiments): the second extends the hypotheses of the first, states are gathered at each level.
"""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import LayerArgError
from returnn.tf.network import TFNetwork

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True, "available_for_inference": True},
          "align": {"dim": 4, "sparse": True, "available_for_inference": True}}


def _run(session, net_dict, scale):
    net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=False, search_flag=True)
    net.construct_from_dict(net_dict)
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(0)
    for var in sorted(tf.compat.v1.trainable_variables(), key=lambda v: v.name):
        var.load(rs.uniform(-scale, scale, var.shape.as_list()), session)
    data = net.extern_data.data["data"]
    feed = {data.placeholder: np.zeros((2, 4, 3), "float32"), data.size_placeholder[0]: [4, 4]}
    out = net.layers["output"].output
    fetches = [out.copy_as_batch_major().placeholder, out.get_sequence_lengths(), out.beam.scores]
    if "t_out" in net_dict["output"]["unit"]:
        fetches.append(net.get_layer("output/t_out").output.copy_as_batch_major().placeholder)
    return [x.tolist() if x.dtype.kind in "iub" else x for x in session.run(fetches, feed)]


def _label_search(session, beam, **choice_opts):
    return _run(session, {
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 6, "unit": {
            "output": {"class": "choice", "target": "classes", "beam_size": beam, "from": "prob",
                       "initial_output": 0, **choice_opts},
            "end": {"class": "compare", "from": "output", "value": 0},
            "emb": {"class": "linear", "from": "prev:output", "n_out": 4},
            "prob": {"class": "softmax", "from": "emb", "n_out": 5}}}}, scale=2.0)


def _only_labels_2_and_3(layer, batch_dim, scores_in, scores_base, base_beam_in, end_flags, **kwargs):
    allowed = tf.constant([False, False, True, True, False])
    return tf.where(allowed[None, None, :] | end_flags[:, :, None], scores_in + scores_base, float("-inf"))


def _doubled_log_probs(layer, batch_dim, scores_in, scores_base, base_beam_in, end_flags, **kwargs):
    return scores_in * 2.0 + scores_base


def _bonus_per_live_hypothesis(layer, batch_dim, scores_in, scores_base, base_beam_in, end_flags, **kwargs):
    assert set(kwargs) == {"scores_beam_in", "t"}
    return scores_in + scores_base + 0.1 * tf.cast(base_beam_in, tf.float32)  # 1 at the first step, then 3


@pytest.mark.parametrize("combine, expected_hyps, expected_lens, expected_scores", [
    (_only_labels_2_and_3,
     [[3, 3, 3, 3, 3, 3], [3, 2, 3, 3, 3, 3], [3, 3, 2, 3, 3, 3]] * 2, [6] * 6, [[-0.358, -0.633, -0.633]] * 2),
    (_doubled_log_probs,
     [[3, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 0], [3, 3, 3, 3, 0, 0]] * 2, [6, 5, 4] * 2, [[-0.716, -1.016, -1.05]] * 2),
])
def test_custom_score_combine_like_reference(session, combine, expected_hyps, expected_lens, expected_scores):
    # prob_scale is not applied with a custom combination (as the reference)
    hyps, lens, scores = _label_search(session, 3, custom_score_combine=combine, prob_scale=0.5,
                                       explicit_search_sources=["prev:output"])
    assert hyps == expected_hyps and lens == expected_lens
    np.testing.assert_allclose(scores, expected_scores, atol=1e-3)


def test_custom_score_combine_base_beam_in_is_one_at_first_step(session):
    _, _, plain = _label_search(session, 3)
    _, _, bonus = _label_search(session, 3, custom_score_combine=_bonus_per_live_hypothesis)
    # the best hypotheses run 6 steps: 0.1 + 5 * 0.3 = 1.6 more than without, divided by 6 + 1 (length norm.)
    np.testing.assert_allclose(bonus[:, 0] - plain[:, 0], 1.6 / 7, atol=1e-4)


def test_custom_score_combine_sees_explicit_search_sources(session):
    seen = []

    def combine(layer, scores_in, scores_base, **kwargs):
        seen.extend(layer.explicit_search_sources)
        return scores_in + scores_base

    _label_search(session, 2, custom_score_combine=combine, explicit_search_sources=["prev:output"])
    assert [src.name for src in seen] == ["prev:output"] and seen[0].output.dtype == "int32"


def test_keep_beams_each_hypothesis_keeps_its_best_extension(session):
    hyps, lens, scores = _label_search(session, 3, keep_beams=True)
    # without keep_beams, the extensions of the best hypothesis take the whole beam: [3, 3, ...] ending at 6, 5, 4
    assert hyps == [[3, 3, 3, 3, 3, 3], [1, 3, 3, 3, 3, 3], [4, 2, 3, 3, 3, 3]] * 2
    assert lens == [6] * 6
    np.testing.assert_allclose(scores, [[-0.3581, -0.8334, -0.9902]] * 2, atol=1e-3)


def _two_choice_search(session, t_beam, beam, keep_beams=False):
    return _run(session, {
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 5, "unit": {
            "s": {"class": "rnn_cell", "unit": "LSTMBlock", "from": ["prev:emb", "prev:emb_t"], "n_out": 6},
            "prob_t": {"class": "softmax", "from": ["s"], "n_out": 4},
            "t": {"class": "choice", "target": "align", "beam_size": t_beam, "from": "prob_t", "initial_output": 0,
                  "length_normalization": False, "keep_beams": keep_beams},
            "emb_t": {"class": "linear", "from": "t", "n_out": 4, "activation": "tanh"},
            "s2": {"class": "rnn_cell", "unit": "LSTMBlock", "from": ["emb_t"], "n_out": 5},
            "prob": {"class": "softmax", "from": ["s2", "s", "prev:emb"], "n_out": 5},
            "output": {"class": "choice", "target": "classes", "beam_size": beam, "from": "prob",
                       "initial_output": 0},
            "t_out": {"class": "copy", "from": "t", "is_output_layer": True},
            "end": {"class": "compare", "from": "output", "value": 0},
            "emb": {"class": "linear", "from": "output", "n_out": 4, "activation": "tanh"}}}}, scale=4.0)


@pytest.mark.parametrize("t_beam, beam, keep_beams, expected_hyps, expected_t, expected_scores", [
    (3, 3, False, [[4, 2, 2, 3, 3], [4, 2, 2, 2, 2], [4, 2, 3, 1, 4]],
     [[3, 3, 1, 1, 1], [3, 3, 3, 3, 3], [3, 3, 3, 1, 1]], [-0.7787, -0.8181, -0.8408]),
    (2, 4, False, [[4, 2, 2, 2, 2], [4, 2, 3, 1, 4], [4, 2, 3, 1, 3], [4, 2, 2, 2, 3]],
     [[3, 3, 3, 3, 3], [3, 3, 3, 1, 1], [3, 3, 3, 1, 1], [3, 3, 3, 3, 3]], [-0.8181, -0.8408, -0.8867, -1.0044]),
    (6, 3, True, [[4, 2, 2, 2, 2], [4, 2, 3, 1, 4], [4, 2, 3, 1, 3]],
     [[3, 3, 3, 3, 3], [3, 3, 3, 1, 1], [3, 3, 3, 1, 1]], [-0.8181, -0.8408, -0.8867]),
])
def test_two_choices_in_one_step_like_reference(session, t_beam, beam, keep_beams, expected_hyps, expected_t,
                                                expected_scores):
    hyps, lens, scores, t_hyps = _two_choice_search(session, t_beam, beam, keep_beams)
    assert hyps == expected_hyps * 2 and t_hyps == expected_t * 2
    assert lens == [5] * (2 * beam)
    np.testing.assert_allclose(scores, [expected_scores] * 2, atol=1e-3)


def test_keep_beams_needs_a_multiple_of_the_extended_hypotheses(session):
    with pytest.raises(LayerArgError, match="keep_beams.*beam_size") as exc:
        _two_choice_search(session, 2, 4, keep_beams=True)
    assert "a multiple of 4" in str(exc.value)


def _extra_search_with_target_choice(session, beam):
    """An extra search network of a training network (as the latent-attention setups): ``t`` searches with the
    gold alignment in the beam (``cheating``), ``output`` has ``"search": False``: it gives the target, whose
    log-probability the reference adds to every hypothesis' score."""
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}}),
                    train_flag=True)
    net.construct_from_dict({
        "t_lin": {"class": "eval", "from": ["data:classes"],
                  "eval": "tf.minimum(tf.range(tf.shape(source(0))[1])[None, :] + 0 * source(0), 3)",
                  "out_type": {"batch_dim_axis": 0, "time_dim_axis": 1, "shape": (None,), "sparse": True,
                               "dtype": "int32", "dim": 4}, "size_target": "classes"},
        "1_align": {"class": "copy", "from": "t_lin", "register_as_extern_data": "align"},
        "extra.search:output": {
            "class": "rec", "from": [], "target": ["classes", "align"], "size_target": "align", "unit": {
                "s": {"class": "rnn_cell", "unit": "LSTMBlock", "from": ["prev:emb", "prev:emb_t"], "n_out": 6},
                "prob_t": {"class": "softmax", "from": ["s"], "n_out": 4},
                "t": {"class": "choice", "target": "align", "beam_size": beam, "from": "prob_t", "initial_output": 0,
                      "cheating": True, "length_normalization": False},
                "emb_t": {"class": "linear", "from": "t", "n_out": 4, "activation": "tanh"},
                "prob": {"class": "softmax", "from": ["emb_t", "s"], "n_out": 5},
                "output": {"class": "choice", "target": "classes", "beam_size": beam, "from": "prob",
                           "initial_output": 0, "search": False, "length_normalization": False},
                "t_out": {"class": "copy", "from": "t", "is_output_layer": True},
                "t_err": {"class": "eval", "from": ["t", "data:align"], "loss": "as_is", "loss_scale": 0,
                          "eval": "tf.cast(tf.abs(source(0) - source(1)), tf.float32)", "out_type": {"dtype": "float32"}},
                "t_loop": {"class": "eval", "from": ["t", "prev:t"], "loss": "as_is", "loss_scale": 0,
                           "eval": "tf.cast(tf.equal(source(0), source(1)), tf.float32)", "out_type": {"dtype": "float32"}},
                "end": {"class": "compare", "from": "output", "value": 0},
                "emb": {"class": "linear", "from": "output", "n_out": 4, "activation": "tanh"}}},
        "extra.search:t_dec": {"class": "decide", "from": "extra.search:output/t_out"},
        "extra.search:search_loss": {"class": "decide", "from": "extra.search:output", "loss": "search_score",
                                     "loss_scale": 0},
        "extra.search:search_score": {
            "class": "eval", "from": "extra.search:search_loss",
            "out_type": {"dtype": "float32", "sparse": False, "shape": (), "dim": None, "batch_dim_axis": 0,
                         "time_dim_axis": None},
            "eval": "(source(0, auto_convert=False), tf.squeeze(self.sources[0].search_choices.beam_scores, axis=1)"
                    " / tf.cast(source(0, auto_convert=False, as_data=True).get_sequence_lengths(), tf.float32))[-1]"},
        "output": {"class": "linear", "from": "data", "n_out": 5, "loss": "ce", "target": "classes"},
        "score": {"class": "copy", "from": "extra.search:search_score", "is_output_layer": True},
        "alignment": {"class": "copy", "from": "extra.search:t_dec", "is_output_layer": True}})
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(0)
    for var in sorted(tf.compat.v1.trainable_variables(), key=lambda v: v.name):
        var.load(rs.uniform(-3, 3, var.shape.as_list()), session)
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    feed = {data.placeholder: np.zeros((2, 5, 3), "float32"), data.size_placeholder[0]: [5, 4],
            classes.placeholder: [[1, 2, 3, 4, 1], [2, 2, 1, 3, 0]], classes.size_placeholder[0]: [5, 4]}
    losses = net.get_losses_initialized()[0]
    score, alignment, errors = session.run(
        [net.get_layer("score").output.placeholder, net.get_layer("alignment").output.copy_as_batch_major().placeholder,
         {name: (losses[name].get_loss_value(), losses[name].get_norm_factor()) for name in ("output/t_err",
                                                                                            "output/t_loop")}], feed)
    return score, alignment.tolist(), errors


@pytest.mark.parametrize("beam, expected_score, expected_alignment, expected_errors", [
    (1, [-11.1597, -10.4035], [[0, 1, 2, 3, 3], [0, 1, 2, 3, 3]], (0.0, 3.0)),  # the gold alignment only
    (3, [-5.3427, -4.7378], [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]], (32.0, 19.0)),
])
def test_choice_without_search_in_a_search_scores_its_target_like_reference(session, beam, expected_score,
                                                                            expected_alignment, expected_errors):
    score, alignment, errors = _extra_search_with_target_choice(session, beam)
    np.testing.assert_allclose(score, expected_score, atol=1e-3)  # per frame; the t scores alone: -3.86, -4.41
    assert alignment == expected_alignment
    # the in-loop losses of the search (reported as "output/t_err"): summed over the 9 frames of each of the beam's
    # hypotheses as they were at each step (not followed back from the final ones: 30 and 21 then)
    assert (errors["output/t_err"][0], errors["output/t_loop"][0]) == expected_errors
    np.testing.assert_allclose(errors["output/t_err"][1], 1 / (9 * beam))


def test_search_task_builds_no_in_loop_losses_like_reference(session):
    """Without the train flag (a search task), the reference builds no losses of sub layers in a searching loop
    (observed: no losses; here a loss layer reads the target, which a search does not have)."""
    net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=False, search_flag=True)
    net.construct_from_dict({
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 6, "unit": {
            "output": {"class": "choice", "target": "classes", "beam_size": 3, "from": "prob", "initial_output": 0},
            "end": {"class": "compare", "from": "output", "value": 0},
            "emb": {"class": "linear", "from": "prev:output", "n_out": 4},
            "err": {"class": "eval", "from": ["output", "data:classes"], "loss": "as_is", "loss_scale": 0,
                    "eval": "tf.cast(tf.equal(source(0), source(1)), tf.float32)", "out_type": {"dtype": "float32"}},
            "prob": {"class": "softmax", "from": "emb", "n_out": 5}}}})
    assert net.get_losses_initialized()[0] == {}
    assert "err" not in net.get_layer("output").cell.layers


@pytest.mark.parametrize("cheating, expected_loss, expected_grad", [
    (True, 5.534843, [0.5836, 0.0495, 0.0283, 0.0989, -0.0322]),
    ("exclusive", 5.516922, [0.5997, 0.0495, -0.0016, 0.0989, -0.0219]),  # the gold hypothesis not twice
])
@pytest.mark.parametrize("train_flag_tensor", [False, True])
def test_expected_loss_gradient_through_search_with_cheating_like_reference(session, cheating, expected_loss,
                                                                           expected_grad, train_flag_tensor):
    """MBR training of a scale on the log-probabilities (as 2022-scale-learning's min-WER configs): the expected
    edit distance over the beam (the gold hypothesis in it), its gradient through the beam scores; also with the
    train flag a tensor, as the training engine builds it (the loop had no gradient then). Observed from the
    reference."""
    train_flag = tf.compat.v1.placeholder_with_default(False, (), name="train_flag") if train_flag_tensor else True
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}}),
                    train_flag=train_flag)
    net.construct_from_dict({
        "output": {"class": "linear", "from": "data", "n_out": 5, "trainable": False},
        "extra.search:output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 6, "unit": {
            "scale": {"class": "variable", "shape": [5], "add_batch_axis": False, "init": 1.0},
            "emb": {"class": "linear", "from": "prev:output", "n_out": 4, "trainable": False},
            "prob": {"class": "softmax", "from": "emb", "n_out": 5, "trainable": False},
            "logp": {"class": "eval", "from": ["prob", "scale"], "eval": "source(1) * safe_log(source(0))"},
            "output": {"class": "choice", "target": "classes", "beam_size": 3, "from": "logp",
                       "input_type": "log_prob", "initial_output": 0, "cheating": cheating},
            "end": {"class": "compare", "from": "output", "value": 0}}},
        "min_wer": {"class": "copy", "from": "extra.search:output", "loss": "expected_loss", "target": "classes",
                    "loss_opts": {"divide_beam_size": False, "loss": {"class": "edit_distance"}, "loss_kind": "error",
                                  "norm_scores_stop_gradient": False, "subtract_average_loss": False}}})
    total = net.get_losses_initialized(with_total=True)[1]
    scale, = [v for v in tf.compat.v1.trainable_variables() if "scale" in v.name]
    grad = tf.compat.v1.gradients(total, [scale])[0]
    assert grad is not None
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(0)
    for var in sorted(tf.compat.v1.global_variables(), key=lambda v: v.name):
        var.load(rs.uniform(0.5, 1.5, var.shape.as_list()) if "scale" in var.name
                 else rs.uniform(-2, 2, var.shape.as_list()), session)
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    feed = {data.placeholder: np.zeros((2, 4, 3), "float32"), data.size_placeholder[0]: [4, 4],
            classes.placeholder: [[3, 1, 4, 0], [2, 2, 0, 0]], classes.size_placeholder[0]: [4, 3]}
    if train_flag_tensor:
        feed[train_flag] = True
    loss, grad_value = session.run([total, grad], feed)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-5)
    np.testing.assert_allclose(grad_value, expected_grad, atol=1e-3)


def test_choice_over_encoder_frames_with_a_target_of_unknown_classes(session):
    """A choice over the frames of an encoder (its input's feature axis is the encoder's time) with a target of
    positions of unknown number: the labels are over the encoder's frames (as the reference, observed:
    test_extra_scatter_nd_search_train's ``t_search`` has the encoder's time as sparse dim)."""
    from returnn.config import Config
    from returnn.tf.network import TFNetwork
    config = Config({"extern_data": {"data": {"dim": 2},
                                     "pos": {"dim": None, "sparse": True, "available_for_inference": False}}})
    net = TFNetwork(config=config, search_flag=True, train_flag=False)
    net.construct_from_dict({
        "enc": {"class": "linear", "from": "data", "n_out": 3},
        "output": {"class": "rec", "from": [], "max_seq_len": 2, "unit": {
            "energy": {"class": "linear", "from": "base:enc", "n_out": 1},
            "energy1": {"class": "squeeze", "axis": "f", "from": "energy"},
            "weights": {"class": "softmax_over_spatial", "from": "energy1"},
            "weights1": {"class": "reinterpret_data", "from": "weights", "set_axes": {"f": "T"}},
            "output": {"class": "choice", "from": "weights1", "target": "pos", "beam_size": 2,
                       "initial_output": 0}}}})
    enc_time = net.extern_data.data["data"].get_time_dim_tag()
    assert net.layers["output"].output.sparse_dim == enc_time
