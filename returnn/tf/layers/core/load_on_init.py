"""``load_on_init`` of a layer holding inner layers (a ``subnetwork``, also one flattened into a rec unit): the
inner layers' params set from a checkpoint after the network's initializers."""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError


def load_params_from_checkpoint(layer_name: str, spec: Dict[str, Any], params: Dict[str, Any], session: Any) -> None:
    """Sets ``params`` (``<inner>/<param>``) from the checkpoint of a ``load_on_init`` ``spec``, where they are named
    ``<params_prefix><inner>/<param>`` (a model saved from a network of the inner layers). An LSTM's params saved
    with another LSTM unit are converted (e.g. a ``rec`` layer's native ``W``/``W_re``/``b`` into an ``rnn_cell``
    ``LSTMBlock``'s ``rec/lstm_cell/kernel``/``bias``, as the reference does).

    :param spec: as :func:`check_load_on_init` returns
    :raises DataFileError: the file cannot be read; a param is missing (unless ``ignore_missing``) or has another
        shape
    """
    from returnn.errors import DataFileError
    from returnn.tf.network.lstm_param_conversion import converted_lstm_param
    from returnn.util.suggest import close_matches

    filename = spec["filename"]
    try:
        reader = tf.compat.v1.train.NewCheckpointReader(filename)
    except Exception as exc:  # noqa: BLE001 (TF raises various errors for a missing/corrupt file)
        raise DataFileError(filename, f"layer {layer_name!r} load_on_init: cannot read the checkpoint: "
                                      f"{str(exc).splitlines()[0]}") from exc
    available = reader.get_variable_to_shape_map()
    for param_name, param in sorted(params.items()):
        ckpt_name = spec.get("params_prefix", "") + param_name
        if ckpt_name in available:
            value = reader.get_tensor(ckpt_name)
        else:
            value = converted_lstm_param(ckpt_name, param.shape.as_list(), reader.get_tensor, available)
        if value is None:
            if spec.get("ignore_missing", False):
                continue
            similar = ", ".join(close_matches(ckpt_name, sorted(available))) or "none"
            raise DataFileError(filename, f"layer {layer_name!r} load_on_init: param {ckpt_name!r} not in the "
                                          f"checkpoint (similar: {similar})")
        if list(value.shape) != param.shape.as_list():
            raise DataFileError(filename, f"layer {layer_name!r} load_on_init: param {ckpt_name!r} has shape "
                                          f"{list(value.shape)}, the layer's has {param.shape.as_list()}")
        param.load(value, session=session)


def check_load_on_init(name: str, value: Any) -> Optional[Dict[str, Any]]:
    """:return: ``load_on_init`` as a dict (``filename``; optional ``params_prefix``, ``ignore_missing``), or None
    :raises LayerArgError: another type, or a dict without ``filename`` or with other keys"""
    if value is None:
        return None
    if isinstance(value, str):
        return {"filename": value}
    if isinstance(value, dict) and isinstance(value.get("filename"), str) \
            and set(value) <= {"filename", "params_prefix", "ignore_missing"}:
        return dict(value)
    raise LayerArgError(layer=name, layer_class="subnetwork", arg="load_on_init", problem="invalid value", got=value,
                        expected='a checkpoint filename, or {"filename": ..., "params_prefix": "", '
                                 '"ignore_missing": False}')
