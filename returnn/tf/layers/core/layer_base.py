"""``LayerBase``: the base of every layer: lifecycle, output template, params, loss and constraints.

Lifecycle (driven by :class:`returnn.tf.network.TFNetwork`):

1. :func:`returnn.tf.layers.core.spec.validate_layer_dict` checks ``class`` and argument names.
2. :meth:`LayerBase.transform_config_dict` resolves ``from`` to source layers, ``target``, ``loss`` (and
   subclasses resolve their own layer references).
3. :meth:`LayerBase.get_out_data_from_opts` infers the output template (a :class:`returnn.tensor.Tensor`
   without raw tensor) from the sources and options. No TF ops are created; shape errors are raised here,
   naming the layer.
4. ``cls(**kwargs)`` creates variables and ops (inside ``variable_scope(<layer name>)``, so params are named
   ``<layer>/<param>``) and sets ``self.output.placeholder``.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import NotSpecified, Tensor
from returnn.tf.layers.core.common_args import COMMON_LAYER_ARGS, CommonLayerArgs, split_layer_kwargs
from returnn.tf.layers.core.loss_holder import LossHolder
from returnn.tf.layers.core.out_template import base_out_template
from returnn.tf.layers.core.registry import LOSSES, get_loss_class
from returnn.tf.layers.core.reuse_params import ReuseParams
from returnn.tf.layers.core.scope_names import get_valid_scope_name_from_str, scope_prefix_of
from returnn.tf.ops import step_random
from returnn.tf.ops.output_with_activation import OutputWithActivation
from returnn.tf.util.gradient_checkpoint import gradient_checkpoint_scope
from returnn.util.suggest import close_matches


class _CommonArg:
    """Attribute of :class:`LayerBase` for one field of its ``common_args`` (``layer.loss`` is
    ``layer.common_args.loss``); assigning the attribute of a layer gives that layer its own value."""

    def __init__(self, field: str):
        self.field = field

    def __get__(self, layer: Any, owner: Any = None) -> Any:
        if layer is None:
            return self
        return getattr(layer.common_args, self.field)


class LayerBase:
    """Base class of all layers.

    Common args (every layer dict): the table :data:`returnn.tf.layers.core.common_args.LAYER_ARGS` (name, group,
    status supported / no effect / unsupported, meaning), received as one value,
    :class:`returnn.tf.layers.core.common_args.CommonLayerArgs` (``common_args``); ``__init__`` accepts them one by
    one too (the reference's signature): ``from`` (as ``sources``), ``n_out``, ``out_type``, ``loss``,
    ``loss_scale``, ``loss_opts``, ``target``, ``trainable``, ``L2``, ``darc1``, ``spatial_smoothing``, ``dropout``,
    ``updater_opts``, ``reuse_params``, ... The attributes of the reference (``layer.loss``, ``layer.target``,
    ``layer.trainable``, ``layer.L2``, ...) read them.
    """

    layer_class: Optional[str] = None
    recurrent = False
    supports_input_dropout = False  # ConcatInputLayer applies ``dropout`` to its input
    #: in a searched rec loop's step, set on the internal layers of its values (``prev:X``, a value gathered into
    #: the rows of a choice): the search choices of the hypotheses their rows are (a ``prev:<choice>`` layer's own)
    fixed_search_choices: Any = None

    # the common arguments as attributes (the reference's names), read from ``common_args``; a layer class may
    # assign its own value (``self.loss = ...``), which then wins for that layer
    n_out = _CommonArg("n_out")
    loss = _CommonArg("loss")
    target = _CommonArg("target")
    loss_scale = _CommonArg("loss_scale")
    loss_opts = _CommonArg("loss_opts")
    size_target = _CommonArg("size_target")
    loss_only_on_non_search = _CommonArg("loss_only_on_non_search")
    name_scope = _CommonArg("name_scope")  # the layer dict's name_scope (see get_absolute_name_scope_prefix)
    trainable = _CommonArg("trainable")
    L2 = _CommonArg("L2")
    darc1 = _CommonArg("darc1")
    spatial_smoothing = _CommonArg("spatial_smoothing")
    dropout = _CommonArg("dropout")
    dropout_noise_shape = _CommonArg("dropout_noise_shape")
    dropout_on_forward = _CommonArg("dropout_on_forward")
    only_on_eval = _CommonArg("only_on_eval")
    register_as_extern_data = _CommonArg("register_as_extern_data")
    is_output_layer_flag = _CommonArg("is_output_layer")
    use_batch_norm = _CommonArg("batch_norm")  # True or batch_norm layer options: the network normalizes the output

    def __init__(self, name: str, network: Any, output: Tensor, sources: Sequence[LayerBase] = (),
                 common_args: Optional[CommonLayerArgs] = None, **kwargs: Any):
        """
        :param name: the layer's name in ``network``
        :param network: the :class:`returnn.tf.network.TFNetwork` building the layer
        :param output: the output template (from :meth:`get_out_data_from_opts`); ``__init__`` of the layer class
            sets its raw tensor
        :param sources: the source layers (the layer dict's ``from``, resolved)
        :param common_args: the common arguments (:data:`returnn.tf.layers.core.common_args.LAYER_ARGS`), parsed
            once by the network from the layer dict; default: all at their defaults
        :param kwargs: common arguments given one by one, the reference's signature (``n_out=``, ``loss=``,
            ``trainable=``, ..., as a config's layer class passes them on with ``super().__init__(**kwargs)``): they
            win over ``common_args``
        :raises LayerArgError: an argument that is no common argument (no layer class took it; names the closest
            common one), or ``dropout`` on a layer class that does not apply it
        """
        args, unknown = split_layer_kwargs(kwargs, base=common_args)
        self._check_common_args(name, args, unknown)
        if args.out_shape is not None:
            output.verify_out_shape(args.out_shape)
        self.name = name
        self.network = network
        self.output = output
        self.common_args: CommonLayerArgs = args
        self.sources: List[LayerBase] = list(sources)
        self.extra_deps: List[LayerBase] = list(args.extra_deps or ())
        if getattr(args.loss, "recurrent", False):  # e.g. ctc: over whole sequences (as the reference)
            self.recurrent = True
        self.reuse_params: Optional[ReuseParams] = args.reuse_params if args.reuse_params is None or isinstance(
            args.reuse_params, ReuseParams) else ReuseParams.from_config_dict(
            args.reuse_params, network=network, get_layer=network.get_layer, layer_name=name,
            layer_class=self.layer_class or type(self).__name__)
        self.updater_opts = dict(args.updater_opts or {})
        self.target_layers: Dict[str, LayerBase] = dict(args.target_layers or {})
        self.params: Dict[str, tf.Variable] = {}
        self.saveable_param_replace: Dict[Any, Any] = {}
        self.stats: Dict[str, Any] = {}
        # the options the network built this layer with (its layer dict after transform_config_dict, with
        # "output"), as the reference's ``layer.kwargs``; set by the network after __init__, None before
        self.kwargs: Optional[Dict[str, Any]] = None
        self.output_before_activation: Optional[OutputWithActivation] = None
        self._train_params: Dict[int, tf.Variable] = {}  # id(noisy/dropped param tensor) -> its variable
        self.param_variational_noise = self._set_param_getter(args)

    def _check_common_args(self, name: str, args: CommonLayerArgs, unknown: Dict[str, Any]) -> None:
        """:raises LayerArgError: ``unknown`` is not empty (an argument nobody took), or ``dropout`` is given to a
        class without input dropout. (Invalid values, unsupported and no-effect arguments: the validation of the
        layer dict, :func:`returnn.tf.layers.core.spec.check_common_arg_values`.)"""
        class_name = self.layer_class or type(self).__name__
        if unknown:
            key = sorted(unknown)[0]
            raise LayerArgError(layer=name, layer_class=class_name, arg=key, problem="unknown argument",
                                suggestions=close_matches(key, sorted(COMMON_LAYER_ARGS)))
        if args.dropout and not self.supports_input_dropout:
            raise LayerArgError(layer=name, layer_class=self.layer_class, arg="dropout",
                                problem="not supported by this layer class:",
                                hint='put a {"class": "dropout"} layer in front instead')

    def _set_param_getter(self, args: CommonLayerArgs) -> Optional[float]:
        """Installs the custom getter of the layer's variable scope (the scope the network opened for the layer:
        its ``get_variable`` calls go through it) for ``reuse_params``, ``param_dropout`` and
        ``param_variational_noise`` (their defaults: the network's options, i.e. the config's keys, as the
        reference).

        :return: the layer's ``param_variational_noise`` (with that default)
        """
        dropout, min_ndim, noise = args.param_dropout, args.param_dropout_min_ndim, args.param_variational_noise
        if self.network is not None:
            defaults = self.network.options
            dropout = defaults.param_dropout if dropout is None else dropout
            min_ndim = defaults.param_dropout_min_ndim if min_ndim is None else min_ndim
            noise = defaults.param_variational_noise if noise is None else noise
        getter = None
        if self.reuse_params is not None:  # the params of other layers (or given by the spec)
            getter = functools.partial(self._reuse_param_getter, self.reuse_params)
        if dropout or noise:
            getter = functools.partial(
                self._training_param_getter, dropout=dropout or 0.0, min_ndim=min_ndim or 0, noise=noise or 0.0,
                inner=getter, name_scope=tf.compat.v1.get_default_graph().get_name_scope())
        if getter is not None:
            tf.compat.v1.get_variable_scope().set_custom_getter(getter)
        return noise

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.network.get_absolute_name_prefix() if self.network else ''}{self.name!r} out_type={self.output.get_description(with_name=False)}>"

    # ---- phase 2: resolve references
    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``from`` → ``sources`` (layers), ``loss`` (+ ``loss_opts``) → a :class:`Loss` instance,
        ``target`` of the form ``"layer:<name>"`` → ``_target_layers``. Modifies ``d`` in place.

        :param get_layer: function name → constructed layer (may construct it)
        """
        src_names = d.pop("from", NotSpecified)
        if src_names is NotSpecified:
            src_names = ["data"]
        if isinstance(src_names, str):
            src_names = [src_names]
        if not isinstance(src_names, (list, tuple)):
            raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg="from", problem="invalid value",
                                expected="a layer name or a list of layer names", got=src_names)
        d["sources"] = [get_layer(src) for src in src_names if src != "none"]
        loss_class = None
        if d.get("loss"):
            if not isinstance(d["loss"], str):
                raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg="loss", problem="invalid value",
                                    got=d["loss"], expected="a loss name, e.g. 'ce'")
            get_loss_class("ce")  # makes sure all built-in losses are registered
            loss_class = LOSSES.get(d["loss"], context=f"in layer {d['name']!r}")
            if not d.get("target") and loss_class.need_target:
                d["target"] = network.extern_data.default_target
            if network.search_flag and not network.eval_flag:
                # as the reference (observed): a search network that does not evaluate builds no losses (the target
                # stays, e.g. for the output dim). (The reference does so in every network without eval_flag; here
                # only in search networks so far.)
                d["loss"] = loss_class = None
        if d.get("target"):
            target = d["target"]
            targets = target if isinstance(target, (list, tuple)) else [target]
            for t in targets:
                if t.startswith("layer:"):
                    d.setdefault("_target_layers", {})[t] = get_layer(t[len("layer:"):])
                elif (t not in network.extern_data.data and not _construct_extern_data_provider(network, t)
                      and d.get("loss")):
                    # without a loss the target is only read when needed (e.g. for the output dim), as the
                    # reference: a layer of a rec unit that training does not use may name data search would have
                    known = sorted(network.extern_data.data)
                    raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg="target",
                                        problem="unknown extern data key in", got=t,
                                        suggestions=close_matches(t, known),
                                        expected="an extern_data key (" + ", ".join(known) + ") or 'layer:<name>'",
                                        hint=f"add {t!r} to extern_data, or fix the target")
                elif d.get("loss"):
                    get_layer("data:" + t)  # as the reference: the target becomes a source layer
        if d.get("extra_deps"):
            deps = d["extra_deps"]
            d["extra_deps"] = [get_layer(x) if isinstance(x, str) else x
                               for x in ([deps] if isinstance(deps, str) else deps)]
        if d.get("reuse_params") is not None:
            d["reuse_params"] = ReuseParams.from_config_dict(d["reuse_params"], network=network, get_layer=get_layer,
                                                             layer_name=d["name"], layer_class=cls.layer_class)
        if loss_class is not None:
            loss_opts = dict(d.get("loss_opts") or {})
            # layer names in the options (custom_inv_norm_factor; via_layer's error_signal_layer ...)
            loss_class.transform_config_dict(loss_opts, network=network, get_layer=get_layer)
            try:
                d["loss"] = loss_class(base_network=network, **loss_opts)
            except TypeError as exc:
                raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg="loss_opts",
                                    problem=f"invalid options for loss {loss_class.class_name!r}:",
                                    got=loss_opts, hint=str(exc)) from exc

    # ---- phase 3: output template
    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Sequence[LayerBase] = (),
                               n_out: Any = NotSpecified, out_type: Optional[Dict] = None, out_dim: Any = None,
                               target: Any = None, _target_layers: Any = None, loss: Any = None,
                               **kwargs: Any) -> Tensor:
        """Default template: the first source's dims with the feature dim replaced by ``n_out``/``out_dim``.

        :raises LayerShapeError: if ``n_out`` is needed but cannot be determined
        """
        return base_out_template(cls, name=name, network=network, sources=sources, n_out=n_out, out_type=out_type,
                                 out_dim=out_dim, target=target, target_layers=_target_layers, loss=loss)

    # the reference's name of the shared default (subclasses call it for the common part of their template)
    _base_get_out_data_from_opts = get_out_data_from_opts

    # ---- phase 4 helpers: params
    def var_creation_scope(self, **kwargs: Any) -> Any:
        """Context for ``tf.compat.v1.get_variable`` calls in ``__init__`` (``with self.var_creation_scope(): ...``,
        as layers written for the reference do). The network already opened the layer's variable scope
        (``<scope prefix><name>``, see :meth:`get_absolute_name_scope_prefix`) around ``__init__``, so this changes
        nothing; the keyword args of the reference (variable scope options) are accepted and ignored.

        :return: a context manager whose value (``with self.var_creation_scope() as scope``) is that
            ``tf.compat.v1.VariableScope`` (``scope.name``: ``"sub/output"`` for layer ``output`` of subnetwork
            ``sub``, as observed from the reference)
        """
        return contextlib.nullcontext(tf.compat.v1.get_variable_scope())

    def _reuse_param_getter(self, reuse_params: ReuseParams, getter: Any, name: str, *args: Any,
                            **kwargs: Any) -> Any:
        """Custom getter of the layer's variable scope with ``reuse_params``: the param as the spec gives it (see
        :mod:`returnn.tf.layers.core.reuse_params`)"""
        if args:  # TF passes everything by keyword; positional args are get_variable's order after the name
            kwargs.update(zip(("shape", "dtype", "initializer"), args))
        return reuse_params.get_variable(base_layer=self, getter=getter, full_name=name, **kwargs)

    def _training_param_getter(self, getter: Any, *args: Any, dropout: float, min_ndim: int, noise: float,
                               name_scope: str, inner: Any = None, **kwargs: Any) -> Any:
        """Custom getter of the layer's variable scope for ``param_variational_noise`` and ``param_dropout``
        (observed from the reference): in training, a trainable param is used as ``dropout(param + noise)``,
        Gaussian noise of std ``param_variational_noise`` on every element, then dropout with rate
        ``param_dropout`` (scaled by ``1 / (1 - rate)``; one mask per step, shared by the whole batch) on params
        with at least ``param_dropout_min_ndim`` axes; outside training the param itself. :meth:`add_param`
        registers the variable behind the returned tensor."""
        var = inner(getter, *args, **kwargs) if inner is not None else getter(*args, **kwargs)
        use_dropout = dropout > 0 and var.shape.rank >= min_ndim
        train_flag = self.network.train_flag
        if (not kwargs.get("trainable", True) or not var.dtype.is_floating or not (noise or use_dropout)
                or train_flag is False):
            return var

        base_name = var.op.name.split("/")[-1]

        def in_training() -> tf.Tensor:
            x = var
            if noise:
                with tf.name_scope(f"{base_name}_variational_noise"):
                    x = tf.convert_to_tensor(x)
                    x = x + step_random.random_normal(tf.shape(x), stddev=noise, dtype=x.dtype)
            if use_dropout:
                with tf.name_scope(f"{base_name}_weight_dropout"):
                    x = step_random.nn_dropout(tf.convert_to_tensor(x), rate=dropout)
            return x

        # the noisy/dropped-out param (as big as the param) is recomputed for the backward pass, not kept, once
        # prepare_gradient_checkpointing() was called (as the reference does); the ops in the layer's name scope
        # (<layer>/W_weight_dropout/...; TF calls the getter outside of it)
        graph = tf.compat.v1.get_default_graph()
        with graph.name_scope(name_scope + "/" if name_scope else ""), gradient_checkpoint_scope():
            param = in_training() if train_flag is True else tf.cond(train_flag, in_training,
                                                                      lambda: tf.convert_to_tensor(var))
        self._train_params[id(param)] = var
        return param

    def add_param(self, param: tf.Variable, custom_update: Any = None, trainable: Optional[bool] = None,
                  saveable: Optional[bool] = None, axes_split_info: Any = None,
                  non_critical_for_restore: bool = False) -> tf.Variable:
        """Registers a variable created by this layer (``self.add_param(tf.compat.v1.get_variable("W", ...))``)
        under its name relative to the layer's scope (``"W"`` for ``<layer>/W``); it is then part of the
        network's params (saved, loaded, trained).

        If the layer is not trainable (``"trainable": False``) or ``trainable=False`` is given, the variable is
        removed from the trainable variables collection. The layer's ``updater_opts`` are attached to the variable
        (:func:`returnn.tf.updater.set_param_updater_opts`), so that the updater applies them to it, as the
        reference.

        :raises ConfigValueError: an unknown key in ``updater_opts`` (naming the layer)

        :return: ``param``
        """
        returned = param
        param = self._train_params.get(id(param), param)  # param_dropout / param_variational_noise: the variable
        if self.reuse_params is not None and not (
                isinstance(param, tf.Variable) and param.name.startswith(self.get_absolute_name_scope_prefix())):
            return returned  # another layer's param, or a tensor given by reuse_params: not this layer's
        scope = tf.compat.v1.get_variable_scope().name
        name = param.name[:-2] if param.name.endswith(":0") else param.name
        key = name[len(scope) + 1:] if scope and name.startswith(scope + "/") else name.split("/")[-1]
        self.params[key] = param
        if self.updater_opts:
            from returnn.tf.updater.updater import set_param_updater_opts

            set_param_updater_opts(param, self.updater_opts, layer_name=self.name)
        if trainable is None:
            trainable = self.trainable
        if not trainable:
            coll = tf.compat.v1.get_collection_ref(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)
            if param in coll:
                coll.remove(param)
        return returned

    def batch_norm(self, data: Tensor, use_shift: bool = True, use_std: bool = True, use_sample: float = 0.0,
                   force_sample: bool = False, momentum: Any = NotSpecified, epsilon: float = 1e-3,
                   update_sample_only_in_training: Any = NotSpecified, delay_sample_update: Any = NotSpecified,
                   param_version: Any = NotSpecified, gamma_init: Any = 1.0, beta_init: Any = 0.0,
                   masked_time: Any = NotSpecified) -> tf.Tensor:
        """:return: ``data``'s raw tensor batch-normalised over all axes except the feature axis, params of this
        layer (``batch_norm/...`` in the current variable scope); see :mod:`returnn.tf.layers.norm.batch_norm`"""
        from returnn.tf.layers.core.batch_norm_op import batch_norm_tensor
        return batch_norm_tensor(
            self, data, use_shift=use_shift, use_std=use_std, use_sample=use_sample, force_sample=force_sample,
            momentum=momentum, epsilon=epsilon, update_sample_only_in_training=update_sample_only_in_training,
            delay_sample_update=delay_sample_update, param_version=param_version, gamma_init=gamma_init,
            beta_init=beta_init, masked_time=masked_time)

    def create_param(self, name: str, shape: Sequence[int], initializer: Any, dtype: str = "float32") -> tf.Variable:
        """Creates ``<layer>/<name>`` with ``tf.compat.v1.get_variable`` and registers it (honours ``trainable``)."""
        param = tf.compat.v1.get_variable(name, shape=list(shape), dtype=dtype, initializer=initializer,
                                          trainable=self.trainable)
        return self.add_param(param)

    def get_param_values_dict(self, session: tf.compat.v1.Session) -> Dict[str, Any]:
        return {k: v.eval(session) for k, v in self.params.items()}

    def set_param_values_by_dict(self, values_dict: Dict[str, Any], session: tf.compat.v1.Session,
                                 ignore_wrong_shape: bool = False, copy_param_mode: Any = None) -> None:
        for key, value in values_dict.items():
            param = self.params[key]
            if ignore_wrong_shape and tuple(param.shape.as_list()) != tuple(getattr(value, "shape", ())):
                continue
            param.load(value, session=session)

    def get_saveable_params_list(self) -> List[tf.Variable]:
        return list(self.params.values())

    def is_output_layer(self) -> bool:
        if self.is_output_layer_flag is not None:
            return bool(self.is_output_layer_flag)
        return bool(self.loss) or self.name == "output"

    # ---- losses
    @classmethod
    def get_losses(cls, name: str, network: Any, output: Tensor, loss: Any = None, reduce_func: Any = None,
                   layer: Optional[LayerBase] = None, **kwargs: Any) -> List[Any]:
        """The losses of a layer, collected by the network for the objective (reference API; a config's layer class
        may override it to add a loss of its own, e.g. ``loss = MyLoss(base_network=network)`` then
        ``super().get_losses(..., loss=loss, ...)``).

        :param name: the layer name (the loss' name)
        :param network: the layer's network
        :param output: the layer's output
        :param loss: the layer's :class:`Loss` (from ``"loss"``), or None
        :param reduce_func: accepted for the reference's signature (the network applies its own)
        :param layer: the constructed layer (required when ``loss`` is given)
        :param kwargs: ``loss_scale`` (float, default 1.0); other layer options are ignored
        :return: list of :class:`returnn.tf.layers.core.loss_holder.LossHolder`: one for ``loss``, none without
        :raises LayerArgError: ``loss`` given without ``layer``
        """
        if not loss:
            return []
        if layer is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class or cls.__name__, arg="loss",
                                problem="get_losses needs the constructed layer (layer=...) to bind the loss to")
        return [LossHolder(name=name, loss=loss, layer=layer, network=network, scale=kwargs.get("loss_scale", 1.0))]

    # ---- constraints (L2, darc1, spatial_smoothing)
    def get_constraints_value(self) -> Optional[tf.Tensor]:
        """:return: scalar added to the training objective, or None

        - ``L2``: ``L2 * sum_p sum(p**2)`` over this layer's params, biases included (observed from the reference)
        - ``darc1``: ``darc1 * max_feature sum_frames |output_before_activation|`` (DARC1 regulariser)
        - ``spatial_smoothing``: ``spatial_smoothing * laplacian energy`` of the feature axis folded to a square
        """
        c = self.get_l2_constraint_value()
        other = self.get_output_constraints_value()
        if other is not None:
            c = other if c is None else c + other
        return c

    def get_output_constraints_value(self) -> Optional[tf.Tensor]:
        """:return: the constraints on this layer's output (``darc1``, ``spatial_smoothing``), or None"""
        from returnn.tf.ops.constraints import darc1_energy, spatial_smoothing_energy
        c = None
        if self.darc1:
            term = self.darc1 * darc1_energy(self.output, self.output_before_activation)
            c = term if c is None else c + term
        if self.spatial_smoothing:
            term = self.spatial_smoothing * spatial_smoothing_energy(self.output, layer=self)
            c = term if c is None else c + term
        return c

    def get_l2_constraint_value(self, counted: Optional[set] = None) -> Optional[tf.Tensor]:
        """:return: ``L2 * sum_p sum(p**2)`` over this layer's params (None without ``L2`` or params); a function of
        the params alone, so also valid outside the rec loop the layer was built in. Params shared from another layer
        (``reuse_params``) count only there, with that layer's ``L2`` (observed from the reference).

        :param counted: ids of params already counted (skipped here; the ones counted here are added), for a rec
            unit whose layer exists in the loop and moved out of it with the same params
        """
        c = None
        if self.L2:
            for param in self.params.values():
                if counted is not None:
                    if id(param) in counted:
                        continue
                    counted.add(id(param))
                term = tf.cast(self.L2, param.dtype) * tf.reduce_sum(tf.square(param))
                c = term if c is None else c + term
        return c

    def get_loss_normalization_factor(self) -> Any:
        return None

    # reference compat
    @property
    def input_data(self) -> Optional[Tensor]:
        return self.sources[0].output if self.sources else None

    def get_dep_layers(self) -> List[LayerBase]:
        return list(self.sources) + list(self.target_layers.values()) + list(self.extra_deps)

    def get_absolute_name(self) -> str:
        return self.network.get_absolute_name_prefix() + self.name

    def get_absolute_name_scope_prefix(self) -> str:
        """:return: the TF scope of this layer's variables and ops, with ``/``: ``"enc/"``, ``"sub/.95.in/"`` for
        layer ``_in`` in subnetwork ``sub`` (see :mod:`returnn.tf.layers.core.scope_names`)"""
        return scope_prefix_of(self.network.get_layer_scope_name(self.name, self.name_scope))

    @property
    def tf_scope_name(self) -> str:
        """:return: this layer's own scope name, without the network's prefix (``".95.bpe0"`` for ``_bpe0``)"""
        return self.cls_get_tf_scope_name(self.name)

    @classmethod
    def cls_get_tf_scope_name(cls, name: str) -> str:
        """:return: the scope name for a layer called ``name`` (characters TF rejects replaced, as the reference)"""
        return get_valid_scope_name_from_str(name)

    def get_sub_layer(self, layer_name: str) -> Optional[LayerBase]:
        """:return: sub layer ``layer_name`` (``"rec/x"`` names it), or None: layers with sub layers (rec layers
        with a unit dict, subnetworks) override this"""
        subnetwork = getattr(self, "subnetwork", None)
        if subnetwork is not None and hasattr(subnetwork, "layers"):
            return subnetwork.layers.get(layer_name)
        return None

    @classmethod
    def get_sub_layer_out_data_from_opts(cls, layer_name: str, parent_layer_kwargs: Dict[str, Any]
                                         ) -> Optional[Tensor]:
        """:return: the template of sub layer ``layer_name`` of a layer of this class with the (transformed) layer
            kwargs ``parent_layer_kwargs``, before that layer exists (a rec unit's templates), or None: layers whose
            sub layers are known from the kwargs (``split``, ``top_k``) override this"""
        return None

    def get_search_choices(self) -> Any:
        """:return: the search choices this layer depends on (``network.get_search_choices(src=self)``), or None"""
        return self.network.get_search_choices(src=self)

    def get_search_beam_size(self) -> Optional[int]:
        """:return: the number of hypotheses per sequence of this layer's output in a search (its ``output.beam``'s,
            else that of the search choices it depends on), or None outside of a search"""
        beam = self.output.beam
        if beam is not None:
            return beam.beam_size
        choices = self.get_search_choices()
        return None if choices is None else choices.beam_size

    @property
    def search_choices(self) -> Any:
        """The selection this layer made itself in a beam search (the reference's ``layer.search_choices``): a
        :class:`~returnn.tf.layers.core.search_choices.SearchChoices` for a ``choice`` layer in a search (and for
        ``decide``: beam size 1, the chosen hypothesis' score), else None. :meth:`get_search_choices` gives the
        nearest selection this layer depends on."""
        return self.own_search_choices()

    def own_search_choices(self) -> Any:
        """:return: see :attr:`search_choices`; layers that select hypotheses override it"""
        if getattr(self, "search_src_beams", None) is None:
            fixed = self.fixed_search_choices
            return fixed if fixed is not None and fixed.owner is self else None
        from returnn.tf.layers.core.search_choices import SearchChoices

        return SearchChoices(self)

    def apply_activation(self, raw: tf.Tensor, activation: Optional[str]) -> tf.Tensor:
        """Applies ``activation`` (a name like ``"relu"`` or ``"2*sigmoid"``; None: identity) to ``raw`` and keeps
        the pre-activation value in ``output_before_activation`` (losses like ``ce`` use the logits).

        :return: the activated tensor (``raw`` itself without activation)
        """
        from returnn.tf.ops.activations import get_activation_function

        act = get_activation_function(activation)
        if act is None:
            return raw
        self.output_before_activation = OutputWithActivation(raw, act)
        return self.output_before_activation.y

    @property
    def rec_vars_outputs(self) -> Dict[str, Any]:
        """The reference's name of ``rec_state``: the state this layer hands to its next step inside a rec loop
        (state name -> raw tensor), e.g. ``{"c": ..., "h": ...}``; a mutable dict (empty for layers without state).
        A layer built by hand with ``rec_previous_layer`` reads its previous state from that layer's
        ``rec_vars_outputs["state"]``."""
        state = getattr(self, "rec_state", None)
        if state is None:
            self.rec_state = state = {}
        return state

    @classmethod
    def get_rec_initial_output(cls, batch_dim: Any, name: str, output: Tensor, rec_layer: Any = None,
                               initial_output: Any = None, **_kwargs: Any) -> tf.Tensor:
        """The value ``prev:<name>`` has at the first step of a rec loop, for ``initial_output`` None/``"zeros"``/
        ``"apply(0)"`` (zeros), ``"ones"`` or a number (the loop itself also handles ``"var"`` and layers).

        :param batch_dim: int or int32 scalar tensor: the batch size
        :param output: the layer's frame template (all axes but the batch axis static)
        :param rec_layer: the rec layer (unused here)
        :return: raw tensor of ``output``'s shape with batch size ``batch_dim``, dtype ``output.dtype``
        :raises LayerArgError: another kind of ``initial_output``, or a frame axis without a static size
        """
        del rec_layer
        consts = {None: 0, "zeros": 0, "apply(0)": 0, "ones": 1}
        value = consts.get(initial_output) if isinstance(initial_output, str) or initial_output is None \
            else initial_output
        if not isinstance(value, (int, float)):
            raise LayerArgError(layer=name, layer_class=cls.layer_class or cls.__name__, arg="initial_output",
                                problem="get_rec_initial_output supports only constants:", got=initial_output,
                                expected='None, "zeros", "ones", "apply(0)" or a number')
        shape = []
        for dim in output.dims:
            if dim.is_batch_dim():
                shape.append(batch_dim)
            elif dim.dimension is None:
                raise LayerArgError(layer=name, layer_class=cls.layer_class or cls.__name__, arg="initial_output",
                                    problem="get_rec_initial_output needs static frame axes, got",
                                    got=output.get_dims_repr())
            else:
                shape.append(dim.dimension)
        return tf.fill(tf.stack(shape) if shape else [], tf.constant(value, dtype=output.dtype))

    def post_init(self, layer_desc: Dict[str, Any]) -> None:
        """Called by the network after ``__init__`` (reference hook)."""


def _construct_extern_data_provider(network: Any, key: str) -> bool:
    """Constructs the layer with ``register_as_extern_data: key`` (in ``network`` or an enclosing one), so that
    ``target: key`` works whatever the construction order (as the reference).

    :return: whether ``key`` is extern data now
    """
    construct = getattr(network, "construct_extern_data_provider", None)
    return bool(construct is not None and construct(key))


def _loss_target_data(self: LayerBase) -> Tensor:
    """:return: the loss target with raw tensor (extern data placeholder or target layer output; a layer given for
    the target in :attr:`target_layers` first, e.g. the extern data repeated for the hypotheses of a search loop)"""
    target = self.target
    if target in self.target_layers:
        return self.target_layers[target].output
    if target.startswith("layer:"):
        if target in self.target_layers:
            return self.target_layers[target].output
        return self.network.get_layer(target[len("layer:"):]).output
    return self.network.get_extern_data(target, mark_data_key_as_used=True)


LayerBase._loss_target_data = _loss_target_data  # noqa: SLF001
