"""Error classes raised for mistakes in a user's config, data or network dict.

Every class renders one self-contained message: where (config key, layer, file),
what was expected, what was found, and the closest valid choice when there is one.
Each subclasses the built-in exception type the reference raised in the same
situation (``ValueError``, ``TypeError``, ``LookupError``), so ``except`` clauses
in existing user code keep working.

:func:`returnn.__main__.main` catches :class:`ReturnnError` (and a few built-in
errors raised while reading the config) and prints only the message, without a
Python traceback, unless ``log_verbosity >= 5`` or ``--debug`` is given.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

_NOT_GIVEN = object()


def format_details(*, suggestions: Sequence[str] = (), expected: Optional[str] = None, got: Any = _NOT_GIVEN,
                   hint: Optional[str] = None, known: Sequence[str] = ()) -> List[str]:
    """The indented lines under an error's headline, in this order: did-you-mean, expected, got (``repr`` unless
    already a rendered string), hint, known names. The one renderer of these lines for every error class."""
    lines = []
    if suggestions:
        lines.append("  did you mean: " + ", ".join(repr(s) for s in suggestions) + "?")
    if expected is not None:
        lines.append(f"  expected: {expected}")
    if got is not _NOT_GIVEN:
        lines.append(f"  got:      {got if isinstance(got, _Rendered) else repr(got)}")
    if hint:
        lines.append(f"  hint: {hint}")
    if known:
        lines.append("  known: " + ", ".join(known))
    return lines


class _Rendered(str):
    """A value already rendered for a message (printed as is, not through ``repr``)."""


class ReturnnError(Exception):
    """Base class of all errors this project raises on purpose for bad user input.

    Every subclass pickles (errors cross process boundaries: ``MultiProcDataset`` workers, distributed training):
    the message (``args``) and the structured fields (``key``, ``layer``, ``suggestions``, ...) are restored
    without calling ``__init__``, whose keyword-only arguments ``BaseException``'s own pickling cannot pass.
    """

    def __reduce__(self) -> tuple:
        state = dict(self.__dict__)
        if isinstance(self, OSError):  # these live in OSError's slots, not in __dict__
            state.update({name: getattr(self, name) for name in _OS_ERROR_FIELDS})
        return _rebuild_error, (type(self), self.args, state)


#: the pickling of :class:`ReturnnError`, for error classes with another base (``error_cls.__reduce__ = ...``)
_reduce_error = ReturnnError.__reduce__


class ConfigError(ReturnnError, ValueError):
    """A config file or config value cannot be used."""


class ConfigFileError(ConfigError):
    """A config file is missing, unreadable, or does not parse.

    :param filename: the config file
    :param message: what went wrong
    :param line: the 1-based line number in ``filename``, when known
    """

    def __init__(self, filename: str, message: str, *, line: Optional[int] = None, source_line: Optional[str] = None):
        self.filename = filename
        self.line = line
        self.source_line = source_line
        self.message = message
        where = f"config file {filename!r}" + (f", line {line}" if line is not None else "")
        text = f"{where}: {message}"
        if source_line:
            text += f"\n  {source_line.strip()}"
        super().__init__(text)


class ConfigValueError(ConfigError):
    """A config key has a value of the wrong type or an invalid value.

    :param key: the config key
    :param expected: description of what is accepted
    :param got: the value found
    :param suggestions: close valid choices, if any
    """

    def __init__(self, key: str, *, expected: str, got: Any = _NOT_GIVEN, suggestions: Sequence[str] = (),
                 hint: Optional[str] = None):
        self.key = key
        self.expected = expected
        self.got = got
        self.suggestions = tuple(suggestions)
        self.hint = hint
        headline = f"config key {key!r}: expected {expected}" + (f", got {got!r}" if got is not _NOT_GIVEN else "")
        super().__init__("\n".join([headline] + format_details(suggestions=self.suggestions, hint=hint)))


class NoTrainableLossError(ConfigValueError):
    """The training op cannot be built: no trainable parameter gets a gradient from the network's losses (no loss,
    or none that depends on a trainable parameter). The engine raises it when a training step is run (a network
    set up for training without a loss can still be initialized, e.g. to load or copy params, as the reference).

    :param params: the names of the trainable parameters
    """

    def __init__(self, params: Sequence[str]):
        super().__init__("network", expected="a loss that depends on at least one trainable parameter",
                         got=list(params))


class UnknownNameError(ConfigError, LookupError):
    """An unknown name was looked up in a :class:`returnn.util.registry.Registry`.

    :param kind: what kind of thing, e.g. ``"layer class"`` or ``"dataset class"``
    :param name: the name that was not found
    :param suggestions: close known names (see :func:`returnn.util.suggest.close_matches`)
    :param known: all known names (listed in the message when short enough)
    """

    def __init__(self, *, kind: str, name: str, suggestions: Sequence[str] = (), known: Sequence[str] = (),
                 hint: Optional[str] = None, context: Optional[str] = None):
        self.kind = kind
        self.name = name
        self.suggestions = tuple(suggestions)
        self.known = tuple(known)
        self.hint = hint
        self.context = context
        headline = f"unknown {kind} {name!r}" + (f" ({context})" if context else "")
        super().__init__("\n".join([headline] + format_details(suggestions=self.suggestions, hint=hint,
                                                                known=self.known)))

    def __str__(self) -> str:  # LookupError/KeyError would otherwise repr() the message
        return self.args[0]


class DatasetArgError(ConfigError, TypeError):
    """A dataset was given an argument it does not accept, or a bad value for one."""


class LayerArgError(ConfigError, TypeError):
    """A layer dict has an unknown, missing or invalid argument.

    :param layer: the layer name (``"output/s"`` style inside subnetworks)
    :param layer_class: the layer's ``class``
    :param arg: the argument
    :param problem: e.g. ``"unknown argument"``
    """

    def __init__(self, *, layer: str, layer_class: str, arg: str, problem: str, expected: Optional[str] = None,
                 got: Any = _NOT_GIVEN, suggestions: Sequence[str] = (), hint: Optional[str] = None):
        self.layer, self.layer_class, self.arg, self.problem = layer, layer_class, arg, problem
        self.expected, self.got, self.suggestions, self.hint = expected, got, tuple(suggestions), hint
        lines = [f"layer {layer!r} {{\"class\": \"{layer_class}\"}}: {problem} {arg!r}"]
        lines += format_details(suggestions=self.suggestions, expected=expected, got=got, hint=hint)
        super().__init__("\n".join(lines))


class TensorArgError(ConfigError, TypeError):
    """A ``Dim``/``DimensionTag`` or ``Tensor``/``Data`` was constructed or combined with invalid arguments
    (e.g. ``DimensionTag(kind=..., description=...)`` without ``dimension``, which the reference rejects too).

    :param what: the call, e.g. ``"Dim(...)"`` or ``"Tensor 'x'"``
    :param problem: what is wrong
    """

    def __init__(self, what: str, problem: str, *, expected: Optional[str] = None, got: Any = _NOT_GIVEN,
                 hint: Optional[str] = None):
        self.what, self.problem = what, problem
        lines = [f"{what}: {problem}"] + format_details(expected=expected, got=got, hint=hint)
        super().__init__("\n".join(lines))


class FrontendError(ReturnnError, ValueError):
    """A ``returnn.frontend`` (``rf``) call with bad arguments: a dim that is not in the tensor, dtypes that do not
    fit, a missing backend. Also a ``ValueError``.

    :param call: the call, e.g. ``"reduce_sum"`` (rendered as ``rf.reduce_sum``)
    :param problem: what is wrong, naming the dims involved
    """

    def __init__(self, call: str, problem: str, *, expected: Optional[str] = None, got: Any = _NOT_GIVEN,
                 hint: Optional[str] = None):
        self.call, self.problem = call, problem
        lines = [f"rf.{call}: {problem}"] + format_details(expected=expected, got=got, hint=hint)
        super().__init__("\n".join(lines))


class DataFileError(ReturnnError, IOError):
    """A data file (HDF, text corpus, vocabulary) is missing, truncated or malformed.

    :param filename: the file
    :param message: what went wrong
    """

    def __init__(self, filename: str, message: str):
        self.filename = filename
        self.message = message
        super().__init__(f"data file {filename!r}: {message}")

    def __str__(self) -> str:
        # OSError would otherwise format itself from the ``filename`` attribute ("[Errno None] None: 'x.hdf'")
        return f"data file {self.filename!r}: {self.message}"


class BackendError(ConfigError):
    """The config selects a backend this project does not provide (only TensorFlow is provided)."""


class AxisDescriptionError(ConfigError):
    """An axis description (``"T"``, ``"F"``, ``"spatial:1"``, a Dim, ...) matches no axis, or not exactly one.

    :param description: the description as given
    :param tensor: the tensor it was applied to (rendered with its dims)
    :param problem: what went wrong, e.g. ``"matches no axis"``
    :param layer: the layer whose argument this was, when known (set by the network on the way out)
    """

    def __init__(self, description: Any, *, tensor: str, problem: str, layer: Optional[str] = None,
                 arg: Optional[str] = None):
        self.description, self.tensor, self.problem, self.layer, self.arg = description, tensor, problem, layer, arg
        where = f"layer {layer!r}" + (f" arg {arg!r}" if arg else "") + ": " if layer else ""
        text = (f"{where}axis description {description!r} {problem}\n  in: {tensor}\n"
                "  valid: int, Dim, '*', 'B|batch', 'T|time', 'F|feature', 'spatial', 'S:<i>', 'dyn', 'D:<i>',"
                " 'static', 'static:<i>', 'T?', 'spatial_except_time', 'except_time', 'except_batch', 'stag:<name>',"
                " or a list of these (case-insensitive)")
        super().__init__(text)

    def with_layer(self, layer: str, arg: Optional[str] = None) -> "AxisDescriptionError":
        """:return: the same error, naming ``layer``"""
        return AxisDescriptionError(self.description, tensor=self.tensor, problem=self.problem, layer=layer,
                                    arg=arg or self.arg)


class LayerShapeError(ConfigError):
    """The inputs of a layer have shapes/dims the layer cannot work with (e.g. sparse into dense-only, n_out
    disagreeing with the target's dim). Raised while inferring the layer's output template, before TF ops exist.

    :param layer: the layer name
    :param layer_class: the layer's ``class``
    :param problem: what is wrong
    """

    def __init__(self, *, layer: str, layer_class: str, problem: str, expected: Optional[str] = None,
                 got: Optional[str] = None, hint: Optional[str] = None):
        self.layer, self.layer_class, self.problem = layer, layer_class, problem
        self.expected, self.got, self.hint = expected, got, hint
        lines = [f"layer {layer!r} {{\"class\": \"{layer_class}\"}}: {problem}"]
        lines += format_details(expected=expected, got=_NOT_GIVEN if got is None else _Rendered(got), hint=hint)
        super().__init__("\n".join(lines))


class UnknownLearningRateControlError(UnknownNameError, AssertionError):
    """Unknown ``learning_rate_control`` value. Also an ``AssertionError``, which the reference raised here."""


class DatasetFileError(DataFileError):
    """A data file of a dataset (HDF, text corpus, vocabulary, seq list) is missing, truncated or malformed."""


class DistributedError(ReturnnError, RuntimeError):
    """Multi-process training (``use_horovod`` / ``distributed``) failed: a peer worker died or timed out,
    the workers' graphs differ, or the worker setup (``TF_CONFIG``, mpirun, launcher) is inconsistent.

    :param message: what happened, which worker, and what to do about it
    """


_OS_ERROR_FIELDS = ("errno", "strerror", "filename", "filename2")


def _rebuild_error(cls: type, args: tuple, state: dict) -> BaseException:
    """Unpickles an error (see :meth:`ReturnnError.__reduce__`): a new instance with ``args`` and the fields of
    ``state``, without calling ``__init__``."""
    err = cls.__new__(cls)
    Exception.__init__(err, *args)
    for name, value in state.items():
        setattr(err, name, value)
    return err


# Network construction (public at returnn.tf.network and returnn.tf.network.errors, the reference's names;
# here so that layers, which sit below the network, raise them too)

class NetworkLayerException(ConfigError):
    """A problem with one layer of the network dict.

    :param message: what is wrong
    :param layer_name: the layer
    :param network: the network (for its name)
    """

    def __init__(self, message: str, layer_name: str = "?", network: object = None):
        self.layer_name = layer_name
        self.network = network
        self.message = message
        super().__init__(message)


class LayerNotFound(NetworkLayerException, LookupError):
    """``from``/``target``/... names a layer that does not exist. Lists close names."""

    def __init__(self, message: str, layer_name: str = "?", network: object = None,
                 suggestions: Sequence[str] = (), referenced_by: Optional[str] = None):
        self.suggestions = tuple(suggestions)
        self.referenced_by = referenced_by
        text = message
        if self.suggestions:
            text += "\n  did you mean: " + ", ".join(repr(s) for s in self.suggestions) + "?"
        super().__init__(text, layer_name=layer_name, network=network)

    def __str__(self) -> str:
        return self.args[0]


class NetworkConstructionDependencyLoopException(NetworkLayerException):
    """Layers depend on each other in a cycle; the message shows the construction stack."""

    def __init__(self, network: object, layer_name: str, constructing_layers: Sequence[str], net_dict: object = None):
        self.constructing_layers = list(constructing_layers)
        self.net_dict = net_dict  # the layer dicts the network was constructing from
        cycle = self.constructing_layers[self.constructing_layers.index(layer_name):] + [layer_name]
        text = (f"{network}: Error: There is a dependency loop on layer {layer_name!r}: "
                + " -> ".join(repr(n) for n in cycle)
                + "\nConstruction stack (most recent first):\n"
                + "\n".join(f"  {n}" for n in reversed(self.constructing_layers)))
        super().__init__(text, layer_name=layer_name, network=network)


class NotInsideRecLoopError(NetworkLayerException, AssertionError):
    """``network.get_rec_step_info()`` / ``get_rec_step_index()`` outside of the loop of a rec layer (the
    reference asserts; ``except AssertionError`` still catches this)."""

    def __init__(self, message: str, layer_name: str = "?", network: object = None):
        hint = ("only layers inside a rec layer's unit (run per step) have a step index; "
                "get_rec_step_info(must_exist=False) returns None instead")
        super().__init__("\n".join([message] + format_details(hint=hint)), layer_name=layer_name, network=network)


class MissingBatchInfoError(NetworkLayerException, AssertionError):
    """A layer is built while an extern data entry with a batch axis has no batch info (``Tensor.batch``): it was
    assigned to ``extern_data.data`` directly (the reference asserts; ``except AssertionError`` still catches this).

    :param layer_name: the layer being built
    :param keys: the extern data keys without batch info
    """

    def __init__(self, layer_name: str, keys: Sequence[str] = ()):
        self.keys = tuple(keys)
        text = (f"layer {layer_name!r}: extern data {list(self.keys)!r} has a batch axis but no batch info "
                f"(Tensor.batch is None)")
        hint = ("an entry assigned to extern_data.data[key] directly gets none: add it with "
                "extern_data.register_data(tensor), or call extern_data.init_batch_info() before building the network")
        super().__init__("\n".join([text] + format_details(hint=hint)), layer_name=layer_name)


class CannotHandleUndefinedSourcesException(NetworkLayerException):
    """Raised by a layer's ``get_out_data_from_opts`` (custom layers of older configs) when it cannot infer its
    output because its sources are not defined yet. Kept for configs that import it (``from TFNetwork import
    CannotHandleUndefinedSourcesException``); the current reference no longer has it.

    :param layer_name: the layer
    :param layer_desc: its kwargs
    :param extended_info_str: extra text for the message
    """

    def __init__(self, layer_name: str, layer_desc: object = None, extended_info_str: str = None):
        self.layer_desc = layer_desc
        text = f"{layer_name!r}: cannot handle undefined sources without defined out_type."
        if extended_info_str:
            text += "\n" + extended_info_str
        super().__init__(text, layer_name=layer_name)


for _cls in (NetworkLayerException, LayerNotFound, NetworkConstructionDependencyLoopException,
             NotInsideRecLoopError, CannotHandleUndefinedSourcesException, MissingBatchInfoError):
    _cls.__reduce__ = _reduce_error  # type: ignore[method-assign]  (errors survive pickling, e.g. across processes)
