"""The checkout's root directory as a Python package (the old flat layout's way of using RETURNN).

Old setups put the checkout on ``sys.path`` under some package name (e.g. a symlink ``crnn`` -> the checkout) and
import the old module names through it: ``import crnn.TFUtil``, ``crnn.better_exchook``. Imported under any name
other than ``returnn``, this module puts the checkout first on ``sys.path`` (so ``returnn`` is this checkout's
package) and answers the old names (:data:`returnn.legacy_modules.LEGACY_MODULES`) as its submodules and attributes,
as the reference (observed: ``crnn.TFUtil.__name__ == "returnn.tf.util.basic"``). Imported as ``returnn`` itself (the
checkout symlinked as ``returnn``), it is replaced by the real package ``returnn/`` of the checkout.
"""

import os as _os
import sys as _sys

_root_dir = _os.path.dirname(_os.path.abspath(__file__))
if _root_dir not in _sys.path:
    _sys.path.insert(0, _root_dir)

if __name__ == "returnn":
    # ``import returnn`` found this file: import the checkout's real package instead; the import system returns
    # what sys.modules holds for the name once this module's code has run
    del _sys.modules["returnn"]
    import returnn as _real  # noqa: E402

    _sys.modules["returnn"] = _real
else:
    from returnn import legacy_modules as _legacy_modules  # noqa: E402

    _legacy_modules.add_package_alias(__name__)

    def __getattr__(name):
        """:return: the module of an old name (``crnn.better_exchook``), imported on first use"""
        if name in _legacy_modules.LEGACY_MODULES:
            import importlib

            return importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(globals()) | set(_legacy_modules.LEGACY_MODULES))
