"""Building the ``train`` / ``dev`` / ``eval`` / ``eval_datasets`` datasets from the parsed data options
(:class:`~returnn.options.data.DataOptions`), as the reference.

Config keys applied (observed on the reference):

- ``train``: ``name="train"``; ``batching`` is its default ``seq_ordering``; ``chunking`` (and
  ``min_chunk_size``) its default chunking. Keys in the dataset dict win.
- ``dev``: ``name="dev"``; ``eval``: ``name="eval"``; ``eval_datasets``: ``name=<dict key>``. No chunking
  unless ``chunk_eval`` is set (then the config's ``chunking`` applies to them too).
- ``window`` (frame stacking) is passed to every dataset when set to a value other than 1.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.datasets.dataset import Dataset
from returnn.datasets.init import init_dataset
from returnn.options.data import DataOptions, dataset_spec_of_key


def _defaults(opts: DataOptions, *, name: str, is_train: bool) -> Dict[str, Any]:
    kwargs: Dict[str, Any] = {"name": name}
    if is_train and opts.batching:
        kwargs["seq_ordering"] = opts.batching
    if (is_train or opts.chunk_eval) and opts.chunking not in (None, 0, "0", ""):
        kwargs["chunking"] = opts.chunking
        if opts.min_chunk_size is not None:
            kwargs["min_chunk_size"] = opts.min_chunk_size
    if opts.window not in (0, 1):
        kwargs["window"] = opts.window
    return kwargs


#: the config keys of the datasets :func:`init_datasets` builds (an ``eval_datasets`` entry has its own name)
DATASET_KEYS = ("train", "dev", "eval")


def init_dataset_of_key(opts: DataOptions, key: str, *, name: Optional[str] = None, is_train: bool = False
                        ) -> Optional[Dataset]:
    """The dataset of the data key ``key`` (``"train"``, ``"dev"`` or ``"eval"``) of the parsed data options, with
    the defaults of the module doc; None if unset or empty.

    :raises UnknownNameError, DatasetArgError: from :func:`init_dataset`
    """
    if key not in DATASET_KEYS:
        raise ValueError(f"init_dataset_of_key: key {key!r}: expected one of {DATASET_KEYS}")
    return init_dataset_of_spec(opts, getattr(opts, key), name=name or key, is_train=is_train)


def init_dataset_of_spec(opts: DataOptions, spec: Any, *, name: str, is_train: bool = False) -> Optional[Dataset]:
    """The dataset of ``spec`` (a dataset dict or string spec) with the defaults of the module doc from ``opts``;
    None if ``spec`` is unset or empty.

    :raises UnknownNameError, DatasetArgError: from :func:`init_dataset`
    """
    if spec is None or spec == "" or spec == {}:
        return None
    return init_dataset(spec, default_kwargs=_defaults(opts, name=name, is_train=is_train))


def init_extra_eval_datasets(opts: DataOptions) -> Dict[str, Dataset]:
    """The datasets of ``eval_datasets`` (name -> dataset dict), each named by its key.

    :raises ConfigValueError: if ``eval_datasets`` is not a dict
    :raises UnknownNameError, DatasetArgError: from :func:`init_dataset`
    """
    extra = opts.eval_datasets
    if not extra:
        return {}
    if not isinstance(extra, dict):
        raise ConfigValueError("eval_datasets", expected="a dict name -> dataset dict", got=extra)
    return {name: init_dataset(spec, default_kwargs=_defaults(opts, name=name, is_train=False))
            for name, spec in extra.items()}


def init_datasets(opts: DataOptions) -> Dict[str, Any]:
    """Builds all datasets of the parsed data options.

    :return: ``{"train": Dataset|None, "dev": Dataset|None, "eval": Dataset|None, "eval_datasets": {name: Dataset}}``
        (``init_seq_order`` not called yet)
    :raises ConfigValueError: if ``eval_datasets`` is not a dict
    :raises UnknownNameError, DatasetArgError: from :func:`init_dataset`
    """
    return {
        "train": init_dataset_of_key(opts, "train", is_train=True),
        "dev": init_dataset_of_key(opts, "dev"),
        "eval": init_dataset_of_key(opts, "eval"),
        "eval_datasets": init_extra_eval_datasets(opts),
    }


def init_dataset_from_config_key(config, key: str, *, name: Optional[str] = None, is_train: bool = False
                                 ) -> Optional[Dataset]:
    """The dataset of config key ``key``: ``train``/``dev``/``eval`` as :func:`init_dataset_of_key` (``config``
    parsed as :class:`DataOptions`), another key (a tool's ``config:<key>``) read by
    :func:`~returnn.options.data.dataset_spec_of_key`; None if unset or empty."""
    opts = DataOptions.from_config(config)
    if key in DATASET_KEYS:
        return init_dataset_of_key(opts, key, name=name, is_train=is_train)
    return init_dataset_of_spec(opts, dataset_spec_of_key(config, key), name=name or key, is_train=is_train)


def init_datasets_from_config(config) -> Dict[str, Any]:
    """:func:`init_datasets` of ``config`` parsed as :class:`DataOptions` (for callers holding a config)."""
    return init_datasets(DataOptions.from_config(config))


def dataset_summary_lines(dataset: Dataset, *, with_dims: bool = False) -> List[str]:
    """The reference's summary lines of a dataset, e.g. ``"  Task12AXDataset, sequences: 10, frames: unknown"``,
    preceded (``with_dims``) by ``"  input: 9 x 1"`` and ``"  output: {...}"``."""
    lines = []
    if with_dims:
        lines.append(f"  input: {dataset.num_inputs} x {dataset.window}")
        lines.append(f"  output: {dict(sorted(dataset.num_outputs.items()))}")
    frames = getattr(dataset, "get_num_timesteps", None)
    num_frames = frames() if frames is not None else None
    try:
        total_seqs: Any = dataset.get_total_num_seqs()
    except NotImplementedError:  # e.g. a PostprocessingDataset with map_seq_stream
        total_seqs = "unknown"
    lines.append(f"  {type(dataset).__name__}, sequences: {total_seqs}, frames: "
                 f"{num_frames if num_frames is not None else 'unknown'}")
    return lines


def print_datasets_summary(datasets: Dict[str, Any], file=None) -> None:
    """Prints ``Train data:`` / ``Dev data:`` / ``Eval data:`` blocks as the reference (to ``log.v2`` by default)."""
    file = file or log.v2
    for key, title in (("train", "Train data:"), ("dev", "Dev data:"), ("eval", "Eval data:")):
        ds = datasets.get(key)
        if ds is None:
            continue
        print(title, file=file)
        for line in dataset_summary_lines(ds, with_dims=(key == "train")):
            print(line, file=file)
