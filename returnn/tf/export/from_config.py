"""A config and a checkpoint to a SavedModel: the network built as ``task = "forward"`` builds it (train flag off),
the checkpoint loaded as that task loads it (``load``, ``load_epoch``, the newest epoch of ``model``), and, on
request, the search network built in the same graph (its params are the forward network's: the layers' variable
scopes reuse variables of the same name), both over the same extern-data placeholders."""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options import ForwardOptions, SearchOptions
from returnn.tf.export.errors import NotExportableError
from returnn.tf.export.graph_check import check_exportable
from returnn.tf.export.saved_model import write_saved_model
from returnn.tf.export.signature import Signature, forward_signature, search_signature

tf1 = tf.compat.v1

#: the names of the signatures written
FORWARD_SIGNATURE = "serving_default"
SEARCH_SIGNATURE = "search"


def _named_layer(network: Any, name: Optional[str], key: str) -> Any:
    if name is None:
        return network.get_default_output_layer()
    if name not in network.layers:
        from returnn.util.suggest import close_matches

        raise ConfigValueError(key, expected="a layer of the network", got=name,
                               suggestions=close_matches(name, list(network.layers)))
    return network.get_layer(name)


def _build_search_network(engine: Any) -> Any:
    """The config's network with the search flag, in the engine's graph, over the engine network's extern data."""
    from returnn.tf.engine import network_setup

    before = {v.name for v in tf1.global_variables()}
    network = network_setup.create_network(engine.config, extern_data=engine.network.extern_data,
                                           net_dict=engine.net_dict, train_flag=False, eval_flag=False,
                                           search_flag=True)
    new = sorted(v.name for v in tf1.global_variables() if v.name not in before)
    if new:
        raise NotExportableError("the search network has variables the forward network does not have: %s"
                                 % ", ".join(new[:5]), hint="export the search network alone (--no_forward)")
    return network


def build_signatures(engine: Any, *, forward: bool = True, search: bool = False,
                     output_layer: Optional[str] = None, search_output_layer: Optional[str] = None
                     ) -> Dict[str, Signature]:
    """The signatures of the network of ``engine`` (an :class:`~returnn.tf.engine.engine.Engine` after
    ``init_network_from_config(task="forward")``), built in its graph and checked (:func:`check_exportable`).

    :param forward: the forward signature (``serving_default``) of ``output_layer`` (default: config
        ``forward_output_layer``, else the network's output layer)
    :param search: the search signature (``search``) of ``search_output_layer`` (default: config
        ``search_output_layer``, else ``"output"``)
    :raises NotExportableError: a part of the graph that cannot be exported (names the layer)
    :raises ConfigValueError: an unknown layer name, or neither signature requested
    """
    if not forward and not search:
        raise ConfigValueError("signatures", expected="the forward or the search signature (or both)", got=None)
    config = engine.config
    signatures: Dict[str, Signature] = {}
    with engine.graph.as_default():
        if forward:
            name = output_layer or ForwardOptions.read_one(config, "forward_output_layer")
            layer = _named_layer(engine.network, name, "forward_output_layer")
            with tf.name_scope("export_forward"):
                signatures[FORWARD_SIGNATURE] = forward_signature(engine.network, layer)
            check_exportable(engine.network, signatures[FORWARD_SIGNATURE].outputs.values())
        if search:
            network = _build_search_network(engine)
            name = search_output_layer or SearchOptions.read_one(config, "search_output_layer") or "output"
            if not isinstance(name, str):
                raise ConfigValueError("search_output_layer", expected="one layer name", got=name)
            layer = _named_layer(network, name, "search_output_layer")
            with tf.name_scope("export_search"):
                signatures[SEARCH_SIGNATURE] = search_signature(network, layer)
            check_exportable(network, signatures[SEARCH_SIGNATURE].outputs.values())
    for sig_name, sig in signatures.items():
        print("Signature %r:" % sig_name, file=log.v3)
        for kind, tensors in (("input", sig.inputs), ("output", sig.outputs)):
            for key, tensor in tensors.items():
                print("  %s %r: %s %s" % (kind, key, tensor.dtype.name, tensor.shape), file=log.v3)
    return signatures


def export_saved_model(config: Any, output_dir: str, *, forward: bool = True, search: bool = False,
                       output_layer: Optional[str] = None, search_output_layer: Optional[str] = None,
                       overwrite: bool = False) -> Dict[str, Signature]:
    """Builds the network of ``config`` as ``task = "forward"`` does, loads its checkpoint and writes the
    SavedModel to ``output_dir`` (see :func:`build_signatures` for the signatures,
    :mod:`returnn.tf.export.signature` for their inputs and outputs).

    :return: the signatures written
    """
    from returnn.tf.engine.engine import Engine

    engine = Engine(config=config)
    try:
        engine.init_network_from_config(config, task="forward")
        signatures = build_signatures(engine, forward=forward, search=search, output_layer=output_layer,
                                      search_output_layer=search_output_layer)
        write_saved_model(engine.session, signatures, output_dir, overwrite=overwrite)
        print("SavedModel written to %s (signatures: %s)" % (output_dir, ", ".join(signatures)), file=log.v3)
    finally:
        engine.finalize()
    return signatures
