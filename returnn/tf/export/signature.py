"""The named inputs and outputs of an exported network (a SavedModel signature).

Inputs are the extern data the outputs need, batch-major: ``<key>`` (the padded values, dtype of the data, e.g.
int32 ``[B, T]`` for sparse data, float32 ``[B, T, F]`` for dense features) and, per dynamic axis, its lengths,
int32 ``[B]``: ``<key>_seq_lens`` for the first (the time axis), ``<key>_size<axis>`` for a further one (``axis``
counted in the batch-major tensor, batch axis 0).

Outputs of the forward signature (:func:`forward_signature`): ``output``, the output layer's values batch-major
(``[B, T, ...]``; as ``task = "forward"`` writes them), and ``output_seq_lens`` int32 ``[B]`` when it has a time
axis (further dynamic axes: ``output_size<axis>``).

Outputs of the search signature (:func:`search_signature`): ``hypotheses`` ``[B, K, T]`` (K the beam size, best
first; values beyond a hypothesis' length are padding), ``hypotheses_seq_lens`` int32 ``[B, K]``, ``scores``
float32 ``[B, K]`` (the search's final scores, as ``task = "search"`` writes to the n-best lists).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List

import tensorflow as tf

from returnn.tf.export.errors import NotExportableError
from returnn.tf.export.graph_walk import layer_names, needed_ops, owner_layer

#: op types that hold a value fed from outside (a signature input, or an error when no extern data has it)
_PLACEHOLDER_TYPES = ("Placeholder",)


@dataclass
class Signature:
    """One signature: input name -> placeholder, output name -> tensor (all in one graph).

    :ivar inputs: the extern-data placeholders (see the module docstring for the names)
    :ivar outputs: the fetched tensors
    """

    inputs: Dict[str, tf.Tensor] = field(default_factory=dict)
    outputs: Dict[str, tf.Tensor] = field(default_factory=dict)


def _input_candidates(network: Any) -> List[tuple]:
    """:return: [(input name, placeholder tensor, extern data key)] for every extern data placeholder"""
    out = []
    for key, data in sorted(network.extern_data.data.items()):
        if data.placeholder is None:
            continue
        out.append((key, data.placeholder, key))
        sizes = data.size_placeholder or {}
        for i, axis_wo_batch in enumerate(sorted(sizes)):
            name = "%s_seq_lens" % key if i == 0 else "%s_size%i" % (key, axis_wo_batch + 1)
            out.append((name, sizes[axis_wo_batch], key))
    return out


def signature_inputs(network: Any, outputs: Dict[str, tf.Tensor]) -> Dict[str, tf.Tensor]:
    """:return: the extern-data placeholders that computing ``outputs`` needs, by input name (module docstring)
    :raises NotExportableError: a needed extern data is not batch-major, or the outputs need a placeholder that is
        no extern data (it could not be fed through the signature)
    """
    ops = needed_ops(outputs.values())
    needed = {op.name for op in ops}
    inputs: Dict[str, tf.Tensor] = {}
    fed = set()
    for name, tensor, key in _input_candidates(network):
        fed.add(tensor.op.name)
        if tensor.op.name not in needed:
            continue
        data = network.extern_data.data[key]
        if data.batch_dim_axis != 0:
            raise NotExportableError(
                "extern data %r is not batch-major (batch axis %r); the signature's inputs are batch-major"
                % (key, data.batch_dim_axis), hint="declare it batch-major in extern_data (the default)")
        inputs[name] = tensor
    names = layer_names(network)
    for op in ops:
        if op.type in _PLACEHOLDER_TYPES and op.name not in fed:
            raise NotExportableError("the outputs need the placeholder %r, which is no extern data and has no default"
                                     % op.name, layer=owner_layer(op.name, names), op_name=op.name)
    return inputs


def _batch_major(data: Any) -> Any:
    if data.batch_dim_axis is not None and data.batch_dim_axis != 0:
        return data.copy_as_batch_major()
    return data


def _lengths(data: Any) -> Dict[int, tf.Tensor]:
    """:return: {axis (batch-major, with batch) -> int32 lengths [B]} for the dynamic axes of ``data``"""
    out = {}
    for axis, dim in enumerate(data.dim_tags):
        if axis == data.batch_dim_axis or dim.dimension is not None:
            continue
        if dim.dyn_size is not None:
            out[axis] = dim.dyn_size
    return out


def forward_signature(network: Any, layer: Any) -> Signature:
    """The forward signature of ``layer`` (a layer of ``network``, built without search).

    :raises NotExportableError: see :func:`signature_inputs`
    """
    data = _batch_major(layer.output)
    outputs = {"output": tf.identity(data.placeholder, name="export_output")}
    for i, (axis, lens) in enumerate(sorted(_lengths(data).items())):
        name = "output_seq_lens" if i == 0 else "output_size%i" % axis
        outputs[name] = tf.identity(tf.cast(lens, tf.int32), name="export_" + name)
    return Signature(inputs=signature_inputs(network, outputs), outputs=outputs)


def beam_layer(network: Any, layer: Any) -> Any:
    """:return: ``layer`` when its output has a beam with final scores (a searched rec layer), else the source of a
        ``decide`` layer that has one
    :raises NotExportableError: neither
    """
    beam = getattr(layer.output, "beam", None)
    if beam is not None and getattr(beam, "scores", None) is not None:
        return layer
    for src in getattr(layer, "sources", ()) or ():
        src_beam = getattr(src.output, "beam", None)
        if src_beam is not None and getattr(src_beam, "scores", None) is not None:
            return src
    raise NotExportableError("layer %r has no beam search result (no beam with final scores, and it decides on "
                             "none)" % layer.name, layer=layer.name,
                             hint="name the searched rec layer, or the decide layer over it (search_output_layer)")


def search_signature(network: Any, layer: Any) -> Signature:
    """The search signature of ``layer`` (of ``network``, built with the search flag): the full beam of the rec
    layer it is, or that it decides on (see :func:`beam_layer`).

    :raises NotExportableError: no beam there; see :func:`signature_inputs`
    """
    layer = beam_layer(network, layer)
    data = _batch_major(layer.output)
    beam = layer.output.beam
    k = beam.beam_size
    lengths = _lengths(data)
    if len(lengths) != 1:
        raise NotExportableError("the searched output of layer %r has %i dynamic axes; expected one (the hypotheses' "
                                 "time axis)" % (layer.name, len(lengths)), layer=layer.name)
    scores = tf.convert_to_tensor(beam.scores)
    batch = tf.shape(scores)[0]
    values = data.placeholder  # [B*K, T, ...], row b*K + k
    shape = tf.concat([[batch, k], tf.shape(values)[1:]], axis=0)
    outputs = {
        "hypotheses": tf.reshape(values, shape, name="export_hypotheses"),
        "hypotheses_seq_lens": tf.reshape(tf.cast(list(lengths.values())[0], tf.int32), [batch, k],
                                          name="export_hypotheses_seq_lens"),
        "scores": tf.identity(scores, name="export_scores"),
    }
    return Signature(inputs=signature_inputs(network, outputs), outputs=outputs)
