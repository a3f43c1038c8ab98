"""``CachedDataset2``: the base class users subclass for their own datasets (sequences produced one after the
other by :meth:`CachedDataset2._collect_single_seq`), at the reference's path ``returnn.datasets.cached2``.

The hooks, as the reference documents them for subclasses:

- ``__init__``: call ``super().__init__(**kwargs)``, set ``self.num_inputs``, ``self.num_outputs`` (key ->
  ``(dim, ndim)``), optionally ``self.labels``;
- ``init_seq_order(self, epoch=None, seq_list=None, seq_order=None)``: call ``super().init_seq_order(...)``
  (resets the loaded sequences), compute the epoch's order (``self.get_seq_order_for_epoch(epoch, num_seqs,
  get_seq_len)`` applies ``seq_ordering`` and ``partition_epoch``) and set ``self._num_seqs`` (None: unknown,
  then the end is found by :meth:`_collect_single_seq` returning None);
- ``_collect_single_seq(self, seq_idx) -> DatasetSeq | None``: sequence ``seq_idx`` of the current epoch, None
  past the end;
- optional: ``get_current_seq_order``, ``get_all_tags``, ``get_total_num_seqs``, ``supports_seq_order_sorting``.

``num_outputs`` may be given the short way, as the reference accepts: an int entry is a sparse key's dim
(``(dim, 1)``), and without a ``"data"`` entry a set ``num_inputs`` adds ``"data": (num_inputs, 2)``.

Observed reference behaviour kept: ``num_seqs`` is 0 before the first ``init_seq_order`` and raises
``NotImplementedError`` while ``_num_seqs`` is None; ``get_data_keys`` is sorted; ``get_all_tags`` /
``get_total_num_seqs`` / ``get_current_seq_order`` raise :class:`OptionalNotImplementedError` unless implemented.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from returnn.datasets.dataset import Dataset, DatasetSeq


class OptionalNotImplementedError(NotImplementedError):
    """An optional dataset method that this dataset does not implement (the reference's
    ``returnn.util.basic.OptionalNotImplementedError``)."""


class CachedDataset2(Dataset):
    """Base class of datasets that produce their sequences in order (see the module doc for the hooks)."""

    def __init__(self, **kwargs):
        self._num_outputs: Dict[str, Any] = {}
        super().__init__(**kwargs)
        self._num_seqs: Optional[int] = 0
        self.expected_load_seq_start = 0
        self.reached_final_seq = False
        self.added_data: List[DatasetSeq] = []

    @property
    def num_outputs(self) -> Dict[str, Any]:
        """key -> ``(dim, ndim)``; the short forms (see the module doc) are completed in place."""
        outputs = self._num_outputs
        for key, value in list(outputs.items()):
            if isinstance(value, int) and not isinstance(value, bool):
                outputs[key] = (value, 1)
        if "data" not in outputs and getattr(self, "num_inputs", 0):
            outputs["data"] = (int(self.num_inputs), 2)
        return outputs

    @num_outputs.setter
    def num_outputs(self, value: Dict[str, Any]) -> None:
        self._num_outputs = value

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        """Starts ``epoch``: forgets the loaded sequences. Subclasses compute the order and set ``_num_seqs``."""
        self.epoch = epoch if epoch is not None else 1
        self._loaded.clear()
        self.expected_load_seq_start = 0
        self.reached_final_seq = False
        self.added_data = []
        return True

    @property
    def num_seqs(self) -> int:
        """Sequences in this epoch.

        :raises NotImplementedError: the subclass set ``_num_seqs = None`` (unknown length)
        """
        if self._num_seqs is None:
            raise NotImplementedError(f"{self}: num_seqs is not known (_num_seqs is None)")
        return self._num_seqs

    def _collect_single_seq(self, seq_idx: int) -> Optional[DatasetSeq]:
        """Sequence ``seq_idx`` of the current epoch, or None past the end. Subclasses implement this."""
        raise NotImplementedError(f"{type(self).__name__}._collect_single_seq")

    def _get_seq(self, seq_idx: int) -> DatasetSeq:
        seq = self._loaded.get(seq_idx)
        if seq is None:
            if self.epoch is None:
                self.init_seq_order(epoch=1)
            seq = self._collect_single_seq(seq_idx) if seq_idx >= 0 else None
            if seq is None:
                self.reached_final_seq = True
                raise IndexError(f"{self.name}: seq_idx {seq_idx} is past the end of epoch {self.epoch}")
            seq.seq_idx = seq_idx
            self._loaded[seq_idx] = seq
            self.added_data = [self._loaded[i] for i in sorted(self._loaded)]
        return seq

    def is_less_than_num_seqs(self, n: int) -> bool:
        """``n < num_seqs``; with an unknown length, whether sequence ``n`` exists (it is loaded to find out)."""
        if self._num_seqs is not None:
            return n < self._num_seqs
        try:
            self._get_seq(n)
        except IndexError:
            return False
        return True

    def load_seqs(self, start: int, end: int) -> None:
        """Loads ``[start, end)`` (fewer at the end of the epoch); earlier loaded ones (< start) are freed."""
        if self.epoch is None:
            self.init_seq_order(epoch=1)
        for idx in [i for i in self._loaded if i < start]:
            del self._loaded[idx]
        self.expected_load_seq_start = start
        for idx in range(max(start, 0), end):
            if not self.is_less_than_num_seqs(idx):
                break
            self._get_seq(idx)

    def get_data_keys(self) -> List[str]:
        """All keys of ``num_outputs``, sorted (as the reference)."""
        return sorted(self.num_outputs)

    def get_current_seq_order(self) -> List[int]:
        raise OptionalNotImplementedError(f"{self} get_current_seq_order not implemented")

    def get_corpus_seq_idx(self, seq_idx: int) -> int:
        raise OptionalNotImplementedError(f"{self} get_corpus_seq_idx not implemented")

    def have_corpus_seq_idx(self) -> bool:
        return False

    def get_all_tags(self) -> List[str]:
        raise OptionalNotImplementedError(f"{self} get_all_tags not implemented")

    def get_total_num_seqs(self) -> int:
        raise OptionalNotImplementedError(f"{self} get_total_num_seqs not implemented")

    def supports_seq_order_sorting(self) -> bool:
        return False
