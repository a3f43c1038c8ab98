"""RETURNN's command-line toolkit with the TensorFlow backend, re-implemented.

Public module paths follow the reference (``returnn.config``, ``returnn.log``, ``returnn.util.basic``,
``returnn.datasets``, ``returnn.tensor``, ``returnn.tf.*``) so that existing configs and scripts import
unchanged.
"""

__version__ = "1.0.0"
__long_version__ = __version__
__git_version__ = __version__

from returnn import legacy_modules as _legacy_modules

_legacy_modules.install()
