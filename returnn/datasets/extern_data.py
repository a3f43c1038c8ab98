"""``extern_data`` from the config (all its forms), from the legacy ``num_inputs``/``num_outputs``, from a
dataset, and checks against a dataset.

Forms the reference accepts, as observed (each value becomes a dict of :class:`returnn.tensor.Tensor` kwargs):

- ``extern_data = {"data": {"dim": 40}, "classes": {"dim": 5000, "sparse": True}}``: Tensor kwargs as they are;
- ``extern_data = {"data": (80, 2), "classes": (5000, 1)}``: ``(dim, ndim)`` with ``ndim`` counting the time
  axis: 1 is a sparse ``[B,T]`` with ``dim`` classes, 2 a dense ``[B,T,dim]``, 3 a dense ``[B,T,?,dim]``, ...;
  ``ndim`` must be at least 1 and ``dim`` an int or None;
- deprecated ``num_inputs = 40`` and ``num_outputs = 5000`` (an int: the classes of the default target, sparse)
  or a dict key -> int (sparse, dense for the default input), ``(dim, ndim)`` or Tensor kwargs. Both must be
  given (a ``num_outputs`` entry for the default input stands in for ``num_inputs``); the default input from
  ``num_inputs`` comes last. The deprecation warning is printed once per process (log level 2); with
  ``extern_data`` also given, they are ignored with a warning (every time).

The default target (``target``, ``"classes"``) and, when the default input (``default_input``, ``"data"``) is one
of the keys, every other key are not available for inference unless the entry says so
(``available_for_inference``), as the reference.
"""

from __future__ import annotations

import numbers
from typing import Any, Dict, Iterable, Optional

from returnn.errors import ConfigValueError
from returnn.datasets.dataset import Dataset
from returnn.options.data import DataOptions

DEPRECATION_NUM_IO = ("Using num_inputs/num_outputs instead of extern_data is deprecated and might be removed in "
                      "future versions")
IGNORED_NUM_IO = "Warning: Using extern_data and will ignore num_inputs/num_outputs in config."


def dim_ndim_to_kwargs(value: Any, *, where: str) -> Dict[str, Any]:
    """``(dim, ndim)`` -> Tensor kwargs: ndim 1 sparse ``[B,T]``, ndim n >= 2 dense with n-1 dynamic axes.

    :raises ConfigValueError: not a pair, ``dim`` not an int/None, ``ndim`` not an int >= 1 (the reference
        rejects these too)
    """
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ConfigValueError(where, expected="a dict of Tensor kwargs, or (dim, ndim) with ndim 1 (sparse) or "
                                               ">= 2 (dense)", got=value)
    dim, ndim = value
    if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
        raise ConfigValueError(where, expected="(dim, ndim) with dim an int or None", got=value,
                               hint=f"unexpected dimension type: {type(dim)}")
    if not isinstance(ndim, int) or ndim < 1:
        raise ConfigValueError(where, expected="(dim, ndim) with ndim an int >= 1 (1: sparse [B,T], 2: dense "
                                               "[B,T,dim])", got=value)
    if ndim == 1:
        return {"dim": dim, "shape": (None,), "sparse": True}
    return {"dim": dim, "shape": (None,) * (ndim - 1) + (dim,), "sparse": False}


def check_tensor_kwargs_dims(opts: Dict[str, Any], *, where: str) -> None:
    """Checks the sizes in one ``extern_data`` entry of Tensor kwargs: ``dim`` an int >= 0 or None, every
    ``shape`` entry an int >= 0 or None (the reference fails on others too, with ``TypeError: unexpected dimension
    type`` from ``Dim`` or ``Dimension -3 must be >= 0`` from TensorFlow).

    :raises ConfigValueError: naming ``where`` (e.g. ``extern_data['data']``), the key and the value found
    """
    def _bad(size: Any) -> bool:
        return size is not None and (not isinstance(size, numbers.Integral) or isinstance(size, bool) or size < 0)

    if "dim" in opts and _bad(opts["dim"]):
        raise ConfigValueError(where, expected="'dim' an int >= 0 (classes of a sparse input, features of a dense "
                                               "one) or None", got=opts["dim"],
                               hint=f"unexpected dimension type: {type(opts['dim'])}" if not isinstance(
                                   opts["dim"], numbers.Integral) else "a dimension must be >= 0")
    shape = opts.get("shape")
    if shape is not None and (not isinstance(shape, (tuple, list)) or any(_bad(size) for size in shape)):
        raise ConfigValueError(where, expected="'shape' a tuple of ints >= 0 or None (without the batch axis), "
                                               "e.g. (None, 40)", got=shape)


def extern_data_entry_to_kwargs(key: str, value: Any, *, default_input: str = "data",
                                default_target: str = "classes", keys: Optional[Iterable[str]] = None,
                                where: Optional[str] = None) -> Dict[str, Any]:
    """One ``extern_data`` value (Tensor kwargs or ``(dim, ndim)``) -> Tensor kwargs (a new dict).

    Unless the value says otherwise, ``available_for_inference`` is False for the default target, and for every
    key but the default input when the default input is one of ``keys`` (all keys of ``extern_data``; None: it
    is), as the reference.
    """
    where = where or f"extern_data[{key!r}]"
    if isinstance(value, dict):
        opts = dict(value)
        check_tensor_kwargs_dims(opts, where=where)
    else:
        opts = dim_ndim_to_kwargs(value, where=where)
    if "available_for_inference" not in opts:
        has_input = keys is None or default_input in keys
        if key == default_target or (has_input and key != default_input):
            opts["available_for_inference"] = False
    return opts


def _num_outputs_entry(key: str, value: Any, default_input: str) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return [value, 2 if key == default_input else 1]
    return value


def extern_data_from_config(config, *, print_warnings: bool = False) -> Optional[Dict[str, Dict[str, Any]]]:
    """:func:`extern_data_from_options` of ``config`` parsed as :class:`DataOptions`."""
    return extern_data_from_options(DataOptions.from_config(config), print_warnings=print_warnings)


def extern_data_from_options(opts: DataOptions, *, print_warnings: bool = False
                             ) -> Optional[Dict[str, Dict[str, Any]]]:
    """The data keys the parsed data options describe (``extern_data``, or ``num_inputs``/``num_outputs``), as
    Tensor kwargs per key in the reference's order; None if they describe none.

    :param print_warnings: print the reference's deprecation / ignored-keys warnings (log level 2)
    :raises ConfigValueError: a malformed entry (names the key), ``num_inputs`` or ``num_outputs`` missing
    """
    from returnn.log import log
    default_input, default_target = opts.default_input, opts.target
    has_num_io = opts.num_inputs is not None or opts.num_outputs is not None
    if opts.extern_data is not None:
        extern = opts.extern_data
        if not isinstance(extern, dict):
            raise ConfigValueError("extern_data", expected="a dict data key -> Tensor kwargs or (dim, ndim)",
                                   got=extern)
        if has_num_io and print_warnings:
            print(IGNORED_NUM_IO, file=log.v2)
        return {key: extern_data_entry_to_kwargs(key, value, default_input=default_input,
                                                 default_target=default_target, keys=extern.keys())
                for key, value in extern.items()}
    if not has_num_io:
        return None
    if print_warnings:
        log.print_deprecation_warning(DEPRECATION_NUM_IO)  # once per process
    num_inputs, num_outputs = opts.num_inputs, opts.num_outputs
    if isinstance(num_inputs, (tuple, list)) and num_inputs:
        num_inputs = num_inputs[0]
    if isinstance(num_outputs, dict) and default_input in num_outputs and not num_inputs:
        entry = _num_outputs_entry(default_input, num_outputs[default_input], default_input)
        num_inputs = entry.get("dim") if isinstance(entry, dict) else entry[0]
    if not num_inputs or not num_outputs:
        missing = "num_inputs" if not num_inputs else "num_outputs"
        raise ConfigValueError(missing, expected="both num_inputs and num_outputs, or extern_data",
                               got=getattr(opts, missing),
                               hint="provide extern_data in the config, e.g. extern_data = {'data': {'dim': 40}, "
                                    "'classes': {'dim': 10, 'sparse': True}}")
    spec: Dict[str, Any] = {}
    if isinstance(num_outputs, dict):
        for key, value in num_outputs.items():
            spec[key] = _num_outputs_entry(key, value, default_input)
    else:
        spec[default_target] = [num_outputs, 1]
    if default_input not in spec:
        spec[default_input] = [num_inputs, 2]
    return {key: extern_data_entry_to_kwargs(key, value, default_input=default_input, default_target=default_target,
                                             keys=spec.keys(), where=f"num_outputs[{key!r}]")
            for key, value in spec.items()}


def get_extern_data_dict_from_dataset(dataset: Dataset) -> Dict[str, Dict[str, Any]]:
    """key -> ``{"dim", "shape", "sparse", "dtype"}`` for every data key of the dataset.

    ``shape`` excludes the batch axis and starts with the dynamic time axis: ``(None,)`` for sparse,
    ``(None, dim)`` for dense (more static axes from ``get_data_shape``).
    """
    result: Dict[str, Dict[str, Any]] = {}
    for key in dataset.get_data_keys():
        sparse = dataset.is_data_sparse(key)
        entry: Dict[str, Any] = {
            "dim": dataset.get_data_dim(key),
            "shape": (None,) + tuple(dataset.get_data_shape(key)),
            "sparse": sparse,
            "dtype": dataset.get_data_dtype(key),
        }
        if key != "data":
            entry["available_for_inference"] = False
        result[key] = entry
    return result


def set_config_extern_data_from_dataset(config, dataset: Dataset) -> None:
    """Sets the config key ``extern_data`` (replacing any value) to the data keys of ``dataset``: per key
    ``batch_dim_axis`` 0, ``time_dim_axis`` 1, ``shape`` (a list, time first), ``dim``, ``sparse``, ``dtype`` and
    ``available_for_inference`` (True only for ``"data"``), as the reference writes it (observed)."""
    extern_data: Dict[str, Dict[str, Any]] = {}
    for key, entry in get_extern_data_dict_from_dataset(dataset).items():
        extern_data[key] = {"batch_dim_axis": 0, "time_dim_axis": 1, "shape": list(entry["shape"]),
                            "dim": entry["dim"], "sparse": entry["sparse"], "dtype": entry["dtype"],
                            "available_for_inference": entry.get("available_for_inference", True)}
    config.set("extern_data", extern_data)


def get_extern_data_from_config(config, dataset: Optional[Dataset] = None) -> Dict[str, Dict[str, Any]]:
    """:func:`get_extern_data_from_options` of ``config`` parsed as :class:`DataOptions`."""
    return get_extern_data_from_options(DataOptions.from_config(config), dataset)


def get_extern_data_from_options(opts: DataOptions, dataset: Optional[Dataset] = None
                                 ) -> Dict[str, Dict[str, Any]]:
    """``extern_data`` of the data options; else derived from ``num_inputs``/``num_outputs``; else from
    ``dataset``. When both the options and ``dataset`` describe data, they are checked against each other.

    :raises ConfigValueError: see :func:`extern_data_from_options`; no config entry and no dataset; a mismatch
    """
    extern = extern_data_from_options(opts)
    if extern is not None:
        if dataset is not None:
            key = "extern_data" if opts.extern_data is not None else "num_outputs"
            check_extern_data_against_dataset(extern, dataset, config_key=key)
        return extern
    if dataset is None:
        raise ConfigValueError("extern_data", expected="extern_data (or num_inputs/num_outputs) in the config, or a "
                                                       "train/dev/eval dataset to derive it from", got=None)
    return get_extern_data_dict_from_dataset(dataset)


def _expected_dim(spec: Dict[str, Any]) -> Optional[int]:
    if spec.get("dim") is not None:
        return int(spec["dim"])
    shape = spec.get("shape")
    if shape and not spec.get("sparse") and shape[-1] is not None:
        return int(shape[-1])
    return None


def check_extern_data_against_dataset(extern_data: Dict[str, Any], dataset: Dataset,
                                      config_key: str = "extern_data") -> None:
    """Checks dims and sparseness of every ``extern_data`` key the dataset provides.

    :raises ConfigValueError: naming the key, e.g. ``extern_data['data']: expected dim 100 ..., got 40``
    """
    keys = set(dataset.get_data_keys())
    for key, spec in extern_data.items():
        if key not in keys or not isinstance(spec, dict):
            continue
        ds_dim = dataset.get_data_dim(key)
        ds_sparse = dataset.is_data_sparse(key)
        where = f"{config_key}[{key!r}]"
        if "sparse" in spec and bool(spec["sparse"]) != ds_sparse:
            raise ConfigValueError(where, expected=f"sparse={bool(spec['sparse'])} (from the config)",
                                   got=f"sparse={ds_sparse} in dataset {dataset.name!r}",
                                   hint="make extern_data match the dataset's stream")
        want = _expected_dim(spec)
        if want is not None and want != ds_dim:
            raise ConfigValueError(where, expected=f"dim {want} (from the config)",
                                   got=f"dim {ds_dim} in dataset {dataset.name!r} ({type(dataset).__name__})",
                                   hint="make extern_data match the dataset's stream")
        shape = spec.get("shape")
        if shape is not None and not ds_sparse and not spec.get("sparse"):
            ds_shape = list(dataset.get_data_shape(key))
            if shape and shape[-1] is not None and ds_shape and shape[-1] != ds_shape[-1]:
                raise ConfigValueError(where, expected=f"shape {tuple(shape)} (from the config)",
                                       got=f"feature dim {ds_shape[-1]} in dataset {dataset.name!r}")
