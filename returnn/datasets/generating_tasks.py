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
                 scale: Optional[float], dtype: Any = np.float32) -> np.ndarray:
    shift = -max_value / 2.0 if shift is None else shift
    scale = 1.0 / max_value if scale is None else scale
    if float(max_value).is_integer():  # the same values; an integer modulo is ~5x faster than a float one
        flat = ((np.arange(seq_len * input_dim) + seq_idx) % int(max_value)).astype(np.float64)
    else:
        flat = (np.arange(seq_len * input_dim) + seq_idx) % max_value
    return ((flat + shift) * scale).reshape(seq_len, input_dim).astype(dtype)


@register_dataset
class DummyDataset(GeneratingDataset):
    """Deterministic dummy data (no randomness), as the reference:
    ``data[t, d] = (((t * input_dim + d + seq_idx) % input_max_value) + input_shift) * input_scale`` as
    ``float32 [seq_len, input_dim]`` (``input_shift`` default ``-input_max_value / 2``, ``input_scale``
    default ``1 / input_max_value``); ``classes[t] = (seq_len * input_dim + t + seq_idx) % output_dim`` as
    ``int32 [seq_len]`` (the count continues after the data's frames).
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

    _float_dtype, _int_dtype = np.float32, np.int32

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        in_len, out_len = self._seq_len_of("data"), self._seq_len_of("classes")
        input_dim = self.num_outputs["data"][0]
        data = _dummy_input(seq_idx, in_len, input_dim, self.input_max_value, self.input_shift, self.input_scale,
                            dtype=self._float_dtype)
        classes = (np.arange(out_len) + in_len * input_dim + seq_idx) % self.num_outputs["classes"][0]
        return DatasetSeq(seq_idx, {"data": data, "classes": classes.astype(self._int_dtype)})


@register_dataset
class DummyDatasetMultipleSequenceLength(DummyDataset):
    """:class:`DummyDataset` with a separate length per key: ``seq_len = {"data": T_in, "classes": T_out}``
    (an int means the same for both; default ``{"data": 10, "classes": 20}``). The arrays are ``float64`` /
    ``int64`` (the reference's; declared ``float32`` / ``int32``)."""

    _float_dtype, _int_dtype = np.float64, np.int64

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
    """Copy task: ``"data"`` and ``"classes"`` are the same random sparse sequence ``int8 [T]`` over
    ``nsymbols`` symbols (at most 256), as the reference.

    The length is ``randint(minlen_e, maxlen_e + 1)`` with ``minlen_e = int(minlen + minlen_epoch_factor *
    epoch)`` and ``maxlen_e = int(maxlen + maxlen_epoch_factor * epoch)`` (the sub-epoch, also with
    ``fixed_random_seed``: a curriculum over the epochs), then each symbol is ``randint(0, nsymbols)``.

    :raises DatasetArgError: if ``nsymbols > 256``; when a sequence is generated unless
        ``0 < minlen_e <= maxlen_e``
    """

    def __init__(self, nsymbols: int, minlen: int = 0, maxlen: int = 0, minlen_epoch_factor: float = 0,
                 maxlen_epoch_factor: float = 0, **kwargs):
        super().__init__(input_dim=None, output_dim={"data": (nsymbols, 1), "classes": (nsymbols, 1)}, **kwargs)
        if not 0 < int(nsymbols) <= 256:
            raise DatasetArgError(f"CopyTaskDataset: need 0 < nsymbols <= 256 (the data is int8), got {nsymbols!r}")
        self.num_inputs = nsymbols
        self.nsymbols = nsymbols
        self.minlen, self.maxlen = minlen, maxlen
        self.minlen_epoch_factor, self.maxlen_epoch_factor = minlen_epoch_factor, maxlen_epoch_factor

    def get_random_seq_len(self) -> int:
        """``randint(minlen_e, maxlen_e + 1)`` (see the class doc)."""
        epoch = self.epoch or 1
        lo = int(self.minlen + self.minlen_epoch_factor * epoch)
        hi = int(self.maxlen + self.maxlen_epoch_factor * epoch)
        if not 0 < lo <= hi:
            raise DatasetArgError(
                f"CopyTaskDataset: in epoch {epoch} the length range is [{lo}, {hi}] (minlen={self.minlen!r} + "
                f"minlen_epoch_factor={self.minlen_epoch_factor!r} * epoch, maxlen={self.maxlen!r} + "
                f"maxlen_epoch_factor={self.maxlen_epoch_factor!r} * epoch); need 0 < min <= max")
        return int(self.random.randint(lo, hi + 1))

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        seq_len = self.get_random_seq_len()
        seq = np.array([self.random.randint(0, self.nsymbols) for _ in range(seq_len)], dtype=np.int8)
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
    """Number base conversion: ``"data"`` is a random number's digits in ``input_base``, ``"classes"`` the same
    number's digits in ``output_base`` (no leading zeros; ``[0]`` for zero). Both sparse (declared ``int32``;
    the arrays are ``int64``, as the reference's); ``labels`` are the digit characters
    (``labels["data"] == "01234567"``, a str as the reference's).

    Random calls (the reference's): the length ``randint(min_input_seq_len, max_input_seq_len + 1)``, then each
    digit ``randint(0, input_base)`` (leading zeros possible).
    """

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
        self.labels = {"data": self._symbols[:input_base], "classes": self._symbols[:output_base]}

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        length = int(self.random.randint(self.min_input_seq_len, self.max_input_seq_len + 1))
        digits = [int(self.random.randint(0, self.input_base)) for _ in range(length)]
        value = 0
        for d in digits:
            value = value * self.input_base + d
        return DatasetSeq(seq_idx, {"data": np.array(digits, dtype=np.int64),
                                    "classes": np.array(_digits(value, self.output_base), dtype=np.int64)})
