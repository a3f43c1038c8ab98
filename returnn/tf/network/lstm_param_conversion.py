"""Loading the params of one LSTM unit of a ``rec`` layer from a checkpoint saved with another LSTM unit (as the
reference does): the native layout (``<layer>/rec/W`` ``[n_in, 4n]``, ``W_re`` ``[n, 4n]``, ``b`` ``[4n]``, gate
blocks cell input, input, forget, output: ``nativelstm``, ``nativelstm2``, ``lstm``, ``lstmblock``, ...) and
TensorFlow's cell layout (``<layer>/rec/lstm_cell/kernel`` ``[n_in + n, 4n]`` (input rows, then recurrent rows)
and ``.../bias`` ``[4n]``, gate blocks input, cell input, forget, output: ``standardlstm``; ``basic_lstm_cell/...``
for ``basiclstm``). The conversion reorders the gate blocks and splits or joins the kernel; biases are converted
as they are (a ``forget_bias`` of the TF cell units is added at run time, not stored, so it is not converted: use
``forget_bias`` 0 for an exact conversion).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

import numpy

_CELL_SCOPES = ("lstm_cell", "basic_lstm_cell")
_NATIVE = ("W", "W_re", "b")


def _swap_first_gates(value: numpy.ndarray, n: int) -> numpy.ndarray:
    """:return: ``value`` with the first two gate blocks (``n`` columns each) of its last axis swapped (this maps
    either gate order to the other)"""
    return numpy.concatenate([value[..., n:2 * n], value[..., :n], value[..., 2 * n:]], axis=-1)


def converted_lstm_param(name: str, shape: Sequence[int], get_tensor: Callable[[str], numpy.ndarray],
                         available: Dict[str, Any]) -> Optional[numpy.ndarray]:
    """
    :param name: the network's param name, e.g. ``"lstm1/rec/lstm_cell/kernel"`` or ``"lstm1/rec/W_re"``
    :param shape: its shape
    :param get_tensor: checkpoint name -> value
    :param available: the checkpoint's names
    :return: the param's value converted from the other LSTM layout in the checkpoint, or None if ``name`` is no
        LSTM param or the checkpoint has no other layout of it
    """
    prefix, sep, local = name.rpartition("/rec/")
    if not sep:
        return None
    base = prefix + sep
    if local in _NATIVE:
        for scope in _CELL_SCOPES:
            kernel_name, bias_name = f"{base}{scope}/kernel", f"{base}{scope}/bias"
            if kernel_name in available and bias_name in available:
                kernel = get_tensor(kernel_name)
                n = kernel.shape[1] // 4
                n_in = kernel.shape[0] - n
                value = {"W": kernel[:n_in], "W_re": kernel[n_in:], "b": get_tensor(bias_name)}[local]
                return _swap_first_gates(value, n)
        return None
    scope, _, kind = local.rpartition("/")
    if scope not in _CELL_SCOPES or kind not in ("kernel", "bias"):
        return None
    if all(base + p in available for p in _NATIVE):
        n = shape[-1] // 4
        if kind == "bias":
            return _swap_first_gates(get_tensor(base + "b"), n)
        return _swap_first_gates(numpy.concatenate([get_tensor(base + "W"), get_tensor(base + "W_re")], axis=0), n)
    for other in _CELL_SCOPES:  # the other TF cell: the same layout
        if other != scope and f"{base}{other}/{kind}" in available:
            return get_tensor(f"{base}{other}/{kind}")
    return None
