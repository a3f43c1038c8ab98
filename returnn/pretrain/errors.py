"""Errors of the ``pretrain`` schedule: bad options, and networks the construction algorithms cannot grow."""

from __future__ import annotations

from returnn.errors import ConfigError


class PretrainError(ConfigError, AssertionError):
    """The ``pretrain`` options or the network cannot give a pretrain schedule (the reference asserted in these
    cases, hence also an ``AssertionError``). The message names the config key or layer, the construction index
    and the pretrain epochs concerned, what was expected and what was found."""


class PretrainOptionError(ConfigError, TypeError):
    """An unknown key in the ``pretrain`` dict (the reference raised ``TypeError`` from ``Pretrain.__init__``)."""
