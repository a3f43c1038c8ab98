"""Writes a session's graph and variables as a TF SavedModel (the TF1 builder: one MetaGraph tagged ``serve``,
the variables saved in ``variables/`` with their values from the session, not frozen into constants)."""

from __future__ import annotations

import os
import shutil
from typing import Dict, Sequence

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.tf.export.signature import Signature

tf1 = tf.compat.v1
SERVE_TAG = "serve"


def _tensor_info(tensor: tf.Tensor):
    from tensorflow.core.protobuf import meta_graph_pb2

    return meta_graph_pb2.TensorInfo(name=tensor.name, dtype=tensor.dtype.as_datatype_enum,
                                     tensor_shape=tensor.shape.as_proto())


def signature_def(signature: Signature):
    """:return: the ``SignatureDef`` (method ``tensorflow/serving/predict``) of ``signature``"""
    from tensorflow.core.protobuf import meta_graph_pb2

    proto = meta_graph_pb2.SignatureDef(method_name=tf1.saved_model.PREDICT_METHOD_NAME)
    for name, tensor in signature.inputs.items():
        proto.inputs[name].CopyFrom(_tensor_info(tensor))
    for name, tensor in signature.outputs.items():
        proto.outputs[name].CopyFrom(_tensor_info(tensor))
    return proto


def write_saved_model(session, signatures: Dict[str, Signature], export_dir: str, *, overwrite: bool = False,
                      tags: Sequence[str] = (SERVE_TAG,)) -> None:
    """Writes ``session.graph`` with ``signatures`` (name -> :class:`Signature`) and the current values of all global
    variables to ``export_dir`` (written under a temporary name next to it, then renamed into place). The graph's
    table initializers (collection ``table_initializer``) become the SavedModel's main op, run when it is loaded.

    :param overwrite: replace an existing ``export_dir``
    :raises ConfigValueError: ``export_dir`` exists (without ``overwrite``), or no signature given
    """
    if not signatures:
        raise ConfigValueError("signatures", expected="at least one signature to export", got=signatures)
    export_dir = os.path.abspath(export_dir)
    if os.path.exists(export_dir) and not overwrite:
        raise ConfigValueError("output_dir", expected="a directory that does not exist yet (or --overwrite)",
                               got=export_dir)
    tmp = "%s.tmp-%i" % (export_dir, os.getpid())
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    os.makedirs(os.path.dirname(export_dir), exist_ok=True)
    graph = session.graph
    with graph.as_default():
        # lookup tables (e.g. a vocabulary) are filled by their initializers when the SavedModel is loaded
        tables = tf1.get_collection(tf1.GraphKeys.TABLE_INITIALIZERS)
        main_op = tf.group(*tables, name="export_init_tables") if tables else None
        builder = tf1.saved_model.Builder(tmp)
        builder.add_meta_graph_and_variables(
            session, list(tags), signature_def_map={name: signature_def(sig) for name, sig in signatures.items()},
            clear_devices=True, strip_default_attrs=True, main_op=main_op)
        builder.save()
    if os.path.exists(export_dir):
        old = "%s.old-%i" % (export_dir, os.getpid())
        os.replace(export_dir, old)
        os.replace(tmp, export_dir)
        shutil.rmtree(old)
    else:
        os.replace(tmp, export_dir)
