"""Synthetic task datasets used by the reference's demos and tests (pure numpy).

Each sequence is drawn from ``self.random`` (see :class:`GeneratingDataset` for the seeding). Dims, keys and
label semantics follow the reference; the random streams are our own.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from returnn.errors import DatasetArgError
from returnn.datasets.dataset import DatasetSeq
from returnn.datasets.generating_base import GeneratingDataset
from returnn.datasets.registry import register_dataset


@register_dataset
class Task12AXDataset(GeneratingDataset):
    """The 12AX memory task.

    ``"data"``: dense one-hot ``float32 [T, 9]`` over the symbols ``"123ABCXYZ"`` (index 0 = ``"1"``, 3 = ``"A"``,
    6 = ``"X"``, ...). ``"classes"``: sparse ``int32 [T]``, dim 2 (``"L"`` = 0, ``"R"`` = 1). The target is 1
    exactly at an ``X`` whose last preceding letter among ``A B X Y`` is ``A`` when the last digit among
    ``1``/``2`` seen so far is ``1``, and at a ``Y`` whose last such letter is ``B`` when that digit is ``2``
    (the noise symbols ``3 C Z`` and the digits between them do not interrupt, as the reference).

    Generation (the reference's random calls, in its order, so the same seed gives its sequences): the length is
    ``randint(10, 100)``; the sequence starts with ``choice(["", "1", "2"])``; then, while shorter than the length:
    with probability 0.5 a digit ``choice(["1", "2"])``, with probability 0.9 a pair ``choice(["AX", "BY"])``,
    then noise symbols ``choice`` of all 9 while ``uniform() < 0.5``; the result is cut to the length.
    ``num_seqs`` defaults to infinite (as the reference; the epoch then never ends by itself).
    """

    _input_classes = "123ABCXYZ"
    _output_classes = "LR"

    def __init__(self, **kwargs):
        super().__init__(input_dim=len(self._input_classes), output_dim=len(self._output_classes), **kwargs)

    def get_random_seq_len(self) -> int:
        """Uniform in [10, 99]: ``randint(10, 100)``."""
        return int(self.random.randint(10, 100))

    def generate_input_seq(self, seq_len: int) -> List[int]:
        """Symbol indices of one input sequence of length ``seq_len`` (see the class doc)."""
        rnd = self.random
        symbols = list(self._input_classes)
        seq = str(rnd.choice(["", "1", "2"]))
        while len(seq) < seq_len:
            if rnd.uniform() < 0.5:
                seq += str(rnd.choice(["1", "2"]))
            if rnd.uniform() < 0.9:
                seq += str(rnd.choice(["AX", "BY"]))
            while rnd.uniform() < 0.5:
                seq += str(rnd.choice(symbols))
        return [self._input_classes.index(c) for c in seq[:seq_len]]

    @classmethod
    def make_output_seq(cls, input_seq: List[int]) -> List[int]:
        """Targets of a symbol-index sequence (see the class doc)."""
        out = []
        last_digit: Optional[int] = None
        last_letter: Optional[int] = None  # among A B X Y (3, 4, 6, 7)
        for sym in input_seq:
            hit = (sym == 6 and last_letter == 3 and last_digit == 0) or (
                sym == 7 and last_letter == 4 and last_digit == 1)
            out.append(1 if hit else 0)
            if sym in (0, 1):
                last_digit = sym
            elif sym in (3, 4, 6, 7):
                last_letter = sym
        return out

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        input_seq = self.generate_input_seq(self.get_random_seq_len())
        data = np.zeros((len(input_seq), len(self._input_classes)), dtype=np.float32)
        data[np.arange(len(input_seq)), input_seq] = 1.0
        classes = np.array(self.make_output_seq(input_seq), dtype=np.int32)
        return DatasetSeq(seq_idx, {"data": data, "classes": classes})


def _dummy_input(seq_idx: int, seq_len: int, input_dim: int, max_value: float, shift: Optional[float],
                 scale: Optional[float]) -> np.ndarray:
    shift = -max_value / 2.0 if shift is None else shift
    scale = 1.0 / max_value if scale is None else scale
    if float(max_value).is_integer():  # the same values; an integer modulo is ~5x faster than a float one
        flat = ((np.arange(seq_len * input_dim) + seq_idx) % int(max_value)).astype(np.float64)
    else:
        flat = (np.arange(seq_len * input_dim) + seq_idx) % max_value
    return ((flat + shift) * scale).reshape(seq_len, input_dim).astype(np.float32)


@register_dataset
class DummyDataset(GeneratingDataset):
    """Deterministic dummy data (no randomness), as the reference:
    ``data[t, d] = (((t * input_dim + d + seq_idx) % input_max_value) + input_shift) * input_scale`` as
    ``float32 [seq_len, input_dim]`` (``input_shift`` default ``-input_max_value / 2``, ``input_scale``
    default ``1 / input_max_value``), ``classes[t] = (t + seq_idx) % output_dim`` as ``int32 [seq_len]``.
    """

    def __init__(self, input_dim: int, output_dim: int, num_seqs: int, seq_len: int = 2,
                 input_max_value: float = 10.0, input_shift: Optional[float] = None,
                 input_scale: Optional[float] = None, **kwargs):
        super().__init__(input_dim=input_dim, output_dim=output_dim, num_seqs=num_seqs, **kwargs)
        self.seq_len = seq_len
        self.input_max_value = input_max_value
        self.input_shift = input_shift
        self.input_scale = input_scale

    def _seq_len_of(self, key: str) -> int:
        return int(self.seq_len)

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        return self._seq_len_of("data")

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        in_len, out_len = self._seq_len_of("data"), self._seq_len_of("classes")
        data = _dummy_input(seq_idx, in_len, self.num_outputs["data"][0], self.input_max_value,
                            self.input_shift, self.input_scale)
        classes = ((np.arange(out_len) + seq_idx) % self.num_outputs["classes"][0]).astype(np.int32)
        return DatasetSeq(seq_idx, {"data": data, "classes": classes})


@register_dataset
class DummyDatasetMultipleSequenceLength(DummyDataset):
    """:class:`DummyDataset` with a separate length per key: ``seq_len = {"data": T_in, "classes": T_out}``
    (an int means the same for both; default ``{"data": 10, "classes": 20}``)."""

    def __init__(self, input_dim: int, output_dim: int, num_seqs: int, seq_len: Any = None,
                 input_max_value: float = 10.0, input_shift: Optional[float] = None,
                 input_scale: Optional[float] = None, **kwargs):
        if seq_len is None:
            seq_len = {"data": 10, "classes": 20}
        if isinstance(seq_len, int):
            seq_len = {"data": seq_len, "classes": seq_len}
        if not isinstance(seq_len, dict) or set(seq_len) != {"data", "classes"}:
            raise DatasetArgError(f"DummyDatasetMultipleSequenceLength: seq_len must be an int or a dict with keys "
                                  f"'data' and 'classes', got {seq_len!r}")
        super().__init__(input_dim=input_dim, output_dim=output_dim, num_seqs=num_seqs, seq_len=2,
                         input_max_value=input_max_value, input_shift=input_shift, input_scale=input_scale,
                         **kwargs)
        self.seq_len = dict(seq_len)

    def _seq_len_of(self, key: str) -> int:
        return int(self.seq_len[key])


@register_dataset
class CopyTaskDataset(GeneratingDataset):
    """Copy task: ``"data"`` and ``"classes"`` are the same random sparse sequence ``int32 [T]`` over
    ``nsymbols`` symbols, ``T`` uniform in ``[minlen, maxlen]``.

    ``minlen_epoch_factor`` / ``maxlen_epoch_factor`` grow the bounds with the epoch
    (``minlen + factor * (epoch - 1)``), as the reference's curriculum options.

    :raises DatasetArgError: unless ``0 < minlen <= maxlen``
    """

    def __init__(self, nsymbols: int, minlen: int = 0, maxlen: int = 0, minlen_epoch_factor: float = 0,
                 maxlen_epoch_factor: float = 0, **kwargs):
        super().__init__(input_dim=None, output_dim={"data": (nsymbols, 1), "classes": (nsymbols, 1)}, **kwargs)
        self.num_inputs = nsymbols
        if not 0 < minlen <= maxlen:
            raise DatasetArgError(f"CopyTaskDataset: need 0 < minlen <= maxlen, got minlen={minlen!r}, "
                                  f"maxlen={maxlen!r}")
        self.nsymbols = nsymbols
        self.minlen, self.maxlen = minlen, maxlen
        self.minlen_epoch_factor, self.maxlen_epoch_factor = minlen_epoch_factor, maxlen_epoch_factor

    def get_random_seq_len(self) -> int:
        """Uniform in ``[minlen, maxlen]`` (adjusted by the epoch factors)."""
        epoch = self.epoch or 1
        lo = int(self.minlen + self.minlen_epoch_factor * (epoch - 1))
        hi = max(int(self.maxlen + self.maxlen_epoch_factor * (epoch - 1)), lo)
        return int(self.random.randint(lo, hi + 1))

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        seq = self.random.randint(0, self.nsymbols, size=self.get_random_seq_len()).astype(np.int32)
        return DatasetSeq(seq_idx, {"data": seq, "classes": seq.copy()})


def _digits(value: int, base: int) -> List[int]:
    if value == 0:
        return [0]
    out = []
    while value > 0:
        value, rest = divmod(value, base)
        out.append(rest)
    return out[::-1]


@register_dataset
class TaskNumberBaseConvertDataset(GeneratingDataset):
    """Number base conversion: ``"data"`` is a random number's digits in ``input_base`` (length uniform in
    ``[min_input_seq_len, max_input_seq_len]``, leading zeros possible), ``"classes"`` the same number's digits
    in ``output_base`` (no leading zeros; ``[0]`` for zero). Both sparse ``int32 [T]``; labels are the digit
    characters (``labels["data"] = ["0", ..., "7"]``)."""

    _symbols = "0123456789abcdefghijklmnopqrstuvwxyz"

    def __init__(self, input_base: int = 8, output_base: int = 2, min_input_seq_len: int = 1,
                 max_input_seq_len: int = 8, **kwargs):
        for name, base in (("input_base", input_base), ("output_base", output_base)):
            if not 2 <= base <= len(self._symbols):
                raise DatasetArgError(f"TaskNumberBaseConvertDataset: {name} must be in [2, 36], got {base!r}")
        super().__init__(input_dim=None, output_dim={"data": (input_base, 1), "classes": (output_base, 1)},
                         **kwargs)
        self.num_inputs = input_base
        self.input_base, self.output_base = input_base, output_base
        self.min_input_seq_len, self.max_input_seq_len = min_input_seq_len, max_input_seq_len
        self.labels = {"data": list(self._symbols[:input_base]), "classes": list(self._symbols[:output_base])}

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        length = int(self.random.randint(self.min_input_seq_len, self.max_input_seq_len + 1))
        digits = self.random.randint(0, self.input_base, size=length)
        value = 0
        for d in digits:
            value = value * self.input_base + int(d)
        return DatasetSeq(seq_idx, {"data": digits.astype(np.int32),
                                    "classes": np.array(_digits(value, self.output_base), dtype=np.int32)})


