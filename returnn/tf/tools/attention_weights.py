"""``tools/get-attention-weights.py``: forwards a dataset through an encoder-decoder network (targets given, no
search) and dumps the attention weights of layers inside the decoder's rec layer, as the reference's tool.

Output ``npy`` (default): one file per batch, ``<dump_dir>/<config name>_ep<epoch:03>_data_<first>_<last>.npy``
(first/last: the batch's sequence indices) holding a dict (load with ``numpy.load(f, allow_pickle=True).item()``)
batch entry ``i`` -> ``{"tag": str, "data": encoder input (cut), "classes": target (cut), "output": the rec layer's
output (padded to the batch), "output_len": int32, "encoder_len": int32, "rec_<layer>": [output_len,
encoder_len]}``. Output ``hdf`` (``--output_file``): per sequence the weights flattened as ``inputs`` (dim 1) and
an extra stream ``sizes`` = ``[output_len, encoder_len]``. Output ``png``: one image per sequence and layer
(matplotlib). After the pass, ``Layer '<layer>' Stats:`` for each layer (over the padded weights, as the
reference). Search (``--do_search``) is not provided, as in the reference (which raises NotImplementedError).
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence

import numpy

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options import RunOptions
from returnn.options.data import dataset_spec_of_key
from returnn.tf.tools import common
from returnn.util.stats import Stats

GREETING = "RETURNN get-attention-weights starting up."


def set_all_dropout(net_dict: Dict[str, Any], value: float) -> Dict[str, Any]:
    """A copy of ``net_dict`` with every layer's ``dropout`` (those that have one, inside rec units and subnetworks
    too) set to ``value``."""
    out = {}
    for name, layer in net_dict.items():
        if isinstance(layer, dict):
            layer = dict(layer)
            if "dropout" in layer:
                layer["dropout"] = value
            for key in ("unit", "subnetwork"):
                if isinstance(layer.get(key), dict):
                    layer[key] = set_all_dropout(layer[key], value)
        out[name] = layer
    return out


def _mark_outputs(net_dict: Dict[str, Any], rec_layer: str, layers: Sequence[str]) -> Dict[str, Any]:
    """``net_dict`` with the layers inside ``rec_layer``'s unit marked ``is_output_layer`` (kept over all steps)."""
    rec = net_dict.get(rec_layer)
    if not isinstance(rec, dict) or not isinstance(rec.get("unit"), dict):
        raise ConfigValueError("--rec_layer", expected="a rec layer with a subnetwork unit in the network",
                               got=rec_layer)
    unit = dict(rec["unit"])
    for name in layers:
        if name not in unit:
            from returnn.util.suggest import close_matches

            raise ConfigValueError("--layers", expected="a layer of the unit of rec layer %r" % rec_layer, got=name,
                                   suggestions=close_matches(name, list(unit)))
        unit[name] = dict(unit[name], is_output_layer=True)
    return dict(net_dict, **{rec_layer: dict(rec, unit=unit)})


def _batch_major(engine, data):
    with engine.graph.as_default():
        data = data.copy_as_batch_major()
        return data, data.placeholder, (data.get_sequence_lengths() if data.time_dim_axis is not None else None)


class _AttLayer:
    """One decoder layer to dump: its output batch-major, the axes of decoder and encoder time."""

    def __init__(self, engine, rec_layer: str, name: str):
        self.name = name
        layer = engine.network.get_layer("%s/%s" % (rec_layer, name))
        data, self.tensor, _ = _batch_major(engine, layer.output)
        rec_time = engine.network.get_layer(rec_layer).output.get_time_dim_tag()
        tags = list(data.dim_tags[1:])  # without batch
        self.dec_axis = next(i for i, tag in enumerate(tags) if tag == rec_time)
        others = [i for i, tag in enumerate(tags) if i != self.dec_axis and tag.is_dynamic()]
        if not others:
            raise ConfigValueError("--layers", expected="a layer over decoder and encoder time (attention weights)",
                                   got="%s: %s" % (name, data))
        self.enc_axis = others[0]

    def per_seq(self, value: numpy.ndarray, i: int, output_len: int, encoder_len: int) -> numpy.ndarray:
        """``[output_len, encoder_len]`` (further axes of size 1 squeezed)."""
        arr = numpy.moveaxis(value[i], (self.dec_axis, self.enc_axis), (0, 1))[:output_len, :encoder_len]
        extra = tuple(ax for ax in range(2, arr.ndim) if arr.shape[ax] == 1)
        return arr.squeeze(axis=extra) if extra else arr

    def padded(self, value: numpy.ndarray, i: int) -> numpy.ndarray:
        return numpy.moveaxis(value[i], (self.dec_axis, self.enc_axis), (0, 1))


def get_attention_weights(config_file: str, *, epoch: Optional[int] = None, data: str = "train",
                          do_search: bool = False, dump_dir: Optional[str] = None, output_file: Optional[str] = None,
                          layers: Sequence[str] = ("att_weights",), rec_layer: str = "output",
                          enc_layer: str = "encoder", batch_size: int = 5000, seq_list: Sequence[str] = (),
                          min_seq_len: Any = 0, num_seqs: int = -1, output_format: str = "npy",
                          dropout: Optional[float] = None, train_flag: bool = False,
                          reset_partition_epoch: Optional[int] = 1,
                          reset_seq_ordering: Optional[str] = "sorted_reverse", reset_epoch_wise_filter: Any = None,
                          command_line_options=()) -> Dict[str, Stats]:
    """Runs the tool (see module doc).

    :param epoch: the checkpoint ``<model>.<epoch>`` (default: the newest)
    :param data: ``train``/``dev``/``eval`` or ``config:<key>`` (its config dict with the ``reset_*`` values), or a
        dataset dict/spec
    :param num_seqs: only the sequences with index <= ``num_seqs`` (-1: all), as the reference
    :return: layer name -> the :class:`Stats` printed
    :raises ConfigValueError: ``do_search``/``train_flag`` (not provided), an unknown output format or layer, a
        missing ``dump_dir``/``output_file``
    """
    _check_args(config_file, do_search=do_search, train_flag=train_flag, output_format=output_format,
                dump_dir=dump_dir, output_file=output_file)
    layers = list(dict.fromkeys(layers))
    rnn = common.start_up(config_file, greeting=GREETING, command_line_options=command_line_options,
                          with_data=False, config_updates={"batch_size": batch_size})
    engine, config = rnn.engine, rnn.config
    print("Model file prefix: %s" % RunOptions.read_one(config, "model"), file=log.v3)
    dataset = _dataset(rnn, config, data, partition_epoch=reset_partition_epoch, seq_ordering=reset_seq_ordering,
                       epoch_wise_filter=reset_epoch_wise_filter)
    if epoch is not None:
        config.set("load_epoch", epoch)
    _init_network(engine, config, rec_layer=rec_layer, enc_layer=enc_layer, layers=layers, dropout=dropout)
    epoch = engine.epoch or 1
    att_layers = [_AttLayer(engine, rec_layer, name) for name in layers]
    collector = _Collector(att_layers, output_format=output_format, dump_dir=dump_dir, output_file=output_file,
                           file_prefix="%s_ep%03d" % (os.path.splitext(os.path.basename(config_file))[0], epoch))
    common.run_batches(engine, dataset, epoch=epoch, fetches=_fetches(engine, rec_layer, enc_layer, att_layers),
                       step_callback=collector.on_step, name="att-weights epoch %i" % epoch, batch_size=batch_size,
                       max_seq_idx=num_seqs if num_seqs >= 0 else None, seq_list=seq_list or None,
                       min_seq_length=_min_seq_len(min_seq_len))
    collector.close()
    for layer_name, layer_stats in collector.stats.items():
        layer_stats.dump(stream=log.v1, stream_prefix="Layer %r " % layer_name)
    return collector.stats


def _check_args(config_file: str, *, do_search: bool, train_flag: bool, output_format: str,
                dump_dir: Optional[str], output_file: Optional[str]) -> None:
    """:raises ConfigValueError: an option the tool does not provide, or one that the output format needs is
    missing"""
    if do_search:
        raise ConfigValueError("--do_search", expected="not given: search is not provided by this tool (the "
                                                       "reference raises NotImplementedError too)", got=True)
    if train_flag:
        raise ConfigValueError("--train_flag", expected="not given: forwarding with the train flag is not provided",
                               got=True)
    if output_format not in ("npy", "png", "hdf"):
        raise ConfigValueError("--output_format", expected="npy, png or hdf", got=output_format)
    if output_format in ("npy", "png") and not dump_dir:
        raise ConfigValueError("--dump_dir", expected="a directory for the %s files" % output_format, got=None)
    if output_format == "hdf" and not output_file:
        raise ConfigValueError("--output_file", expected="the HDF file to write", got=None)
    if os.path.isdir(config_file):
        raise ConfigValueError("config_file", expected="a RETURNN config file (a model directory is not provided)",
                               got=config_file)


def _dataset(rnn, config, data: str, *, partition_epoch: Optional[int], seq_ordering: Optional[str],
             epoch_wise_filter: Any):
    """``--data``: a dataset dict of the config (with the ``--reset_*`` values), else as
    :func:`~returnn.tf.tools.common.dataset_from_arg` finds it."""
    key = data[len("config:"):] if data.startswith("config:") else data
    if isinstance(dataset_spec_of_key(config, key), dict):
        from returnn.datasets import init_dataset

        return init_dataset(common.reset_dataset_dict(
            config, key, partition_epoch=partition_epoch, seq_ordering=seq_ordering,
            epoch_wise_filter=epoch_wise_filter), default_kwargs={"name": key})
    return common.dataset_from_arg(rnn, config, data)


def _init_network(engine, config, *, rec_layer: str, enc_layer: str, layers: Sequence[str],
                  dropout: Optional[float]) -> None:
    """The network with the dumped layers marked as outputs (and ``--dropout`` set), its checkpoint loaded.

    :raises ConfigValueError: ``rec_layer`` or ``enc_layer`` is not a layer of the network
    """

    def post_proc(net_dict):
        net_dict = _mark_outputs(net_dict, rec_layer, layers)
        return set_all_dropout(net_dict, dropout) if dropout is not None else net_dict

    engine.init_network_from_config(config, task="forward", net_dict_post_proc=post_proc, eval_flag=False)
    network = engine.network
    for name, option in ((rec_layer, "--rec_layer"), (enc_layer, "--enc_layer")):
        if name not in network.layers:
            from returnn.util.suggest import close_matches

            raise ConfigValueError(option, expected="a layer of the network", got=name,
                                   suggestions=close_matches(name, list(network.layers)))


def _fetches(engine, rec_layer: str, enc_layer: str, att_layers: Sequence["_AttLayer"]) -> Dict[str, Any]:
    """The rec layer's output and lengths, the encoder's lengths and each dumped layer (``rec_<name>``)."""
    network = engine.network
    _, rec_out, rec_lens = _batch_major(engine, network.get_layer(rec_layer).output)
    _, _, enc_lens = _batch_major(engine, network.get_layer(enc_layer).output)
    fetches = {"output": rec_out, "output_len": rec_lens, "encoder_len": enc_lens}
    for att in att_layers:
        fetches["rec_%s" % att.name] = att.tensor
    return fetches


class _Collector:
    """Per step: the entries of each sequence of the batch written in ``output_format``, and the stats of each
    dumped layer collected.

    :param file_prefix: ``<config name>_ep<epoch:03>`` (the npy/png file names)
    """

    def __init__(self, att_layers: Sequence["_AttLayer"], *, output_format: str, dump_dir: Optional[str],
                 output_file: Optional[str], file_prefix: str):
        self.att_layers = list(att_layers)
        self.output_format = output_format
        self.dump_dir = dump_dir
        self.file_prefix = file_prefix
        #: layer name -> the stats over its padded weights
        self.stats = {att.name: Stats() for att in self.att_layers}
        self.writer = None
        if output_format == "hdf":
            from returnn.datasets.hdf import SimpleHDFWriter

            self.writer = SimpleHDFWriter(output_file, dim=1, ndim=1, extra_type={"sizes": (1, 1, "int32")})
        else:
            os.makedirs(dump_dir, exist_ok=True)

    def on_step(self, batch, values: Dict[str, numpy.ndarray]) -> None:
        """The step callback of :func:`~returnn.tf.tools.common.run_batches`."""
        entries = {i: self._entry(batch, values, i) for i in range(batch.num_seqs)}
        _write(entries, batch, writer=self.writer, output_format=self.output_format, dump_dir=self.dump_dir,
               file_name="%s_data_%i_%i" % (self.file_prefix, batch.seq_idx[0], batch.seq_idx[-1]),
               first_layer="rec_%s" % self.att_layers[0].name)

    def _entry(self, batch, values: Dict[str, numpy.ndarray], i: int) -> Dict[str, Any]:
        """Sequence ``i`` of the batch: tag, data and classes (cut), the rec output, lengths, the weights."""
        out_len, enc_len = values["output_len"][i], values["encoder_len"][i]
        entry: Dict[str, Any] = {"tag": batch.seq_tags[i]}
        for data_key in ("data", "classes"):
            if data_key in batch.data:
                arr = batch.data[data_key][i]
                if data_key in batch.seq_lens:
                    arr = arr[:int(batch.seq_lens[data_key][i])]
                entry[data_key] = arr
        entry.update(output=values["output"][i], output_len=out_len, encoder_len=enc_len)
        for att in self.att_layers:
            value = values["rec_%s" % att.name]
            entry["rec_%s" % att.name] = att.per_seq(value, i, int(out_len), int(enc_len))
            self.stats[att.name].collect(att.padded(value, i).reshape(-1))
        return entry

    def close(self) -> None:
        """Closes the HDF file (when writing one)."""
        if self.writer is not None:
            self.writer.close()


def _min_seq_len(value: Any) -> Any:
    """``--min_seq_len``: an int or a dict literal (per data key); 0/None: no minimum."""
    if isinstance(value, str):
        from returnn.util.literal_py_to_pickle import literal_eval

        value = literal_eval(value)
    return value or None


def _write(entries: Dict[int, Dict[str, Any]], batch, *, writer, output_format: str, dump_dir: Optional[str],
           file_name: str, first_layer: str) -> None:
    if output_format == "npy":
        path = os.path.join(dump_dir, file_name + ".npy")
        tmp = path + ".tmp-%i.npy" % os.getpid()
        numpy.save(tmp, entries)
        os.replace(tmp, path)
    elif output_format == "hdf":
        for entry in entries.values():
            att = numpy.asarray(entry[first_layer], dtype="float32")
            writer.insert_batch(inputs=att.reshape(1, -1), seq_len=[att.size], seq_tag=[entry["tag"]],
                                extra={"sizes": numpy.array([att.shape[:2]], dtype="int32")})
    else:
        _write_png(entries, dump_dir, file_name)


def _write_png(entries: Dict[int, Dict[str, Any]], dump_dir: str, file_name: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for i, entry in entries.items():
        for key, value in entry.items():
            if not key.startswith("rec_"):
                continue
            fig, ax = plt.subplots()
            ax.matshow(numpy.asarray(value), aspect="auto")
            ax.set_title("%s %s" % (entry["tag"], key[len("rec_"):]))
            fig.savefig(os.path.join(dump_dir, "%s_%i_%s.png" % (file_name, i, key[len("rec_"):])))
            plt.close(fig)
