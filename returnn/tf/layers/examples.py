"""One small, runnable example per registered layer class: the layer dict and the network around it.

:data:`LAYER_EXAMPLES` maps every name of the layer registry (:func:`returnn.tf.layers.core.registry.
get_layer_class_name_list`, aliases included) to a :class:`LayerExample`. The table serves two readers:

- ``tests/tf/layers/test_layer_examples.py`` builds every example (on random inputs: batch 3, up to 7 frames),
  runs it forward and backward, and checks that each layer of the class under test computes what its output
  template (from ``get_out_data_from_opts``, before any TF op) says: dims, dtype, sparse dim, and the shape of the
  raw tensor (static sizes, the batch size, and the maximum of the dynamic lengths). A registered class without an
  example here fails that test.
- the documentation (``docs/``) shows each example on the layer reference page, so every layer dict in the docs
  is one that the test runs.

The table is Python (not a data file under ``docs/``) so that it can hold ``Dim`` objects and comments, and is
importable from the package by the tests and by the documentation generator alike.

Conventions of an example: the layer under test is the layer ``"output"`` or sits below it (in a ``rec`` unit or
a subnetwork); the surrounding layers are the minimum it needs. The extern data names used are ``data`` (dense,
5 features unless noted) and ``classes`` (sparse, 4 classes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from returnn.tensor import FeatureDim, SpatialDim, batch_dim

__all__ = ["LayerExample", "LAYER_EXAMPLES", "get_layer_example"]


@dataclass(frozen=True)
class LayerExample:
    """A network around one layer class.

    :param extern_data: the ``extern_data`` config value
    :param network: the ``network`` config value (the layer under test is ``"output"`` or inside it)
    :param notes: what the example shows, one or two sentences (shown in the docs)
    :param flags: ``TFNetwork`` flags: ``train_flag`` (default True), ``eval_flag``, ``search_flag``
    :param grad: whether a gradient flows from the output to a float input or a parameter (checked if True)
    :param lengths: per extern data key, the (min, max) of its random sequence lengths (default (1, 7); the
        first sequence gets the max), e.g. for labels that must fit into the frames
    :param batch_changes: the output's batch axis has another size than the input's batch while the template
        names the same batch dim (as the reference does for ``time_chunking``): its size is not checked
    :param known_issue: a known disagreement of the layer with its template or the reference, found by this
        example (the test expects it to fail, strictly: once fixed, remove this); shown in the docs
    :param raises: for a layer that needs something this installation lacks (a native op): the name of the error
        class that building the example raises, ``"<ErrorClass>: <text in the message>"``; nothing is run then
    """

    extern_data: Dict[str, Any]
    network: Dict[str, Any]
    notes: str = ""
    flags: Dict[str, Any] = field(default_factory=dict)
    grad: bool = True
    lengths: Dict[str, Tuple[int, int]] = field(default_factory=dict)
    batch_changes: bool = False
    known_issue: Optional[str] = None
    raises: Optional[str] = None


_DATA = {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}}
_IMG = {"data": {"shape": (None, 3, 2)}}  # [B,T,3,F=2]
_POS = {"data": {"dim": 5}, "pos": {"shape": (None,), "dtype": "int32"},
        "pos0": {"shape": (), "dtype": "int32", "time_dim_axis": None}}
_ENC = {"data": {"dim": 5}, "enc": {"dim": 4}, "pos": {"shape": (None,), "dtype": "int32"}}
_SEARCH = {"data": {"dim": 6, "sparse": True}, "classes": {"dim": 4, "sparse": True}}
_EMB = {"class": "linear", "activation": "tanh", "n_out": 6, "from": "data:classes"}
_SEARCH_FLAGS = {"train_flag": False, "search_flag": True, "eval_flag": False}
_MASK = {"r": {"class": "reduce", "mode": "max", "axis": "F", "from": "data"},
         "m": {"class": "compare", "from": "r", "value": 0.5, "kind": "greater"}}


def _decoder(**extra_unit: Any) -> Dict[str, Any]:
    """an encoder and a decoder ``rec`` unit doing beam search (beam 3) over ``classes``, ending at label 0"""
    unit = {
        "emb": {"class": "linear", "activation": None, "with_bias": False, "n_out": 4, "from": "prev:output"},
        "s": {"class": "rnn_cell", "unit": "gru", "n_out": 5, "from": ["emb", "base:enc_last"]},
        "prob": {"class": "softmax", "from": ["s"], "target": "classes", "loss": "ce"},
        "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 3, "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0},
    }
    unit.update(extra_unit)
    return {
        "enc": {"class": "linear", "activation": "tanh", "n_out": 5, "from": "data"},
        "enc_last": {"class": "reduce", "mode": "mean", "axes": "T", "from": "enc"},
        "dec": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 6, "unit": unit},
        "output": {"class": "decide", "from": "dec"},
    }


def _loop(unit: Dict[str, Any], **rec_opts: Any) -> Dict[str, Any]:
    """a ``rec`` layer iterating over the frames of ``data`` with ``unit``"""
    return {"output": {"class": "rec", "from": "data", "unit": unit, **rec_opts}}


def _examples() -> Dict[str, LayerExample]:
    """:return: the table, with new ``Dim`` objects (a dim takes the lengths of the graph it is used in)"""
    hist = SpatialDim("history")
    split_a, split_b = FeatureDim("a", 2), FeatureDim("b", 3)
    mask_a, mask_b = FeatureDim("a", 2), FeatureDim("b", 3)
    return {**_EXAMPLES, **{
        # ---- inputs (need Dims)
        "random": LayerExample(
            _DATA, {"output": {"class": "random", "shape": [batch_dim, FeatureDim("noise", 3)],
                               "distribution": "uniform", "minval": -1.0, "maxval": 1.0}}, grad=False,
            notes="Uniform noise in ``[-1, 1)`` of shape ``{B, noise(3)}``, new values in every run."),
        "rand_int": LayerExample(
            _DATA, {"output": {"class": "rand_int", "shape": [batch_dim, 4], "minval": 0, "maxval": 10}}, grad=False,
            notes="Random ints in ``[0, 10)`` of shape ``{B, 'output:static:1'(4)}`` (an int entry is a new dim)."),
        "random_state_init": LayerExample(
            _DATA, {"output": {"class": "random_state_init", "out_dim": FeatureDim("random-state", 3), "seed": 5}},
            grad=False, notes="The Philox state ``[5, 0, 0]`` (int64), e.g. to initialize a state ``variable``."),
        # ---- indexing (needs Dims)
        "boolean_mask": LayerExample(
            {"data": {"dim": 6}},
            {"x": {"class": "reshape", "from": "data", "in_dims": ["F"], "out_dims": [mask_a, mask_b]},
             "r": {"class": "reduce", "mode": "max", "axes": ["B", "T", mask_b], "from": "x"},
             "m": {"class": "compare", "from": "r", "value": 0.0, "kind": "greater"},
             "output": {"class": "boolean_mask", "from": "x", "mask": "m", "dims": [mask_a]}},
            notes="The entries of axis ``a`` where the mask ``{a}`` is true, packed into a new axis (``dims`` are Dim "
                  "objects: here those the config gave ``reshape``)."),
        # ---- shape (needs Dims)
        "reshape": LayerExample(
            {"data": {"dim": 6}},
            {"output": {"class": "reshape", "from": "data", "in_dims": ["F"], "out_dims": [split_a, split_b]}},
            notes="The 6 features reshaped into two axes ``a`` (2) and ``b`` (3), which the config defines."),
        # ---- recurrent (needs a Dim)
        "cum_concat": LayerExample(
            _DATA, _loop({"lin": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "data:source"},
                          "hist": {"class": "cum_concat", "from": "lin", "out_spatial_dim": hist},
                          "output": {"class": "reduce", "mode": "mean", "axis": hist, "from": "hist"}}),
            notes="Inside a ``rec`` unit: all frames of ``lin`` so far, on the new axis ``history`` (length ``i + 1`` "
                  "at step ``i``), here averaged."),
    }}


_EXAMPLES: Dict[str, LayerExample] = {
    # ---- attention
    "dot_attention": LayerExample(
        _DATA, {"query": {"class": "reduce", "mode": "max", "axes": "T", "from": "data"},
                "output": {"class": "dot_attention", "from": "query", "base": "data", "energy_factor": 0.5}},
        notes="Attention of one query vector per sequence over the frames of ``data`` (dot product energies)."),
    "gauss_window_attention": LayerExample(
        _DATA, {"pos": {"class": "constant", "value": 1.6, "with_batch_dim": True},
                "output": {"class": "gauss_window_attention", "from": "pos", "base": "data", "window_size": 3,
                           "std": 2.0}},
        notes="A Gaussian window of 3 frames around position 1.6 over the frames of ``data``."),
    "generic_attention": LayerExample(
        _DATA, {"energy": {"class": "linear", "activation": None, "n_out": 1, "from": "data"},
                "weights": {"class": "softmax_over_spatial", "from": "energy"},
                "output": {"class": "generic_attention", "weights": "weights", "base": "data"}},
        notes="The weighted sum over time of ``data`` with weights from ``softmax_over_spatial``."),
    "positional_encoding": LayerExample(
        _DATA, {"output": {"class": "positional_encoding", "from": "data", "n_out": 5, "add_to_input": True}},
        notes="Sinusoidal encodings of the frame positions, added to the input."),
    "relative_positional_encoding": LayerExample(
        _DATA, {"output": {"class": "relative_positional_encoding", "from": "data", "n_out": 3, "clipping": 2}},
        notes="A learned encoding per clipped relative distance (``[T,T,F]``), used as ``key_shift`` of "
              "``self_attention``."),
    "self_attention": LayerExample(
        _DATA, {"output": {"class": "self_attention", "from": "data", "num_heads": 2, "total_key_dim": 6, "n_out": 4,
                           "attention_left_only": True}},
        notes="Causal multi-head self-attention (2 heads)."),
    # ---- control
    "subnetwork": LayerExample(
        _DATA, {"output": {"class": "subnetwork", "from": "data", "subnetwork": {
            "lin": {"class": "linear", "activation": "relu", "n_out": 4, "from": "data"},
            "output": {"class": "copy", "from": ["lin", "data"]}}}},
        notes="A network inside a layer; ``data`` inside it is the subnetwork's input."),
    "cond": LayerExample(
        _DATA, {"flag": {"class": "train_flag"},
                "output": {"class": "cond", "condition": "flag",
                           "true_layer": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "data"},
                           "false_layer": {"class": "linear", "activation": None, "n_out": 3, "from": "data"}}},
        notes="One of two layers, by a scalar bool at run time (here the train flag); both branches share the "
              "params ``output/W``, ``output/b``."),
    # ---- conv
    "conv": LayerExample(
        _DATA, {"output": {"class": "conv", "filter_size": (3,), "padding": "same", "n_out": 4, "from": "data"}},
        notes="1D convolution over time."),
    "pool": LayerExample(
        _DATA, {"output": {"class": "pool", "mode": "max", "pool_size": (2,), "padding": "same", "from": "data"}},
        notes="Max-pooling over time with stride 2 (the pool size); the lengths are divided (rounded up)."),
    "transposed_conv": LayerExample(
        _DATA, {"output": {"class": "transposed_conv", "filter_size": [3], "strides": [2], "n_out": 4,
                           "activation": "relu", "from": "data"}},
        notes="Upsampling over time by 2."),
    # ---- elementwise
    "activation": LayerExample(
        _DATA, {"output": {"class": "activation", "activation": "relu", "from": "data"}}),
    "cast": LayerExample(
        _DATA, {"output": {"class": "cast", "dtype": "float64", "from": "data"}}),
    "combine": LayerExample(
        _DATA, {"lin": {"class": "linear", "activation": None, "n_out": 5, "from": "data"},
                "output": {"class": "combine", "kind": "add", "from": ["data", "lin"]}}),
    "compare": LayerExample(
        _DATA, {"output": {"class": "compare", "kind": "greater", "value": 0.0, "from": "data"}},
        grad=False, notes="A bool output: no gradient."),
    "copy": LayerExample(
        _DATA, {"lin": {"class": "linear", "activation": None, "n_out": 3, "from": "data"},
                "output": {"class": "copy", "from": ["data", "lin"]}},
        notes="Several sources are concatenated on the feature axis."),
    "dropout": LayerExample(
        _DATA, {"output": {"class": "dropout", "dropout": 0.1, "from": "data"}},
        notes="Active only with the train flag."),
    "elemwise_prod": LayerExample(
        _DATA, {"output": {"class": "elemwise_prod", "axes": "F", "from": "data"}},
        notes="A learned scale per feature (param ``W``, initialized to ones)."),
    "eval": LayerExample(
        _DATA, {"output": {"class": "eval", "eval": "tf.tanh(source(0)) * 2.0", "from": "data"}}),
    "gating": LayerExample(
        _DATA, {"lin": {"class": "linear", "activation": None, "n_out": 8, "from": "data"},
                "output": {"class": "gating", "activation": "tanh", "from": "lin"}},
        notes="``tanh(a) * sigmoid(b)`` of the two halves of the features (8 -> 4)."),
    "switch": LayerExample(
        _DATA, {"c": {"class": "compare", "kind": "greater", "value": 0.0, "from": "data"},
                "output": {"class": "switch", "condition": "c", "true_from": "data", "false_from": 0.0}}),
    # ---- indexing
    "gather_nd": LayerExample(
        _POS, {"output": {"class": "gather_nd", "from": "data", "position": "data:pos"}},
        notes="Per sequence, the frames of ``data`` at the positions ``pos`` ``{B,T'}``."),
    "scatter_nd": LayerExample(
        _ENC, {"output": {"class": "scatter_nd", "from": "data", "position": "data:pos", "position_axis": "T",
                          "output_dim_via_time_from": "data:enc"}},
        notes="Frames of ``data`` added at positions ``pos`` into a new time axis (the one of ``enc``)."),
    "slice_nd": LayerExample(
        _POS, {"output": {"class": "slice_nd", "from": "data", "start": "data:pos0", "size": 3}},
        notes="Per sequence a window of 3 frames from position ``pos0``."),
    # ---- inputs
    "constant": LayerExample(
        _DATA, {"output": {"class": "constant", "value": 1.5, "with_batch_dim": True}}, grad=False,
        notes="No input: no gradient."),
    "length": LayerExample(
        _DATA, {"output": {"class": "length", "from": "data"}}, grad=False,
        notes="The sequence lengths ``{B}`` (int32)."),
    "source": LayerExample(
        _DATA, {"output": {"class": "source", "data_key": "data"}},
        notes='What ``"data"`` / ``"data:<key>"`` in ``from`` create implicitly.'),
    # ---- linear
    "dot": LayerExample(
        _DATA, {"a": {"class": "linear", "activation": None, "n_out": 5, "from": "data"},
                "output": {"class": "dot", "from": ["a", "data"], "red1": "F", "red2": "F", "var1": None,
                           "var2": None}},
        notes="Per frame the dot product of two feature vectors."),
    "forward": LayerExample(
        _DATA, {"output": {"class": "forward", "activation": "tanh", "n_out": 3, "from": "data"}},
        notes='An alias of ``"linear"``.'),
    "hidden": LayerExample(
        _DATA, {"output": {"class": "hidden", "activation": "relu", "n_out": 3, "from": "data"}},
        notes='An alias of ``"linear"``.'),
    "linear": LayerExample(
        _DATA, {"output": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "data"}}),
    "softmax": LayerExample(
        _DATA, {"emb": _EMB, "output": {"class": "softmax", "from": "emb", "target": "classes", "loss": "ce"}},
        flags={"train_flag": True, "eval_flag": True},
        notes="The output dim comes from the target; with ``loss`` the cross-entropy is added to the objective "
              "(the input is on the time axis of ``classes``, as the loss needs). ``n_out`` alone works too."),
    "weighted_sum": LayerExample(
        _DATA, {"output": {"class": "weighted_sum", "axes": "F", "from": "data"}},
        notes="A learned weighted sum over the features (``W`` starts at ``1/5``: the mean)."),
    "softmax_over_spatial": LayerExample(
        _DATA, {"energy": {"class": "linear", "activation": None, "n_out": 1, "from": "data"},
                "output": {"class": "softmax_over_spatial", "from": "energy"}},
        notes="Softmax over the frames of each sequence (padding gets 0)."),
    # ---- loss_layers
    "edit_distance": LayerExample(
        {"data": {"dim": 5}, "a": {"dim": 4, "sparse": True}, "b": {"dim": 4, "sparse": True}},
        {"output": {"class": "edit_distance", "a": "data:a", "b": "data:b"}}, grad=False,
        notes="Levenshtein distance per sequence between two label sequences."),
    "ctc_loss": LayerExample(
        {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}},
        {"output": {"class": "ctc_loss", "logits": "data", "targets": "data:classes"}},
        lengths={"data": (6, 7), "classes": (1, 3)},
        notes="CTC loss per sequence of the label sequences under the scores (the blank the last class)."),
    "edit_distance_table": LayerExample(
        _DATA, _loop({"lin": {"class": "linear", "activation": None, "n_out": 4, "from": "data:source"},
                      "label": {"class": "reduce", "mode": "argmax", "axis": "F", "from": "lin"},
                      "output": {"class": "edit_distance_table", "from": "label",
                                 "target": "layer:base:data:classes"}}),
        grad=False,
        notes="Inside a ``rec`` unit: the row of the edit-distance table between the labels so far (``label`` "
              "of each step) and the whole target sequence, one column per target position plus one."),
    "optimal_completions": LayerExample(
        _DATA, _loop({"ocf": {"class": "eval", "from": "oc", "eval": "tf.cast(source(0), tf.float32)",
                              "out_type": {"dtype": "float32"}},
                      "lin": {"class": "linear", "activation": None, "n_out": 4, "from": ["prev:ocf", "data:source"]},
                      "label": {"class": "reduce", "mode": "argmax", "axis": "F", "from": "lin"},
                      "edt": {"class": "edit_distance_table", "from": "label", "target": "layer:base:data:classes"},
                      "oc": {"class": "optimal_completions", "from": "prev:edt", "target": "layer:base:data:classes"},
                      "output": {"class": "copy", "from": "oc"}}),
        grad=False,
        notes="Inside a ``rec`` unit: from the previous step's edit-distance row, the target labels (a {0,1} mask "
              "over the 4 classes) that keep the edit distance optimal (optimal completion distillation); here fed "
              "back into the next step's ``lin``."),
    "loss": LayerExample(
        _DATA, {"emb": _EMB, "probs": {"class": "linear", "activation": "softmax", "n_out": 4, "from": "emb"},
                "output": {"class": "loss", "from": "probs", "loss_": "ce", "target_": "classes"}},
        flags={"train_flag": True, "eval_flag": True},
        notes="The cross-entropy value per frame, as a layer output (not added to the objective)."),
    "sparse_softmax_cross_entropy_with_logits": LayerExample(
        _DATA, {"emb": _EMB, "logits": {"class": "linear", "activation": None, "n_out": 4, "from": "emb"},
                "output": {"class": "sparse_softmax_cross_entropy_with_logits", "logits": "logits",
                           "targets": "data:classes"}}),
    # ---- norm
    "batch_norm": LayerExample(
        _DATA, {"output": {"class": "batch_norm", "from": "data"}},
        notes="Batch statistics with the train flag, running averages otherwise."),
    "layer_norm": LayerExample(
        _DATA, {"output": {"class": "layer_norm", "from": "data"}}),
    # ---- recurrent
    "get_last_hidden_state": LayerExample(
        _DATA, {"lstm": {"class": "rec", "unit": "nativelstm2", "n_out": 4, "from": "data"},
                "output": {"class": "get_last_hidden_state", "from": "lstm", "n_out": 8}},
        notes="The final LSTM state ``[c, h]`` per sequence."),
    "masked_computation": LayerExample(
        _DATA, dict(_MASK, output={"class": "masked_computation", "mask": "m", "from": "data",
                                   "unit": {"class": "linear", "activation": "tanh", "n_out": 3}}),
        notes="The unit runs on the frames where the mask is true, packed on a new time axis."),
    "rec": LayerExample(
        _DATA, {"output": {"class": "rec", "unit": "nativelstm2", "n_out": 4, "from": "data"}},
        notes="An LSTM over time; ``unit`` can also be a dict of layers run per frame (see ``rnn_cell``)."),
    "rec_last_output": LayerExample(
        _DATA, {"rec": {"class": "rec", "from": "data", "unit": {
                    "s": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 3, "from": "data:source",
                          "need_last": True},
                    "output": {"class": "copy", "from": "s"}}},
                "output": {"class": "rec_last_output", "rec_layer": "rec", "sub_layer_name": "s"}},
        notes="The last frame of the unit's layer ``s`` per sequence (``s`` needs ``need_last``)."),
    "rec_unstack": LayerExample(
        _DATA, _loop({"x": {"class": "rec_unstack", "from": "base:data", "axis": "T"},
                      "output": {"class": "linear", "activation": "tanh", "n_out": 3, "from": ["x", "prev:output"]}}),
        notes="Inside a ``rec`` unit: the current frame of a whole sequence (here ``data``)."),
    "rnn_cell": LayerExample(
        _DATA, _loop({"s": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 4, "from": ["data:source"]},
                      "output": {"class": "copy", "from": "s"}}),
        notes="One LSTM step per frame inside a ``rec`` unit."),
    "twod_lstm": LayerExample(
        _DATA, {"output": {"class": "twod_lstm", "n_out": 4, "from": "data", "pooling": "max"}},
        raises="LayerArgError: TwoDLSTM",
        notes="Needs the reference's native ``TwoDLSTM`` op, which this project does not have: building it raises "
              "an error naming the op."),
    "unmask": LayerExample(
        _DATA, _loop({"r": {"class": "reduce", "mode": "max", "axis": "F", "from": "data:source"},
                      "m": {"class": "compare", "from": "r", "value": 0.5, "kind": "greater"},
                      "mc": {"class": "masked_computation", "mask": "m", "from": "data:source",
                             "unit": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 3}},
                      "output": {"class": "unmask", "from": "mc", "mask": "m"}}),
        notes="In a ``rec`` unit: the LSTM steps only on masked frames; ``unmask`` repeats its last output on the "
              "other frames."),
    # ---- reduce
    "accumulate_mean": LayerExample(
        _DATA, {"output": {"class": "accumulate_mean", "exp_average": 0.1, "from": "data"}}, grad=False,
        notes="The running mean of the input (a non-trainable variable updated in training): no gradient."),
    "reduce": LayerExample(
        _DATA, {"output": {"class": "reduce", "mode": "mean", "axes": "T", "from": "data"}},
        notes="Mean over the frames of each sequence (padding excluded)."),
    "reduce_out": LayerExample(
        {"data": {"dim": 6}}, {"output": {"class": "reduce_out", "mode": "max", "num_pieces": 2, "from": "data"}},
        notes="Maxout: the max over groups of 2 features (6 -> 3)."),
    # ---- search
    "choice_get_beam_scores": LayerExample(
        _SEARCH, {**_decoder(), "output": {"class": "choice_get_beam_scores", "from": "dec"}},
        flags=_SEARCH_FLAGS, grad=False,
        notes="The final scores ``{B*K}`` of the hypotheses of the searched ``dec`` (the decoder of the ``choice`` "
              "example); inside the unit, from the ``choice`` layer, the scores after each step."),
    "choice_get_src_beams": LayerExample(
        _SEARCH, {**_decoder(), "output": {"class": "choice_get_src_beams", "from": "dec"}},
        flags=_SEARCH_FLAGS, grad=False,
        notes="For each final hypothesis of ``dec``, the hypothesis of the previous step it extends."),
    "split_batch_beam": LayerExample(
        _SEARCH, {**_decoder(), "scores": {"class": "choice_get_beam_scores", "from": "dec"},
                  "output": {"class": "split_batch_beam", "from": "scores"}},
        flags=_SEARCH_FLAGS, grad=False,
        notes="The final scores ``{B*K}`` of the hypotheses of the searched ``dec`` as ``{B, K}`` (the beam as an "
              "axis of its own, no beam left)."),
    "decide_keep_beam": LayerExample(
        _SEARCH, _decoder(kept={"class": "decide_keep_beam", "from": "s"},
                          prob={"class": "softmax", "from": ["kept"], "target": "classes", "loss": "ce"}),
        flags=_SEARCH_FLAGS, grad=False,
        notes="In the decoder of the ``choice`` example: the state ``s`` as a beam of its own."),
    "choice": LayerExample(
        _SEARCH, _decoder(), flags=_SEARCH_FLAGS, grad=False,
        notes="Beam search (beam 3) in a decoder ``rec`` unit; ``decide`` takes the best hypothesis."),
    "decide": LayerExample(
        _SEARCH, _decoder(), flags=_SEARCH_FLAGS, grad=False,
        notes="The best hypothesis of the beam of ``dec`` (the decoder of the ``choice`` example)."),
    # ---- shape
    "combine_dims": LayerExample(
        _IMG, {"output": {"class": "combine_dims", "axes": ["dim:3", "F"], "from": "data"}},
        notes="The older name of ``merge_dims``."),
    "concat": LayerExample(
        _DATA, {"lin": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "data"},
                "output": {"class": "concat", "from": [("data", "F"), ("lin", "F")]}},
        notes="Two sources concatenated along their feature axes (``from`` pairs of layer and axis; the other dims "
              "must match): a new feature dim of 5+3 = 8."),
    "expand_dims": LayerExample(
        _DATA, {"output": {"class": "expand_dims", "axis": "F", "from": "data"}}),
    "flatten_batch": LayerExample(
        _DATA, {"output": {"class": "flatten_batch", "from": "data"}},
        notes="The frames of all sequences packed into one batch axis ``B&T``."),
    "gather": LayerExample(
        _DATA, {"output": {"class": "gather", "from": "data", "axis": "F", "position": 2}}),
    "merge_dims": LayerExample(
        _IMG, {"output": {"class": "merge_dims", "axes": ["dim:3", "F"], "from": "data"}},
        notes="Two static axes merged into one feature axis (3*2)."),
    "pad": LayerExample(
        _DATA, {"output": {"class": "pad", "axes": "T", "padding": (1, 2), "from": "data"}}),
    "postfix_in_time": LayerExample(
        _DATA, {"output": {"class": "postfix_in_time", "postfix": 0.0, "repeat": 2, "from": "data"}}),
    "prefix_in_time": LayerExample(
        _DATA, {"output": {"class": "prefix_in_time", "prefix": 0.0, "repeat": 2, "from": "data"}}),
    "reinterpret_data": LayerExample(
        _DATA, {"output": {"class": "reinterpret_data", "enforce_time_major": True, "from": "data"}}),
    "shift_axis": LayerExample(
        _DATA, {"output": {"class": "shift_axis", "axis": "T", "amount": 1, "pad_value": 0.5, "from": "data"}}),
    "slice": LayerExample(
        _DATA, {"output": {"class": "slice", "axis": "T", "slice_start": 1, "slice_step": 2, "from": "data"}}),
    "unflatten_nd": LayerExample(
        _DATA, {"len": {"class": "length", "from": "data"},
                "sizes": {"class": "eval", "from": "len", "eval": "tf.concat([tf.reshape(source(0), [-1, 1])] * 2, 1) ** [1, 0]",
                          "out_type": {"shape": (2,), "dtype": "int32", "time_dim_axis": None}},
                "output": {"class": "unflatten_nd", "from": "data", "sizes": "sizes", "num_axes": 2}},
        notes="The time axis ``T`` split into two axes by per-sequence sizes ``{B, 2}``, here ``(T_b, 1)``: "
              "``{B, T0, T1, F}``."),
    "split_batch_time": LayerExample(
        {"data": {"shape": (4, 5), "time_dim_axis": 1}},
        {"flat": {"class": "flatten_batch", "from": "data"},
         "lin": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "flat"},
         "output": {"class": "split_batch_time", "base": "data", "from": "lin"}},
        notes="Splits a ``{B*T, ...}`` batch axis into ``{B, T}`` (``T`` and the lengths of ``base``); here the time "
              "axis is static (4 frames), so ``flatten_batch`` gives ``B*T`` entries."),
    "split_dims": LayerExample(
        {"data": {"dim": 6}}, {"output": {"class": "split_dims", "axis": "F", "dims": (2, 3), "from": "data"}}),
    "squeeze": LayerExample(
        _DATA, {"ex": {"class": "expand_dims", "axis": "spatial", "from": "data"},
                "output": {"class": "squeeze", "axis": "dim:1", "from": "ex"}}),
    "swap_axes": LayerExample(
        _IMG, {"output": {"class": "swap_axes", "axis1": "dim:3", "axis2": "F", "from": "data"}}),
    "time_chunking": LayerExample(
        _DATA, {"output": {"class": "time_chunking", "chunk_size": 3, "chunk_step": 2, "from": "data"}},
        batch_changes=True,
        notes="Overlapping chunks of 3 frames (step 2), each chunk a sequence of the batch: the output's batch axis "
              "has ``B*C`` entries, while its template (as the reference's) still names the batch dim ``B``."),
    "time_unchunking": LayerExample(
        _DATA, {"c": {"class": "time_chunking", "chunk_size": 3, "chunk_step": 2, "from": "data"},
                "lin": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "c"},
                "output": {"class": "time_unchunking", "chunking_layer": "c", "from": "lin"}},
        notes="Undoes ``time_chunking`` (overlapping frames averaged)."),
    "transpose": LayerExample(
        _DATA, {"output": {"class": "transpose", "perm": {"T": "F", "F": "T"}, "from": "data"}}),
    "unflatten_batch": LayerExample(
        _DATA, {"flat": {"class": "flatten_batch", "from": "data"},
                "lin": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "flat"},
                "output": {"class": "unflatten_batch", "from": "lin"}},
        notes="Undoes ``flatten_batch`` (the lengths are taken from the flattened input)."),
    "fold": LayerExample(
        _DATA, {"w": {"class": "window", "window_size": 3, "from": "data"},
                "output": {"class": "fold", "mode": "mean", "in_spatial_dim": "T", "window_dim": "stag:w:window",
                           "from": "w"}},
        notes="Undoes ``window``: the overlapping windows averaged back into frames (the input again)."),
    "window": LayerExample(
        _DATA, {"output": {"class": "window", "window_size": 3, "from": "data"}},
        notes="Per frame the 3 frames around it (a new axis)."),
    # ---- alignment
    "fast_bw": LayerExample(
        _DATA, {"logp": {"class": "linear", "activation": "log_softmax", "n_out": 5, "from": "data"},
                "output": {"class": "fast_bw", "from": "logp", "align_target": "ctc", "align_target_key": "classes"}},
        lengths={"data": (7, 7), "classes": (1, 3)}, grad=False,
        notes="Baum-Welch posteriors ``{B, T, 5}`` of the CTC topology of the labels of ``classes`` (4 labels, the "
              "blank last) given the frame log-probabilities; soft targets, so no gradient flows back."),
    "forced_align": LayerExample(
        _DATA, {"logp": {"class": "linear", "activation": "log_softmax", "n_out": 5, "from": "data"},
                "output": {"class": "forced_align", "from": "logp", "align_target": "data:classes",
                           "topology": "ctc", "input_type": "log_prob"}},
        lengths={"data": (7, 7), "classes": (1, 3)}, grad=False,
        notes="The best CTC path of the labels of ``classes`` through the frames: one label (or blank) per frame."),
    # ---- inputs
    "global_train_step": LayerExample(
        _DATA, {"output": {"class": "global_train_step"}}, grad=False,
        notes="The ``global_step`` variable (int64 scalar)."),
    "range": LayerExample(
        _DATA, {"output": {"class": "range", "limit": 5, "start": 1, "delta": 2}}, grad=False,
        notes="``[1, 3]``: no batch axis."),
    "range_from_length": LayerExample(
        _DATA, {"len": {"class": "length", "from": "data"},
                "output": {"class": "range_from_length", "from": "len"}}, grad=False,
        notes="``0 .. max(length)-1`` on the time axis of ``data`` (whose lengths ``len`` holds)."),
    "range_in_axis": LayerExample(
        _DATA, {"output": {"class": "range_in_axis", "from": "data", "axis": "T"}}, grad=False,
        notes="The frame positions ``{T}`` of ``data``."),
    "train_flag": LayerExample(
        _DATA, {"output": {"class": "train_flag"}}, grad=False,
        notes="True in training, False otherwise (a bool scalar)."),
    # ---- indexing
    "top_k": LayerExample(
        _DATA, {"top": {"class": "top_k", "axis": "F", "k": 2, "from": "data"},
                "output": {"class": "combine", "kind": "add", "from": ["top", "top/indices"],
                           "out_type": {"dtype": "float32"}}},
        notes="The 2 largest features per frame; ``top/indices`` has their positions (sparse, the feature dim)."),
    "search_sorted": LayerExample(
        _DATA, {"abs": {"class": "eval", "from": "data", "eval": "tf.abs(source(0))"},
                "sorted": {"class": "cumsum", "axis": "T", "from": "abs"},
                "value": {"class": "reduce", "mode": "sum", "axes": "T", "from": "abs"},
                "output": {"class": "search_sorted", "sorted_sequence": "sorted", "values": "value", "axis": "T"}},
        grad=False,
        notes="Per sequence and feature, where the value would be inserted into the (non-decreasing) cumulative "
              "sums along time: int32 positions, no gradient."),
    # ---- norm
    "math_norm": LayerExample(
        _DATA, {"output": {"class": "math_norm", "p": 2, "axis": "F", "from": "data"}},
        notes="The L2 norm of each frame."),
    "norm": LayerExample(
        _DATA, {"output": {"class": "norm", "axis": "F", "from": "data"}},
        notes="Normalization over the features with a learned scale and bias (as ``layer_norm``, other params)."),
    # ---- reduce
    "cumsum": LayerExample(
        _DATA, {"output": {"class": "cumsum", "axis": "T", "from": "data"}}),
    # ---- shape
    "repeat": LayerExample(
        _DATA, {"output": {"class": "repeat", "repetitions": 2, "axis": "T", "from": "data"}},
        notes="Every frame twice: lengths doubled."),
    "resize": LayerExample(
        _DATA, {"output": {"class": "resize", "factor": 2, "axis": "T", "kind": "linear", "from": "data"}},
        notes="Linear interpolation to twice the frames."),
    "seq_len_mask": LayerExample(
        _DATA, {"output": {"class": "seq_len_mask", "mask_value": 0.0, "axis": "T", "from": "data"}},
        notes="The padded frames set to 0."),
    "split": LayerExample(
        _DATA, {"split": {"class": "split", "axis": "F", "size_splits": (2, 3), "from": "data"},
                "output": {"class": "combine", "kind": "add", "from": ["split/1", "split/1"]}},
        notes="The features split into parts of 2 and 3, the sub layers ``split/0`` and ``split/1``."),
    "stack": LayerExample(
        _DATA, {"act": {"class": "activation", "activation": "tanh", "from": "data"},
                "output": {"class": "stack", "from": ["data", "act"]}},
        notes="A new axis of size 2 (before the feature axis) holding both inputs, which must have the same dims."),
    "tile": LayerExample(
        _DATA, {"output": {"class": "tile", "multiples": {"F": 2}, "from": "data"}},
        notes="The features twice (``5 -> 10``); dynamic axes cannot be tiled."),
    # ---- signal
    "dct": LayerExample(
        _DATA, {"output": {"class": "dct", "type": 2, "from": "data"}},
        notes="DCT-II over the features (e.g. MFCCs from log mel features)."),
    "mel_filterbank": LayerExample(
        {"data": {"dim": 9}},
        {"power": {"class": "eval", "from": "data", "eval": "tf.square(source(0))"},
         "output": {"class": "mel_filterbank", "fft_size": 16, "nr_of_filters": 4, "n_out": 4,
                    "sampling_rate": 16000, "from": "power"}},
        notes="4 mel bands from a power spectrum of ``16 // 2 + 1 = 9`` FFT bins."),
    "stft": LayerExample(
        {"data": {"dim": 1}},
        {"stft": {"class": "stft", "frame_shift": 4, "frame_size": 8, "fft_size": 8, "from": "data"},
         "output": {"class": "eval", "from": "stft", "eval": "tf.abs(source(0))", "out_type": {"dtype": "float32"}}},
        lengths={"data": (8, 20)},
        notes="Frames of 8 samples every 4 samples, 5 complex FFT bins each; ``output`` is their magnitude."),
    "istft": LayerExample(
        {"data": {"dim": 1}},
        {"stft": {"class": "stft", "frame_shift": 4, "frame_size": 8, "from": "data"},
         "output": {"class": "istft", "frame_shift": 4, "frame_size": 8, "from": "stft"}},
        lengths={"data": (8, 20)},
        notes="Back from 5 complex FFT bins per frame to samples: the input again, except near its ends (and "
              "the samples after the last complete frame)."),
    "multichannel_stft_layer": LayerExample(
        {"data": {"dim": 2}},
        {"stft": {"class": "multichannel_stft_layer", "frame_shift": 2, "frame_size": 4, "fft_size": 4,
                  "nr_of_channels": 2, "from": "data"},
         "output": {"class": "eval", "from": "stft", "eval": "tf.abs(source(0))", "out_type": {"dtype": "float32"}}},
        lengths={"data": (4, 12)},
        notes="Both channels framed (4 samples every 2), ``3`` FFT bins each, concatenated to 6 complex features; "
              "``output`` is their magnitude."),
    "multichannel_multiresolution_stft_layer": LayerExample(
        {"data": {"dim": 2}},
        {"stft": {"class": "multichannel_multiresolution_stft_layer", "frame_shift": 2, "frame_sizes": [4, 6],
                  "fft_sizes": [4, 8], "nr_of_channels": 2, "from": "data"},
         "output": {"class": "eval", "from": "stft", "eval": "tf.abs(source(0))", "out_type": {"dtype": "float32"}}},
        lengths={"data": (6, 12)},
        notes="Both channels framed at two resolutions (4 and 6 samples every 2; as many frames as the first "
              "gives), ``3`` and ``5`` FFT bins per channel, concatenated to 16 complex features; ``output`` is "
              "their magnitude."),
    "complex_linear_projection": LayerExample(
        {"data": {"dim": 6}},
        {"output": {"class": "complex_linear_projection", "nr_of_filters": 4, "from": "data"}},
        notes="3 complex values per frame (real and imaginary parts interleaved) through a complex 3x4 matrix; "
              "the log magnitude of the 4 results."),
    # ---- utility
    "identity": LayerExample(
        _DATA, {"lin": {"class": "linear", "activation": None, "n_out": 2, "from": "data"},
                "output": {"class": "identity", "from": "data", "control_dependencies": ["lin"]}},
        notes="The input, computed after ``lin``."),
    "kenlm": LayerExample(
        {"data": {"dim": 10, "sparse": True}},
        {"output": {"class": "kenlm", "lm_file": "lm.arpa", "from": "data"}},
        raises="LayerArgError: KenLM",
        notes="Needs the reference's KenLM native op, which this project does not have: building it raises an error "
              "naming what is missing."),
    "scaled_grad": LayerExample(
        _DATA, {"output": {"class": "scaled_grad", "scale": -1.0, "from": "data"}},
        notes="Gradient reversal: identity forward, the gradient negated."),
    "synthetic_gradient": LayerExample(
        _DATA, {"predict_grad": {"class": "linear", "activation": None, "n_out": 5, "from": "data"},
                "output": {"class": "synthetic_gradient", "gradient": "predict_grad", "from": "data"}},
        notes="Identity forward; backward, ``data`` receives the prediction of ``predict_grad``, which the "
              "updater trains towards the true gradient (a meta loss)."),
    "tikhonov_regularization": LayerExample(
        _DATA, {"reg": {"class": "tikhonov_regularization", "meta_loss_scale": 0.1, "from": "data"},
                "output": {"class": "linear", "activation": "tanh", "n_out": 2, "from": "reg"}},
        notes="A copy of ``data``; in training, the updater also minimizes ``0.1`` times the squared norm of the "
              "gradient w.r.t. it (a meta loss)."),
    "print": LayerExample(
        _DATA, {"lin": {"class": "linear", "activation": None, "n_out": 2, "from": "data"},
                "output": {"class": "print", "from": "lin", "summarize": 4}},
        notes="Passes its input through and prints the value (to the log) each time it is computed."),
    "hdf_dump": LayerExample(
        _DATA, {"lin": {"class": "linear", "activation": None, "n_out": 2, "from": "data"},
                "output": {"class": "hdf_dump", "filename": "dump.hdf", "from": "lin"}},
        notes="Passes its input through and writes each computed batch into ``dump.hdf`` (relative to the "
              "working directory), readable by ``HDFDataset``."),
    # ---- variables
    "variable": LayerExample(
        _DATA, {"var": {"class": "variable", "shape": [5], "init": "glorot_uniform"},
                "output": {"class": "combine", "kind": "mul", "from": ["data", "var"]}},
        notes="A trainable ``[F]`` parameter, here multiplied with the input."),
}


#: every example (name -> :class:`LayerExample`), e.g. for the documentation; to build one, take a fresh copy from
#: :func:`get_layer_example` (its ``Dim`` objects are new)
LAYER_EXAMPLES: Dict[str, LayerExample] = _examples()


def get_layer_example(name: str) -> LayerExample:
    """:return: the example of layer class ``name``, with new ``Dim`` objects
    :raises KeyError: no example for ``name``
    """
    return _examples()[name]
