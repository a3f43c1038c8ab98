"""``PostprocessingDataset``: applies user functions to the sequences of another dataset on the fly, at the
reference's path ``returnn.datasets.postprocessing`` (with the helpers ``LaplaceOrdering`` and ``Sequential``).

Each sequence of the sub dataset is given to the functions as a :class:`returnn.tensor.TensorDict` with numpy raw
tensors (see :mod:`returnn.datasets.postprocessing_seq`: the data keys plus ``complete_frac``, ``seq_idx``,
``seq_tag``):

- ``map_seq(tdict, *, epoch, seq_idx, rng, **kwargs) -> TensorDict``: one sequence in, one out;
- ``map_seq_stream(iterator, *, epoch, rng, **kwargs) -> iterator``: a stream of sequences in, a stream out (any
  number of sequences; ``num_seqs`` is then unknown unless ``map_seq_stream_preserves_num_seqs=True``).

``rng`` is a ``numpy.random.RandomState`` seeded per epoch (as the dataset's other random choices). A result's
``seq_tag`` / ``complete_frac`` entries become the sequence's tag and completed fraction; without them the tag is
``seq-<index>`` and the fraction the last known one. ``map_outputs`` (key -> Tensor kwargs dict, e.g.
``{"dims": [...], "dtype": "uint8", "sparse_dim": ...}``) declares the keys the functions produce when they
differ from the sub dataset's; a produced raw tensor must have its key's dtype.

With ``num_workers > 0`` the functions run in that many worker processes (see
:mod:`returnn.datasets.postprocessing_workers`); the functions must then be picklable (module-level).
``finish_epoch(free_resources=True)`` stops the workers and is passed on to the sub dataset.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

import numpy as np

from returnn.errors import DatasetArgError
from returnn.tensor import Tensor, TensorDict
from returnn.datasets.cached2 import CachedDataset2, OptionalNotImplementedError
from returnn.datasets.dataset import DatasetSeq
from returnn.datasets.init import init_dataset
from returnn.datasets.postprocessing_seq import SeqTemplate, process_stream
from returnn.datasets.postprocessing_workers import WorkerPool
from returnn.datasets.registry import register_dataset


@register_dataset
class PostprocessingDataset(CachedDataset2):
    """Runs ``map_seq`` or ``map_seq_stream`` over the sequences of ``dataset`` (see the module doc).

    :param dataset: the sub dataset (a dataset dict)
    :param map_seq: per-sequence function (exactly one of ``map_seq`` / ``map_seq_stream``)
    :param map_seq_stream: stream function
    :param map_outputs: key -> Tensor kwargs of the produced keys (default: the sub dataset's keys)
    :param map_seq_stream_preserves_num_seqs: with ``map_seq_stream``: it yields as many sequences as it reads,
        so ``num_seqs`` is the sub dataset's
    :param buf_size: results computed ahead per worker (>= 1)
    :param num_workers: worker processes (0: in this process)
    :raises DatasetArgError: none or both of ``map_seq`` / ``map_seq_stream``,
        ``map_seq_stream_preserves_num_seqs`` without ``map_seq_stream``, ``num_workers < 0``, ``buf_size < 1``,
        a bad ``map_outputs`` entry
    """

    def __init__(self, *, dataset: Dict[str, Any], map_seq: Optional[Callable] = None,
                 map_seq_stream: Optional[Callable] = None, map_outputs: Optional[Dict[str, Any]] = None,
                 map_seq_stream_preserves_num_seqs: Optional[bool] = None, buf_size: int = 1, num_workers: int = 0,
                 **kwargs):
        self._worker_procs: Optional[WorkerPool] = None
        self._multi_proc_data_iter: Optional[Iterator[Dict[str, Any]]] = None
        self._data_iter: Optional[Iterator[Dict[str, Any]]] = None
        super().__init__(**kwargs)
        if map_seq is None and map_seq_stream is None:
            raise DatasetArgError(f"{self}: need to either set map_seq or map_seq_stream")
        if map_seq is not None and map_seq_stream is not None:
            raise DatasetArgError(f"{self}: cannot set both map_seq and map_seq_stream")
        if map_seq_stream_preserves_num_seqs is not None and map_seq_stream is None:
            raise DatasetArgError(f"{self}: map_seq_stream_preserves_num_seqs is only allowed with map_seq_stream")
        if int(num_workers) < 0:
            raise DatasetArgError(f"{self}: num_workers must be >= 0, but got {num_workers}")
        if int(buf_size) < 1:
            raise DatasetArgError(f"{self}: buf_size must be >= 1, but got {buf_size}")
        self.map_seq, self.map_seq_stream = map_seq, map_seq_stream
        self._preserves_num_seqs = bool(map_seq_stream_preserves_num_seqs)
        self.num_workers, self.buf_size = int(num_workers), int(buf_size)
        self._dataset = init_dataset(dataset, default_kwargs={"name": f"{self.name}_dataset"})
        self._in_template = SeqTemplate.from_dataset(self._dataset)
        self._out_template = (self._in_template if map_outputs is None
                              else SeqTemplate.from_tensors(self._map_outputs_tensors(map_outputs)))
        self._init_meta(self._out_template)
        self._next_out_idx = 0
        self._complete_fracs: Dict[int, float] = {}
        self._last_complete_frac: Optional[float] = None

    def _map_outputs_tensors(self, map_outputs: Dict[str, Any]) -> Dict[str, Tensor]:
        if not isinstance(map_outputs, dict):
            raise DatasetArgError(f"{self}: map_outputs must be a dict key -> Tensor kwargs, got {map_outputs!r}")
        tdict = TensorDict()
        try:
            tdict.update(map_outputs, auto_convert=True)
        except Exception as exc:
            raise DatasetArgError(f"{self}: bad map_outputs: {exc}") from None
        return dict(tdict.data)

    def _init_meta(self, template: SeqTemplate) -> None:
        """num_outputs (key -> (dim, ndim)), labels, num_inputs and the dtypes from the output template."""
        num_outputs: Dict[str, Any] = {}
        self._data_dtypes = {}
        self._data_shapes: Dict[str, List[Optional[int]]] = {}
        for key, t in template.tensors().items():
            if t.sparse_dim is not None or (not t.dtype.startswith("float") and t.dtype != "string"
                                            and len(t.dims) == 1 and t.dims[0].dimension is None):
                dim = t.sparse_dim.dimension if t.sparse_dim is not None else None
            else:
                dim = t.dims[-1].dimension if t.dims else 1
            num_outputs[key] = (dim, len(t.dims))
            self._data_dtypes[key] = t.dtype
            self._data_shapes[key] = [d.dimension for d in t.dims[1:]] if t.dims and t.dims[0].dimension is None \
                else [d.dimension for d in t.dims]
        self.num_outputs = num_outputs
        self._data_keys = template.keys()
        self.labels = {k: list(v) for k, v in self._dataset.labels.items()
                       if k in num_outputs and template.tensors()[k].sparse_dim is not None}
        input_key = "data" if "data" in num_outputs else (self._data_keys[0] if self._data_keys else None)
        self.num_inputs = num_outputs[input_key][0] if input_key is not None else 0

    # ---------------------------------------------------------------- meta data
    def get_data_keys(self) -> List[str]:
        return list(self._data_keys)

    def get_data_dtype(self, key: str) -> str:
        self._check_key(key)
        return self._data_dtypes[key]

    def get_data_dim(self, key: str) -> Optional[int]:
        self._check_key(key)
        return self.num_outputs[key][0]

    def is_data_sparse(self, key: str) -> bool:
        self._check_key(key)
        return self._out_template.tensors()[key].sparse_dim is not None or (
            not self._data_dtypes[key].startswith("float") and self.num_outputs[key][1] == 1)

    def get_data_shape(self, key: str) -> List[Optional[int]]:
        self._check_key(key)
        return list(self._data_shapes[key])

    def have_seqs(self) -> bool:
        """Whether the current epoch has a sequence (loads the first one when the number is unknown)."""
        return self.is_less_than_num_seqs(0)

    # ---------------------------------------------------------------- epoch
    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        self._dataset.init_seq_order(epoch=self.epoch, seq_list=seq_list, seq_order=seq_order)
        if self.map_seq_stream is not None and not self._preserves_num_seqs:
            self._num_seqs = None
        else:
            try:
                self._num_seqs = self._dataset.num_seqs
            except NotImplementedError:
                self._num_seqs = None
        self._next_out_idx = 0
        self._complete_fracs = {}
        self._last_complete_frac = None
        seed = self._get_epoch_seed(self.epoch)
        if self.num_workers > 0:
            self._lazy_init_worker_procs()
            self._multi_proc_data_iter = self._worker_procs.start_epoch(self.epoch, seed, self._iter_sub_seqs())
            self._data_iter = self._multi_proc_data_iter
        else:
            self._data_iter = process_stream(self._iter_sub_seqs(), in_template=self._in_template,
                                             out_template=self._out_template, map_seq=self.map_seq,
                                             map_seq_stream=self.map_seq_stream, epoch=self.epoch,
                                             rng=np.random.RandomState(seed))
        return True

    def _lazy_init_worker_procs(self) -> None:
        if self._worker_procs is None:
            self._worker_procs = WorkerPool(num_workers=self.num_workers, buf_size=self.buf_size, map_seq=self.map_seq,
                                            map_seq_stream=self.map_seq_stream, in_template=self._in_template,
                                            out_template=self._out_template)

    def _iter_sub_seqs(self) -> Iterator[Dict[str, Any]]:
        """The sub dataset's sequences of this epoch as raw sequences (see postprocessing_seq)."""
        ds, keys = self._dataset, self._in_template.keys()
        try:
            num_seqs: Optional[int] = ds.num_seqs
        except NotImplementedError:
            num_seqs = ds.estimated_num_seqs
        get_complete_frac = getattr(ds, "get_complete_frac", None)
        idx = 0
        while ds.is_less_than_num_seqs(idx):
            ds.load_seqs(idx, idx + 1)
            if get_complete_frac is not None:
                frac = get_complete_frac(idx)
            else:
                frac = min((idx + 1) / num_seqs, 1.0) if num_seqs else None
            yield {"features": {k: ds.get_data(idx, k) for k in keys}, "seq_tag": ds.get_tag(idx), "seq_idx": idx,
                   "complete_frac": frac}
            idx += 1

    def finish_epoch(self, *, free_resources: bool = False) -> None:
        """Ends the epoch; with ``free_resources`` also stops the worker processes. Passed on to the sub
        dataset."""
        if free_resources:
            self._data_iter = None
            self._multi_proc_data_iter = None
            if self._worker_procs is not None:
                self._worker_procs.close()
                self._worker_procs = None
        super().finish_epoch(free_resources=free_resources)
        self._dataset.finish_epoch(free_resources=free_resources)

    def __del__(self):
        pool = getattr(self, "_worker_procs", None)
        if pool is not None:
            pool.close()

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.update(_worker_procs=None, _multi_proc_data_iter=None, _data_iter=None, epoch=None, _loaded={})
        return state

    # ---------------------------------------------------------------- sequences
    def _collect_single_seq(self, seq_idx: int) -> Optional[DatasetSeq]:
        if seq_idx < self._next_out_idx:
            raise DatasetArgError(f"{self}: sequence {seq_idx} was already produced and freed; this dataset reads "
                                  f"its sub dataset in order (next is {self._next_out_idx})")
        while self._data_iter is not None:
            try:
                raw = next(self._data_iter)
            except StopIteration:
                self._data_iter = None
                break
            idx = self._next_out_idx
            self._next_out_idx += 1
            if raw["complete_frac"] is not None:
                self._last_complete_frac = raw["complete_frac"]
            if self._last_complete_frac is not None:
                self._complete_fracs[idx] = self._last_complete_frac
            if idx == seq_idx:
                tag = raw["seq_tag"] if raw["seq_tag"] is not None else f"seq-{idx}"
                return DatasetSeq(idx, raw["features"], seq_tag=tag)
        return None

    def get_complete_frac(self, sorted_seq_idx: int, *, allow_only_lr_suitable: bool = False) -> Optional[float]:
        """The completed fraction of the epoch at sequence ``sorted_seq_idx``: the produced ``complete_frac``
        (or the last one before), else ``(idx + 1) / num_seqs`` when known, else None."""
        if sorted_seq_idx in self._complete_fracs:
            return self._complete_fracs[sorted_seq_idx]
        if self._num_seqs:
            return min((sorted_seq_idx + 1) / self._num_seqs, 1.0)
        return None

    def _no_stream(self, what: str) -> None:
        if self.map_seq_stream is not None:
            raise OptionalNotImplementedError(f"{self}: {what} is not allowed when map_seq_stream is set.")

    def get_current_seq_order(self) -> Sequence[int]:
        self._no_stream("get_current_seq_order")
        return self._dataset.get_current_seq_order()

    def have_corpus_seq_idx(self) -> bool:
        return self.map_seq_stream is None and self._dataset.have_corpus_seq_idx()

    def get_corpus_seq_idx(self, seq_idx: int) -> int:
        self._no_stream("get_corpus_seq_idx")
        return self._dataset.get_corpus_seq_idx(seq_idx)

    def get_total_num_seqs(self) -> int:
        self._no_stream("get_total_num_seqs")
        return self._dataset.get_total_num_seqs()

    def get_all_tags(self) -> List[str]:
        self._no_stream("get_all_tags")
        return self._dataset.get_all_tags()


class LaplaceOrdering:
    """A ``map_seq_stream`` function: groups of ``num_seqs_per_bin`` consecutive sequences, sorted by length,
    alternately ascending and descending (a "laplace" ordering); the groups' ``complete_frac`` values stay in
    their order (as the reference, observed).

    :param num_seqs_per_bin: sequences per group (>= 1)
    :param length_key: the key whose first axis is the length
    :raises DatasetArgError: ``num_seqs_per_bin < 1``
    """

    def __init__(self, num_seqs_per_bin: int, length_key: str = "data"):
        if int(num_seqs_per_bin) < 1:
            raise DatasetArgError(f"LaplaceOrdering: num_seqs_per_bin must be >= 1, got {num_seqs_per_bin!r}")
        self.num_seqs_per_bin = int(num_seqs_per_bin)
        self.length_key = length_key

    def _get_seq_len(self, tdict: TensorDict) -> int:
        return int(np.shape(tdict.data[self.length_key].raw_tensor)[0])

    def __call__(self, iterator: Iterator[TensorDict], **kwargs) -> Iterator[TensorDict]:
        descending = False
        iterator = iter(iterator)
        while True:
            group = []
            for tdict in iterator:
                group.append(tdict)
                if len(group) >= self.num_seqs_per_bin:
                    break
            if not group:
                return
            fracs = [tdict.data["complete_frac"].raw_tensor for tdict in group]
            group = sorted(group, key=self._get_seq_len, reverse=descending)
            for tdict, frac in zip(group, fracs):
                tdict.data["complete_frac"].raw_tensor = frac
                yield tdict
            descending = not descending


class Sequential:
    """Composes functions: ``Sequential(f, g)(x, **kwargs) == g(f(x, **kwargs), **kwargs)`` (e.g. several
    ``map_seq`` steps; the keyword arguments go to every function)."""

    def __init__(self, *postprocessing_funcs: Callable):
        self.funcs = list(postprocessing_funcs)

    def __call__(self, arg: Any, **kwargs) -> Any:
        for func in self.funcs:
            arg = func(arg, **kwargs)
        return arg
