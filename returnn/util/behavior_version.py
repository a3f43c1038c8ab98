"""``behavior_version``: opting into stricter, newer semantics, as the reference's config key does.

A config sets ``behavior_version = N``. Code that accepts an old, discouraged usage calls
``BehaviorVersion.require(condition, message, version)``: when the condition does not hold, configs with
``behavior_version >= version`` get :class:`BehaviorVersion.RequirementNotSatisfied`, older ones a
deprecation warning on the log. This is how new checks stay compatible with configs the reference accepts.
"""

from __future__ import annotations

from typing import Optional

from returnn.errors import ConfigError


class BehaviorVersion:
    """The global behavior version (0 when the config does not set one). Set once per process."""

    _behavior_version: Optional[int] = None

    class RequirementNotSatisfied(ConfigError):
        """A usage that the config's ``behavior_version`` no longer allows."""

    @classmethod
    def set(cls, version: Optional[int]) -> None:
        """Sets the version (from the config key ``behavior_version``).

        :raises ConfigError: if a different version was already set in this process
        """
        if version is None or version == cls._behavior_version:
            return
        if cls._behavior_version is not None:
            raise ConfigError(f"behavior_version already set to {cls._behavior_version}, cannot reset to {version}")
        cls._behavior_version = int(version)

    @classmethod
    def get(cls) -> int:
        """The version, 0 if not set."""
        return cls._behavior_version or 0

    @classmethod
    def get_if_set(cls) -> Optional[int]:
        """The version, or None if not set."""
        return cls._behavior_version

    @classmethod
    def is_set(cls) -> bool:
        return cls._behavior_version is not None

    @classmethod
    def require(cls, condition: bool, message: str, version: int) -> None:
        """Checks a usage rule introduced with behavior version ``version``.

        :raises BehaviorVersion.RequirementNotSatisfied: if ``condition`` is false and the config's
            behavior_version is at least ``version``; otherwise a false condition logs a deprecation warning
        """
        if condition:
            return
        if cls.get() >= version:
            raise cls.RequirementNotSatisfied(f"{message} (required since behavior_version >= {version})")
        from returnn.log import log

        print(f"DEPRECATION WARNING: {message}\nThis will be disallowed with behavior_version {version}.",
              file=log.v2)

    @classmethod
    def _reset(cls, version: Optional[int] = None) -> None:
        """For tests: forget the version (or set it to ``version``)."""
        cls._behavior_version = version
