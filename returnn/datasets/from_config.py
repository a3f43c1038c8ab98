"""Building the ``train`` / ``dev`` / ``eval`` / ``eval_datasets`` datasets from a config, as the reference.

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


def _defaults(config, *, name: str, is_train: bool) -> Dict[str, Any]:
    kwargs: Dict[str, Any] = {"name": name}
    if is_train and config.has("batching") and config.value("batching", None):
        kwargs["seq_ordering"] = config.value("batching", "default")
    if is_train or config.bool("chunk_eval", False):
        chunking = config.typed_value("chunking", None) if config.is_typed("chunking") else config.value("chunking",
                                                                                                          None)
        if chunking not in (None, 0, "0", ""):
            kwargs["chunking"] = chunking
            if config.has("min_chunk_size"):
                kwargs["min_chunk_size"] = config.int("min_chunk_size", 0)
    window = config.int("window", 1) if config.has("window") else 1
    if window not in (0, 1):
        kwargs["window"] = window
    return kwargs


def _get_spec(config, key: str) -> Any:
    if not config.has(key):
        return None
    if config.is_typed(key):
        return config.typed_value(key)
    return config.value(key, None)


def init_dataset_from_config_key(config, key: str, *, name: Optional[str] = None, is_train: bool = False
                                 ) -> Optional[Dataset]:
    """The dataset of config key ``key`` (None if unset or empty)."""
    spec = _get_spec(config, key)
    if spec is None or spec == "" or spec == {}:
        return None
    return init_dataset(spec, default_kwargs=_defaults(config, name=name or key, is_train=is_train))


def init_datasets_from_config(config) -> Dict[str, Any]:
    """Builds all datasets of a config.

    :return: ``{"train": Dataset|None, "dev": Dataset|None, "eval": Dataset|None, "eval_datasets": {name: Dataset}}``
        (``init_seq_order`` not called yet)
    :raises ConfigValueError: if ``eval_datasets`` is not a dict
    :raises UnknownNameError, DatasetArgError: from :func:`init_dataset`
    """
    result: Dict[str, Any] = {
        "train": init_dataset_from_config_key(config, "train", is_train=True),
        "dev": init_dataset_from_config_key(config, "dev"),
        "eval": init_dataset_from_config_key(config, "eval"),
        "eval_datasets": {},
    }
    extra = config.typed_value("eval_datasets", None) if config.has("eval_datasets") else None
    if extra:
        if not isinstance(extra, dict):
            raise ConfigValueError("eval_datasets", expected="a dict name -> dataset dict", got=extra)
        for name, spec in extra.items():
            result["eval_datasets"][name] = init_dataset(spec, default_kwargs=_defaults(config, name=name,
                                                                                        is_train=False))
    return result


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
