"""The arguments every layer dict accepts, in one table (:data:`LAYER_ARGS`): name, group, status, meaning.

The keys and meanings follow the reference's ``LayerBase`` (see the docs' "Defining Layers"). A layer's own
arguments are the keyword parameters of its ``__init__`` and ``get_out_data_from_opts`` along the MRO.

The table drives:

- :class:`CommonLayerArgs`, the one parsed value of these arguments a layer receives (a frozen dataclass whose
  fields are the table's names and defaults), parsed once per layer by the network from the layer dict; the
  attributes :class:`returnn.tf.layers.core.layer_base.LayerBase` offers (``layer.loss``, ``layer.target``,
  ``layer.trainable``, ...) read it, and its did-you-mean suggestions come from the table;
- validation (:func:`returnn.tf.layers.core.spec.validate_layer_dict`): a value an argument does not accept
  raises :class:`returnn.errors.LayerArgError`; an *unsupported* argument given with a value raises it too; a
  *no effect* argument given with a value prints one warning line per argument and process;
- the docs page of the common arguments (``docs/_ext/refgen``).

Status: ``supported``: implemented as the reference; ``no effect``: accepted for compatibility, changes nothing
here (device placement, debugging hooks, parameter import hooks); ``unsupported``: only the default is accepted.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from returnn.tensor import NotSpecified

SUPPORTED = "supported"
NO_EFFECT = "no effect"
UNSUPPORTED = "unsupported"


def _int_ge_0_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 0)


def _float_ge_0_or_none(value: Any) -> bool:
    return value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool) and value >= 0)


def _str_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _rate_or_none(value: Any) -> bool:
    return _float_ge_0_or_none(value) and (value is None or value < 1)


@dataclass(frozen=True)
class LayerArg:
    """One common layer argument.

    :param name: the layer dict key
    :param group: the concern it belongs to (``wiring``, ``output``, ``loss``, ``params``, ``input``, ``rec``,
        ``mode``, ``debug``)
    :param status: :data:`SUPPORTED`, :data:`NO_EFFECT` or :data:`UNSUPPORTED`
    :param meaning: one line for the docs (and, for the other statuses, why)
    :param check: for a given value (not None): whether it is valid
    :param expected: what ``check`` accepts (for the error message)
    :param default: the value when the layer dict does not give the argument (the field default of
        :class:`CommonLayerArgs`)
    """

    name: str
    group: str
    status: str
    meaning: str
    check: Optional[Callable[[Any], bool]] = None
    expected: str = ""
    default: Any = None


LAYER_ARGS: Tuple[LayerArg, ...] = (
    # wiring
    LayerArg("from", "wiring", SUPPORTED, "the source layer(s): a name or a list of names; default \"data\" "
             "(with a deprecation warning; an error from behavior_version 1), [] for none"),
    LayerArg("collocate_with", "wiring", SUPPORTED, "layer names to build together with this one: in a rec unit, "
             "a layer collocated with a layer that runs in the loop runs in the loop too (not moved out after it), "
             "as the reference; elsewhere no effect"),
    LayerArg("extra_deps", "wiring", SUPPORTED, "layer names this one depends on besides its sources: built before "
             "it and listed in its dependencies (no control dependency on their ops), as the reference", default=()),
    LayerArg("is_output_layer", "wiring", SUPPORTED, "build (and fetch) the layer even if nothing depends on it"),
    LayerArg("register_as_extern_data", "wiring", SUPPORTED, "make the output available as extern data under this "
             "key (e.g. as a target)"),
    # output
    LayerArg("n_out", "output", SUPPORTED, "size of the output's feature axis; default: from the loss target",
             check=_int_ge_0_or_none, expected="an int >= 0 (the size of the output's feature axis), or leave it "
                                               "out to take it from the loss target", default=NotSpecified),
    LayerArg("out_dim", "output", SUPPORTED, "the output feature Dim (instead of n_out)"),
    LayerArg("out_type", "output", SUPPORTED, "Tensor kwargs of the output (dim, shape, dtype, ...)"),
    LayerArg("out_shape", "output", SUPPORTED, "a set of Dims (or marked dims: ImplicitSparseDim, "
             "ImplicitDynSizeDim, OptionalDim) the output must have exactly: checked on the output template when "
             "the layer is created (VerifyOutShapeException otherwise)"),
    LayerArg("in_dim", "output", SUPPORTED, "the input feature Dim the layer works on"),
    # loss
    LayerArg("loss", "loss", SUPPORTED, "loss name (\"ce\", \"ctc\", \"mse\", ...)"),
    LayerArg("loss_scale", "loss", SUPPORTED, "factor of this layer's loss in the objective", default=1.0),
    LayerArg("loss_opts", "loss", SUPPORTED, "options of the loss class"),
    LayerArg("target", "loss", SUPPORTED, "extern data key (or \"layer:<name>\") of the loss target; default: the "
             "config's target (\"classes\")"),
    LayerArg("size_target", "loss", SUPPORTED, "extern data key whose time axis a rec loop runs over (training)"),
    LayerArg("loss_only_on_non_search", "loss", SUPPORTED, "skip the loss in search", default=False),
    LayerArg("copy_output_loss_from_source_idx", "loss", NO_EFFECT, "the reference's loss sharing with a source "
             "layer; not used here"),
    # params
    LayerArg("reuse_params", "params", SUPPORTED, "use the params of another layer: a layer name, or a dict "
             "with \"reuse_layer\", \"map\" (param name -> spec: None, {\"reuse_layer\": name}, "
             "{\"layer_output\": name}, {\"custom\": func}), \"custom\", \"auto_create_missing\" "
             "(see returnn.tf.layers.core.reuse_params)"),
    LayerArg("name_scope", "params", SUPPORTED, "the TF scope of the layer's params and ops instead of the layer "
             "name: \"x\" relative to the network's scope, \"/x\" absolute, \"\" the network's own scope; layers "
             "of the same scope share their params", check=_str_or_none, expected="a str (or None)"),
    LayerArg("param_device", "params", NO_EFFECT, "device of the params (TF places them itself here)"),
    LayerArg("trainable", "params", SUPPORTED, "whether the params are trained", default=True),
    LayerArg("L2", "params", SUPPORTED, "L2 regularisation factor of the params"),
    LayerArg("darc1", "params", SUPPORTED, "DARC1 regularisation factor of the output"),
    LayerArg("spatial_smoothing", "params", SUPPORTED, "spatial smoothing regularisation factor of the output", default=0.0),
    LayerArg("param_variational_noise", "params", SUPPORTED, "in training: Gaussian noise of this std added to "
             "the layer's trainable params where the layer uses them (before param_dropout); default: the config's "
             "param_variational_noise",
             check=_float_ge_0_or_none, expected="a float >= 0"),
    LayerArg("param_dropout", "params", SUPPORTED, "in training: dropout with this rate on the layer's trainable "
             "params where the layer uses them (one mask per step; scaled by 1/(1 - rate)); default: the config's "
             "param_dropout",
             check=_rate_or_none, expected="a float in [0, 1)"),
    LayerArg("param_dropout_min_ndim", "params", SUPPORTED, "param_dropout only on params with at least this many "
             "axes (e.g. 2: weight matrices, not biases); default: the config's param_dropout_min_ndim, else all", check=_int_ge_0_or_none,
             expected="an int >= 0"),
    LayerArg("updater_opts", "params", SUPPORTED, "per-layer updater options of the params (optimizer, "
             "learning_rate_multiplier, gradient_clip, gradient_clip_norm, gradient_noise, grad_filter, "
             "gradient_nan_inf_filter, max_norm), as the reference"),
    LayerArg("custom_param_importer", "params", NO_EFFECT, "the reference's hook for loading params from a "
             "checkpoint of another layout; use preload_from_files here"),
    LayerArg("batch_norm", "params", SUPPORTED, "batch-normalize the output (True or batch_norm layer options)", default=False),
    # input
    LayerArg("dropout", "input", SUPPORTED, "dropout on the (concatenated) input in training (layers with a "
             "concatenated input)", default=0.0),
    LayerArg("dropout_noise_shape", "input", SUPPORTED, "noise shape of that dropout"),
    LayerArg("dropout_on_forward", "input", SUPPORTED, "apply that dropout outside training too", default=False),
    # rec
    LayerArg("initial_output", "rec", SUPPORTED, "inside a rec loop: the output before the first step (prev:)"),
    LayerArg("state", "rec", NO_EFFECT, "the reference's explicit rec state of a layer; the loop carries states "
             "here (a string-unit rec layer running one step outside a loop takes it as the state before the step)"),
    LayerArg("need_last", "rec", SUPPORTED, "inside a rec loop: keep the last frame (rec_last_output)", default=False),
    LayerArg("encapsulate", "rec", NO_EFFECT, "the reference's flag to hide sub layers from the parent network", default=False),
    # mode
    LayerArg("only_on_eval", "mode", SUPPORTED, "build the layer only when evaluating (not in training)", default=False),
    LayerArg("only_on_search", "mode", SUPPORTED, "build the layer only in search", default=False),
    # debug
    LayerArg("debug_print_layer_output", "debug", NO_EFFECT, "the reference's per-layer debug print"),
    LayerArg("control_dependencies_on_output", "debug", NO_EFFECT, "the reference's extra control dependencies"),
)

#: name -> :class:`LayerArg`
LAYER_ARGS_BY_NAME: Dict[str, LayerArg] = {arg.name: arg for arg in LAYER_ARGS}

#: group -> names, in table order (the docs' sections)
COMMON_LAYER_ARGS_GROUPS: Dict[str, Tuple[str, ...]] = {}
for _arg in LAYER_ARGS:
    COMMON_LAYER_ARGS_GROUPS[_arg.group] = COMMON_LAYER_ARGS_GROUPS.get(_arg.group, ()) + (_arg.name,)
del _arg

COMMON_LAYER_ARGS = frozenset(LAYER_ARGS_BY_NAME)

# Keys the network sets internally; never part of a user's layer dict.
INTERNAL_LAYER_KWARGS = frozenset({"name", "network", "output", "sources", "common_args", "_target_layers",
                                   "_network", "_name", "rec_previous_layer", "_src_common_search_choices"})

#: accepted without effect in this implementation (a warning when given)
NO_EFFECT_ARGS = frozenset(arg.name for arg in LAYER_ARGS if arg.status == NO_EFFECT)
#: only the default is accepted
UNSUPPORTED_ARGS = frozenset(arg.name for arg in LAYER_ARGS if arg.status == UNSUPPORTED)


def is_default_value(value: Any) -> bool:
    """:return: whether ``value`` counts as "not given" for the no-effect/unsupported rules (None, False, 0,
    empty)"""
    try:
        return value is None or not value
    except (TypeError, ValueError):  # e.g. a numpy array or a tensor
        return False


#: internal layer kwargs ``LayerBase`` accepts and ignores (a rec loop's previous frame layer, ...): the layer
#: classes that need them take them as their own arguments
_IGNORED_INTERNAL_KWARGS = frozenset({"_network", "_name", "rec_previous_layer", "_src_common_search_choices"})


def _common_fields() -> list:
    fields = [(arg.name, Any, dataclasses.field(default=arg.default)) for arg in LAYER_ARGS if arg.name != "from"]
    # "from" arrives resolved, as ``sources`` (a parameter of LayerBase itself); "target" of the form
    # "layer:<name>" arrives resolved too, as ``_target_layers``
    fields.append(("target_layers", Any, dataclasses.field(default=None)))
    return fields


_CommonLayerArgsFields = dataclasses.make_dataclass("_CommonLayerArgsFields", _common_fields(), frozen=True)


class CommonLayerArgs(_CommonLayerArgsFields):
    """The common arguments of one layer (every :data:`LAYER_ARGS` name except ``from``, which arrives as the
    layer's ``sources``), as one frozen value: field ``x`` is layer dict key ``x`` (after
    ``transform_config_dict``: ``loss`` a :class:`returnn.tf.layers.core.loss.Loss` instance, ``extra_deps`` layers,
    ``reuse_params`` a :class:`returnn.tf.layers.core.reuse_params.ReuseParams`), with the table's default where the
    dict does not give it. ``target_layers`` holds the layers of ``"layer:<name>"`` targets (the internal key
    ``_target_layers``). The network parses it once per layer (:meth:`from_layer_kwargs`) and passes it to the layer
    class as ``common_args``."""

    @classmethod
    def field_names(cls) -> Tuple[str, ...]:
        """:return: the names of the fields, in table order (``target_layers`` last)"""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def kwarg_names(cls) -> frozenset:
        """:return: the layer kwargs this value holds (the field names, ``_target_layers`` for ``target_layers``)"""
        return _KWARG_NAMES

    @classmethod
    def from_layer_kwargs(cls, kwargs: Mapping[str, Any], base: Optional[CommonLayerArgs] = None
                          ) -> CommonLayerArgs:
        """:return: the common arguments among the (transformed) layer kwargs ``kwargs``; those ``kwargs`` does not
        give are taken from ``base`` (default: the table's defaults). ``kwargs`` is not changed; other keys are
        not looked at."""
        given = {_FIELD_OF_KWARG.get(key, key): value for key, value in kwargs.items() if key in _KWARG_NAMES}
        if base is None:
            return cls(**given)
        return dataclasses.replace(base, **given) if given else base

    def __repr__(self) -> str:
        given = [f"{name}={getattr(self, name)!r}" for name, default in _FIELD_DEFAULTS.items()
                 if getattr(self, name) is not default]
        return f"CommonLayerArgs({', '.join(given)})"


_FIELD_OF_KWARG = {"_target_layers": "target_layers"}
_FIELD_DEFAULTS = {f.name: f.default for f in dataclasses.fields(CommonLayerArgs)}
_KWARG_OF_FIELD = {field: kwarg for kwarg, field in _FIELD_OF_KWARG.items()}
_KWARG_NAMES = frozenset(_KWARG_OF_FIELD.get(name, name) for name in CommonLayerArgs.field_names())


def split_layer_kwargs(kwargs: Mapping[str, Any], base: Optional[CommonLayerArgs] = None
                       ) -> Tuple[CommonLayerArgs, Dict[str, Any]]:
    """:return: (the common arguments among ``kwargs`` over ``base``, see :meth:`CommonLayerArgs.from_layer_kwargs`;
    the other kwargs, without the internal ones ``LayerBase`` ignores)"""
    rest = {key: value for key, value in kwargs.items()
            if key not in _KWARG_NAMES and key not in _IGNORED_INTERNAL_KWARGS}
    return CommonLayerArgs.from_layer_kwargs(kwargs, base=base), rest
