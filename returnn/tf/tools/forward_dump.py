"""``tools/dump-forward.py``: forwards sequences of the ``train`` dataset one at a time and prints the output of
every layer of the network (and the sizes of its dynamic axes), as the reference's tool::

    Epoch: 1
    Seq idx: 0
      data:out: array([[[0., 0., ...]]], dtype=float32)..., shape=(1, 84, 9)
      data:shape(1): array([84], dtype=int32), shape=(1,)
      ...
    Done. More seqs which we did not dumped: True

Keys ``<layer>:out`` and ``<layer>:shape(<axis>)`` (the axis counted with the batch axis) are sorted; a value's
``repr`` longer than 300 characters is cut to 297 and ``...``. The model is the checkpoint training would continue
from (random parameters if there is none), the train flag off; ``--epoch`` sets the dataset's epoch (default: the
loaded checkpoint's epoch).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Dict, Optional

import numpy

from returnn.errors import ConfigValueError
from returnn.tf.tools import common

GREETING = "RETURNN dump-forward starting up."
#: a value's text longer than this is cut (with ``...``)
MAX_VALUE_TEXT = 300


def format_value(value: numpy.ndarray) -> str:
    """``repr(value)`` (cut to :data:`MAX_VALUE_TEXT` characters) and ``, shape=<shape>``."""
    text = repr(value)
    if len(text) > MAX_VALUE_TEXT:
        text = text[:MAX_VALUE_TEXT - 3] + "..."
    return "%s, shape=%s" % (text, numpy.shape(value))


@dataclass
class ForwardDump:
    """What :func:`dump_forward` printed: ``epoch``, per sequence index the values by key, and whether the dataset
    has sequences after the dumped ones (``more``)."""

    epoch: int
    seqs: Dict[int, Dict[str, numpy.ndarray]] = field(default_factory=dict)
    more: bool = False


def dump_forward(config_file: str, *, epoch: Optional[int] = None, startseq: int = 0, endseq: int = 10,
                 command_line_options=(), stdout=None) -> ForwardDump:
    """Runs the tool (see module doc). ``endseq`` is inclusive, -1 for all.

    :raises ReturnnError: bad config, no ``train`` dataset
    """
    stdout = stdout or sys.stdout
    rnn = common.start_up(config_file, greeting=GREETING, command_line_options=command_line_options)
    engine, config = rnn.engine, rnn.config
    dataset = rnn.train_data
    if dataset is None:
        raise ConfigValueError("train", expected="a train dataset in the config (dump-forward forwards it)",
                               got=None)
    common.init_network_as_training_continues(engine, config)
    epoch = epoch or engine.epoch
    print("Epoch: %i" % epoch, file=stdout)
    result = ForwardDump(epoch=epoch)
    dataset.init_seq_order(epoch=epoch)
    fetches = {}
    for name, layer in engine.network.layers.items():
        fetches.update(common.layer_output_fetches(engine, layer, name))
    seq_idx = startseq
    while dataset.is_less_than_num_seqs(seq_idx) and (endseq < 0 or seq_idx <= endseq):
        print("Seq idx: %i" % seq_idx, file=stdout)
        values = common.run_seq(engine, dataset, seq_idx, fetches)
        result.seqs[seq_idx] = values
        for key in sorted(values):
            print("  %s: %s" % (key, format_value(values[key])), file=stdout)
        seq_idx += 1
    result.more = dataset.is_less_than_num_seqs(seq_idx)
    print("Done. More seqs which we did not dumped: %s" % result.more, file=stdout)
    return result
