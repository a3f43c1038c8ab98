"""``ConcatSeqsDataset``: sequences of a dataset concatenated in time, as listed in a file, public at the
reference's path ``returnn.datasets.meta``.

``seq_list_file``: one line per new sequence, the tags of the sub sequences joined by ``seq_tag_delim``
(default ``;``); the new tag is that line. ``seq_len_file``: a Python dict literal tag -> length of the sub
sequences (the sorting orders use the sum over a line). Every data key is the concatenation of the sub
sequences' arrays along time, in the listed order (observed from the reference); ``seq_ordering`` /
``partition_epoch`` apply to the lines.
"""

from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from returnn.errors import DatasetArgError, DatasetFileError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.epoch_wise_filter import EpochWiseFilter
from returnn.datasets.init import init_dataset
from returnn.datasets.registry import register_dataset


def _read_text(filename: str, use_cache_manager: bool) -> str:
    if use_cache_manager:
        from returnn.util.files import cf

        filename = cf(filename)
    try:
        if filename.endswith(".gz"):
            import gzip

            with gzip.open(filename, "rt", encoding="utf8") as f:
                return f.read()
        with open(filename, encoding="utf8") as f:
            return f.read()
    except OSError as exc:
        raise DatasetFileError(filename, f"ConcatSeqsDataset: cannot read: {exc}") from None


@register_dataset
class ConcatSeqsDataset(Dataset):
    """Sequences of another dataset concatenated in time, as listed in ``seq_list_file`` (see the module doc).

    :param dataset: the sub dataset dict
    :param seq_list_file: lines of ``seq_tag_delim``-joined sub tags
    :param seq_len_file: dict literal sub tag -> length
    :param seq_tag_delim: separator of the sub tags in a line
    :param remove_in_between_postfix: key -> label: drop this last label of every sub sequence but the last
    :param repeat_in_between_last_frame_up_to_multiple_of: key -> n: pad every sub sequence but the last by
        repeating its last frame up to a multiple of ``n`` frames
    :param pad_narrow_data_to_multiple_of_target_len: not supported here (raises)
    :param use_cache_manager: accepted (local files are used)
    :param epoch_wise_filter: see :class:`returnn.datasets.epoch_wise_filter.EpochWiseFilter`
    :raises DatasetFileError: a file that cannot be read, a tag without a length
    """

    def __init__(self, dataset: Dict[str, Any], seq_list_file: str, seq_len_file: str, seq_tag_delim: str = ";",
                 remove_in_between_postfix: Optional[Dict[str, int]] = None,
                 repeat_in_between_last_frame_up_to_multiple_of: Optional[Dict[str, int]] = None,
                 pad_narrow_data_to_multiple_of_target_len: Optional[Dict[str, Any]] = None,
                 use_cache_manager: bool = False, epoch_wise_filter: Optional[Dict] = None, **kwargs):
        super().__init__(**kwargs)
        if pad_narrow_data_to_multiple_of_target_len:
            raise DatasetArgError("ConcatSeqsDataset: pad_narrow_data_to_multiple_of_target_len is not supported here")
        self.seq_tag_delim = seq_tag_delim
        self.full_seq_list = [line.strip() for line in _read_text(seq_list_file, use_cache_manager).splitlines()
                              if line.strip()]
        try:
            self.seq_lens = ast.literal_eval(_read_text(seq_len_file, use_cache_manager))
        except (ValueError, SyntaxError) as exc:
            raise DatasetFileError(seq_len_file, f"ConcatSeqsDataset: expected a dict literal tag -> length: "
                                                 f"{exc}") from None
        self.sub_tags = [line.split(seq_tag_delim) for line in self.full_seq_list]
        for tags in self.sub_tags:
            for tag in tags:
                if tag not in self.seq_lens:
                    raise DatasetFileError(seq_len_file, f"ConcatSeqsDataset: no length for sub sequence {tag!r}")
        self.remove_in_between_postfix = dict(remove_in_between_postfix or {})
        self.repeat_last = dict(repeat_in_between_last_frame_up_to_multiple_of or {})
        self.epoch_wise_filter = EpochWiseFilter(epoch_wise_filter) if epoch_wise_filter else None
        self.sub_dataset = init_dataset(dataset, default_kwargs={"name": f"{self.name}_sub"})
        self.num_outputs = dict(self.sub_dataset.num_outputs)
        self.num_inputs = self.sub_dataset.num_inputs
        self.labels = dict(self.sub_dataset.labels)
        self._data_dtypes = {k: self.sub_dataset.get_data_dtype(k) for k in self.sub_dataset.num_outputs}
        self._sub_index: Dict[str, int] = {}

    def get_total_num_seqs(self) -> int:
        return len(self.full_seq_list)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return self.full_seq_list[corpus_idx]

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        return sum(int(self.seq_lens[t]) for t in self.sub_tags[corpus_idx])

    def get_data_keys(self) -> List[str]:
        return self.sub_dataset.get_data_keys()

    def get_seq_order_for_epoch(self, epoch: Optional[int], num_seqs: int, get_seq_len=None) -> List[int]:
        order = super().get_seq_order_for_epoch(epoch, num_seqs, get_seq_len=get_seq_len)
        if self.epoch_wise_filter is not None:
            self.epoch_wise_filter.debug_msg_prefix = repr(self)
            order = self.epoch_wise_filter.filter(epoch=epoch or 1, seq_order=order,
                                                  get_seq_len=self._get_corpus_seq_len)
        return order

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        result = super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        needed = list(dict.fromkeys(t for i in self._seq_order_list for t in self.sub_tags[i]))
        self.sub_dataset.init_seq_order(epoch=self.epoch, seq_list=needed)
        self._sub_index = {tag: i for i, tag in enumerate(needed)}
        return result

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        tags = self.sub_tags[corpus_idx]
        parts: Dict[str, List[np.ndarray]] = {}
        for n, tag in enumerate(tags):
            if tag not in self._sub_index:  # not prepared for this epoch (e.g. explicit seq_order)
                self.sub_dataset.init_seq_order(epoch=self.epoch, seq_list=list(tags))
                self._sub_index = {t: i for i, t in enumerate(tags)}
            idx = self._sub_index[tag]
            self.sub_dataset.load_seqs(idx, idx + 1)  # frees the sub sequences before it
            last = n == len(tags) - 1
            for key in self.get_data_keys():
                arr = self.sub_dataset.get_data(idx, key)
                if not last and key in self.remove_in_between_postfix and len(arr) and \
                        arr[-1] == self.remove_in_between_postfix[key]:
                    arr = arr[:-1]
                if not last and key in self.repeat_last and len(arr):
                    multiple = int(self.repeat_last[key])
                    pad = (-len(arr)) % multiple
                    if pad:
                        arr = np.concatenate([arr, np.repeat(arr[-1:], pad, axis=0)], axis=0)
                parts.setdefault(key, []).append(arr)
        features = {key: np.concatenate(arrs, axis=0) for key, arrs in parts.items()}
        return DatasetSeq(corpus_idx, features, seq_tag=self.full_seq_list[corpus_idx])
