"""Imports TensorFlow without its eager import of Keras (about 0.5–1 s of every start-up).

``import tensorflow`` (2.16 and later) ends with an eager ``import keras.src.optimizers`` wrapped in
``try: ... except ImportError``: it only registers Keras' optimizers for SavedModel loading and imports all of
Keras (and with it IPython and matplotlib when they are installed). The TF backend here builds its graphs with
``tf.compat.v1`` and TensorFlow's own ops and never needs Keras, so :func:`import_tensorflow` refuses the
Keras packages for the duration of ``import tensorflow`` only. ``tf.keras`` (TensorFlow's lazy loader) keeps
working afterwards, e.g. in a user's config: Keras is then imported on first use, as usual.

This module must not import TensorFlow at module level: :mod:`returnn.tf` calls :func:`import_tensorflow`
before anything else imports it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Optional, Sequence

# the top-level packages TensorFlow's __init__ imports eagerly (Keras 3; ``tf_keras`` with TF_USE_LEGACY_KERAS)
KERAS_PACKAGES = ("keras", "tf_keras")


class _RefusingLoader(importlib.abc.Loader):
    """Loader whose modules fail to execute with :class:`ImportError` (TensorFlow catches it)."""

    def __init__(self, name: str):
        self.name = name

    def create_module(self, spec):  # default module creation
        return None

    def exec_module(self, module: ModuleType) -> None:
        raise ImportError(f"{self.name} is not imported while TensorFlow is imported (returnn.tf.keras_deferral)",
                          name=self.name)


class _KerasDeferringFinder(importlib.abc.MetaPathFinder):
    """Finds the Keras packages where they are installed (``importlib.util.find_spec`` still gives their
    location, which TensorFlow's ``__init__`` adds to ``tensorflow.__path__``), but their import fails."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None, target=None):
        if fullname not in KERAS_PACKAGES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None:
            return None
        spec.loader = _RefusingLoader(fullname)
        return spec


def import_tensorflow() -> ModuleType:
    """Imports and returns the ``tensorflow`` module, skipping its eager Keras import (see the module doc).

    Nothing changes when TensorFlow or Keras is already imported. The finder is removed again before this
    returns, also when ``import tensorflow`` raises.
    """
    if "tensorflow" in sys.modules or any(name in sys.modules for name in KERAS_PACKAGES):
        import tensorflow

        return tensorflow
    finder = _KerasDeferringFinder()
    sys.meta_path.insert(0, finder)
    try:
        import tensorflow
    finally:
        sys.meta_path.remove(finder)
    return tensorflow
