"""The interface of ``forward_callback`` (config key) for the ``forward`` task.

``forward_callback`` is an instance of :class:`ForwardCallbackIface`, or a function (factory) returning one.
The engine calls :meth:`ForwardCallbackIface.init` once before the first batch,
:meth:`ForwardCallbackIface.process_seq` once per sequence (in dataset order) and
:meth:`ForwardCallbackIface.finish` once after the last one, as in the reference.
"""

from __future__ import annotations

from typing import Any, Dict

import numpy


class ForwardCallbackIface:
    """Receives the outputs of the ``forward`` task sequence by sequence."""

    def init(self, *, model: Any) -> None:
        """Called once before the first sequence.

        :param model: the network (:class:`returnn.tf.network.TFNetwork`) the outputs come from
        """

    def process_seq(self, *, seq_tag: str, outputs: Dict[str, Any]) -> None:
        """Called once per sequence.

        :param seq_tag: the dataset's tag of the sequence
        :param outputs: output name → numpy array of this sequence without the batch axis, cut to the
            sequence's length (e.g. ``outputs["output"]`` of shape ``[T, dim]``, float32). Each value also
            has ``.raw_tensor`` (the array itself), so code written for the reference's ``TensorDict``
            (``outputs["output"].raw_tensor``) works unchanged.
        """

    def finish(self) -> None:
        """Called once after the last sequence."""


class SeqOutput(numpy.ndarray):
    """A numpy array (one sequence's output) that also offers ``.raw_tensor`` like the reference's Tensor."""

    @property
    def raw_tensor(self):
        """The plain numpy array."""
        return self.view(numpy.ndarray)
