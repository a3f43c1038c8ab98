"""Keys every task of the TF engine reads: the model path, the task, the session, seeds and pass settings."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from returnn.options.declare import OptionGroup, option


@dataclasses.dataclass(frozen=True)
class RunOptions(OptionGroup):
    """What a run of the engine is: task, model, device, seeds (read at each task's start)."""

    topic = "the run"

    task: str = option("train", "what rnn.py does: train, eval, forward, search, compute_priors, analyze_data, "
                                "initialize_model, cleanup_old_models, nop, nop_init_net_train, config:<function>",
                       kind="str")
    need_data: bool = option(True, "False: rnn.py builds no datasets at start-up (as for the tasks nop, "
                                   "nop_init_net_train and cleanup_old_models)", kind="bool")
    behavior_version: Optional[int] = option(None, "the reference's behavior version: newer defaults and stricter "
                                                   "checks (e.g. >= 2 requires 'optimizer')", kind="int")
    model: Optional[str] = option(None, "checkpoint path prefix: epoch N is saved as <model>.NNN (pretrain epochs "
                                        "as <model>.pretrain.NNN), with a 'checkpoint' state file beside it",
                                  kind="str")
    network: Any = option(None, "the network dict: layer name -> layer dict", kind="any")
    get_network: Any = option(None, "function get_network(epoch, **kwargs) -> the network dict of that epoch "
                                    "(wins over 'network')", kind="any")
    random_seed: Optional[int] = option(None, "seed of the run's randomness (parameter init, dropout): the graph-level "
                                              "TensorFlow seed and the network's seed are derived from it (see "
                                              "returnn.tf.engine.seeds); unset: 42 and 1", kind="int")
    dry_run: bool = option(False, "do everything except writing checkpoints, the learning-rate file and summaries",
                           kind="bool")
    device: Optional[str] = option(None, "'cpu' or 'gpu' (also 'gpu0', ...); unset: a GPU when TensorFlow sees one; "
                                         "the environment variable TF_DEVICE wins", kind="str")
    tf_session_opts: Any = option(None, "dict of tf.compat.v1.ConfigProto fields for the session "
                                        "(e.g. {'gpu_options': {'allow_growth': True}})", kind="any",
                                  check=lambda v: None if isinstance(v, dict) else
                                  "a dict of tf.compat.v1.ConfigProto fields")
    target: str = option("classes", "the default target data key (labels for HDF output, search hypotheses, "
                                    "analyze_data priors)", kind="str")
    log_batch_size: bool = option(False, "at log verbosity 5, one line per step with the batch's shape", kind="bool")
    inference_steps_in_flight: int = option(2, "passes without updates (eval, forward, search) keep this many "
                                               "Session.run steps running at once (1: one after another)",
                                            kind="int", min=1, valid="an int >= 1 (1: one step after another)")
