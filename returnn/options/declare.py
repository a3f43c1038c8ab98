"""Declaring config keys once: name, type, default, meaning and valid range, parsed by one function.

An options group is a frozen dataclass whose fields are config keys::

    @dataclasses.dataclass(frozen=True)
    class TrainingOptions(OptionGroup):
        num_epochs: int = option(5, "the last epoch to train", kind="int")
        save_interval: int = option(1, "save a checkpoint every N epochs (and always the last one)", kind="int")

    opts = TrainingOptions.from_config(config)   # reads and validates every key of the group
    opts.num_epochs

The field name is the config key. ``kind`` says how the value is read (the :class:`~returnn.config.Config` getter,
so line-based configs and ``++key value`` overrides convert as everywhere else):

* ``"int"``, ``"float"``, ``"bool"``: :meth:`Config.int` / :meth:`Config.float` / :meth:`Config.bool`;
* ``"str"``: :meth:`Config.value` (a string, or the default);
* ``"any"``: :meth:`Config.typed_value` (the Python value, e.g. a dict or a function);
* ``"any_or_str"``: the typed value when the key has one, else the string of a line-based config;
* ``"list"``: :meth:`Config.list` (a list; a line-based ``a,b`` value split), ``"int_list"``: :meth:`Config.int_list`;
* ``"has"``: whether the key is set at all (for keys whose value another part reads).

A group whose component also needs a key declared in another group holds it as a :func:`borrowed` field: read and
validated by that group's declaration (the key stays declared once), so ``from_config`` gives the component
everything it reads.

A value outside the valid range raises :class:`~returnn.errors.ConfigValueError` naming the key, what is valid
(``valid``) and the value found: ``min``/``max`` bound numbers, ``choices`` lists the accepted values (with
did-you-mean), and ``check`` is a function returning None for a valid value or the description of what is valid.
The default itself is never checked (None often means "not set").
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, ClassVar, Dict, List, Optional, Sequence, Tuple, Type, TypeVar

from returnn.errors import ConfigValueError

KINDS = ("int", "float", "bool", "str", "any", "any_or_str", "list", "int_list", "has")
#: how a key is supported here: ``"supported"`` (read and used), ``"no effect"`` (accepted, ignored, e.g. a
#: Theano/GPU-era switch of the reference)
STATUSES = ("supported", "no effect")

G = TypeVar("G", bound="OptionGroup")


@dataclasses.dataclass(frozen=True)
class Option:
    """One declared config key (see the module docstring).

    :param key: the config key (the dataclass field name)
    :param default: the value when the key is not set (or set to None)
    :param doc: the key's meaning (as the reference's), shown in docs and errors
    :param kind: how it is read, one of :data:`KINDS`
    :param valid: description of the valid values (for the error message); derived from min/max/choices if None
    :param status: one of :data:`STATUSES`
    """

    key: str
    default: Any
    doc: str
    kind: str
    valid: Optional[str] = None
    min: Optional[float] = None
    max: Optional[float] = None
    choices: Optional[Tuple[Any, ...]] = None
    check: Optional[Callable[[Any], Optional[str]]] = None
    status: str = "supported"
    reader: Optional[Callable[[Any, str, Any], Any]] = None
    none_ok: bool = True
    hint: Optional[str] = None

    def read(self, config) -> Any:
        """The value of this key in ``config`` (see module doc).

        :raises ConfigValueError: the value has the wrong type (from the getter) or is out of the valid range
        """
        value = (self.reader or _READERS[self.kind])(config, self.key, self.default)
        if self.kind != "has" and (value is not None or not self.none_ok) and config.has(self.key):
            self.validate(value)
        return value

    def validate(self, value: Any) -> None:
        """:raises ConfigValueError: ``value`` is outside the valid range of this key"""
        problem = None
        if self.choices is not None and value not in self.choices:
            problem = self.valid or "one of " + ", ".join(repr(c) for c in self.choices)
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and (
                (self.min is not None and value < self.min) or (self.max is not None and value > self.max)):
            problem = self.valid or _range_text(self.min, self.max)
        elif self.check is not None:
            problem = self.check(value)
        if problem is not None:
            suggestions: Sequence[str] = ()
            if self.choices is not None and isinstance(value, str):
                from returnn.util.suggest import close_matches

                names = [c for c in self.choices if isinstance(c, str)]
                suggestions = close_matches(value, names) or (names if len(names) <= 5 else ())
            raise ConfigValueError(self.key, expected=problem, got=value, suggestions=suggestions, hint=self.hint)


def _range_text(low: Optional[float], high: Optional[float]) -> str:
    if low is not None and high is not None:
        return f"a number in [{low}, {high}]"
    return f"a number >= {low}" if low is not None else f"a number <= {high}"


def _any_or_str(config, key: str, default: Any) -> Any:
    if config.is_typed(key):
        return config.typed_value(key, default)
    return config.value(key, default)


_READERS: Dict[str, Callable[[Any, str, Any], Any]] = {
    "int": lambda config, key, default: config.int(key, default),
    "float": lambda config, key, default: config.float(key, default),
    "bool": lambda config, key, default: config.bool(key, default),
    "str": lambda config, key, default: config.value(key, default),
    "any": lambda config, key, default: config.typed_value(key, default),
    "any_or_str": _any_or_str,
    "list": lambda config, key, default: list(config.list(key, default)),
    "int_list": lambda config, key, default: config.int_list(key, default),
    "has": lambda config, key, default: config.has(key),
}


def option(default: Any, doc: str, *, kind: str, valid: Optional[str] = None, min: Optional[float] = None,
           max: Optional[float] = None, choices: Optional[Sequence[Any]] = None,
           check: Optional[Callable[[Any], Optional[str]]] = None, status: str = "supported",
           reader: Optional[Callable[[Any, str, Any], Any]] = None, none_ok: bool = True,
           hint: Optional[str] = None, key: Optional[str] = None) -> Any:
    """A dataclass field declaring one config key of an :class:`OptionGroup` (see module doc).

    :param reader: ``reader(config, key, default)`` instead of the getter of ``kind`` (``kind`` then documents the
        type only)
    :param none_ok: False: an explicit ``key = None`` is checked too (and rejected by ``check``)
    :param hint: advice added to the error for an invalid value
    :param key: the config key when it is not the field name (a key that is no attribute name)
    """
    if kind not in KINDS:
        raise ValueError(f"option kind {kind!r}: expected one of {KINDS}")
    if status not in STATUSES:
        raise ValueError(f"option status {status!r}: expected one of {STATUSES}")
    spec = dict(default=default, doc=doc, kind=kind, valid=valid, min=min, max=max,
                choices=tuple(choices) if choices is not None else None, check=check, status=status, reader=reader,
                none_ok=none_ok, hint=hint, key=key)
    return dataclasses.field(default=default, metadata={"option": spec})


def borrowed(group: Type["OptionGroup"], key: str) -> Any:
    """A dataclass field holding the key ``key`` that ``group`` declares (read and validated by that declaration
    in :meth:`OptionGroup.from_config`; not a declaration of its own: :meth:`OptionGroup.declared` omits it).

    :raises KeyError: ``group`` does not declare ``key``
    """
    declared = {opt.key: opt for opt in group.declared()}
    if key not in declared:
        raise KeyError(f"{key!r} is not declared in {group.__name__}")
    return dataclasses.field(default=declared[key].default, metadata={"borrowed": (group, key)})


class OptionGroup:
    """Base of the options groups (frozen dataclasses whose fields are declared with :func:`option`)."""

    #: what the keys of this group are about (headline in the docs)
    topic: ClassVar[str] = ""

    @classmethod
    def declared(cls) -> List[Option]:
        """The :class:`Option` of every field, in declaration order."""
        return [opt for _name, opt in cls._declared_fields()]

    @classmethod
    def _declared_fields(cls) -> List[Tuple[str, Option]]:
        """(field name, :class:`Option`) of every declared field; the key is the field name unless the field was
        declared with ``key=`` (a config key that is no Python attribute name, e.g. ``__debug_...``)."""
        result = []
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if "option" in f.metadata:
                spec = dict(f.metadata["option"])
                result.append((f.name, Option(key=spec.pop("key", None) or f.name, **spec)))
        return result

    @classmethod
    def read_one(cls, config, key: str) -> Any:
        """The value of the declared key ``key`` of this group alone (validated).

        :raises KeyError: ``key`` is not declared in this group
        """
        for opt in cls.declared():
            if opt.key == key:
                return opt.read(config)
        raise KeyError(f"{key!r} is not declared in {cls.__name__}")

    @classmethod
    def from_config(cls: Type[G], config, **overrides: Any) -> G:
        """Reads and validates every key of this group from ``config``.

        :param overrides: values used instead of reading these keys (validated the same way)
        :raises ConfigValueError: a value of the wrong type, or outside the key's valid range (names the key)
        """
        values = {}
        for field in dataclasses.fields(cls):  # type: ignore[arg-type]
            if "borrowed" in field.metadata:
                group, key = field.metadata["borrowed"]
                values[field.name] = overrides[key] if key in overrides else group.read_one(config, key)
        for name, opt in cls._declared_fields():
            if opt.key in overrides:
                value = overrides[opt.key]
                if value is not None or not opt.none_ok:
                    opt.validate(value)
                values[name] = value
            else:
                values[name] = opt.read(config)
        return cls(**values)


def all_groups() -> List[Type[OptionGroup]]:
    """Every options group of :mod:`returnn.options` (imports them)."""
    from returnn.options import GROUPS

    return list(GROUPS)
