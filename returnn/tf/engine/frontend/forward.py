"""Task ``forward`` of an RF model with ``forward_callback``: the outputs ``forward_step`` marked, per sequence.

Per batch the engine fetches each marked output (batch axis first) and the lengths of its dynamic dims; per sequence
it calls ``callback.process_seq(seq_tag=..., outputs=TensorDict)`` with, per output name, a ``Tensor`` of that
sequence: the output's dims without the batch dim, each dynamic dim cut to the sequence's length (a static dim of
that size, named as the output's), ``raw_tensor`` a numpy array, as the reference's engines pass them.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np
import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.options import ForwardOptions
from returnn.tensor import Dim, Tensor, TensorDict
from returnn.tf.engine.runner import Runner


def _batch_first(output: Tensor) -> Tuple[tf.Tensor, List[Dim]]:
    """The raw output with its batch axis first, and its dims in that order."""
    dims = list(output.dims)
    batch_axes = [i for i, d in enumerate(dims) if d.is_batch_dim()]
    if not batch_axes:
        raise ConfigValueError("forward_step", expected="outputs with the batch dim (mark_as_output of a Tensor "
                                                        "with batch_dim)", got=output)
    perm = batch_axes[:1] + [i for i in range(len(dims)) if i != batch_axes[0]]
    raw = output.raw_tensor
    if perm != list(range(len(dims))):
        raw = tf.transpose(raw, perm)
    return raw, [dims[i] for i in perm]


def output_fetches(outputs: Dict[str, Tensor]) -> Tuple[Dict[str, Any], Dict[str, List[Dim]]]:
    """Fetches (``out:<name>`` the batch-first raw output, ``size:<name>:<axis>`` each dynamic dim's lengths [B])
    and the dims of each fetched output."""
    fetches, dims_of = {}, {}
    for name, output in outputs.items():
        raw, dims = _batch_first(output)
        fetches["out:" + name] = raw
        dims_of[name] = dims
        for axis, dim in enumerate(dims):
            if axis == 0 or dim.dimension is not None:
                continue
            size = dim.dyn_size_ext
            if size is None or size.raw_tensor is None:
                raise ConfigValueError("forward_step", expected=f"output {name!r}: a dynamic dim with known lengths",
                                       got=dim)
            fetches["size:%s:%i" % (name, axis)] = size.raw_tensor
    return fetches, dims_of


def split_seqs(num_seqs: int, values: Dict[str, Any], dims_of: Dict[str, List[Dim]]) -> List[TensorDict]:
    """Per sequence of the batch, the outputs as a ``TensorDict`` (see module doc)."""
    result = []
    for i in range(num_seqs):
        seq_outputs = TensorDict()
        for name, dims in dims_of.items():
            arr = np.asarray(values["out:" + name][i])
            seq_dims = []
            for axis, dim in enumerate(dims[1:], start=1):
                if dim.dimension is None:
                    length = int(values["size:%s:%i" % (name, axis)][i])
                    arr = np.take(arr, np.arange(length), axis=axis - 1)
                    seq_dims.append(Dim(length, name=dim.name))
                else:
                    seq_dims.append(dim)
            tensor = Tensor(name, dims=seq_dims, dtype=str(arr.dtype))
            tensor.raw_tensor = arr
            seq_outputs.data[name] = tensor
        result.append(seq_outputs)
    return result


def forward_with_callback(state, *, dataset, callback) -> None:
    """Runs ``forward_step``'s outputs over ``dataset`` into ``callback`` (``init(model=)``, ``process_seq``,
    ``finish()``); ``callback`` may be a factory returning one."""
    from returnn.tf.engine.forward_callback import checked_forward_callback

    callback = checked_forward_callback(dataset, callback)
    network = state.network
    with state.graph.as_default():
        fetches, dims_of = output_fetches(network.rf_outputs)
    callback.init(model=network.rf_model)

    def on_step(batch, values):
        for tag, outputs in zip(batch.seq_tags, split_seqs(batch.num_seqs, values, dims_of)):
            callback.process_seq(seq_tag=tag, outputs=outputs)

    epoch = state.epoch or 1
    state.strategy.init_epoch(dataset, epoch)
    batch_size = state.options.get(ForwardOptions).forward_batch_size or state.options.batching.batch_size
    batches = dataset.generate_batches(epoch=epoch, **state.options.batching.generate_batches_kwargs(
        train=False, batch_size=batch_size))
    runner = Runner(state, network=network, dataset=dataset, batches=batches,
                    name="epoch %i forward" % (state.epoch or 0), extra_fetches=fetches, step_callback=on_step)
    runner.run()
    callback.finish()
