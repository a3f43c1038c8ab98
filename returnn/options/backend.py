"""Keys of the backend selection (:class:`returnn.util.backend.BackendEngine`)."""

from __future__ import annotations

import dataclasses
from typing import Optional

from returnn.options.declare import OptionGroup, option


@dataclasses.dataclass(frozen=True)
class BackendOptions(OptionGroup):
    """The compute backend: TensorFlow is the only one this project provides."""

    topic = "backend"

    backend: Optional[str] = option(None, "the backend: 'tensorflow' (also 'tensorflow-net-dict', 'tf'), the only "
                                          "one provided; others are an error", kind="str")
    use_theano: bool = option(False, "True asks for the Theano backend (an error here)", kind="bool")
