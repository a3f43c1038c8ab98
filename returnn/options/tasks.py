"""Keys of the tasks other than training: eval, forward, compute_priors, search, analyze_data."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from returnn.options.declare import OptionGroup, option


@dataclasses.dataclass(frozen=True)
class EvalOptions(OptionGroup):
    """Task ``eval``."""

    topic = "task eval"

    eval_output_file: Optional[str] = option(None, "write the scores per dataset there (a Python dict literal)",
                                             kind="str")
    eval_output_file_per_seq: Optional[str] = option(None, "per-sequence scores (not provided here: an error)",
                                                     kind="str")


@dataclasses.dataclass(frozen=True)
class ForwardOptions(OptionGroup):
    """Tasks ``forward`` and ``compute_priors``."""

    topic = "tasks forward and compute_priors"

    forward_data: Any = option(None, "dataset to forward: a dataset dict, or 'train'/'dev'/'eval' (default: eval)",
                               kind="any")
    forward_callback: Any = option(None, "a ForwardCallbackIface (or a function returning one) that gets every "
                                         "sequence's outputs instead of an HDF file", kind="any")
    forward_output_layer: Optional[str] = option(None, "the layer to forward (default: the output layer)", kind="str")
    forward_batch_size: Optional[int] = option(None, "batch size of forward passes (required by forward; "
                                                     "compute_priors falls back to batch_size)", kind="int")
    forward_override_hdf_output: bool = option(False, "overwrite an existing output_file", kind="bool")
    forward_use_search: bool = option(False, "forward with the search flag (choice layers search)", kind="bool")
    output_file: Optional[str] = option(None, "forward: the HDF file (default dump-fwd-epoch-N.hdf); "
                                              "compute_priors: the log-prior text file", kind="str")


@dataclasses.dataclass(frozen=True)
class SearchOptions(OptionGroup):
    """Task ``search``."""

    topic = "task search"

    search_data: Any = option(None, "dataset to search: a dataset dict, or 'train'/'dev'/'eval' (default: eval)",
                              kind="any")
    search_output_layer: Any = option("output", "the layer(s) whose hypotheses are written (a name or a list)",
                                      kind="any")
    search_output_file: Optional[str] = option(None, "write the hypotheses there", kind="str")
    search_output_file_format: str = option("txt", "'txt' (one hypothesis per line) or 'py' (dict seq_tag -> "
                                                   "hypothesis or n-best list)", kind="str", choices=("txt", "py"),
                                            valid="'txt' or 'py'")
    search_do_eval: bool = option(True, "also compute the losses/errors against the targets", kind="bool")


@dataclasses.dataclass(frozen=True)
class AnalysisOptions(OptionGroup):
    """Task ``analyze_data`` and ``Engine.analyze``."""

    topic = "task analyze_data, Engine.analyze"

    analyze_dataset: str = option("train", "which dataset: 'train', 'dev' or 'eval'", kind="str")
    sil_label_idx: Optional[int] = option(None, "Engine.analyze: the target label whose frames the '_sil' statistics "
                                                "count (required there)", kind="int")
    statistics_save_prefix: Optional[str] = option(None, "write <prefix>.log_priors.txt, <prefix>.mean.txt, "
                                                         "<prefix>.std_dev.txt", kind="str")
