"""``init_dataset``: builds a dataset from a config value (dict, instance, callable or string)."""

from __future__ import annotations

import ast
import os
from typing import Any, Dict, Optional

from returnn.errors import DatasetArgError, UnknownNameError
from returnn.datasets.dataset import Dataset, invalid_kwarg
from returnn.datasets.registry import accepted_kwargs, get_dataset_class


def _parse_value(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _looks_like_hdf_files(text: str) -> bool:
    """Whether a dataset string names HDF files (comma-separated paths) rather than a class: one of the parts
    exists as a file, or has a path separator or the ``.hdf`` suffix (a missing file then fails in HDFDataset,
    naming it; a bare misspelled class name still gets the unknown-class error with suggestions)."""
    name = text.partition(":")[0].strip()
    if name.isidentifier():
        try:
            get_dataset_class(name, context="dataset string")
            return False  # "ClassName:key=/some/path,..."
        except UnknownNameError:
            pass
    parts = text.split(",")
    return any(os.path.isfile(p) or os.sep in p or p.endswith(".hdf") for p in parts)


def _parse_string(spec: str) -> Dict[str, Any]:
    """``"{'class': ...}"`` (a dict literal), ``"ClassName"``, ``"ClassName:key=value,key=value"``, or HDF file
    names ``"a.hdf,b.hdf"`` (an ``HDFDataset`` of these files, as the reference)."""
    text = spec.strip()
    if text.startswith("{"):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError) as exc:
            raise DatasetArgError(f"dataset string {spec!r} is not a valid dict literal: {exc}") from None
        if not isinstance(value, dict):
            raise DatasetArgError(f"dataset string {spec!r}: expected a dict literal")
        return value
    if _looks_like_hdf_files(text):
        return {"class": "HDFDataset", "files": text.split(",")}
    name, _, rest = text.partition(":")
    result: Dict[str, Any] = {"class": name.strip()}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise DatasetArgError(f"dataset string {spec!r}: expected 'ClassName:key=value,...', "
                                      f"got item {item!r}")
            result[key.strip()] = _parse_value(value.strip())
    return result


def init_dataset(spec: Any, extra_kwargs: Optional[Dict[str, Any]] = None,
                 default_kwargs: Optional[Dict[str, Any]] = None) -> Dataset:
    """Builds a dataset.

    :param spec: a dict ``{"class": "<Name>", **kwargs}`` (``class`` may also be a Dataset subclass), a
        :class:`Dataset` instance (returned as is), a callable returning any of these, or a string: a dict
        literal, ``"ClassName"`` or ``"ClassName:key=value,..."``
    :param extra_kwargs: kwargs overriding the spec's
    :param default_kwargs: kwargs used where the spec has none
    :return: the dataset; ``init_seq_order`` is not called yet
    :raises UnknownNameError: unknown class (listing known classes, with the closest match)
    :raises DatasetArgError: missing ``class``, or a kwarg the class does not accept (naming both)
    """
    if isinstance(spec, Dataset):
        return spec
    if isinstance(spec, str):
        spec = _parse_string(spec)
    if callable(spec) and not isinstance(spec, dict) and not isinstance(spec, type):
        return init_dataset(spec(), extra_kwargs=extra_kwargs, default_kwargs=default_kwargs)
    if not isinstance(spec, dict):
        raise DatasetArgError(f"dataset: expected a dict with 'class', a Dataset, a callable or a str, "
                              f"got {type(spec).__name__}: {spec!r}")
    kwargs = dict(default_kwargs or {})
    kwargs.update(spec)
    kwargs.update(extra_kwargs or {})
    if "class" not in kwargs:
        raise DatasetArgError(f"dataset dict {spec!r} has no 'class' entry (e.g. 'class': 'HDFDataset')")
    cls_spec = kwargs.pop("class")
    if isinstance(cls_spec, type):
        cls = cls_spec
    elif isinstance(cls_spec, str):
        cls = get_dataset_class(cls_spec, context="dataset dict 'class'")
    else:
        raise DatasetArgError(f"dataset dict 'class': expected a class name str, got {cls_spec!r}")
    known = accepted_kwargs(cls)
    if known is not None:
        for key in kwargs:
            if key not in known:
                raise invalid_kwarg(cls.__name__, key, known)
    try:
        return cls(**kwargs)
    except TypeError as exc:
        if isinstance(exc, DatasetArgError):
            raise
        raise DatasetArgError(f"dataset {{\"class\": \"{cls.__name__}\"}}: {exc}") from exc


def init_dataset_via_str(config_str: str, config=None, **kwargs) -> Dataset:
    """Reference name: builds a dataset from its string form (see :func:`init_dataset`)."""
    return init_dataset(config_str, extra_kwargs=kwargs or None)


