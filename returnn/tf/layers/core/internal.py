"""``InternalLayer``: a layer whose output is set from outside (reference compat; used by helpers), and
``RecStepInfoLayer``: the step of a rec loop (``network.get_rec_step_info()``)."""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase


class InternalLayer(LayerBase):
    """A layer with a given output (``output`` with raw tensor); no registration, no params."""

    layer_class = "internal"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)


class RecStepInfoLayer(LayerBase):
    """The step of the loop of a rec layer, for the network of one step (reference name; its layer name is
    ``":i"``). ``network.get_rec_step_info()`` returns it, ``network.get_rec_step_index()`` its :attr:`step`.

    :param network: the network of the step
    :param i: int32 scalar, the step index (0 at the first frame)
    :param prev_end_flag: bool ``[B]`` (``[B*K]`` in a search): the hypotheses that had ended before this step,
        for loops whose length is given by an ``end`` layer
    :param prev_end_layer: the ``end`` layer of the previous step, if known
    :param seq_lens: int32 ``[B]``: the loop's sequence lengths, for loops over a given time axis
    """

    layer_class = ":i"

    def __init__(self, *, network: Any, i: tf.Tensor, prev_end_flag: Optional[tf.Tensor] = None,
                 prev_end_layer: Any = None, seq_lens: Optional[tf.Tensor] = None):
        output = Tensor(name="i", shape=(), dtype="int32", batch_dim_axis=None)
        output.placeholder = i
        super().__init__(name=":i", network=network, output=output)
        self.step = i
        self.prev_end_layer = prev_end_layer
        self._prev_end_flag = prev_end_flag
        self._seq_lens = seq_lens

    def get_prev_end_flag(self, target_search_choices: Any = None) -> tf.Tensor:
        """:return: bool ``[B]`` (``[B*K]`` in a search): whether each sequence (hypothesis) had ended before this
            step. With an ``end`` layer: its value of an earlier step was true; over a given time axis (observed
            with the reference): ``step - 1 >= seq_len``, e.g. for length 2 false at steps 0..2, true from step 3.
        :raises ValueError: neither an end flag nor sequence lengths are known for this loop"""
        if self._prev_end_flag is not None:
            return self._prev_end_flag
        if self._seq_lens is not None:
            return tf.greater_equal(self.step - 1, self._seq_lens)
        raise ValueError(f"{self.network}: the loop has no end flag (no 'end' layer) and no known sequence lengths")

    def get_end_flag(self, target_search_choices: Any = None) -> tf.Tensor:
        """An old method the reference dropped (release 1.20201223 has it, 1.20211229 has ``get_prev_end_flag``
        instead); accepted with its old meaning and a warning (:mod:`returnn.util.dropped_api`).

        :return: bool ``[B]``: whether each sequence has ended at this step, for a loop over a given time axis:
            ``step >= seq_len`` (observed with release 1.20201223: for length 2 false at steps 0, 1 and true from
            step 2; one step earlier than :meth:`get_prev_end_flag`)
        :raises ValueError: in a loop ended by an ``end`` layer (the old meaning there was not observed; use
            :meth:`get_prev_end_flag`), or without known sequence lengths
        """
        from returnn.util.dropped_api import accept_dropped_api

        accept_dropped_api("rec_step_info_get_end_flag")
        if self._seq_lens is None or self._prev_end_flag is not None:
            raise ValueError(f"{self.network}: get_end_flag() (dropped by the reference) is accepted only in a loop "
                             "over a given time axis; use get_prev_end_flag() in a loop ended by an 'end' layer")
        return tf.greater_equal(self.step, self._seq_lens)
