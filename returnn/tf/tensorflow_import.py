"""Imports TensorFlow without the parts the TF backend never needs at start-up (about 1 s of every start-up).

Two parts of ``import tensorflow`` are skipped or deferred, for the duration of :func:`import_tensorflow` only:

**Keras.** ``import tensorflow`` (2.16 and later) ends with an eager ``import keras.src.optimizers`` wrapped in
``try: ... except ImportError``: it only registers Keras' optimizers for SavedModel loading and imports all of
Keras (and with it IPython and matplotlib when they are installed). The TF backend here builds its graphs with
``tf.compat.v1`` and TensorFlow's own ops and never needs Keras, so :func:`import_tensorflow` refuses the
Keras packages for the duration of ``import tensorflow`` only. ``tf.keras`` (TensorFlow's lazy loader) keeps
working afterwards, e.g. in a user's config: Keras is then imported on first use, as usual.

**Namespaces the TF backend does not use** (:data:`DEFERRED_MODULES`): ``tf.__internal__`` (TensorFlow's private
API for Keras and its own tests, which pulls in its test utilities), the legacy Keras copy inside TensorFlow
(``tensorflow.python.keras``, needed by ``tf.compat.v1.layers``, ``tf.compat.v1.nn.rnn_cell`` and the feature
columns; it also imports SciPy), ``tf.lite``, ``tf.compat.v1.tpu`` and ``tf.compat.v1.distribute`` with the TPU
cluster resolvers. Each is created as a stand-in module whose body runs on the first access of an attribute that
is not a submodule; importing a submodule (``from tensorflow.python.keras.optimizer_v2 import ...``) does not run
its package's body. ``import returnn.tf`` on 2 cores, alternating runs: 1.66–1.83 → 1.44–1.48 s (2446 → 2111
modules).

**Safety.** The module names above are TensorFlow internals, so the speed-up is only used with the TensorFlow
versions they were verified against (:data:`VERIFIED_TF_VERSIONS`, major.minor, read from the installed
package's metadata without importing it; ``tests/tf/test_tensorflow_import.py`` checks every name against the
installed TensorFlow). With any other version, when the version cannot be read, or with the environment variable
``RETURNN_TF_PLAIN_IMPORT=1``, :func:`import_tensorflow` is a plain ``import tensorflow`` (same behaviour, about
0.3 s slower).

This module must not import TensorFlow at module level: :mod:`returnn.tf` calls :func:`import_tensorflow`
before anything else imports it.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Optional, Sequence

#: TensorFlow versions (major.minor) whose module layout the names below were verified against
VERIFIED_TF_VERSIONS = ("2.21",)
#: the distributions that install the ``tensorflow`` package (their metadata gives its version)
TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-intel", "tensorflow-macos",
                    "tf-nightly", "tf-nightly-cpu")
#: set to 1 to always import TensorFlow plainly
PLAIN_IMPORT_ENV = "RETURNN_TF_PLAIN_IMPORT"
# the top-level packages TensorFlow's __init__ imports eagerly (Keras 3; ``tf_keras`` with TF_USE_LEGACY_KERAS)
KERAS_PACKAGES = ("keras", "tf_keras")
# modules created as stand-ins (:class:`_DeferredModule`) while TensorFlow is imported: their bodies run on first use
DEFERRED_MODULES = (
    # TensorFlow's private API for Keras and its tests (its test utilities)
    "tensorflow._api.v2.__internal__", "tensorflow._api.v2.compat.v2.__internal__",
    # TensorFlow's legacy Keras copy and the namespaces that import it at start-up (and SciPy with it)
    "tensorflow.python.keras", "tensorflow.python.keras.layers", "tensorflow._api.v2.compat.v1.layers",
    "tensorflow._api.v2.compat.v1.nn", "tensorflow._api.v2.feature_column",
    "tensorflow._api.v2.compat.v1.feature_column", "tensorflow._api.v2.compat.v2.feature_column",
    # TF Lite, TPUs, v1 distribution strategies
    "tensorflow._api.v2.lite", "tensorflow._api.v2.compat.v1.lite", "tensorflow._api.v2.compat.v2.lite",
    "tensorflow._api.v2.compat.v1.tpu", "tensorflow._api.v2.compat.v1.distribute",
    "tensorflow.python.distribute.cluster_resolver",
)


class _RefusingLoader(importlib.abc.Loader):
    """Loader whose modules fail to execute with :class:`ImportError` (TensorFlow catches it)."""

    def __init__(self, name: str):
        self.name = name

    def create_module(self, spec):  # default module creation
        return None

    def exec_module(self, module: ModuleType) -> None:
        raise ImportError(f"{self.name} is not imported while TensorFlow is imported (returnn.tf.tensorflow_import)",
                          name=self.name)


class _DeferredModule(ModuleType):
    """A module whose body has not run yet. The first access of a missing attribute runs it in this module object
    (which then becomes a plain module); a missing attribute that names a submodule imports just the submodule.

    Unlike ``importlib.util.LazyLoader``, this allows a module body that replaces its ``sys.modules`` entry (the
    ``tf.compat.v1`` namespaces wrap themselves in a deprecation wrapper): the stand-in stays valid.
    """

    def __getattr__(self, attr: str):
        state = self.__dict__
        if not state.get("_deferred_armed"):  # the import system sets __file__ etc. before exec_module
            raise AttributeError(attr)
        name = state["__name__"]
        path = state.get("__path__")
        if path is not None and not attr.startswith("__"):
            if importlib.machinery.PathFinder.find_spec(f"{name}.{attr}", path) is not None:
                return importlib.import_module(f"{name}.{attr}")
        del state["_deferred_armed"]
        self.__class__ = ModuleType
        state["__spec__"].loader = state["__loader__"] = state.pop("_deferred_loader")
        try:
            state["__spec__"].loader.exec_module(self)
        except BaseException:
            sys.modules.pop(name, None)  # as a failed import: the next import tries again
            raise
        return getattr(self, attr)


class _DeferringLoader(importlib.abc.Loader):
    """Creates a :class:`_DeferredModule` and keeps the real loader for its first use."""

    def __init__(self, loader: importlib.abc.Loader):
        self.loader = loader

    def create_module(self, spec) -> ModuleType:
        module = _DeferredModule(spec.name)
        module.__dict__["_deferred_loader"] = self.loader
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__dict__["_deferred_armed"] = True


class _TensorFlowImportFinder(importlib.abc.MetaPathFinder):
    """Finds the Keras packages where they are installed (``importlib.util.find_spec`` still gives their
    location, which TensorFlow's ``__init__`` adds to ``tensorflow.__path__``), but their import fails; finds
    :data:`DEFERRED_MODULES` with a deferring loader."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None, target=None):
        if fullname in KERAS_PACKAGES:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None:
                spec.loader = _RefusingLoader(fullname)
            return spec
        if fullname in DEFERRED_MODULES:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _DeferringLoader(spec.loader)
            return spec
        return None


def installed_tensorflow_version() -> Optional[str]:
    """:return: the installed TensorFlow's version (e.g. ``"2.21.0"``) from package metadata, without importing it;
    None if no known distribution is installed (e.g. a source build)"""
    from importlib import metadata

    for dist in TF_DISTRIBUTIONS:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return None


def speedup_applies(version: Optional[str] = None) -> bool:
    """:return: whether :func:`import_tensorflow` may skip/defer modules: the installed TensorFlow's major.minor is
    in :data:`VERIFIED_TF_VERSIONS` and ``RETURNN_TF_PLAIN_IMPORT`` is not set
    :param version: instead of the installed version (for tests)
    """
    import os

    if os.environ.get(PLAIN_IMPORT_ENV, "") not in ("", "0"):
        return False
    version = installed_tensorflow_version() if version is None else version
    if not version:
        return False
    return ".".join(version.split(".")[:2]) in VERIFIED_TF_VERSIONS


def import_tensorflow() -> ModuleType:
    """Imports and returns the ``tensorflow`` module, skipping its eager Keras import and deferring
    :data:`DEFERRED_MODULES` (see the module doc) when :func:`speedup_applies`; else a plain ``import tensorflow``.

    Nothing changes when TensorFlow or Keras is already imported. The finder is removed again before this
    returns, also when ``import tensorflow`` raises.
    """
    if ("tensorflow" in sys.modules or any(name in sys.modules for name in KERAS_PACKAGES)
            or not speedup_applies()):
        import tensorflow

        return tensorflow
    finder = _TensorFlowImportFinder()
    sys.meta_path.insert(0, finder)
    try:
        import tensorflow
    finally:
        sys.meta_path.remove(finder)
    return tensorflow
