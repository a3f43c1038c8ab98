"""``extern_data`` from a dataset, from the legacy ``num_inputs``/``num_outputs``, and checks against a dataset."""

from __future__ import annotations

from typing import Any, Dict, Optional

from returnn.errors import ConfigValueError
from returnn.datasets.dataset import Dataset


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


def get_extern_data_dict_from_num_outputs(num_inputs: Optional[int], num_outputs: Any,
                                          target: str = "classes") -> Dict[str, Dict[str, Any]]:
    """The legacy form: ``num_inputs`` (dense ``"data"`` dim) and ``num_outputs`` (int: sparse ``target`` dim;
    dict key -> dim or ``[dim, ndim]``; ``ndim`` 1 = sparse, 2 = dense)."""
    result: Dict[str, Dict[str, Any]] = {}
    if num_inputs is not None:
        result["data"] = {"dim": int(num_inputs), "shape": (None, int(num_inputs)), "sparse": False}
    if isinstance(num_outputs, dict):
        items = num_outputs.items()
    elif num_outputs is not None:
        items = [(target, [num_outputs, 1])]
    else:
        items = []
    for key, value in items:
        dim, ndim = (value, 1) if isinstance(value, int) else (int(value[0]), int(value[1]))
        if key == "data" and "data" in result and ndim == 2:
            continue
        sparse = ndim == 1
        result[key] = {"dim": dim, "shape": (None,) if sparse else (None, dim), "sparse": sparse}
    return result


def get_extern_data_from_config(config, dataset: Optional[Dataset] = None) -> Dict[str, Dict[str, Any]]:
    """``extern_data`` of the config; else derived from ``num_inputs``/``num_outputs``; else from ``dataset``.
    When both the config and ``dataset`` are given, they are checked against each other."""
    extern = config.typed_value("extern_data", None) if config.has("extern_data") else None
    if extern is not None:
        if not isinstance(extern, dict):
            raise ConfigValueError("extern_data", expected="a dict data key -> dict of Tensor kwargs", got=extern)
        if dataset is not None:
            check_extern_data_against_dataset(extern, dataset)
        return extern
    if config.has("num_outputs") or config.has("num_inputs"):
        num_outputs = config.typed_value("num_outputs", None)
        if num_outputs is None and config.has("num_outputs"):
            num_outputs = config.int("num_outputs", None)
        num_inputs = config.int("num_inputs", None) if config.has("num_inputs") else None
        extern = get_extern_data_dict_from_num_outputs(num_inputs, num_outputs,
                                                       target=config.value("target", "classes"))
        if dataset is not None:
            check_extern_data_against_dataset(extern, dataset, config_key="num_outputs")
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
