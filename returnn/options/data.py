"""Keys of the datasets and the data description (read by :mod:`returnn.datasets.from_config` and the extern-data
setup)."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from returnn.options.declare import OptionGroup, borrowed, option
from returnn.options.run import RunOptions


def _typed_or_literal(config, key: str, default: Any) -> Any:
    """The typed value; a line-based config's text as the Python literal it spells (``"9"`` -> 9), as the
    reference reads ``num_inputs 9``."""
    if config.is_typed(key):
        return config.typed_value(key, default)
    if config.has(key):
        from returnn.config import parse_literal

        return parse_literal(config.value(key))
    return default


_CACHE_SIZE_UNITS = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}


def cache_size_bytes(text: Any) -> int:
    """The byte count of a ``cache_size`` value as the reference reports it: ``int(number * unit) + 1``, or 0 for
    zero (observed: ``"0"`` -> 0, ``"1000"`` -> 1001, ``"1.5"`` -> 2, ``"2K"`` -> 2049, ``"1G"`` -> 1073741825).

    :raises ValueError: not a number with an optional unit K, M or G
    """
    text = str(text).strip()
    factor = 1
    if text[-1:] in _CACHE_SIZE_UNITS:
        factor = _CACHE_SIZE_UNITS[text[-1]]
        text = text[:-1]
    num = int(float(text) * factor)
    return num + 1 if num > 0 else 0


def _cache_size_ok(value: Any) -> bool:
    try:
        cache_size_bytes(value)
    except ValueError:
        return False
    return True


@dataclasses.dataclass(frozen=True)
class DataOptions(OptionGroup):
    """Datasets (:func:`returnn.datasets.from_config.init_datasets_from_config`) and the network's data."""

    topic = "data"

    train: Any = option(None, "the training dataset: a dataset dict ({'class': ..., ...}) or a string spec",
                        kind="any_or_str")
    dev: Any = option(None, "the dataset scored after each epoch (and by task eval)", kind="any_or_str")
    eval: Any = option(None, "another dataset scored after each epoch; the default data of forward/search",
                       kind="any_or_str")
    eval_datasets: Any = option(None, "more datasets to score: a dict name -> dataset dict", kind="any")
    batching: Optional[str] = option(None, "the train dataset's default seq_ordering ('random', 'sorted', "
                                           "'laplace:N', ...)", kind="str")
    chunking: Any = option(None, "cut training sequences into chunks: 'size:step' or a dict (0: off)",
                           kind="any_or_str")
    chunk_eval: bool = option(False, "apply 'chunking' to the eval datasets too", kind="bool")
    min_chunk_size: Optional[int] = option(None, "drop chunks shorter than this", kind="int")
    window: int = option(1, "stack this many neighbouring frames of the input", kind="int")
    extern_data: Any = option(None, "the data keys of the network: a dict key -> {'dim', 'shape', 'sparse', "
                                    "'dim_tags', ...}", kind="any")
    num_inputs: Any = option(None, "old style: the input feature dim (with num_outputs)", kind="any",
                             reader=_typed_or_literal)
    num_outputs: Any = option(None, "old style: dict data key -> dim or [dim, ndim] (or the target dim)",
                              kind="any", reader=_typed_or_literal)
    default_input: str = option("data", "the data key that a layer without 'from' reads", kind="str")
    cache_size: str = option("16G", "the reference's old per-dataset data cache size: a number of bytes with an "
                                    "optional unit K, M or G (1024-based); reported by returnn.__main__."
                                    "get_cache_byte_sizes, the datasets here read lazily", kind="str",
                             check=lambda v: None if _cache_size_ok(v) else "a number with an optional unit "
                                                                            "K, M or G, e.g. '0' or '16G'")
    dataset_pipeline: bool = option(False, "training: the batches of train and the eval datasets come from a tf.data "
                                           "pipeline whose tensors are the network's input "
                                           "(returnn.tf.data_pipeline.DatasetDataProvider) instead of being fed; "
                                           "the reference's custom pipeline functions are not provided",
                                    kind="bool")
    #: the default target data key (declared in :class:`RunOptions`)
    target: str = borrowed(RunOptions, "target")


def dataset_spec_of_key(config, key: str) -> Any:
    """The dataset spec of the config key ``key`` that a user names (a tool's ``--dataset config:<key>``): the
    typed value, or the string of a line-based config; None if unset. A key of :class:`DataOptions` is read (and
    checked) as declared there."""
    if key in {opt.key for opt in DataOptions.declared()}:
        return DataOptions.read_one(config, key)
    if config.is_typed(key):
        return config.typed_value(key)
    return config.value(key, None)
