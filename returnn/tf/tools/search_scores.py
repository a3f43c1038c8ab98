"""``tools/debug-dump-search-scores.py``: runs the beam search of a config's rec layer over a dataset and writes,
per batch, the decided output and the per-step search values of each beam into an HDF file, as the reference's tool
(layout observed from it).

The network is changed as the reference's tool does: the rec layer (``--rec_layer_name``, default ``output``)
counts the frame of the end label in its length (``include_eos``); for each ``choice`` layer ``c`` of its unit,
the unit gets ``_c_value`` (the label), ``_c_beam_scores`` (the hypothesis' accumulated score) and ``_c_src_beams``
(the source beam), each as well ``..._raw`` (its own beam, so that outside the loop it is not backtracked); with
``--att_weights`` also ``_<layer>_spatial_sm_value`` for each ``softmax_over_spatial`` layer. Outside the loop:
``<rec>_final_decided`` (the best hypothesis) and ``<rec>__<name>_final`` (after backtracking) and
``<rec>__final_beam_scores`` (the final score of each hypothesis).

The HDF (one entry per batch, tag ``'<tag1><-><tag2>...'``): ``inputs`` = the decided output ``[B, T]`` flattened
(padded); extra streams ``<rec>__c_{value,beam_scores,src_beams}_{raw,final}`` (``[B*beam, T]`` flattened, padded;
beams of a sequence next to each other, best first), ``<rec>__final_beam_scores`` (``[B*beam]``), each with
``<key>_seq_lens`` (``[B*beam, n]`` sizes of its axes: ``[T_b]``, ``[T_b, T_enc]``, ``0`` without axes), and
``seq_sizes`` (``[B, 1]`` decided lengths) and ``seq_tags``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.tf.tools import common

GREETING = "RETURNN debug-dump-search-scores starting up."
SEARCH_VALUES = ("value", "beam_scores", "src_beams")


def add_search_dump_layers(net_dict: Dict[str, Any], *, rec_layer: str, att_weights: bool = False,
                           cheating: bool = False) -> Tuple[Dict[str, Any], Dict[str, str]]:
    """A copy of ``net_dict`` with the layers that keep the search values (see module doc).

    :return: the net dict, and the HDF's extra stream name -> the layer it holds (sorted by name)
    :raises ConfigValueError: ``rec_layer`` is no rec layer with a subnetwork unit holding a ``choice`` layer
    """
    rec = net_dict.get(rec_layer)
    if not isinstance(rec, dict) or not isinstance(rec.get("unit"), dict):
        from returnn.util.suggest import close_matches

        raise ConfigValueError("--rec_layer_name", expected="a rec layer with a subnetwork unit in the network",
                               got=rec_layer, suggestions=close_matches(rec_layer, list(net_dict)))
    unit = dict(rec["unit"])
    choices = [name for name, layer in unit.items() if isinstance(layer, dict) and layer.get("class") == "choice"]
    if not choices:
        raise ConfigValueError("--rec_layer_name", expected="a rec layer whose unit has a choice layer",
                               got=rec_layer)
    net = dict(net_dict)
    extra: Dict[str, str] = {}
    for choice in choices:
        if cheating:
            unit[choice] = dict(unit[choice], cheating=True)
        sources = {"value": {"class": "copy", "from": choice},
                   "beam_scores": {"class": "choice_get_beam_scores", "from": choice},
                   "src_beams": {"class": "choice_get_src_beams", "from": choice}}
        for kind in SEARCH_VALUES:
            name = "_%s_%s" % (choice, kind)
            unit[name] = dict(sources[kind], is_output_layer=True)
            unit[name + "_raw"] = {"class": "decide_keep_beam", "from": name, "is_output_layer": True}
            extra["%s_%s_raw" % (rec_layer, name)] = "%s/%s_raw" % (rec_layer, name)
            net["%s_%s_final" % (rec_layer, name)] = {"class": "copy", "from": "%s/%s" % (rec_layer, name)}
            extra["%s_%s_final" % (rec_layer, name)] = "%s_%s_final" % (rec_layer, name)
    if att_weights:
        for name, layer in list(unit.items()):
            if isinstance(layer, dict) and layer.get("class") == "softmax_over_spatial":
                sub = "_%s_spatial_sm_value" % name
                unit[sub] = {"class": "copy", "from": name, "is_output_layer": True}
                net["%s_%s_final" % (rec_layer, sub)] = {"class": "copy", "from": "%s/%s" % (rec_layer, sub)}
                extra["%s_%s_final" % (rec_layer, sub)] = "%s_%s_final" % (rec_layer, sub)
    net[rec_layer] = dict(rec, unit=unit, include_eos=True)
    net["%s_final_decided" % rec_layer] = {"class": "decide", "from": rec_layer}
    net["%s__final_beam_scores" % rec_layer] = {"class": "choice_get_beam_scores", "from": rec_layer}
    extra["%s__final_beam_scores" % rec_layer] = "%s__final_beam_scores" % rec_layer
    return net, dict(sorted(extra.items()))


def dump_search_scores(config_file: str, *, output_file: str, dataset: str = "config:train", epoch: int = -1,
                       rec_layer: str = "output", cheating: bool = False, att_weights: bool = False,
                       verbosity: int = 4, seq_list: Optional[Sequence[str]] = None,
                       command_line_options: Sequence[str] = ()) -> int:
    """Runs the tool (see module doc).

    :param epoch: the checkpoint ``<model>.<epoch>`` (-1: the newest)
    :param seq_list: only these sequence tags
    :return: the number of batches written
    :raises ConfigValueError: ``output_file`` exists, the rec layer has no choice layer, an unknown dataset
    """
    if os.path.exists(output_file):
        raise ConfigValueError("--output_file", expected="a file that does not exist yet", got=output_file)
    updates: Dict[str, Any] = {"task": "search", "log_verbosity": verbosity}
    if epoch is not None and epoch >= 0:
        updates["load_epoch"] = epoch
    rnn = common.start_up(config_file, greeting=GREETING, command_line_options=command_line_options,
                          with_data=False, config_updates=updates)
    engine, config = rnn.engine, rnn.config
    data = common.dataset_from_arg(rnn, config, dataset, option="--dataset")
    streams: Dict[str, str] = {}

    def post_proc(net_dict):
        net, extra = add_search_dump_layers(net_dict, rec_layer=rec_layer, att_weights=att_weights,
                                            cheating=cheating)
        streams.update(extra)
        return net

    engine.init_network_from_config(config, task="search", net_dict_post_proc=post_proc)
    network = engine.network
    run_epoch = engine.epoch or 1
    fetches: Dict[str, Any] = {}
    templates: Dict[str, Any] = {}
    with engine.graph.as_default():
        decided = network.get_layer("%s_final_decided" % rec_layer).output.copy_as_batch_major()
        fetches["decided"], fetches["decided:len"] = decided.placeholder, decided.get_sequence_lengths()
        for key, layer_name in streams.items():
            out = network.get_layer(layer_name).output.copy_as_batch_major()
            templates[key] = out
            fetches[key] = out.placeholder
            for n, axis in enumerate(out.get_dynamic_axes()):
                fetches["%s:len%i" % (key, n)] = out.dims[axis].dyn_size
    writer = _BatchWriter(output_file, decided.sparse_dim.dimension if decided.sparse else decided.dim)
    print("Search with network on %r." % (data,), file=log.v1)
    common.run_batches(engine, data, epoch=run_epoch, fetches=fetches, name="epoch %i search" % run_epoch,
                       step_callback=lambda batch, values: writer.write(batch, values, templates),
                       seq_list=seq_list)
    writer.close()
    print("Wrote search scores of %i batches to %r." % (writer.num_batches, output_file), file=log.v1)
    return writer.num_batches


class _BatchWriter:
    """One HDF entry per batch (see module doc)."""

    def __init__(self, filename: str, dim: int):
        from returnn.datasets.hdf_writer import SimpleHDFWriter

        self.writer = SimpleHDFWriter(filename, dim=dim, ndim=1)
        self.num_batches = 0

    def write(self, batch, values: Dict[str, numpy.ndarray], templates: Dict[str, Any]) -> None:
        """Writes the batch's entry."""
        decided, decided_lens = values["decided"], numpy.asarray(values["decided:len"], "int32")
        num_seqs = decided.shape[0]
        extra: Dict[str, numpy.ndarray] = {}
        lens: Dict[Any, Any] = {0: [decided.size]}
        types: Dict[str, Any] = {}
        for key, tmpl in templates.items():
            arr = values[key]
            beam = arr.shape[0] // max(num_seqs, 1)
            cols = [numpy.asarray(values["%s:len%i" % (key, n)], "int32")
                    for n in range(len(tmpl.get_dynamic_axes()))]
            cols = [numpy.repeat(c, arr.shape[0] // max(len(c), 1)) if len(c) != arr.shape[0] else c for c in cols]
            if cols and key.endswith("_final"):
                # as the reference (observed): after backtracking, every hypothesis counts the decided length
                cols[0] = numpy.repeat(decided_lens, beam)
            sizes = numpy.stack(cols, axis=1) if cols else numpy.zeros((arr.shape[0], 1), "int32")
            extra[key], lens[key] = arr.reshape((1, -1)), [arr.size]
            extra[key + "_seq_lens"], lens[key + "_seq_lens"] = sizes[None], [sizes.shape[0]]
            dim = tmpl.sparse_dim.dimension if tmpl.sparse else 1
            types[key] = (dim, 1, str(arr.dtype))
            types[key + "_seq_lens"] = (sizes.shape[1], 2, "int32")
        extra["seq_sizes"], lens["seq_sizes"] = decided_lens[None, :, None], [num_seqs]
        types["seq_sizes"] = (1, 2, "int32")
        tags = [str(t) for t in batch.seq_tags]
        extra["seq_tags"], lens["seq_tags"] = numpy.array([tags], dtype=object), [num_seqs]
        types["seq_tags"] = (1, 1, "object")  # variable-length strings, as the reference
        for key, value in types.items():
            self.writer.extra_type.setdefault(key, value)
        self.writer.insert_batch(decided.reshape((1, -1)), seq_len=lens, seq_tag=["<->".join(tags)], extra=extra)
        self.num_batches += 1

    def close(self) -> None:
        """Finishes the file."""
        self.writer.close()
