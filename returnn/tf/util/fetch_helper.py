"""``FetchHelper`` (legacy ``TFUtil`` class): records the value of a tensor each time the graph computes it
(through a Python callback on an identity of the tensor), e.g. to see the inputs of an op that failed."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, TextIO, Tuple

import numpy
import tensorflow as tf

from returnn.extern import graph_editor
from returnn.tf.util.control_flow import same_control_flow_ctx


class FetchHelper:
    """``FetchHelper(tensor)``: :attr:`identity_with_callback` is ``tensor`` through a callback that counts
    (:attr:`callback_count`) and keeps (:attr:`most_recent_value`) each computed value, and prints it to
    ``verbose_stream`` if given. Put it into the graph with :meth:`add_to_control_inputs` or
    :meth:`copy_graph_replace_tensors`."""

    def __init__(self, tensor: tf.Tensor, verbose_stream: Optional[TextIO] = None):
        """:param tensor: the tensor to watch
        :param verbose_stream: where to print each value (None: no printing)"""
        self.tensor = tensor
        self.verbose_stream = verbose_stream
        self.callback_count = 0
        self.most_recent_value: Any = None
        with same_control_flow_ctx(tensor), tf.device("/cpu:0"), tf.name_scope("fetch_helper"):
            out = tf.numpy_function(self._callback, [tensor], tensor.dtype, stateful=True)
            out.set_shape(tensor.shape)
        self.identity_with_callback: tf.Tensor = out

    def __repr__(self) -> str:
        return f"<FetchHelper {self.tensor.name!r}, {self.callback_count} values>"

    def _callback(self, value: Any) -> Any:
        self.callback_count += 1
        self.most_recent_value = value
        if self.verbose_stream is not None:
            print(f"FetchHelper({self.callback_count}): {self.tensor.name} = {self._format_value(value)}",
                  file=self.verbose_stream)
        return value

    @classmethod
    def _format_value(cls, value: Any) -> str:
        if isinstance(value, numpy.ndarray) and value.size > 10:
            return f"shape {value.shape}, dtype {value.dtype}, min/max {value.min()}/{value.max()}"
        return repr(value)

    def add_to_control_inputs(self, other_op: tf.Operation) -> None:
        """Makes ``other_op`` run after the callback (so each computation of ``other_op`` records the value).

        :param other_op: an op in the same loop/cond context as the tensor
        """
        other_op._add_control_input(self.identity_with_callback.op)  # noqa: SLF001 (no public API for this)

    @classmethod
    def copy_graph_replace_tensors(cls, fetches: Any, fetch_helpers: Sequence["FetchHelper"]) -> Any:
        """:param fetches: tensor(s) to compute
        :param fetch_helpers: helpers whose tensors get replaced by their :attr:`identity_with_callback`
        :return: ``fetches`` computed through copies of the ops in between (see
            :func:`returnn.extern.graph_editor.graph_replace`)"""
        return graph_editor.graph_replace(
            fetches, {h.tensor: h.identity_with_callback for h in fetch_helpers}, reuse_dst_scope=True)

    @classmethod
    def copy_graph(cls, fetches: Any, target_op: tf.Operation, fetch_helper_tensors: Sequence[tf.Tensor],
                   stop_at_ts: Sequence[tf.Tensor] = (), verbose_stream: Optional[TextIO] = None
                   ) -> Tuple[Any, List["FetchHelper"], tf.Operation]:
        """Copies the ops ``fetches`` depend on, with a :class:`FetchHelper` on each of ``fetch_helper_tensors``
        (inputs of ``target_op``) that runs before the copy of ``target_op``.

        :param fetches: tensor(s) to compute
        :param target_op: the op to watch (e.g. one that fails)
        :param fetch_helper_tensors: tensors to record (their copies)
        :param stop_at_ts: tensors not to copy through (the originals stay connected)
        :param verbose_stream: passed to the helpers
        :return: (copied fetches, the helpers, the copy of ``target_op``)
        """
        ops = graph_editor.get_backward_walk_ops(fetches, inclusive=True, stop_at_ts=stop_at_ts,
                                                 control_inputs=True)
        _, info = graph_editor.copy(ops, reuse_dst_scope=True)

        def copied(x: Any) -> Any:
            new = info.transformed(x)
            return x if new is None else new

        helpers = [FetchHelper(copied(t), verbose_stream=verbose_stream) for t in fetch_helper_tensors]
        target_copy = copied(target_op)
        for helper in helpers:
            helper.add_to_control_inputs(target_copy)
        return tf.nest.map_structure(copied, fetches), helpers, target_copy
