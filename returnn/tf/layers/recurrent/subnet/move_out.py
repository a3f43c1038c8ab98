"""Layers of a rec unit computed over the whole sequence outside the loop (training with
``optimize_move_layers_out``), and the full-sequence views the loop and the losses use.

A full-sequence value of sub layer ``X`` is a Tensor with the loop's time axis (time-major when it comes from
the loop's accumulation). ``prev:X`` over the whole sequence is ``X`` shifted right by one frame on the time
axis, with ``X``'s initial output in frame 0.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.recurrent.subnet.initial import initial_output_value
from returnn.tf.layers.recurrent.subnet.template import STEP_INDEX
try:
    from returnn.tf.layers.core.internal import InternalLayer
except ImportError:  # older layout
    from returnn.tf.layers.source_layers_compat import InternalLayer


def fixed_loop_length(cell: Any, full_source: Any, batch_size: Any = None) -> Tuple[tf.Tensor, tf.Tensor]:
    """For a loop over a known time dim (``cell.time_dim``): the rec layer's input, a ``rec_unstack`` with
    ``declare_rec_time`` or the rec layer's ``axis``, or the target.

    :param full_source: the rec layer's input as a time-major layer, or None
    :param batch_size: int32 scalar, to broadcast the length of a dim whose length is one scalar (not per sequence)
    :return: (the number of steps, int32 scalar: the padded length; the sequence lengths, int32 ``[B]``)
    """
    if full_source is not None:
        return tf.shape(full_source.output.placeholder)[0], full_source.output.get_sequence_lengths()
    if getattr(cell, "declared_time_dim", None) is not None:  # rec_unstack with declare_rec_time, or "axis"
        dim = cell.declared_time_dim
        if dim.dimension is not None:
            seq_lens = tf.constant(dim.dimension, tf.int32)
        else:
            seq_lens = dim.dyn_size
        if seq_lens.shape.rank == 0 and batch_size is not None:  # the same length for all sequences
            seq_lens = tf.fill([batch_size], seq_lens)
        return tf.reduce_max(seq_lens), seq_lens
    key = cell.size_target or cell.target
    data = cell.parent_net.get_extern_data(key)
    return tf.shape(data.placeholder)[data.time_dim_axis], data.get_sequence_lengths()


def make_internal(name: str, network: Any, output: Tensor, **kwargs: Any) -> InternalLayer:
    """:return: a layer with the given output (raw tensor set), registered nowhere"""
    return InternalLayer(name=name, network=network, output=output, **kwargs)


def time_major_with_raw(template: Tensor, raw: tf.Tensor, time_dim: Any, name: str) -> Tensor:
    """:return: ``{T, *frame dims}`` Tensor for a stacked ``[T, ...]`` raw of per-frame ``template`` values"""
    out = Tensor(name=name, dims=[time_dim, *template.dims], dtype=template.dtype, sparse_dim=template.sparse_dim,
                 time_dim_axis=0,
                 feature_dim_axis=None if template.feature_dim_axis is None else template.feature_dim_axis + 1)
    out.placeholder = raw
    return out


def frame_at(full: Tensor, index: tf.Tensor, name: str, time_dim: Any = None) -> Tensor:
    """:return: frame ``index`` of ``full`` along ``time_dim`` (the loop's dim) if it has it, else along its time axis
        (that axis removed)"""
    axis = full.dims.index(time_dim) if time_dim is not None and time_dim in full.dims else full.time_dim_axis
    if axis is None:
        full.copy_template_excluding_time_dim()  # raises: no time axis
    out = full.copy_template_excluding_axis(axis).copy_template(name=name)
    out.placeholder = tf.gather(full.placeholder, index, axis=axis)
    return out


def loop_major(full: Tensor, time_dim: Any = None) -> Tensor:
    """:return: ``full`` with ``time_dim`` (the loop's dim) first if it has it, else time-major"""
    if time_dim is not None and time_dim in full.dims:
        return full.copy_move_axis(full.dims.index(time_dim), 0)
    return full.copy_as_time_major()


def shifted(full: Tensor, initial_raw: tf.Tensor, name: str, time_dim: Any = None) -> Tensor:
    """:return: ``full`` shifted right by one frame on its time axis (``time_dim`` if given and in ``full``),
        ``initial_raw`` (frame dims) in frame 0"""
    tm = loop_major(full, time_dim)
    raw = tf.concat([tf.expand_dims(tf.cast(initial_raw, tm.placeholder.dtype), 0), tm.placeholder[:-1]], axis=0)
    out = tm.copy_template(name=name)
    out.placeholder = raw
    return out


class OutsideNet:
    """Builds sub layers over the whole sequence (moved out of the loop).

    :param cell: the SubnetworkRecCell
    :param net: a TFNetwork for these layers (``parent_net`` = the rec layer's network)
    :param full_source: the rec layer's input (with time axis) as a layer, or None
    :param batch_size: int32 scalar
    """

    def __init__(self, cell: Any, net: Any, full_source: Any, batch_size: tf.Tensor):
        self.cell = cell
        self.net = net
        net.rec_moved_out_of_loop = True  # layers see whole sequences here (masked_computation, unmask)
        self.full_source = full_source
        self.batch_size = batch_size
        self.accumulated: Dict[str, Any] = {}  # loop layers' accumulated outputs, as layers
        # the unit's layer dicts; an out_shape (given per frame) also has the loop's time dim here, as the reference
        loop_dim = cell.time_dim if cell.time_dim is not None else getattr(cell, "time_dim_out", None)
        self.unit = {name: _over_loop_axis(_moved_out_desc(desc, loop_dim), loop_dim)
                     for name, desc in cell.unit.items()}
        self._shifted: Dict[str, Any] = {}
        #: set where the loop's batch has a beam the layers outside lack (a target of hypotheses): name -> the base
        #: layer tiled into it
        self.tiled_base: Any = None

    def get_layer(self, src: str) -> Any:
        cell = self.cell
        if src in self.net.layers:
            return self.net.layers[src]
        if src.startswith("base:"):
            return cell.get_base_layer(src) if self.tiled_base is None else self.tiled_base(src[len("base:"):])
        if src in ("data", "data:source"):
            return self.full_source
        if src == STEP_INDEX:  # over the whole sequence: the step of each frame, {T} (no batch axis)
            if src not in self.net.layers:
                n_steps, _ = fixed_loop_length(cell, self.full_source, self.batch_size)
                out = Tensor(name=STEP_INDEX, dims=[cell.time_dim], dtype="int32", time_dim_axis=0,
                             batch_dim_axis=None)
                out.placeholder = tf.range(n_steps)
                self.net.layers[src] = make_internal(src, self.net, out)
            return self.net.layers[src]
        if src.startswith("prev:"):
            return self.get_shifted(src[len("prev:"):])
        if src.startswith("data:") and src not in cell.unit:
            return cell.parent_net.get_layer(src)
        if src in self.accumulated:
            return self.accumulated[src]
        if src not in cell.unit and "/" in src and src.split("/", 1)[0] in cell.unit:  # "x/y": sub layer of x
            base, rest = src.split("/", 1)
            sub = self.get_layer(base).get_sub_layer(rest)
            if sub is not None:
                return sub
        return self.net.construct_layer(self.unit, src, get_layer=self.get_layer)

    def get_full(self, name: str) -> Any:
        """:return: the full-sequence layer of sub layer ``name`` (constructing it if needed)"""
        return self.get_layer(name)

    def get_shifted(self, name: str) -> Any:
        if name not in self._shifted:
            full = self.get_full(name).output
            frame = self.cell.layers[name].output
            init = initial_output_value(self.cell.unit[name].get("initial_output"), frame, self.batch_size,
                                        self.cell.get_base_layer, var_scope_name=name)
            self._shifted[name] = make_internal(f"prev:{name}", self.net,
                                                shifted(full, init, f"prev:{name}", self.cell.time_dim))
        return self._shifted[name]


_BROADCASTING_CLASSES = ("eval", "combine", "compare")


def _moved_out_desc(desc: Any, time_dim: Any) -> Any:
    """:return: the layer dict ``desc`` of the unit for its layer moved out of the loop: with the loop's time dim in
        its ``out_shape`` (:func:`with_time_in_out_shape`); an ``eval``/``combine``/``compare`` may broadcast all its
        sources (as the reference, observed: ``[":i", "const"]`` (``[T]`` and ``[B]`` moved out) gives ``[B, T]``, as
        in the loop ``[]`` and ``[B]`` give ``[B]``)"""
    desc = with_time_in_out_shape(desc, time_dim)
    if isinstance(desc, dict) and desc.get("class") in _BROADCASTING_CLASSES \
            and desc.get("allow_broadcast_all_sources") is None:
        desc = {**desc, "allow_broadcast_all_sources": True}
    return desc


def _over_loop_axis(desc: Any, time_dim: Any) -> Any:
    """:return: ``desc`` of a ``rec`` layer (string unit) with ``"axis": single_step_dim`` (one step per loop step)
        with the loop's dim instead (moved out: the same steps over the whole sequence), or ``desc``"""
    from returnn.tensor import single_step_dim
    if (time_dim is None or not isinstance(desc, dict) or desc.get("class") != "rec"
            or desc.get("axis") is not single_step_dim):
        return desc
    return {**desc, "axis": time_dim}


def with_time_in_out_shape(desc: Any, time_dim: Any) -> Any:
    """:return: ``desc`` with ``time_dim`` added to its ``out_shape`` (a set of dims; ``{}``: none) and the dims of
        its lengths (e.g. the batch; a scalar per frame over time implies them), all as optional dims (a layer that
        does not depend on the loop, e.g. a reduce of a layer outside, has no time axis moved out either), or
        ``desc``"""
    if time_dim is None or not isinstance(desc, dict):
        return desc
    out_shape = desc.get("out_shape")
    if isinstance(out_shape, dict) and not out_shape:  # "out_shape": {} (a scalar per frame)
        out_shape = set()
    if not isinstance(out_shape, (set, frozenset)) or time_dim in out_shape:
        return desc
    from returnn.tensor.marked_dim import OptionalDim
    covered = {getattr(d, "tag", d) for d in out_shape}
    size_dims = time_dim.dyn_size_ext.dims if time_dim.dyn_size_ext is not None else ()
    implied = {OptionalDim(d) for d in size_dims if d not in covered}
    return {**desc, "out_shape": type(out_shape)(out_shape | {OptionalDim(time_dim)} | implied)}


def register_losses(cell: Any, rec_layer: Any, full_layers: Dict[str, Any],
                    make_proxy: Callable[[str, Any], Any]) -> None:
    """Registers every sub layer with a loss in the rec layer's network as ``"<rec>/<name>"``, so its loss is a
    ``LossHolder`` named like that and summed over frames as outside a loop (in a search: over the frames of all
    final hypotheses, see ``SubnetworkRecCell.search_reports_loss``).

    :param make_proxy: ``(name, full layer) -> layer`` holding the loss (the full layer itself where it can)"""
    for name, tmpl in cell.layers.items():
        if not tmpl.loss or name in cell.unused or (cell.search and not cell.search_reports_loss(name)):
            continue
        layer = full_layers.get(name)
        if layer is None:
            continue
        layer = make_proxy(name, layer)
        rec_layer.network.layers[f"{rec_layer.name}/{name}"] = layer
