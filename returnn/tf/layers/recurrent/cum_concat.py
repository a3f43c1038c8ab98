"""``{"class": "cum_concat", "from": "x", "out_spatial_dim": hist}``: inside a rec loop, all frames of ``x`` so far
(the reference's CumConcatLayer; values observed from it).

Shape: frame ``{B, ...}`` -> ``{B, out_spatial_dim, ...}`` where ``out_spatial_dim`` has length ``i + 1`` at step
``i`` (frames 0..i, oldest first). Typical use: the keys/values of a self-attention decoder step.

The history is a loop state: a buffer ``{B, max_len, ...}`` (``max_len``: the loop's maximal length) in which
step i writes frame i; in a beam search it follows the hypotheses.

Moved out of the loop (training), as the reference: the input over the whole sequence ``{T, B, ...}`` with the loop's
dim ``T`` replaced by ``out_spatial_dim``, ``{out_spatial_dim, B, ...}``, whose lengths are per loop frame: ``i + 1``
for frame ``i`` (lengths ``{T}``). This stands for ``{T, out_spatial_dim, B, ...}`` without building it: a layer
that combines it with the loop's frames (e.g. ``dot`` with the queries ``{T, B, K}``) gets both axes, and a
softmax over ``out_spatial_dim`` masks the frames after ``i`` for frame ``i``. Outside a rec layer it raises
:class:`returnn.errors.LayerArgError`, as the reference fails too.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template

_STATE = "history"


@register_layer
class CumConcatLayer(LayerBase):
    """See the module docstring.

    :param out_spatial_dim: the new axis of the history (required, as in the reference)
    :param axis: accepted (the reference uses it outside the loop); unused
    :raises LayerArgError: no ``out_spatial_dim``; used outside a rec loop; a loop without a maximal length
    """

    layer_class = "cum_concat"
    recurrent = True
    has_rec_state = True
    can_run_over_time = True  # moved out: see the module docstring

    def __init__(self, out_spatial_dim: Optional[Dim] = None, axis: Any = None,
                 rec_previous_state: Optional[Dict[str, tf.Tensor]] = None, _in_frame: Any = None, **kwargs: Any):
        """
        :param rec_previous_state: set by the rec loop, not in a config: this layer's state from the previous step
        """
        super().__init__(**kwargs)
        frame = concat_sources_template(self.sources, name=f"{self.name}/data", layer_class=self.layer_class)
        frame.placeholder = concat_sources(self.sources, frame)
        loop_dim = _moved_out_loop_dim(self.network, frame)
        if rec_previous_state is None and loop_dim is not None:
            self._over_loop(frame, loop_dim, out_spatial_dim)
            return
        x = frame.copy_as_batch_major().placeholder  # [B, ...]
        if rec_previous_state is None:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="from",
                                problem="cum_concat must be used inside a rec layer's loop:", got="(no loop state)")
        buffer = rec_previous_state[_STATE]  # [B, max_len, ...]
        i = self.network.get_rec_step_index()
        max_len = tf.shape(buffer)[1]
        at_i = tf.reshape(tf.equal(tf.range(max_len), i), tf.concat([[1, max_len], tf.ones([tf.rank(x) - 1],
                                                                                             tf.int32)], 0))
        buffer = tf.where(at_i, tf.expand_dims(x, 1), buffer)
        self.rec_state = {_STATE: buffer}
        out_dim = self.output.dims[1]
        out_dim.dyn_size = tf.fill(tf.shape(x)[:1], i + 1)
        self.output.placeholder = buffer[:, :i + 1]

    def _over_loop(self, full: Tensor, loop_dim: Dim, out_spatial_dim: Dim) -> None:
        """Moved out of the loop: the input with the loop's dim as ``out_spatial_dim``, whose lengths are
        ``1, 2, ..., T`` over the loop's frames (see the module docstring)."""
        axis = full.dims.index(loop_dim)
        n_steps = tf.shape(full.placeholder)[axis]
        out_spatial_dim.dyn_size_ext = Tensor(name=f"{self.name}:lengths", dims=[loop_dim], dtype="int32",
                                              placeholder=tf.range(1, n_steps + 1))
        self.output.placeholder = full.placeholder

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Also keeps the input frame template (``_in_frame``) for :meth:`get_rec_initial_state`."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        d["_in_frame"] = concat_sources_template(d["sources"], name=f"{d['name']}/data", layer_class=cls.layer_class)

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), out_spatial_dim: Any = None,
                               **kwargs: Any) -> Tensor:
        """:return: the input frame with ``out_spatial_dim`` after the batch axis"""
        if out_spatial_dim is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="out_spatial_dim",
                                problem="missing required argument",
                                hint='e.g. "out_spatial_dim": SpatialDim("history") (a Dim from returnn.tf.util.data)')
        if not isinstance(out_spatial_dim, Dim):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="out_spatial_dim",
                                problem="invalid value", got=out_spatial_dim, expected="a Dim")
        frame = concat_sources_template(sources, name=f"{name}/data", layer_class=cls.layer_class)
        loop_dim = _moved_out_loop_dim(network, frame)
        if loop_dim is not None:  # moved out of the loop: see the module docstring
            out = frame.copy_template_replace_dim_tag(frame.dims.index(loop_dim), out_spatial_dim)
            return out.copy_template(name=f"{name}_output")
        if not network.is_inside_rec_layer():
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                problem="cum_concat must be used inside a rec layer's loop, not in", got=repr(network))
        if frame.time_dim_axis is not None or frame.batch_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="expects one frame {B, ...} inside the loop", got=frame.get_dims_repr())
        frame = frame.copy_as_batch_major()
        out = frame.copy_add_dim(1, out_spatial_dim, as_time=True)
        return out.copy_template(name=f"{name}_output")

    @classmethod
    def get_rec_initial_state(cls, batch_size: tf.Tensor, *, name: str, rec_max_len: Any = None,
                              _in_frame: Any = None, **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """:return: the empty history buffer ``{B, max_len, ...}`` (zeros)
        :raises LayerArgError: a loop without a maximal length
        :raises LayerShapeError: a frame with a dynamic axis besides the batch"""
        if rec_max_len is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                problem="cum_concat needs a loop with a maximal length (the input's time axis or "
                                        "max_seq_len):", got=None, hint="set max_seq_len of the rec layer")
        frame = _in_frame.copy_as_batch_major()
        shape = [batch_size, rec_max_len] + [d.dimension for d in frame.dims[1:]]
        if any(s is None for s in shape):
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="the input frame needs static dims besides the batch",
                                  got=frame.get_dims_repr())
        return {_STATE: tf.zeros(tf.stack(shape), dtype=frame.dtype)}


def _moved_out_loop_dim(network: Any, frame: Tensor) -> Optional[Dim]:
    """:return: the loop's dim if ``network`` holds the layers a rec unit moved out of its loop and the input has that
        dim, else None"""
    if not getattr(network, "rec_moved_out_of_loop", False):
        return None
    loop_dim = network.get_inside_rec_time_dim(inside_loop=False)
    return loop_dim if loop_dim is not None and loop_dim in frame.dims else None
