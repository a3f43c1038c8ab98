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
    use_tensorflow: bool = option(False, "True selects TensorFlow explicitly (the only backend; then the start-up "
                                         "prints the TensorFlow version line for every task)", kind="bool")

    @property
    def tensorflow_explicit(self) -> bool:
        """Whether the config names TensorFlow: ``use_tensorflow = True`` or ``backend`` one of its names."""
        return self.use_tensorflow or str(self.backend).lower() in ("tensorflow", "tensorflow-net-dict", "tf")
