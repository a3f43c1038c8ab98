"""The reference's old top-level module names (``import TFUtil``, ``from Pretrain import WrapEpochValue``).

Published configs import RETURNN through the module names of its early layout (one flat directory:
``TFUtil``, ``TFNetworkLayer``, ``Pretrain``, ``Util``, ...). The reference maps each old name to its new
module, both as a top-level name (``import TFUtil``) and under the package (``import returnn.TFUtil``); the
module object is the same (``TFUtil is returnn.tf.util.basic``). The table below was observed by importing each
name in the reference's venv and printing ``module.__name__``.

:func:`install` (called when ``returnn`` is imported) adds a finder to ``sys.meta_path`` that answers only
these names; nothing is imported until a config asks for one. A legacy name whose new module does not exist
in this implementation raises ``ModuleNotFoundError`` naming both, so the config's author sees what is missing.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import Dict, Optional

# old top-level name -> the reference's module path (observed from the reference)
LEGACY_MODULES: Dict[str, str] = {
    "BundleFile": "returnn.datasets.bundle_file",
    "CachedDataset": "returnn.datasets.cached",
    "CachedDataset2": "returnn.datasets.cached2",
    "Config": "returnn.config",
    "Dataset": "returnn.datasets.basic",
    "Debug": "returnn.util.debug",
    "DebugHelpers": "returnn.util.debug_helpers",
    "EngineBase": "returnn.engine.base",
    "EngineBatch": "returnn.engine.batch",
    "Fsa": "returnn.util.fsa",
    "GeneratingDataset": "returnn.datasets.generating",
    "HDFDataset": "returnn.datasets.hdf",
    "HyperParamTuning": "returnn.tf.hyper_param_tuning",
    "LearningRateControl": "returnn.learning_rate_control",
    "LmDataset": "returnn.datasets.lm",
    "Log": "returnn.log",
    "MetaDataset": "returnn.datasets.meta",
    "NativeOp": "returnn.native_op",
    "NormalizationData": "returnn.datasets.normalization_data",
    "NumpyDumpDataset": "returnn.datasets.numpy_dump",
    "Pretrain": "returnn.pretrain",
    "RawWavDataset": "returnn.datasets.raw_wav",
    "SprintCache": "returnn.sprint.cache",
    "SprintControl": "returnn.sprint.control",
    "SprintDataset": "returnn.datasets.sprint",
    "SprintErrorSignals": "returnn.sprint.error_signals",
    "SprintExternInterface": "returnn.sprint.extern_interface",
    "SprintInterface": "returnn.sprint.interface",
    "StereoDataset": "returnn.datasets.stereo",
    "TFCompat": "returnn.tf.compat",
    "TFDataPipeline": "returnn.tf.data_pipeline",
    "TFDistributed": "returnn.tf.distributed",
    "TFEngine": "returnn.tf.engine",
    "TFHorovod": "returnn.tf.horovod",
    "TFKenLM": "returnn.tf.util.ken_lm",
    "TFNativeOp": "returnn.tf.native_op",
    "TFNetwork": "returnn.tf.network",
    "TFNetworkLayer": "returnn.tf.layers.basic",
    "TFNetworkRecLayer": "returnn.tf.layers.rec",
    "TFNetworkSegModLayer": "returnn.tf.layers.segmental_model",
    "TFNetworkSigProcLayer": "returnn.tf.layers.signal_processing",
    "TFSprint": "returnn.tf.sprint",
    "TFUpdater": "returnn.tf.updater",
    "TFUtil": "returnn.tf.util.basic",
    "TaskSystem": "returnn.util.task_system",
    "Util": "returnn.util.basic",
    "rnn": "returnn.__main__",
    "better_exchook": "returnn.util.better_exchook",
}


#: packages whose submodules are the legacy names too: ``returnn`` and the checkout's root imported under another
#: name (its ``__init__.py`` adds it, e.g. ``crnn`` for ``import crnn.TFUtil``)
_PACKAGES = ["returnn"]


def add_package_alias(package: str) -> None:
    """Answers the legacy names also as submodules of ``package`` (``<package>.TFUtil``)."""
    if package not in _PACKAGES:
        _PACKAGES.append(package)


def legacy_target(fullname: str) -> Optional[str]:
    """:return: the new module path for a legacy name (``"TFUtil"``, ``"returnn.TFUtil"``, or under a package of
        :func:`add_package_alias`), else None"""
    for package in _PACKAGES:
        if fullname.startswith(package + "."):
            return LEGACY_MODULES.get(fullname[len(package) + 1:])
    return LEGACY_MODULES.get(fullname)


class _AliasLoader(importlib.abc.Loader):
    """Loads a legacy name as the very module object of its new path."""

    def __init__(self, legacy_name: str, target: str):
        self.legacy_name = legacy_name
        self.target = target

    def create_module(self, spec):
        try:
            return importlib.import_module(self.target)
        except ModuleNotFoundError as exc:
            if exc.name is not None and not self.target.startswith(exc.name):
                raise  # a dependency of the target is missing: report that one
            raise ModuleNotFoundError(
                f"No module named {self.legacy_name!r}: the reference maps this legacy module name to "
                f"{self.target!r}, which this implementation does not provide", name=self.legacy_name) from None

    def exec_module(self, module) -> None:
        """The target module was executed by its own import."""


class LegacyModuleFinder(importlib.abc.MetaPathFinder):
    """Meta path finder for the names in :data:`LEGACY_MODULES` (top level and under ``returnn.``)."""

    def find_spec(self, fullname, path=None, target=None):
        new = legacy_target(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(fullname, new))


def install() -> None:
    """Adds the finder to ``sys.meta_path`` (once). Called by ``import returnn``."""
    if not any(isinstance(f, LegacyModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(LegacyModuleFinder())
