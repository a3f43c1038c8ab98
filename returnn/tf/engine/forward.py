"""The ``forward`` task (output layer → HDF ``output_file`` or a ``forward_callback``) and ``compute_priors``.

Log lines as the reference: ``Forwarding to HDF file: <file>``, ``Forward output: <tensor>``, at verbosity 5
``epoch N forward, step I, S sec/step, ...`` and ``epoch N forward, finished after ...``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

import numpy as np

from returnn.errors import ConfigValueError, LayerShapeError
from returnn.log import log
from returnn.options import ForwardOptions, RunOptions
from returnn.tf.engine.runner import Runner
from returnn.tf.engine.state import RunState


def get_output_layer(state: RunState, output_layer=None):
    """``output_layer`` (a layer or its name), else ``forward_output_layer``, else the default output layer.

    :raises ConfigValueError: unknown layer name (with the closest names)
    """
    network = state.network
    if output_layer is not None and not isinstance(output_layer, str):
        return output_layer
    name = output_layer or state.options.get(ForwardOptions).forward_output_layer
    if not name:
        return _default_forward_layer(network)
    if name not in network.layers:
        from returnn.util.suggest import close_matches

        raise ConfigValueError("forward_output_layer", expected="a layer of the network", got=name,
                               suggestions=close_matches(name, list(network.layers)))
    return network.get_layer(name)


def _default_forward_layer(network):
    """:return: the layer task forward writes without ``forward_output_layer``, as the reference (observed): the
    ``output`` layer, else the one layer marked ``is_output_layer`` (a layer with a loss does not count: the forward
    network is built without the train flag)
    :raises ConfigValueError: none (the reference stops with "output layer not defined. set forward_output_layer")
    """
    if "output" in network.layers:
        return network.layers["output"]
    marked = [layer for layer in network.layers.values() if layer.is_output_layer_flag]
    if len(marked) == 1:
        return marked[0]
    raise ConfigValueError("forward_output_layer", expected="the layer to forward: the network has no 'output' layer",
                           suggestions=[layer.name for layer in marked],
                           hint="set forward_output_layer = '<layer name>' in the config (or name a layer 'output')")


def _written_output(state: RunState, output):
    """The output as the HDF file holds it: batch-major, the feature axis last (``[B, T1, T2, F]``)."""
    with state.graph.as_default():
        if getattr(output, "feature_dim_axis", None) is not None and not output.sparse:
            return output.copy_as_batch_spatial_major()
        if hasattr(output, "copy_as_batch_major"):
            return output.copy_as_batch_major()
    return output


def _output_fetches(state: RunState, layer, *, all_sizes: bool = False) -> Dict[str, Any]:
    """Batch-major output tensor and its sequence lengths (when it has a time axis); with ``all_sizes`` also the
    lengths of each dynamic axis as ``output_size:<axis without batch>`` (those with lengths per sequence)."""
    output = _written_output(state, layer.output) if all_sizes else layer.output
    if not all_sizes and hasattr(output, "copy_as_batch_major"):
        with state.graph.as_default():
            output = output.copy_as_batch_major()
    fetches = {"output": output.placeholder}
    with state.graph.as_default():
        if output.time_dim_axis is not None:
            fetches["output_seq_lens"] = output.get_sequence_lengths()
        if all_sizes and output.batch_dim_axis == 0 and hasattr(output, "get_dynamic_axes"):
            for axis in output.get_dynamic_axes():
                size = output.dims[axis].dyn_size_ext
                if axis > 0 and size is not None and len(size.dims) == 1 and size.dims[0].is_batch_dim():  # [B]
                    fetches["output_size:%i" % (axis - 1)] = output.get_dynamic_size(axis)
    return fetches


def _forward_pass(state: RunState, dataset, *, batch_size, step_callback, layer, all_sizes: bool = False) -> None:
    epoch = state.epoch or 1
    state.strategy.init_epoch(dataset, epoch)
    if not batch_size:
        batch_size = state.options.get(ForwardOptions).forward_batch_size
        if batch_size is None:
            raise ConfigValueError("forward_batch_size", expected="the batch size (frames) for task 'forward'",
                                   got=None)
    batches = dataset.generate_batches(epoch=epoch, **state.options.batching.generate_batches_kwargs(
        train=False, batch_size=batch_size))
    runner = Runner(state, network=state.network, dataset=dataset, batches=batches,
                    name="epoch %i forward" % (state.epoch or 0),
                    extra_fetches=_output_fetches(state, layer, all_sizes=all_sizes),
                    step_callback=step_callback)
    runner.run()


def _split_seqs(batch, values):
    """Yields (seq_tag, array of that sequence cut to its length)."""
    out = values["output"]
    lens = values.get("output_seq_lens")
    for i in range(batch.num_seqs):
        arr = out[i]
        if lens is not None:
            arr = arr[: int(lens[i])]
        yield batch.seq_tags[i], arr


def forward_to_hdf(state: RunState, dataset, output_file: str, *, batch_size: int = 0, output_layer=None) -> None:
    """Writes the output layer for every sequence of ``dataset`` to ``output_file`` in the HDF layout that
    ``HDFDataset`` reads (via :class:`returnn.datasets.hdf.SimpleHDFWriter`; temp file + rename).

    :raises ConfigValueError: ``output_file`` exists and ``forward_override_hdf_output`` is not set
    """
    from returnn.datasets.hdf import SimpleHDFWriter
    from returnn.tf.engine.frontend.network import RFNetwork

    if isinstance(state.network, RFNetwork):
        raise ConfigValueError("forward_callback", expected="a ForwardCallbackIface for task 'forward' of an RF model "
                                                            "(get_model): it receives the outputs forward_step marks",
                               got=None)
    if dataset is None:
        raise ConfigValueError("eval", expected="a dataset to forward (config key 'eval' or 'forward_data')", got=None)
    if os.path.exists(output_file) and not state.options.get(ForwardOptions).forward_override_hdf_output:
        raise ConfigValueError("output_file", expected="a file that does not exist yet (or set "
                                                       "forward_override_hdf_output = True)", got=output_file)
    layer = get_output_layer(state, output_layer)
    output = layer.output
    print("Forwarding to HDF file: %s" % output_file, file=log.v3)
    print("Forward output: %s" % (_written_output(state, output.copy_template()),), file=log.v4)  # as written
    labels = None
    target = state.options.get(RunOptions).target
    ds_labels = getattr(dataset, "labels", None) or {}
    if not output.sparse and target in ds_labels and len(ds_labels[target]) == output.dim:
        labels = ds_labels[target]
    ndim = len(output.batch_shape) - 1 if output.batch_dim_axis is not None else len(output.batch_shape)
    if output.sparse:
        ndim = max(ndim, 1)
    directory = os.path.dirname(os.path.abspath(output_file))
    os.makedirs(directory, exist_ok=True)
    # write under a temporary name (the writer itself renames into that name on close), then replace
    write_name = "%s.fwd-tmp-%d" % (output_file, os.getpid())
    writer = SimpleHDFWriter(filename=write_name, dim=output.dim, ndim=ndim, labels=labels)

    def on_step(batch, values):
        out = values["output"]
        lens = values.get("output_seq_lens")
        if lens is None:
            lens = np.ones([batch.num_seqs], np.int32)
            out = out[:, None]
        seq_len = {0: np.asarray(lens[: batch.num_seqs])}
        # the lengths of each dynamic axis: the writer flattens several (e.g. attention weights [B, dec-T, enc-T, 1])
        seq_len.update({int(key.split(":")[1]): np.asarray(value[: batch.num_seqs])
                        for key, value in values.items() if key.startswith("output_size:")})
        writer.insert_batch(inputs=out[: batch.num_seqs], seq_len=seq_len, seq_tag=list(batch.seq_tags))

    _forward_pass(state, dataset, batch_size=batch_size, step_callback=on_step, layer=layer, all_sizes=True)
    writer.close()
    os.replace(write_name, output_file)


def forward_with_callback(state: RunState, *, dataset, callback) -> None:
    """Runs the output layer over ``dataset`` and calls ``callback.process_seq(seq_tag=..., outputs={layer name:
    array [T, ...]})`` per sequence (``forward_callback``; an instance or a factory)."""
    from returnn.forward_iface import SeqOutput
    from returnn.tf.engine.frontend.network import RFNetwork

    if isinstance(state.network, RFNetwork):  # an RF model: the outputs forward_step marked
        from returnn.tf.engine.frontend.forward import forward_with_callback as rf_forward_with_callback

        return rf_forward_with_callback(state, dataset=dataset, callback=callback)
    from returnn.tf.engine.forward_callback import checked_forward_callback

    callback = checked_forward_callback(dataset, callback)
    layer = get_output_layer(state)
    name = "output" if layer is state.network.get_default_output_layer() else layer.name
    callback.init(model=state.network)

    def on_step(batch, values):
        for tag, arr in _split_seqs(batch, values):
            callback.process_seq(seq_tag=tag, outputs={name: np.asarray(arr).view(SeqOutput)})

    _forward_pass(state, dataset, batch_size=0, step_callback=on_step, layer=layer)
    callback.finish()


def compute_priors(state: RunState, dataset, output_file: Optional[str] = None) -> None:
    """Averages the output layer's posteriors over all frames of ``dataset`` and writes the log priors, one
    value per line (``numpy.savetxt``), to ``output_file``; an existing file is replaced, as the reference does.

    :raises ConfigValueError: no ``output_file``
    """
    output_file = output_file or state.options.get(ForwardOptions).output_file
    if not output_file:
        raise ConfigValueError("output_file", expected="the file to write the log priors to", got=None)
    layer = get_output_layer(state)
    print("Compute priors, using output layer %r, writing to %r." % (layer, output_file), file=log.v4)
    total = np.zeros([layer.output.dim], np.float64)
    count = [0]

    def on_step(batch, values):
        out = values["output"]
        lens = values.get("output_seq_lens")
        for i in range(batch.num_seqs):
            frames = out[i][: int(lens[i])] if lens is not None else out[i][None]
            total[:] += frames.reshape(-1, total.shape[0]).sum(axis=0)
            count[0] += frames.reshape(-1, total.shape[0]).shape[0]

    batch_size = state.options.get(ForwardOptions).forward_batch_size or state.options.batching.batch_size
    _forward_pass(state, dataset, batch_size=batch_size, step_callback=on_step, layer=layer)
    priors = np.log(total / max(count[0], 1))
    tmp = output_file + ".tmp-%d" % os.getpid()
    print("Prior sum in std-space (should be close to 1.0): %r" % float(np.sum(np.exp(priors))), file=log.v4)
    np.savetxt(tmp, priors, delimiter=" ")
    os.replace(tmp, output_file)
    print("Saved prior in %r in +log space." % (output_file,), file=log.v4)


def forward_single(state: RunState, dataset, seq_idx: int, output_layer_name: Optional[str] = None) -> np.ndarray:
    """The output layer for one sequence of ``dataset`` (already ``init_seq_order``-ed), as the reference's
    ``Engine.forward_single``: numpy array without batch axis, cut to the sequence length (``[T, dim]``).

    An output without batch axis (e.g. a rec layer's counter that reads only its own ``prev:``, ``[T, F=1]``) is
    taken time-major with its axis after the time axis, of size 1, removed, as the reference (observed: ``[T]``).

    :raises LayerShapeError: an output without batch axis whose axis after the time axis is not of size 1
    """
    from returnn.datasets.batching import Batch

    layer = get_output_layer(state, output_layer_name)
    dataset.load_seqs(seq_idx, seq_idx + 1)
    lengths = dataset.get_seq_length(seq_idx)
    keys = dataset.get_data_keys()
    batch = Batch()
    batch.add_sequence_as_slice(seq_idx, {k: 0 for k in keys}, {k: int(lengths[k]) for k in keys})
    outputs = []

    def on_step(batch_data, values):
        outputs.extend(arr for _tag, arr in _split_seqs(batch_data, values))

    if layer.output.batch_dim_axis is None:
        return _forward_single_without_batch_axis(state, dataset, batch, layer)
    runner = Runner(state, network=state.network, dataset=dataset, batches=[batch], name="forward_single",
                    extra_fetches=_output_fetches(state, layer), step_callback=on_step, report=False)
    runner.run()
    return outputs[0]


def _forward_single_without_batch_axis(state: RunState, dataset, batch, layer) -> np.ndarray:
    """:return: the output of ``layer`` (no batch axis) for ``batch``, time-major, axis 1 (size 1) removed"""
    output = layer.output
    if output.time_dim_axis not in (None, 0):
        with state.graph.as_default():
            output = output.copy_as_time_major()
    values = []
    runner = Runner(state, network=state.network, dataset=dataset, batches=[batch], name="forward_single",
                    extra_fetches={"output": output.placeholder}, report=False,
                    step_callback=lambda _batch, fetched: values.append(fetched["output"]))
    runner.run()
    value = values[0]
    if value.ndim < 2 or value.shape[1] != 1:
        raise LayerShapeError(layer=layer.name, layer_class=layer.layer_class,
                              problem="forward_single of an output without batch axis takes axis 1 as the batch axis",
                              expected="size 1 at axis 1 (time-major)", got=repr(output))
    return np.squeeze(value, axis=1)
