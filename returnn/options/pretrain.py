"""Keys of layer-wise pretraining (:mod:`returnn.pretrain`)."""

from __future__ import annotations

import dataclasses
from typing import Any

from returnn.options.declare import OptionGroup, borrowed, option
from returnn.options.run import RunOptions


@dataclasses.dataclass(frozen=True)
class PretrainOptions(OptionGroup):
    """Pretraining (:func:`returnn.pretrain.pretrain_from_config`): the networks of the first epochs grow
    towards the config's ``network``."""

    topic = "pretraining"

    pretrain: Any = option(None, "layer-wise pretraining: 'default' (or True), a dict of pretrain options "
                                 "(construction_algo, repetitions, copy_param_mode, ...), or None (off)", kind="any")
    pretrain_construction_algo: Any = option(None, "the pretrain option construction_algo when the 'pretrain' dict "
                                                   "has none ('from_output', 'from_input', ... or a function)",
                                             kind="any")
    pretrain_repetitions: Any = option(None, "the pretrain option repetitions (epochs per network) when the "
                                             "'pretrain' dict has none", kind="any")
    pretrain_greedy: Any = option(None, "the pretrain option greedy when the 'pretrain' dict has none", kind="any")
    pretrain_copy_output_layer: Any = option(None, "the pretrain option copy_output_layer when the 'pretrain' dict "
                                                   "has none", kind="any")
    #: the final network (declared in :class:`RunOptions`)
    network: Any = borrowed(RunOptions, "network")
