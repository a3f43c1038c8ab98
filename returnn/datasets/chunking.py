"""Chunking: cutting sequences into overlapping windows (the ``chunking`` option).

Accepted forms (as the reference): ``"size:step"`` (``"100:50"``), ``"size"`` or an int (step = size),
``0``/``"0"``/``None`` (off), or a pair ``(size_dict, step_dict)`` of per-key dicts
(``({"data": 100, "classes": 50}, {"data": 50, "classes": 25})``).

Chunk edges as the reference places them: chunk ``i`` of key ``k`` starts at ``i * step[k]`` and ends at
``min(start + size[k], len[k])``; chunks start at every multiple of the step of the leading key
(``"data"`` if chunked, else the first key) below its length. So a length-5 sequence with ``"4:2"`` gives
``[0, 4), [2, 5), [4, 5)``. A trailing chunk shorter than ``min_chunk_size`` is dropped unless it is the
sequence's only chunk.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

from returnn.errors import ConfigValueError
from returnn.util.numbers_dict import NumbersDict

_EXPECTED = "'size:step' (e.g. '100:50'), an int size, 0 (off), or a pair of per-key dicts (sizes, steps)"


def parse_chunking(chunking: Any, *, key: str = "chunking") -> Tuple[NumbersDict, NumbersDict]:
    """Parses a ``chunking`` value.

    :return: ``(chunk_size, chunk_step)`` as :class:`NumbersDict`; size 0 means off
    :raises ConfigValueError: naming ``key`` for malformed values, a step of 0 or negative sizes
    """
    if chunking is None or chunking == 0 or chunking == "0" or chunking == "":
        return NumbersDict(0), NumbersDict(0)
    if isinstance(chunking, (list, tuple)) and len(chunking) == 2 and all(isinstance(c, dict) for c in chunking):
        size, step = NumbersDict(dict(chunking[0])), NumbersDict(dict(chunking[1]))
    elif isinstance(chunking, dict):
        size, step = NumbersDict(dict(chunking)), NumbersDict(dict(chunking))
    elif isinstance(chunking, int) and not isinstance(chunking, bool):
        size, step = NumbersDict(chunking), NumbersDict(chunking)
    elif isinstance(chunking, str):
        parts = chunking.split(":")
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            raise ConfigValueError(key, expected=_EXPECTED, got=chunking) from None
        if len(nums) == 1:
            nums.append(nums[0])
        if len(nums) != 2:
            raise ConfigValueError(key, expected=_EXPECTED, got=chunking)
        size, step = NumbersDict(nums[0]), NumbersDict(nums[1])
    else:
        raise ConfigValueError(key, expected=_EXPECTED, got=chunking)
    for value in size.values():
        if not isinstance(value, int) or value < 0:
            raise ConfigValueError(key, expected="non-negative int chunk sizes", got=chunking)
    if size.max_value() and size.max_value() > 0:
        for value in step.values():
            if not isinstance(value, int) or value <= 0:
                raise ConfigValueError(key, expected="a chunk step >= 1 (a step of 0 would never advance)",
                                       got=chunking)
    return size, step


def iter_chunks(seq_len: Dict[str, int], size: NumbersDict, step: NumbersDict, *, min_chunk_size: int = 0
                ) -> Iterator[Tuple[Dict[str, int], Dict[str, int]]]:
    """Yields ``(start, end)`` frame dicts (per key) of each chunk of one sequence.

    :param seq_len: key -> length of the sequence
    :param size: chunk size per key (broadcast value for keys not given)
    :param step: chunk step per key
    :param min_chunk_size: drop trailing chunks whose leading-key length is below this (but keep >= 1 chunk)
    """
    keys = list(seq_len.keys())
    if not keys:
        return
    lead = "data" if "data" in keys and size["data"] else next((k for k in keys if size[k]), keys[0])
    lead_size, lead_step, lead_len = size[lead], step[lead], seq_len[lead]
    if not lead_size:
        yield {k: 0 for k in keys}, dict(seq_len)
        return
    index = 0
    for lead_start in range(0, max(lead_len, 1), lead_step):
        start, end = {}, {}
        for k in keys:
            k_size, k_step = size[k], step[k]
            if not k_size:
                start[k], end[k] = 0, seq_len[k]
                continue
            if k != lead and seq_len[k] != lead_len and k not in size.dict:
                # Unequal length and no own chunk size: scale the chunk window proportionally.
                ratio = seq_len[k] / lead_len if lead_len else 0.0
                s = int(round(lead_start * ratio))
                e = int(round(min(lead_start + lead_size, lead_len) * ratio))
                start[k], end[k] = min(s, seq_len[k]), min(max(e, s), seq_len[k])
                continue
            s = index * k_step
            start[k], end[k] = min(s, seq_len[k]), min(s + k_size, seq_len[k])
        if index > 0 and min_chunk_size and end[lead] - start[lead] < min_chunk_size:
            return
        yield start, end
        index += 1


def chunk_bounds_list(seq_len: int, chunking: Any, min_chunk_size: int = 0) -> List[Tuple[int, int]]:
    """Convenience: ``[(start, end), ...]`` for a single-key sequence of length ``seq_len``."""
    size, step = parse_chunking(chunking)
    return [(s["data"], e["data"]) for s, e in iter_chunks({"data": seq_len}, size, step,
                                                            min_chunk_size=min_chunk_size)]


def is_chunking_on(size: Optional[NumbersDict]) -> bool:
    """Whether a parsed chunk size enables chunking."""
    return bool(size is not None and (size.max_value() or 0) > 0)
