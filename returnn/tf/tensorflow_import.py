"""Imports TensorFlow without the parts the TF backend never needs at start-up (about 1 s of every start-up).

Two parts of ``import tensorflow`` are skipped or deferred, for the duration of :func:`import_tensorflow` only:

**Keras.** ``import tensorflow`` (2.16 and later) ends with an eager ``import keras.src.optimizers`` wrapped in
``try: ... except ImportError``: it only registers Keras' optimizers for SavedModel loading and imports all of
Keras (and with it IPython and matplotlib when they are installed). The TF backend here builds its graphs with
``tf.compat.v1`` and TensorFlow's own ops and never needs Keras, so :func:`import_tensorflow` refuses the
Keras packages for the duration of ``import tensorflow`` only. ``tf.keras`` (TensorFlow's lazy loader) keeps
working afterwards, e.g. in a user's config: Keras is then imported on first use, as usual.

**The ``tf.__internal__`` namespace** (:data:`LAZY_MODULES`): TensorFlow's private API for Keras and its own
tests; importing it pulls in TensorFlow's test utilities (``distribute.combinations``, ``multi_process_runner``,
``test_util``, ...): 0.3 s of the 2.0 s ``import tensorflow`` here. It is created as a lazy module
(``importlib.util.LazyLoader``), executed on the first attribute access, e.g. when Keras is used.

This module must not import TensorFlow at module level: :mod:`returnn.tf` calls :func:`import_tensorflow`
before anything else imports it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Optional, Sequence

# the top-level packages TensorFlow's __init__ imports eagerly (Keras 3; ``tf_keras`` with TF_USE_LEGACY_KERAS)
KERAS_PACKAGES = ("keras", "tf_keras")
# modules TensorFlow's __init__ imports that are created lazily (executed on first attribute access)
LAZY_MODULES = ("tensorflow._api.v2.__internal__", "tensorflow._api.v2.compat.v2.__internal__")


class _RefusingLoader(importlib.abc.Loader):
    """Loader whose modules fail to execute with :class:`ImportError` (TensorFlow catches it)."""

    def __init__(self, name: str):
        self.name = name

    def create_module(self, spec):  # default module creation
        return None

    def exec_module(self, module: ModuleType) -> None:
        raise ImportError(f"{self.name} is not imported while TensorFlow is imported (returnn.tf.tensorflow_import)",
                          name=self.name)


class _TensorFlowImportFinder(importlib.abc.MetaPathFinder):
    """Finds the Keras packages where they are installed (``importlib.util.find_spec`` still gives their
    location, which TensorFlow's ``__init__`` adds to ``tensorflow.__path__``), but their import fails; finds
    :data:`LAZY_MODULES` with a lazy loader."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None, target=None):
        if fullname in KERAS_PACKAGES:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None:
                spec.loader = _RefusingLoader(fullname)
            return spec
        if fullname in LAZY_MODULES:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = importlib.util.LazyLoader(spec.loader)
            return spec
        return None


def import_tensorflow() -> ModuleType:
    """Imports and returns the ``tensorflow`` module, skipping its eager Keras import and deferring
    ``tf.__internal__`` (see the module doc).

    Nothing changes when TensorFlow or Keras is already imported. The finder is removed again before this
    returns, also when ``import tensorflow`` raises.
    """
    if "tensorflow" in sys.modules or any(name in sys.modules for name in KERAS_PACKAGES):
        import tensorflow

        return tensorflow
    finder = _TensorFlowImportFinder()
    sys.meta_path.insert(0, finder)
    try:
        import tensorflow
    finally:
        sys.meta_path.remove(finder)
    return tensorflow
