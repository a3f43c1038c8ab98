"""``behavior_version``: opting into stricter, newer semantics, as the reference's config key does.

A config sets ``behavior_version = N``. Code that accepts an old, discouraged usage calls
``BehaviorVersion.require(condition, message, version)``: when the condition does not hold, configs with
``behavior_version >= version`` get :class:`BehaviorVersion.RequirementNotSatisfied`, older ones a
deprecation warning on the log (once per message). This is how new checks stay compatible with configs the
reference accepts.

The class API and its behaviour follow the reference (observed): ``set`` once per process (setting the same
value again is fine), ``get`` (the explicit version, else the minimum version, 0 by default), ``get_if_set``,
``is_set``, ``set_min_behavior_version`` (code that needs newer semantics raises the minimum; not above an
explicitly set version), ``require``, and the callback lists ``reset_callbacks`` /
``handle_new_min_version_callbacks``.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Tuple

from returnn.errors import ConfigError, ConfigValueError


class BehaviorVersion:
    """The global behavior version of the process (see the module doc)."""

    _latest_behavior_version = 38  # the reference release this project follows knows versions up to 38
    _behavior_version: Optional[int] = None
    _min_behavior_version: int = 0
    reset_callbacks: List[Callable[[], None]] = []
    handle_new_min_version_callbacks: List[Callable[[], None]] = []

    class RequirementNotSatisfied(ConfigError):
        """A usage that the config's ``behavior_version`` no longer allows."""

    @classmethod
    def set(cls, version: Optional[int]) -> None:
        """Sets the version (from the config key ``behavior_version``); None or the current value: no change.

        A version above the latest known one (38) prints a warning, as the reference.

        :raises ConfigError: a different version was already set in this process, or ``version`` is below the
            minimum set by :meth:`set_min_behavior_version`
        :raises ConfigValueError: ``version`` is not a non-negative integer
        """
        if version == cls._behavior_version:
            return
        if cls._behavior_version is not None:
            raise ConfigError(f"behavior_version already set to {cls._behavior_version}, cannot reset to {version}")
        if version is None:
            return
        if isinstance(version, bool) or not isinstance(version, (int, float)) or int(version) != version:
            raise ConfigValueError("behavior_version", expected="a non-negative integer", got=version)
        version = int(version)
        if version < 0:
            raise ConfigValueError("behavior_version", expected="a non-negative integer", got=version)
        if version < cls._min_behavior_version:
            raise ConfigError(f"behavior_version {version} is below the minimum behavior_version "
                              f"{cls._min_behavior_version} required by the code in use (set_min_behavior_version)")
        if version > cls._latest_behavior_version:
            from returnn import __long_version__
            from returnn.log import log

            log.print_warning(f"behavior_version {version} > latest known behavior_version "
                              f"{cls._latest_behavior_version}. Your RETURNN version is too old "
                              f"({__long_version__}).")
        cls._behavior_version = version

    @classmethod
    def get(cls) -> int:
        """The explicit version if set, else the minimum version (0 by default)."""
        if cls._behavior_version is not None:
            return cls._behavior_version
        return cls._min_behavior_version

    @classmethod
    def get_if_set(cls) -> Optional[int]:
        """The explicit version, or None if not set."""
        return cls._behavior_version

    @classmethod
    def is_set(cls) -> bool:
        """Whether a version was set explicitly."""
        return cls._behavior_version is not None

    @classmethod
    def set_min_behavior_version(cls, min_behavior_version: int) -> None:
        """Raises the minimum version (code that relies on newer semantics); lower values are ignored.

        :raises ConfigError: above an explicitly set version
        """
        if cls._behavior_version is not None and min_behavior_version > cls._behavior_version:
            raise ConfigError(f"set_min_behavior_version({min_behavior_version}) not allowed with explicit "
                              f"behavior_version {cls._behavior_version}")
        if min_behavior_version > cls._min_behavior_version:
            cls._min_behavior_version = min_behavior_version
            cls._handle_new_min_version()

    @classmethod
    def require(cls, condition: bool, message: str, version: int) -> None:
        """Checks a usage rule introduced with behavior version ``version``.

        :raises BehaviorVersion.RequirementNotSatisfied: if ``condition`` is false and :meth:`get` is at least
            ``version`` (message: ``"<message> (required since behavior_version >= <version>)"``); a false
            condition below that logs ``DEPRECATION WARNING: <message>`` and ``This will be disallowed with
            behavior_version <version>.`` (v2, once per message)
        """
        if condition:
            return
        if cls.get() >= version:
            raise cls.RequirementNotSatisfied(f"{message} (required since behavior_version >= {version})")
        from returnn.log import log

        log.print_deprecation_warning(message, behavior_version=version)

    @classmethod
    def _get_state(cls) -> Tuple[Optional[int], int]:
        """(explicit version or None, minimum version)."""
        return cls._behavior_version, cls._min_behavior_version

    @classmethod
    def _reset(cls, state: Optional[Tuple[Optional[int], int]] = None) -> None:
        """For tests: back to the state ``state`` (default: nothing set); calls the reset callbacks, then the
        new-minimum callbacks."""
        cls._behavior_version, cls._min_behavior_version = state if state is not None else (None, 0)
        for callback in list(cls.reset_callbacks):
            callback()
        cls._handle_new_min_version()

    @classmethod
    def _handle_new_min_version(cls) -> None:
        for callback in list(cls.handle_new_min_version_callbacks):
            callback()
