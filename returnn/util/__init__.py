"""Utilities. ``returnn.util.basic`` is the public path the reference's configs import from.

As the reference's package, it names ``BehaviorVersion``, ``BackendEngine`` and ``NumbersDict`` itself
(``from returnn.util import BehaviorVersion``); they live in small modules that import only ``returnn.errors``.
"""

from returnn.util.backend import BackendEngine as BackendEngine
from returnn.util.behavior_version import BehaviorVersion as BehaviorVersion
from returnn.util.numbers_dict import NumbersDict as NumbersDict
