"""``Loss``: base of the ``"loss": "<name>"`` classes; values are SUMMED over frames (times nothing else).

A loss is created in :meth:`LayerBase.transform_config_dict` from ``loss`` + ``loss_opts`` and initialised by
the network with the layer output and the target (:meth:`Loss.init`). The reference's convention, which the
engine's ``score``/``error`` reporting relies on:

- :meth:`get_value`: the loss summed over all target frames of the batch (scalar float32)
- :meth:`get_error`: the number of wrong frames/labels, summed (scalar float32), or None
- :meth:`get_num_frames`: the number of target frames (or labels, for sequence losses like ``ctc``)
- ``score = sum(value) / sum(num_frames)`` over a dataset; ``error`` likewise.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import tensorflow as tf

from returnn.tensor import Tensor


class Loss:
    """Base class. Subclasses set ``class_name`` and implement :meth:`get_value` (and :meth:`get_error`).

    :param base_network: the network
    :param use_normalized_loss: if True, the objective uses ``value / num_frames`` instead of the sum
    :param custom_inv_norm_factor: a layer (name in ``loss_opts``): the sum of its output is the number of frames
    :param scale: extra factor (on top of the layer's ``loss_scale``)
    :param as_error: report the value as the loss's error instead of a score (not trained), as the reference
    """

    class_name: Optional[str] = None
    need_target = True
    recurrent = False  # True: normalised by target labels (sequence losses), not output frames

    def __init__(self, base_network: Any, use_flatten_frames: bool = True, use_normalized_loss: bool = False,
                 custom_norm_factor: Any = None, custom_inv_norm_factor: Any = None, scale: float = 1.0,
                 as_error: bool = False, _check_output_before_softmax: Any = None):
        self.base_network = base_network
        #: a layer: the sum of its output is the number of frames (the normalization of score/error), as the
        #: reference's ``custom_inv_norm_factor`` (e.g. a ``length`` layer of the target)
        self.custom_inv_norm_factor = custom_inv_norm_factor
        #: the value is reported as this loss's error (``error:<name>``), not as a score, and is not trained
        self.as_error = bool(as_error)
        self.use_flatten_frames = use_flatten_frames
        self.use_normalized_loss = use_normalized_loss
        self.scale = scale
        self.output: Optional[Tensor] = None
        self.output_with_activation: Any = None
        self.target: Optional[Tensor] = None
        self.layer: Any = None
        self._num_frames: Any = None
        self._flat: Optional[Tuple[Optional[tf.Tensor], tf.Tensor]] = None  # get_output_logits_flat
        self._positions: List[Tuple[tf.Tensor, tf.Tensor]] = []
        self._target_flat: Optional[tf.Tensor] = None  # get_target_flat

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.layer!r}>"

    def get_auto_output_layer_dim_extra(self) -> int:
        """:return: classes the output has in addition to the target's (CTC: 1 for blank)"""
        return 0

    def init(self, output: Tensor, output_with_activation: Any = None, target: Optional[Tensor] = None,
             layer: Any = None) -> None:
        """Binds output (with raw tensor), its pre-activation (for logits) and the target (with raw tensor).

        An output whose feature axis is not the last one (e.g. ``[B, F, T]`` of a channel-first layer) is taken with
        the feature axis moved to the end (:attr:`output` then is that copy; its pre-activation is moved along), as
        the reference."""
        if output is not None and not output.sparse and output.feature_dim_axis is not None \
                and output.feature_dim_axis != output.batch_ndim - 1:
            feature_axis = output.feature_dim_axis
            perm = [i for i in range(output.batch_ndim) if i != feature_axis] + [feature_axis]
            output = output.copy_transpose(perm)
            if output_with_activation is not None and hasattr(output_with_activation, "copy_transposed"):
                output_with_activation = output_with_activation.copy_transposed(perm)
        self.output = output
        self.output_with_activation = output_with_activation
        self.target = target
        self.layer = layer
        self._check_output_against_target()

    def _check_output_against_target(self) -> None:
        """As the reference's loss init: the output must have the target's axes (plus the class axis of a sparse
        target), both with or both without a time axis, and the target's dim (plus
        :meth:`get_auto_output_layer_dim_extra`) on its feature axis. Skipped without target and for sparse outputs
        (losses on search results: ``bleu``, ``expected_loss``).

        :raises LayerShapeError: naming the layer, the loss, the target, what was expected and what was found
        """
        out, target = self.output, self.target
        if target is None or out is None or out.sparse:
            return
        from returnn.errors import LayerShapeError

        name = getattr(self.layer, "name", "?")
        layer_class = getattr(self.layer, "layer_class", None) or "?"
        target_name = getattr(self.layer, "target", None) or target.name
        target_desc = f"target {target_name!r} {target.get_description(with_name=False)}"
        want_ndim = target.batch_ndim + (1 if target.sparse else 0)
        problem = None
        if out.batch_ndim != want_ndim:
            problem = (f"loss {self.class_name!r}: output has {out.batch_ndim} axes, the {target_desc} needs "
                       f"{want_ndim}" + (" (its axes plus the class axis)" if target.sparse else ""))
            expected = f"an output with {want_ndim} axes"
            hint = ("sources of different feature dims (e.g. in a combine or eval layer) broadcast into separate "
                    "axes; give them the same dim") if out.batch_ndim > want_ndim else None
        elif out.have_time_axis() != target.have_time_axis():
            problem = (f"loss {self.class_name!r}: output {'has' if out.have_time_axis() else 'has no'} time axis, "
                       f"the {target_desc} {'has' if target.have_time_axis() else 'has none'}")
            expected = "output and target both with or both without a time axis"
            hint = None
        else:
            extra = self.get_auto_output_layer_dim_extra()
            if out.dim is not None and target.dim is not None and out.dim != target.dim + extra:
                problem = (f"loss {self.class_name!r}: output feature dim {out.dim} does not match the {target_desc}")
                expected = f"feature dim {target.dim + extra}" + (f" (target dim {target.dim} + {extra})" if extra
                                                                  else "")
                hint = None
        if problem:
            raise LayerShapeError(layer=name, layer_class=layer_class, problem=problem, expected=expected,
                                  got=out.get_description(with_name=False), hint=hint)

    # ---- framewise helpers
    @staticmethod
    def _bt_major(data: Tensor) -> Tensor:
        out = data.copy_as_batch_major() if data.batch_dim_axis is not None else data  # e.g. a variable's output
        if out.time_dim_axis is not None and out.time_dim_axis != 1:
            out = out.copy_with_time_dim_axis(1)
        return out

    def flatten_frames(self, data: Tensor, raw: Optional[tf.Tensor] = None) -> tf.Tensor:
        """:return: ``[N, ...]``: the valid frames of ``data`` (batch-major, time second), padded frames removed.
        Without time axis: ``[B, ...]``."""
        tmp = data.copy()
        if raw is not None:
            tmp.placeholder = raw
        tmp = self._bt_major(tmp)
        if tmp.feature_dim_axis is not None and tmp.feature_dim_axis != tmp.batch_ndim - 1:
            tmp = tmp.copy_with_feature_dim_axis(-1)
        if tmp.time_dim_axis is None:
            return tmp.placeholder
        return tf.gather_nd(tmp.placeholder, self._valid_frame_positions(tmp.get_sequence_lengths()))

    def _valid_frame_positions(self, seq_lens: tf.Tensor) -> tf.Tensor:
        """:return: int64 [N, 2]: (batch, time) of every valid frame in batch-major order, the order of
        ``tf.boolean_mask`` with the sequence mask; computed once per sequence-length tensor and shared by the
        output, the logits and the target (padded lengths may differ: only ``t < len`` is used)"""
        for lens, positions in self._positions:
            if lens is seq_lens:
                return positions
        positions = tf.where(tf.sequence_mask(seq_lens))
        self._positions.append((seq_lens, positions))
        return positions

    def get_target_flat(self) -> tf.Tensor:
        """:return: the target's valid frames, ``[N]`` (sparse) or ``[N, F]``; built once per loss"""
        if self._target_flat is None:
            self._target_flat = self.flatten_frames(self.target)
        return self._target_flat

    def get_output_logits_flat(self) -> Tuple[Optional[tf.Tensor], tf.Tensor]:
        """:return: (logits [N, F] or None, probs-or-output [N, F]); built once per loss"""
        if self._flat is None:
            out_flat = self.flatten_frames(self.output)
            owa = self.output_with_activation
            logits = self.flatten_frames(self.output, owa.x) if owa is not None and owa.is_softmax_act_func() else None
            self._flat = (logits, out_flat)
        return self._flat

    @property
    def output_flat(self) -> tf.Tensor:
        """``[N, F]``: the output's valid frames (see :meth:`get_output_logits_flat`)"""
        return self.get_output_logits_flat()[1]

    @property
    def output_before_softmax_flat(self) -> Optional[tf.Tensor]:
        """``[N, F]``: the logits (pre-softmax activation) of the valid frames, or None if the output is not a
        softmax"""
        return self.get_output_logits_flat()[0]

    def check_matching_time(self) -> list:
        """:return: control-dependency asserts that output and target have the same sequence lengths"""
        if self.output.time_dim_axis is None or self.target is None or self.target.time_dim_axis is None:
            return []
        if self.output.time_dim == self.target.time_dim:
            return []
        return [tf.debugging.assert_equal(
            self.output.get_sequence_lengths(), self.target.get_sequence_lengths(),
            message=f"layer {getattr(self.layer, 'name', '?')!r} loss {self.class_name!r}: output and target "
                    "sequence lengths differ")]

    # ---- results
    def get_value(self) -> Optional[tf.Tensor]:
        raise NotImplementedError

    def get_error(self) -> Optional[tf.Tensor]:
        """Frame error (as the reference does for all framewise losses): number of valid frames where the argmax
        of the output over F differs from the target class (sparse) or the target's argmax (dense).

        :return: float32 scalar, or None without target / feature axis
        """
        if self.target is None or self.output.feature_dim_axis is None:
            return None
        out = self.flatten_frames(self.output)
        pred = tf.argmax(out, axis=-1, output_type=tf.int32)
        target = self.get_target_flat()
        labels = tf.cast(target, tf.int32) if self.target.sparse else tf.argmax(target, axis=-1, output_type=tf.int32)
        return tf.reduce_sum(tf.cast(tf.not_equal(pred, labels), tf.float32))

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves the layer name of ``custom_inv_norm_factor`` in the ``loss_opts`` ``d`` to the layer."""
        if isinstance(d.get("custom_inv_norm_factor"), str):
            d["custom_inv_norm_factor"] = get_layer(d["custom_inv_norm_factor"])

    def get_num_frames(self) -> tf.Tensor:
        """:return: float32 scalar: number of target frames (framewise) in the batch; 1 for an output without batch
            axis (a scalar loss of a config's own layer, as the reference); with ``custom_inv_norm_factor`` the sum
            of that layer's output"""
        if self.custom_inv_norm_factor is not None:
            return tf.reduce_sum(tf.cast(self.custom_inv_norm_factor.output.placeholder, tf.float32))
        ref = self.target if (self.target is not None and self.recurrent) else self.output
        if ref.batch_dim_axis is None and ref.time_dim_axis is None:
            return tf.constant(1.0)
        if ref.time_dim_axis is None:
            from returnn.tf.ops.dims import get_batch_size
            return tf.cast(get_batch_size(ref), tf.float32)
        return tf.cast(tf.reduce_sum(ref.get_sequence_lengths()), tf.float32)

    def get_normalization_factor(self) -> tf.Tensor:
        """:return: ``1 / num_frames`` (reference convention)"""
        return 1.0 / tf.maximum(self.get_num_frames(), 1.0)
