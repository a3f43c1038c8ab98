"""Options read from the process's global config (:func:`returnn.config.get_global_config`), for the few parts that
run where no config is passed to them (a dataset built inside a config, the reference's ``get_ctx()`` API).

This module is the one place outside :mod:`returnn.config` that looks the global config up.
"""

from __future__ import annotations

from typing import Any, Optional, Type, TypeVar

from returnn.options.declare import OptionGroup

G = TypeVar("G", bound=OptionGroup)


def global_config_or_none() -> Any:
    """The global :class:`~returnn.config.Config`, or None when none is set."""
    from returnn.config import get_global_config

    return get_global_config(raise_exception=False)


def global_options(group: Type[G]) -> Optional[G]:
    """``group`` parsed from the global config (:meth:`OptionGroup.from_config`), or None when no global config
    is set.

    :raises ConfigValueError: an invalid value of a key of ``group``
    """
    config = global_config_or_none()
    return None if config is None else group.from_config(config)


def read_global(group: Type[OptionGroup], key: str) -> Any:
    """The value of ``key`` (declared in ``group``) in the global config; its declared default when no global config
    is set.

    :raises ConfigValueError: an invalid value of ``key``
    :raises KeyError: ``group`` does not declare ``key``
    """
    config = global_config_or_none()
    if config is None:
        return {opt.key: opt for opt in group.declared()}[key].default
    return group.read_one(config, key)
