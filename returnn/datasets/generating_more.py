"""More generated datasets, public at the reference's path ``returnn.datasets.generating``:
``DummyDatasetMultipleDataKeys``, ``DummyGenericDataset`` and the algorithmic tasks of the reference's demos
``TaskEpisodicCopyDataset``, ``TaskXmlModelingDataset``, ``TaskVariableAssignmentDataset``.

Keys, dims, dtypes, label sets and the structure of the sequences follow the reference (observed); random
draws come from ``self.random`` (see :class:`~returnn.datasets.generating_base.GeneratingDataset`), so the
random values are this project's own.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from returnn.errors import DatasetArgError
from returnn.datasets.dataset import DatasetSeq
from returnn.datasets.generating_base import GeneratingDataset
from returnn.datasets.registry import register_dataset


@register_dataset
class DummyDatasetMultipleDataKeys(GeneratingDataset):
    """Deterministic dummy data for several keys (as ``DummyDataset``): a dense key ``k`` with ``(dim, 2)`` gets
    ``float64 [T_k, dim]`` with ``x[t, d] = (((t * dim + d + seq_idx) % input_max_value) + input_shift) *
    input_scale``, a sparse key ``(dim, 1)`` gets ``int64 [T_k]`` with ``(t + seq_idx) % dim`` (the reference's
    dtypes). ``seq_len``: an int or key -> int (default 20 for every key).

    :param output_dim: key -> ``(dim, ndim)``
    :param data_keys: the keys (default ``["data", "classes"]``, as the reference); must equal ``output_dim``'s keys
    :raises DatasetArgError: ``output_dim`` / ``seq_len`` keys that do not match ``data_keys``
    """

    def __init__(self, output_dim, num_seqs, seq_len=None, input_max_value=10.0, input_shift=None, input_scale=None,
                 data_keys=None, **kwargs):
        if not isinstance(output_dim, dict):
            raise DatasetArgError(f"DummyDatasetMultipleDataKeys: output_dim must be a dict key -> (dim, ndim), got "
                                  f"{output_dim!r}")
        data_keys = list(data_keys) if data_keys is not None else ["data", "classes"]
        if set(output_dim) != set(data_keys):
            raise DatasetArgError(f"DummyDatasetMultipleDataKeys: the keys of output_dim ({sorted(output_dim)}) must "
                                  f"match the keys in data_keys={data_keys}")
        if seq_len is None:
            seq_len = 20
        if isinstance(seq_len, int):
            seq_len = {key: seq_len for key in data_keys}
        if set(seq_len) != set(data_keys):
            raise DatasetArgError(f"DummyDatasetMultipleDataKeys: the keys of seq_len ({sorted(seq_len)}) must match "
                                  f"the keys in data_keys={data_keys}")
        super().__init__(input_dim=None, output_dim=output_dim, num_seqs=num_seqs, **kwargs)
        self.num_inputs = None
        self.data_keys = data_keys
        self.seq_len = dict(seq_len)
        self.input_max_value = input_max_value
        self.input_shift = -input_max_value / 2.0 if input_shift is None else input_shift
        self.input_scale = 1.0 / input_max_value if input_scale is None else input_scale

    def get_data_keys(self) -> List[str]:
        return list(self.data_keys)

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        return int(self.seq_len[self.data_keys[0]])

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        features = {}
        for key in self.data_keys:
            dim, ndim = self.num_outputs[key]
            length = int(self.seq_len[key])
            if ndim == 1:
                features[key] = (np.arange(length) + seq_idx) % dim
            else:
                flat = (np.arange(length * dim) + seq_idx) % self.input_max_value
                features[key] = ((flat + self.input_shift) * self.input_scale).reshape(length, dim)
        return DatasetSeq(seq_idx, features)


def _template_entry(key: str, spec: Any) -> Dict[str, Any]:
    if hasattr(spec, "get_kwargs") and not isinstance(spec, dict):  # a Tensor template
        spec = spec.get_kwargs()
    if not isinstance(spec, dict):
        raise DatasetArgError(f"DummyGenericDataset: data_template[{key!r}] must be a dict of Tensor kwargs, got "
                              f"{spec!r}")
    return spec


@register_dataset
class DummyGenericDataset(GeneratingDataset):
    """Random data in the layout of ``data_template`` (key -> Tensor kwargs ``dim``, ``shape``, ``sparse``,
    ``dtype``): dense float keys standard-normal ``float32``, sparse keys uniform ints in ``[0, dim)``
    (``int32``); every dynamic axis gets a length from ``seq_lens`` (an int, a ``(min, max)`` range, or a
    dict axis name/key -> either; default ``(10, 20)``), drawn per key.
    """

    def __init__(self, data_template, num_seqs: int, *, seq_lens=None, **kwargs):
        if not isinstance(data_template, dict) or not data_template:
            raise DatasetArgError(f"DummyGenericDataset: data_template must be a non-empty dict key -> Tensor "
                                  f"kwargs, got {data_template!r}")
        template = {k: _template_entry(k, v) for k, v in data_template.items()}
        from returnn.datasets.map import _num_outputs_entry

        super().__init__(input_dim=None, output_dim={k: _num_outputs_entry(v) for k, v in template.items()},
                         num_seqs=num_seqs, **kwargs)
        self.num_inputs = None
        self.template = template
        self.seq_lens = (10, 20) if seq_lens is None else seq_lens
        self._data_dtypes = {k: v.get("dtype") or ("int32" if v.get("sparse") else "float32")
                             for k, v in template.items()}

    def get_data_keys(self) -> List[str]:
        return list(self.template)

    def _len_range(self, key: str) -> Tuple[int, int]:
        spec = self.seq_lens
        if isinstance(spec, dict):
            spec = spec.get(key, spec.get(None, (10, 20)))
        if isinstance(spec, int):
            return spec, spec
        return int(spec[0]), int(spec[1])

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        seq = self._collect_corpus_seq(corpus_idx)
        return int(next(iter(seq.features.values())).shape[0])

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        features = {}
        for key, spec in self.template.items():
            lo, hi = self._len_range(key)
            shape = spec.get("shape")
            if shape is None:
                shape = (None,) if spec.get("sparse") else (None, spec.get("dim"))
            dims = [int(self.random.randint(lo, hi + 1)) if d is None else int(d) for d in shape]
            if spec.get("sparse") or "int" in self._data_dtypes[key]:
                features[key] = self.random.randint(0, int(spec.get("dim") or 2), size=dims).astype(
                    self._data_dtypes[key])
            else:
                features[key] = self.random.standard_normal(dims).astype(self._data_dtypes[key])
        return DatasetSeq(seq_idx, features)


class _OneHotTask(GeneratingDataset):
    """Base of the symbol tasks: ``"data"`` one-hot ``float32 [T, n]`` over ``_input_classes``, ``"classes"``
    sparse ``int64 [T]`` over ``_output_classes`` (the reference's dtypes)."""

    _input_classes = ""
    _output_classes = ""

    def __init__(self, **kwargs):
        super().__init__(input_dim=len(self._input_classes), output_dim=len(self._output_classes), **kwargs)

    def make_seq(self, seq_idx: int, input_seq: Sequence[int], output_seq: Sequence[int]) -> DatasetSeq:
        data = np.zeros((len(input_seq), len(self._input_classes)), dtype=np.float32)
        data[np.arange(len(input_seq)), list(input_seq)] = 1.0
        return DatasetSeq(seq_idx, {"data": data, "classes": np.array(output_seq, dtype=np.int64)})


@register_dataset
class TaskEpisodicCopyDataset(_OneHotTask):
    """Episodic copy (symbols ``" .01234567"``): a pattern of 1-9 digits, 1-99 blanks, then ``len + 2`` dots
    as the recall cue; the target is blank everywhere except the last ``len + 1`` frames: the pattern, then
    ``"."``.

    Random calls (the reference's): the pattern length ``randint(1, 10)``, each digit ``choice(list("01234567"))``,
    the number of blanks ``randint(1, 100)``.
    """

    _input_classes = " .01234567"
    _output_classes = " .01234567"

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        length = int(self.random.randint(1, 10))
        digits = list("01234567")
        pattern = [2 + int(self.random.choice(digits)) for _ in range(length)]
        blanks = int(self.random.randint(1, 100))
        input_seq = pattern + [0] * blanks + [1] * (len(pattern) + 2)
        output_seq = [0] * (len(input_seq) - len(pattern) - 1) + pattern + [1]
        return self.make_seq(seq_idx, input_seq, output_seq)


@register_dataset
class TaskXmlModelingDataset(_OneHotTask):
    """XML-like nesting (symbols ``" <>/abcdefgh"``): a space, then opening tags ``<name>`` (names of 1-9
    letters a-h) and matching closing tags ``</name>``, nested at most ``limit_stack_depth`` deep. The target is
    the next symbol where it is determined (``"<"`` after ``" "`` and after ``">"``, the closing tag's name after
    ``"/"``, ``">"`` after its last letter) and blank (0) elsewhere.

    Random calls (the reference's, so the same seed gives its sequences): an opening tag draws its length
    ``randint(1, 10)`` and each letter ``choice(list("abcdefgh"))``. The first tag is opened without a draw; then
    repeatedly: at ``limit_stack_depth`` open tags the innermost is closed (no draw); else ``r = rand()``: with
    open tags, close the innermost if ``r < 0.6``, else open a new one; with none open, open a new one if
    ``r < 0.2``, else the sequence ends.
    """

    _input_classes = " <>/abcdefgh"
    _output_classes = " <>/abcdefgh"
    _letters = "abcdefgh"

    def __init__(self, limit_stack_depth: int = 4, **kwargs):
        super().__init__(**kwargs)
        self.limit_stack_depth = limit_stack_depth

    def _random_name(self) -> List[int]:
        length = int(self.random.randint(1, 10))
        letters = list(self._letters)
        return [4 + self._letters.index(str(self.random.choice(letters))) for _ in range(length)]

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        input_seq, output_seq = [0], [1]
        stack: List[List[int]] = []

        def open_tag():
            name = self._random_name()
            stack.append(name)
            input_seq.extend([1] + name + [2])
            output_seq.extend([0] * (len(name) + 1) + [1])

        def close_tag():
            name = stack.pop()
            input_seq.extend([1, 3] + name + [2])
            output_seq.extend([0] + name + [2, 1])

        open_tag()
        while True:
            if stack and len(stack) >= self.limit_stack_depth:
                close_tag()
                continue
            r = self.random.rand()
            if stack:
                if r < 0.6:
                    close_tag()
                else:
                    open_tag()
            elif r < 0.2:
                open_tag()
            else:
                break
        return self.make_seq(seq_idx, input_seq, output_seq)


@register_dataset
class TaskVariableAssignmentDataset(_OneHotTask):
    """Variable assignment and recall (symbols ``" =;?abcd0123456789"``): 1-4 assignments ``x=v;`` of a
    variable ``a``-``d`` to a digit string (later ones overwrite earlier), then a query ``x?``; the target is
    blank until the query's ``?``, then the variable's current value and ``;``. (The reference's version of
    this task does not run with current numpy; this follows its idea and dims.)"""

    _input_classes = " =;?abcd0123456789"
    _output_classes = " =;?abcd0123456789"

    def generate_seq(self, seq_idx: int) -> DatasetSeq:
        values: Dict[int, List[int]] = {}
        input_seq: List[int] = []
        for _ in range(int(self.random.randint(1, 5))):
            var = int(self.random.randint(4, 8))
            value = [int(x) for x in self.random.randint(8, 18, size=int(self.random.randint(1, 4)))]
            values[var] = value
            input_seq += [var, 1] + value + [2]
        query = int(self.random.choice(sorted(values)))
        input_seq += [query, 3]
        answer = values[query] + [2]
        input_seq += [0] * len(answer)
        output_seq = [0] * (len(input_seq) - len(answer)) + answer
        return self.make_seq(seq_idx, input_seq, output_seq)
