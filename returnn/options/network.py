"""Keys of building a layer network (read by :class:`returnn.tf.network.TFNetwork` once per root network) and the
defaults of the layers' parameter noise arguments."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from returnn.options.declare import OptionGroup, option


@dataclasses.dataclass(frozen=True)
class NetworkOptions(OptionGroup):
    """How a ``network`` dict is built (:class:`returnn.tf.network.TFNetwork`), and the config-wide defaults of
    the layer arguments of the same names (a layer dict's own value wins)."""

    topic = "network construction"

    param_dropout: float = option(0.0, "every layer's default param_dropout: in training, dropout with this rate on "
                                       "the layer's trainable params", kind="float", min=0.0, max=1.0,
                                  valid="a float in [0, 1)", check=lambda v: "a float in [0, 1)" if v >= 1 else None)
    param_dropout_min_ndim: int = option(0, "every layer's default param_dropout_min_ndim: param_dropout only on "
                                            "params with at least this many axes", kind="int", min=0)
    param_variational_noise: float = option(0.0, "every layer's default param_variational_noise: in training, "
                                                  "Gaussian noise of this std on the layer's trainable params",
                                            kind="float", min=0.0)
    flat_net_construction: bool = option(False, "build the layers named in a layer's 'from' first, in a loop "
                                                "(chains of thousands of layers stay within Python's recursion "
                                                "limit)", kind="bool")
    debug_print_layer_output_template: bool = option(False, "print each layer's output template when it is built "
                                                            "(at verbosity 1 instead of 3)", kind="bool")
    optimize_move_layers_out: bool = option(True, "every rec layer's default optimize_move_layers_out: in training, "
                                                  "the layers of a rec unit that do not need the loop run over the "
                                                  "whole sequence before or after it", kind="bool")


def network_config(config: Any = None) -> Any:
    """:return: the config a network is built with: ``config``; if None the global config (the reference's
    behaviour for a ``TFNetwork()`` created without one, e.g. in a config's own code); if none is set an empty
    :class:`returnn.config.Config`"""
    if config is not None:
        return config
    from returnn.config import Config, get_global_config

    found: Optional[Any] = get_global_config(raise_exception=False)
    return found if found is not None else Config()
