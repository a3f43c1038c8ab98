"""One sequence of a :class:`returnn.datasets.postprocessing.PostprocessingDataset` as a
:class:`returnn.tensor.TensorDict`, and the processing of a stream of them (used in the main process and in the
worker processes alike).

A raw sequence is a plain dict (picklable, sent to the workers): ``{"features": key -> numpy array, "seq_tag": str,
"seq_idx": int, "complete_frac": float or None}``. Its TensorDict has one Tensor per data key (numpy raw tensor;
dims as the reference names them: ``<key>_frame`` for the time axis, ``<key>_dim<i>`` for axis ``i``,
``<key>_sparse`` for the classes; the same Dim objects for every sequence) plus the scalars ``complete_frac``
(float32), ``seq_idx`` (int32) and ``seq_tag`` (dtype ``"string"``, a numpy str array), as observed.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np

from returnn.errors import DatasetArgError
from returnn.tensor import Dim, Tensor, TensorDict

# key -> (dtype, [(dim name, size or None), ...], sparse dim (name, size or None) or None)
KeySpec = Tuple[str, List[Tuple[str, Optional[int]]], Optional[Tuple[str, Optional[int]]]]


class SeqTemplate:
    """The keys of a sequence: a plain, picklable description; the Dims are made once per process.

    :param specs: key -> :data:`KeySpec`, in data key order
    """

    def __init__(self, specs: Dict[str, KeySpec]):
        self.specs = dict(specs)
        self._tensors: Optional[Dict[str, Tensor]] = None

    def __getstate__(self) -> dict:
        return {"specs": self.specs, "_tensors": None}

    @classmethod
    def from_dataset(cls, dataset: Any) -> SeqTemplate:
        """The data keys of ``dataset`` (its dtype, per-frame shape and sparsity)."""
        specs: Dict[str, KeySpec] = {}
        for key in dataset.get_data_keys():
            shape = list(dataset.get_data_shape(key))
            ndim = int(dataset.num_outputs[key][1]) if isinstance(dataset.num_outputs.get(key), (tuple, list)) \
                else len(shape) + 1
            num_dyn = max(ndim - len(shape), 0)
            sizes = [None] * num_dyn + shape
            dims = [(f"{key}_frame" if i == 0 and num_dyn else f"{key}_dim{i}", size) for i, size in enumerate(sizes)]
            sparse = (f"{key}_sparse", dataset.get_data_dim(key)) if dataset.is_data_sparse(key) else None
            specs[key] = (dataset.get_data_dtype(key), dims, sparse)
        return cls(specs)

    @classmethod
    def from_tensors(cls, tensors: Dict[str, Tensor]) -> SeqTemplate:
        """From Tensor templates (``map_outputs``); their own Dims are kept in this process."""
        specs: Dict[str, KeySpec] = {}
        for key, t in tensors.items():
            sparse = (t.sparse_dim.description, t.sparse_dim.dimension) if t.sparse_dim is not None else None
            specs[key] = (t.dtype, [(d.description, d.dimension) for d in t.dims], sparse)
        obj = cls(specs)
        obj._tensors = dict(tensors)
        return obj

    def tensors(self) -> Dict[str, Tensor]:
        """key -> Tensor template (made on first use in this process)."""
        if self._tensors is None:
            tensors = {}
            for key, (dtype, dims, sparse) in self.specs.items():
                sparse_dim = Dim(sparse[1], name=sparse[0]) if sparse is not None else None
                tensors[key] = Tensor(key, dims=[Dim(size, name=name) for name, size in dims], dtype=dtype,
                                      sparse_dim=sparse_dim)
            self._tensors = tensors
        return self._tensors

    def keys(self) -> List[str]:
        """The data keys, in order."""
        return list(self.specs)

    def to_tensor_dict(self, raw: Dict[str, Any]) -> TensorDict:
        """A raw sequence as a new TensorDict (see the module doc)."""
        out = TensorDict()
        for key, template in self.tensors().items():
            t = template.copy_template()
            t.raw_tensor = raw["features"][key]
            out.data[key] = t
        for key, dtype, value in (("complete_frac", "float32", raw.get("complete_frac")),
                                  ("seq_idx", "int32", raw["seq_idx"]), ("seq_tag", "string", raw["seq_tag"])):
            if value is None:
                continue
            t = Tensor(key, dims=[], dtype=dtype)
            t.raw_tensor = np.array(value) if dtype == "string" else np.array(value, dtype=dtype)
            out.data[key] = t
        return out

    def from_tensor_dict(self, tdict: Any, producer: str) -> Dict[str, Any]:
        """The raw sequence of a TensorDict that ``producer`` returned (only this template's keys are taken).

        :raises DatasetArgError: not a TensorDict, a key missing, or a raw tensor whose dtype differs from the
            key's
        """
        if not isinstance(tdict, TensorDict):
            raise DatasetArgError(f"PostprocessingDataset: {producer} must produce a TensorDict, but produced "
                                  f"{type(tdict).__name__}")
        features = {}
        for key, (dtype, _dims, _sparse) in self.specs.items():
            if key not in tdict.data:
                raise DatasetArgError(f"PostprocessingDataset: {producer} produced no {key!r} (the data keys are "
                                      f"{self.keys()}; set map_outputs when the keys change); got "
                                      f"{sorted(tdict.data)}")
            raw = np.asarray(tdict.data[key].raw_tensor)
            if str(raw.dtype) != dtype and not (dtype == "string" and raw.dtype.kind in "USO"):
                raise DatasetArgError(f"PostprocessingDataset: {producer} produced {key!r} with dtype {raw.dtype}, "
                                      f"but the key's dtype is {dtype} (set map_outputs for other dtypes)")
            features[key] = raw
        out: Dict[str, Any] = {"features": features, "seq_tag": None, "complete_frac": None}
        if "seq_tag" in tdict.data and tdict.data["seq_tag"].raw_tensor is not None:
            out["seq_tag"] = str(np.asarray(tdict.data["seq_tag"].raw_tensor))
        if "complete_frac" in tdict.data and tdict.data["complete_frac"].raw_tensor is not None:
            out["complete_frac"] = float(np.asarray(tdict.data["complete_frac"].raw_tensor))
        return out


def process_stream(raw_seqs: Iterator[Dict[str, Any]], *, in_template: SeqTemplate, out_template: SeqTemplate,
                   map_seq: Optional[Callable], map_seq_stream: Optional[Callable], epoch: int,
                   rng: np.random.RandomState) -> Iterator[Dict[str, Any]]:
    """Applies ``map_seq`` (per sequence: ``map_seq(tdict, epoch=, seq_idx=, rng=)``) or ``map_seq_stream``
    (``map_seq_stream(iterator of tdict, epoch=, rng=)``) to the raw sequences; yields the raw results."""
    tdicts = (in_template.to_tensor_dict(raw) for raw in raw_seqs)
    if map_seq_stream is not None:
        outputs = map_seq_stream(tdicts, epoch=epoch, rng=rng)
        try:
            outputs = iter(outputs)
        except TypeError:
            raise DatasetArgError(f"PostprocessingDataset: map_seq_stream must return an iterator of TensorDicts, "
                                  f"got {type(outputs).__name__}") from None
        for tdict in outputs:
            yield out_template.from_tensor_dict(tdict, "map_seq_stream")
    else:
        for tdict in tdicts:
            seq_idx = int(tdict.data["seq_idx"].raw_tensor)
            yield out_template.from_tensor_dict(map_seq(tdict, epoch=epoch, seq_idx=seq_idx, rng=rng), "map_seq")
