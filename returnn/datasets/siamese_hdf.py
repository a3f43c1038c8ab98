"""``SiameseHDFDataset``: triplets (anchor, positive, negative) of sequences for siamese / triplet-loss training,
read from HDF files in the "streams" layout, at the reference's path ``returnn.datasets.hdf``.

File layout (one or several files; sequences of all files in file order):

- ``seq_names``: the sequence names (variable-length strings);
- ``streams/<input_stream_name>/data/<seq name>``: ``float [T, dim]`` features of each sequence;
- ``streams/<seq_label_stream>/data/<seq name>``: ``int32 [1]``, the sequence's class;
- ``streams/<seq_label_stream>/feature_names``: the class names (their count is the number of classes).

Per epoch, every sequence (in the epoch's order, ``seq_ordering`` / ``partition_epoch`` as usual) is the anchor
of one triplet: the positive is another sequence of the anchor's class (the anchor itself when it is the only
one), the negative a sequence of another class, both drawn at random with the epoch's seed
(:attr:`SiameseHDFDataset.curr_epoch_triplets`, ``(anchor, positive, negative)`` indices into
:attr:`SiameseHDFDataset.all_seq_names`). The draws are this implementation's own (the reference draws others).

Data keys of a sequence (tag: the anchor's name), as the reference: ``features_0`` / ``features_1`` /
``features_2`` (anchor, positive, negative; ``[T_i, dim]``), ``classes_0`` / ``classes_1`` / ``classes_2``
(``int32 [1]``), ``classes_all`` (``int32 [3]``) and ``data`` (the anchor's features again). ``data`` is dense
here (the reference reports it as sparse with dim 1).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from returnn.datasets.cached2 import CachedDataset2
from returnn.datasets.dataset import DatasetSeq
from returnn.datasets.registry import register_dataset
from returnn.errors import DatasetArgError, DatasetFileError


def _decode(value: Any) -> str:
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


@register_dataset
class SiameseHDFDataset(CachedDataset2):
    """Triplets of sequences from "streams" HDF files; see the module doc.

    :param input_stream_name: the stream with the features (e.g. ``"features"``)
    :param seq_label_stream: the stream with each sequence's class (default ``"words"``, as the reference)
    :param class_distribution: not supported (must be None)
    :param files: the HDF files
    :raises DatasetArgError: no files, ``class_distribution`` given, fewer than two classes
    :raises DatasetFileError: a file that cannot be read or lacks a stream or a sequence
    """

    def __init__(self, input_stream_name: str, seq_label_stream: str = "words", class_distribution: Any = None,
                 files: Optional[Sequence[str]] = None, **kwargs):
        super().__init__(**kwargs)
        if class_distribution is not None:
            raise DatasetArgError("SiameseHDFDataset: class_distribution is not supported here (leave it None)")
        if not files:
            raise DatasetArgError("SiameseHDFDataset: 'files' is empty")
        import h5py

        self.input_stream_name = input_stream_name
        self.targets_stream = seq_label_stream
        self.files = list(files)
        self.h5_files = []
        #: sequence names of all files, in file order; the triplets index into this
        self.all_seq_names: List[str] = []
        #: sequence name -> index in :attr:`all_seq_names`
        self.seq_name_to_idx: Dict[str, int] = {}
        #: sequence name -> class
        self.seq_to_target: Dict[str, int] = {}
        #: class -> names of its sequences
        self.target_to_seqs: Dict[int, List[str]] = {}
        #: index in :attr:`all_seq_names` -> index of its file in :attr:`h5_files`
        self.file_indices: List[int] = []
        num_classes, feat_dim = None, None
        for file_idx, filename in enumerate(self.files):
            try:
                f = h5py.File(filename, "r")
                names = [_decode(x) for x in f["seq_names"][()]]
                feats = f["streams"][input_stream_name]["data"]
                labels = f["streams"][seq_label_stream]
                classes = {name: int(np.asarray(labels["data"][name][()]).reshape(-1)[0]) for name in names}
                n_classes = len(labels["feature_names"])
                dim = int(feats[names[0]].shape[-1]) if names else feat_dim
            except (OSError, KeyError) as exc:
                raise DatasetFileError(filename, f"SiameseHDFDataset: cannot read the streams "
                                                 f"{input_stream_name!r} / {seq_label_stream!r}: {exc}") from None
            self.h5_files.append(f)
            num_classes = n_classes if num_classes is None else max(num_classes, n_classes)
            feat_dim = dim if feat_dim is None else feat_dim
            for name in names:
                self.seq_name_to_idx[name] = len(self.all_seq_names)
                self.all_seq_names.append(name)
                self.file_indices.append(file_idx)
                self.seq_to_target[name] = classes[name]
                self.target_to_seqs.setdefault(classes[name], []).append(name)
        if len(self.target_to_seqs) < 2:
            raise DatasetArgError(f"SiameseHDFDataset: triplets need sequences of at least two classes, got "
                                  f"{sorted(self.target_to_seqs)}")
        self.num_inputs = int(feat_dim or 0)
        outputs: Dict[str, Any] = {"data": (self.num_inputs, 2), "classes_all": (int(num_classes), 1)}
        for i in range(3):
            outputs[f"features_{i}"] = (self.num_inputs, 2)
            outputs[f"classes_{i}"] = (int(num_classes), 1)
        self.num_outputs = outputs
        #: ``(anchor, positive, negative)`` per sequence of the current epoch
        self.curr_epoch_triplets: List[Tuple[int, int, int]] = []

    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        """Draws the epoch's triplets (one per anchor of the epoch's order)."""
        super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        if seq_order is not None:
            anchors = list(seq_order)
        elif seq_list is not None:
            anchors = [self.seq_name_to_idx[name] for name in seq_list]
        else:
            anchors = self.get_seq_order_for_epoch(self.epoch, len(self.all_seq_names))
        rnd = np.random.RandomState(self._get_epoch_seed(self.epoch))
        classes = sorted(self.target_to_seqs)
        triplets = []
        for anchor in anchors:
            name = self.all_seq_names[anchor]
            target = self.seq_to_target[name]
            same = [s for s in self.target_to_seqs[target] if s != name] or [name]
            positive = same[rnd.randint(len(same))]
            others = [c for c in classes if c != target]
            other = self.target_to_seqs[others[rnd.randint(len(others))]]
            negative = other[rnd.randint(len(other))]
            triplets.append((anchor, self.seq_name_to_idx[positive], self.seq_name_to_idx[negative]))
        self.curr_epoch_triplets = triplets
        self._num_seqs = len(triplets)
        return True

    def _read(self, idx: int) -> Tuple[np.ndarray, int]:
        name = self.all_seq_names[idx]
        f = self.h5_files[self.file_indices[idx]]
        return np.asarray(f["streams"][self.input_stream_name]["data"][name][()], dtype="float32"), \
            self.seq_to_target[name]

    def _collect_single_seq(self, seq_idx: int) -> Optional[DatasetSeq]:
        if seq_idx >= len(self.curr_epoch_triplets):
            return None
        features: Dict[str, np.ndarray] = {}
        classes = []
        for i, idx in enumerate(self.curr_epoch_triplets[seq_idx]):
            feats, target = self._read(idx)
            features[f"features_{i}"] = feats
            features[f"classes_{i}"] = np.array([target], dtype="int32")
            classes.append(target)
        features["classes_all"] = np.array(classes, dtype="int32")
        features["data"] = features["features_0"]
        anchor = self.all_seq_names[self.curr_epoch_triplets[seq_idx][0]]
        return DatasetSeq(seq_idx, features, seq_tag=anchor)

    def get_all_tags(self) -> List[str]:
        return list(self.all_seq_names)

    def get_total_num_seqs(self) -> int:
        return len(self.all_seq_names)

    def get_data_dtype(self, key: str) -> str:
        return "int32" if key.startswith("classes") else "float32"

    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state["h5_files"] = []
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        import h5py

        self.__dict__.update(state)
        self.h5_files = [h5py.File(fn, "r") for fn in self.files]
