"""``TFNetwork``: builds the layers of a ``network`` dict in a TF graph and collects params, losses, objective.

Construction (:meth:`TFNetwork.construct_from_dict`) starts from the output layers -- ``"output"``, layers
with a ``loss``, ``is_output_layer: True`` or ``register_as_extern_data`` -- and follows ``from`` (absent →
``"data"``; ``"data:KEY"`` is extern data ``KEY``). Each layer goes through the lifecycle of
:mod:`returnn.tf.layers.core.layer_base`. Errors (unknown class/arg, missing layer, cycle, shape problems)
are raised during construction and name the layer.

The graph is the caller's current default graph (``with tf.Graph().as_default(): ...``), in graph mode.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, List, Optional

import numpy as np
import tensorflow as tf

import returnn.tf.layers  # noqa: F401  (registers all layers and losses)
from returnn.errors import AxisDescriptionError, LayerArgError, LayerShapeError
from returnn.log import log
from returnn.tensor import Dim, NotSpecified, Tensor
from returnn.tensor.axes import mark_dims_created_by
from returnn.tf.layers.core.init_kwargs import layer_init_kwargs
from returnn.tf.layers.core.internal import RecStepInfoLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.loss_holder import LossHolder
from returnn.tf.layers.core.registry import get_layer_class, is_user_layer_class
from returnn.tf.layers.core.scope_names import get_layer_scope_name, get_scope_prefix_from_name_prefix
from returnn.tf.layers.core.spec import validate_layer_dict
from returnn.options.network import NetworkOptions, network_config
from returnn.options.run import RunOptions
from returnn.tf.network.construction import absolute_variable_scope as absolute_variable_scope
from returnn.tf.network.construction import apply_batch_norm_option, check_static_shape, create_placeholders
from returnn.tf.network.construction_order import MISSING_FROM, NO_FROM_NEEDED, dependencies_first, input_dims
from returnn.tf.network.errors import LayerNotFound, NetworkConstructionDependencyLoopException, NotInsideRecLoopError
from returnn.tf.network.extern_data import ExternData
from returnn.tf.network.extra_nets import construct_extra_layer, split_extra_name
from returnn.tf.network.objective import NetworkObjectiveMixin
from returnn.tf.network.params import NetworkParamsMixin
from returnn.tf.network.run_hooks import NetworkRunHooksMixin
from returnn.tf.network.extern_data_access import NetworkExternDataMixin
from returnn.tf.layers.core.search_choices import debug_search_choices, find_search_choices
from returnn.tf.ops.dropout import cond_on_train_flag
from returnn.tf.util.device import set_configured_device
from returnn.tf.util.train_flag import enter_construction, leave_construction
from returnn.util.behavior_version import BehaviorVersion
from returnn.util.suggest import close_matches

class TFNetwork(NetworkParamsMixin, NetworkRunHooksMixin, NetworkObjectiveMixin, NetworkExternDataMixin):
    """A network of layers built from a ``network`` dict.

    :param config: the Config (for ``extern_data``, ``debug_print_layer_output_template``, ...)
    :param extern_data: if None, created from ``config``
    :param rnd_seed: seed for the network's random generator (dropout seeds, initializers); default 42
    :param train_flag: python bool or scalar bool tf placeholder; enables dropout
    :param eval_flag: whether losses are evaluated; default: the parent network's, else True for a training
        network (``train_flag`` True or a tensor) and False otherwise (as the reference)
    :param search_flag: search mode (losses with ``loss_only_on_non_search`` are skipped)
    :param parent_net: enclosing network (subnetworks)
    :param parent_layer: enclosing layer (subnetworks)
    :param extra_parent_net: the main network, for an extra network (``"extra.search:x"`` layers, see
        :mod:`returnn.tf.network.extra_nets`)
    :param absolute_name_scope_prefix: the TF scope prefix of this network's layers (``""`` or ending with ``/``),
        when it is not the one derived from the names (a subnetwork or rec layer with a ``name_scope``); see
        :meth:`get_absolute_name_scope_prefix`
    """

    #: the reference's epoch-step tensor of the network; None (as the reference's networks built from a config,
    #: observed); callers feed it only when it is a tensor
    epoch_step: Optional[tf.Tensor] = None

    def __init__(self, config: Any = None, extern_data: Optional[ExternData] = None, rnd_seed: Optional[int] = None,
                 train_flag: Any = None, eval_flag: Any = None, search_flag: Any = None,
                 parent_layer: Optional[LayerBase] = None, parent_net: Optional[TFNetwork] = None,
                 extra_parent_net: Any = None, is_inside_rec_layer: Optional[bool] = None,
                 absolute_name_prefix: Optional[str] = None, name: Optional[str] = None,
                 absolute_name_scope_prefix: Optional[str] = None):
        if config is None and parent_net is not None:
            config = parent_net.config
        self.config = network_config(config)
        #: the config's keys of network construction (parsed once per root network; a subnetwork shares them)
        enclosing = parent_net if parent_net is not None else extra_parent_net
        self.options: NetworkOptions = (enclosing.options if enclosing is not None and enclosing.config is self.config
                                        else NetworkOptions.from_config(self.config))
        self.parent_net = parent_net
        self.parent_layer = parent_layer
        if extern_data is None:
            if parent_net is not None:
                extern_data = parent_net.extern_data
            else:
                extern_data = ExternData()
                extern_data.init_from_config(self.config)
        self.extern_data = extern_data
        self.name = name or (parent_layer.name if parent_layer is not None else "root")
        self._absolute_name_prefix = absolute_name_prefix
        if absolute_name_scope_prefix not in (None, "") and not absolute_name_scope_prefix.endswith("/"):
            raise ValueError(f"absolute_name_scope_prefix: '' or ending with '/' expected, got {absolute_name_scope_prefix!r}")
        self._absolute_name_scope_prefix = absolute_name_scope_prefix
        self._inside_rec_loop = bool(is_inside_rec_layer)
        #: the dim a rec unit's loop runs over, on the rec unit's own networks (set by the rec layer): the network of
        #: one step (inside the loop) and the network of the layers moved out of the loop (over the whole
        #: sequence); None on all other networks (see :meth:`get_inside_rec_time_dim`)
        self.rec_loop_dim: Optional[Dim] = None
        if train_flag is None:
            train_flag = parent_net.train_flag if parent_net is not None else False
        self.train_flag = train_flag
        if eval_flag is None:  # as the reference (observed): a training network (True or a flag tensor) evaluates
            eval_flag = parent_net.eval_flag if parent_net is not None else train_flag is not False
        self.eval_flag = bool(eval_flag)
        self.search_flag = bool(search_flag) if search_flag is not None else (parent_net.search_flag if parent_net else False)
        self.rnd_seed = 42 if rnd_seed is None else rnd_seed
        self.random = np.random.RandomState(self.rnd_seed)
        self.layers_desc: Dict[str, Dict[str, Any]] = {}
        self.layers: Dict[str, LayerBase] = {}
        self.losses_dict: Dict[str, LossHolder] = {}
        self.total_loss: Optional[tf.Tensor] = None
        self.total_constraints: Optional[tf.Tensor] = None
        self.total_objective: Optional[tf.Tensor] = None
        self.used_data_keys: set = set()
        self._constructing: List[str] = []
        self._templates_in_init: Dict[str, Tensor] = {}  # name -> output template, while the layer's __init__ runs
        #: output templates of layers known before they are constructed (a rec unit's per-frame templates)
        self.layer_templates: Dict[str, Tensor] = {}
        self._global_train_step: Optional[tf.Variable] = None
        self._objective_built = False
        self._rec_step_info: Any = None
        self.extra_parent_net: Optional[TFNetwork] = extra_parent_net
        self.extra_prefix: Optional[str] = None  # e.g. "extra.search", for an extra network
        self.extra_nets: Dict[str, TFNetwork] = {}
        self._layer_resolver: Optional[Callable[[str], LayerBase]] = None
        #: ops every step should run too, and callbacks when the graph is discarded (root network; see run_hooks)
        self.post_control_dependencies: List[Any] = []
        self.graph_reset_callbacks: List[Callable[[], Any]] = []
        #: the graph the network is built in (the default graph at construction)
        self.graph = tf.compat.v1.get_default_graph()
        if parent_net is None and extra_parent_net is None:
            create_placeholders(self.extern_data)
            self.extern_data.init_batch_info_for_network()  # the global batch of the extern data (Tensor.batch)
            # outside a session, is_gpu_available_in_session() answers what this config asks for (as the reference)
            set_configured_device(RunOptions.read_one(self.config, "device"))

    def __repr__(self) -> str:
        name = self.get_absolute_name_prefix() + (f"({self.extra_prefix})" if self.extra_prefix else "")
        return f"<TFNetwork {name!r} train={self.train_flag}{' search' if self.search_flag else ''}>"

    # ---- names / hierarchy
    def get_root_network(self) -> TFNetwork:
        """:return: the outermost network (through subnetworks, rec loops and extra networks)"""
        if self.parent_net is not None:
            return self.parent_net.get_root_network()
        if self.extra_parent_net is not None:
            return self.extra_parent_net.get_root_network()
        return self

    def is_inside_rec_layer(self) -> bool:
        """:return: whether this is the per-step network of a rec unit (its layers see one frame ``{B, ...}``)"""
        return self._inside_rec_loop

    def get_inside_rec_time_dim(self, inside_loop: bool = True) -> Optional[Dim]:
        """The reference's name.

        :param inside_loop: True: only for the network of a loop step (and the networks nested in it); False: also
            for the network of the layers a rec unit moved out of its loop (and those nested in it)
        :return: the dim the nearest enclosing rec unit's loop runs over, or None outside of a rec unit"""
        net: Optional[TFNetwork] = self
        while net is not None:
            if net.rec_loop_dim is not None:
                return net.rec_loop_dim if (not inside_loop or net.is_inside_rec_layer()) else None
            net = net.parent_net
        return None

    def get_absolute_name_prefix(self) -> str:
        """:return: ``""`` for the root, ``"<sub>/"`` for a subnetwork"""
        if self._absolute_name_prefix is not None:
            return self._absolute_name_prefix
        if self.parent_layer is not None:
            return self.parent_layer.get_absolute_name() + "/"
        return ""

    @property
    def global_train_step(self) -> tf.Variable:
        """int64 scalar variable named ``global_step`` (created on first access in the root graph)."""
        root = self.get_root_network()
        if root._global_train_step is None:
            root._global_train_step = tf.compat.v1.train.get_or_create_global_step()
        return root._global_train_step

    # ---- the API configs call (eval strings, out_type functions, custom layers)
    def get_config(self, consider_global_config: bool = True, fallback_dummy_config: bool = True) -> Any:
        """:return: the Config this network was built with (``self.network.get_config().typed_value("transform")``
        in SpecAugment eval strings). Always set here (the global config, or an empty Config, when none was
        given), so the two flags of the reference's signature change nothing."""
        return self.config

    @property
    def _config(self) -> Any:
        """The reference's private name of :meth:`get_config`'s value; configs read it
        (``self.network._config.typed_dict[...]``)."""
        return self.config

    @property
    def amp(self) -> Any:
        """The mixed-precision cast policy of config key ``tf_amp`` (:class:`returnn.tf.util.amp.AmpPolicy`), read
        once per root network; layers compute their matmuls/convolutions through it."""
        from returnn.tf.util.amp import policy_of_network

        return policy_of_network(self)

    def cond_on_train(self, fn_train: Callable[[], Any], fn_eval: Callable[[], Any]) -> Any:
        """:return: ``fn_train()`` in training, ``fn_eval()`` otherwise: called directly when ``train_flag`` is a
        python bool, else both in a ``tf.cond`` on the train flag placeholder (as the reference)"""
        return cond_on_train_flag(self.train_flag, fn_train, fn_eval)

    def get_absolute_name_scope_prefix(self) -> str:
        """:return: TF scope prefix of this network's layers: ``""`` for the root, ``"sub/"`` in subnetwork
        ``sub``, ``"output/rec/"`` in the loop of rec layer ``output``; names made valid as TF scope names
        (see :mod:`returnn.tf.layers.core.scope_names`). The prefix given at creation
        (``absolute_name_scope_prefix``: the scope of a subnetwork layer with a ``name_scope``) wins; else the part
        of this network's name prefix beyond its parent's is appended to the parent's scope prefix, so that a
        ``name_scope`` of an enclosing layer holds inside too."""
        if self._absolute_name_scope_prefix is not None:
            return self._absolute_name_scope_prefix
        own = self.get_absolute_name_prefix()
        parent = self.parent_net if self.parent_net is not None else self.extra_parent_net
        if parent is not None:
            parent_names = parent.get_absolute_name_prefix()
            if own.startswith(parent_names):
                return parent.get_absolute_name_scope_prefix() + get_scope_prefix_from_name_prefix(
                    own[len(parent_names):])
        return get_scope_prefix_from_name_prefix(own)

    def get_layer_scope_name(self, name: str, name_scope: Optional[str] = None) -> str:
        """:return: absolute TF scope of layer ``name`` of this network (``"sub/.95.in"`` for ``"_in"``), with the
            layer dict's ``name_scope`` (see :func:`returnn.tf.layers.core.scope_names.get_layer_scope_name`:
            ``""`` the network's scope, ``"/x"`` absolute, ``"x"`` relative); no trailing ``/``"""
        return get_layer_scope_name(self.get_absolute_name_scope_prefix(), name, name_scope)

    def set_rec_step_info(self, i: tf.Tensor, prev_end_flag: Optional[tf.Tensor] = None, prev_end_layer: Any = None,
                          seq_lens: Optional[tf.Tensor] = None) -> None:
        """Called by a rec loop for the network of one step: ``i`` is the int32 scalar step index."""
        self._rec_step_info = RecStepInfoLayer(network=self, i=i, prev_end_flag=prev_end_flag,
                                               prev_end_layer=prev_end_layer, seq_lens=seq_lens)

    def have_rec_step_info(self) -> bool:
        """:return: whether :meth:`get_rec_step_info` finds step info (inside the loop of a rec layer)"""
        return self.get_rec_step_info(must_exist=False) is not None

    def get_rec_step_info(self, must_exist: bool = True) -> Any:
        """:return: the :class:`returnn.tf.layers.core.internal.RecStepInfoLayer` of the nearest enclosing rec
            loop step (``.step``: int32 scalar step index), looked up through the enclosing networks; None if there
            is none and not ``must_exist``
        :raises NotInsideRecLoopError: (an AssertionError, as the reference) outside of a rec loop"""
        net: Optional[TFNetwork] = self
        while net is not None:
            if net._rec_step_info is not None:
                return net._rec_step_info
            net = net.parent_net
        if must_exist:
            raise NotInsideRecLoopError(f"{self}: We expect to be the subnet of a RecLayer, but we are not.",
                                        network=self)
        return None

    def get_rec_step_index(self) -> tf.Tensor:
        """:return: int32 scalar, the step index of the enclosing rec loop (0 at the first frame)
        :raises NotInsideRecLoopError: outside of a rec loop"""
        return self.get_rec_step_info().step

    def get_search_choices(self, sources: Any = None, src: Any = None, base_search_choice: Any = None,
                           _layer_to_search_choices: Any = None, debug_stream: Any = None) -> Any:
        """:return: the latest search choices (:class:`returnn.tf.layers.core.search_choices.SearchChoices`) that
            ``src`` (or ``base_search_choice``, or all of ``sources``) depends on in a search; None outside of a
            search or without a choice among the dependencies (as the reference in training)"""
        start = [l for l in ([src] if src is not None else []) + ([base_search_choice] if base_search_choice
                                                                   is not None else []) + list(sources or [])]
        return find_search_choices(start)

    def debug_search_choices(self, base_search_choice: Any) -> None:
        """Prints the dependencies of layer ``base_search_choice`` with their search choices (for debugging)."""
        debug_search_choices(base_search_choice)

    # ---- construction
    def construct_from_dict(self, net_dict: Dict[str, Dict[str, Any]], get_layer: Any = None) -> None:
        """Constructs all output layers of ``net_dict`` and their dependencies, as the reference: first the layers
        with ``register_as_extern_data`` (so that a ``target`` may name the data they register), then ``"output"``,
        layers with a ``loss`` and ``is_output_layer``, each group by name. Keys starting with ``"#"``
        (``"#copy_param_mode"``, ``"#config"``, ...) are no layers and are skipped (a layer may still name one in
        ``from``).

        :raises LayerArgError: a layer description that is not a dict
        """
        self.layers_desc.update(net_dict)
        candidates = []
        for name, layer_desc in sorted(net_dict.items()):
            if name.startswith("#"):
                continue
            if not isinstance(layer_desc, dict):
                raise LayerArgError(layer=name, layer_class="?", arg="class", problem="layer dict is not a dict:",
                                    got=layer_desc, hint='keys starting with "#" are ignored, e.g. "#config"')
            if layer_desc.get("only_on_eval") and not self.eval_flag:
                continue  # as the reference: such layers (and their losses) exist only in eval networks
            if layer_desc.get("only_on_search") and not self.search_flag:
                continue
            candidates.append((name, layer_desc))
        for name, layer_desc in candidates:
            if layer_desc.get("register_as_extern_data"):
                self.construct_layer(net_dict, name, get_layer=get_layer)
        for name, layer_desc in candidates:
            if (name == "output" or name.endswith(":output") or layer_desc.get("loss")
                    or layer_desc.get("is_output_layer")):
                self.construct_layer(net_dict, name, get_layer=get_layer)

    def construct_extern_data_provider(self, key: str) -> bool:
        """Constructs the layer described with ``"register_as_extern_data": key`` in this network or an enclosing
        one (not yet constructed, e.g. named in a ``target`` before it is built).

        :return: whether extern data ``key`` exists now
        """
        net: Optional[TFNetwork] = self
        while net is not None:
            for name, desc in sorted(net.layers_desc.items()):
                if not name.startswith("#") and isinstance(desc, dict) and desc.get("register_as_extern_data") == key:
                    if name not in net.layers and name not in net._constructing:
                        net.construct_layer(net.layers_desc, name)
                    return key in self.extern_data.data
            net = net.parent_net
        return False

    def set_layer_resolver(self, get_layer: Optional[Callable[[str], LayerBase]]) -> None:
        """Called by a rec loop for the network of one step: :meth:`get_layer` of names not constructed yet goes
        through ``get_layer`` (``"prev:x"``, ``"data:x"`` as the current frame, ``"base:x"``, unit layers)."""
        self._layer_resolver = get_layer

    def get_layer(self, layer_name: str) -> LayerBase:
        """:return: a constructed layer (``"data:KEY"``/``"base:NAME"`` resolved), constructing it if described;
            in the network of one step of a rec loop as the unit's layers see it (``"prev:x"``, frames)
        :raises LayerNotFound: with close names"""
        if layer_name in self.layers:
            return self.layers[layer_name]
        if self._layer_resolver is not None:
            return self._layer_resolver(layer_name)
        if layer_name.startswith("base:") and self.parent_net is not None:
            return self.parent_net.get_layer(layer_name[len("base:"):])
        if (layer_name == "data" or layer_name.startswith("data:") or layer_name in self.layers_desc
                or split_extra_name(layer_name) is not None or layer_name.split("/", 1)[0] in self.layers_desc):
            return self.construct_layer(self.layers_desc, layer_name)
        if self.extra_parent_net is not None:
            return self.extra_parent_net.get_layer(layer_name)
        raise self._not_found(layer_name)

    def _not_found(self, layer_name: str, referenced_by: Optional[str] = None) -> LayerNotFound:
        candidates = [n for n in self.layers_desc if not n.startswith("#")] + list(self.layers) + [
            f"data:{k}" for k in self.extern_data.data]
        by = f" (in \"from\"/\"target\" of layer {referenced_by!r})" if referenced_by else ""
        return LayerNotFound(f"layer {layer_name!r} not found in {self}{by}", layer_name=layer_name, network=self,
                             suggestions=close_matches(layer_name, candidates), referenced_by=referenced_by)

    def _construct_source(self, layer_name: str) -> LayerBase:
        key = self.extern_data.default_input if layer_name == "data" else layer_name[len("data:"):]
        if self.parent_net is not None and key not in self.layers_desc:
            return self.parent_net.get_layer(layer_name)
        if key not in self.extern_data.data:
            raise self._not_found(layer_name, referenced_by=self.layer_under_construction)
        self.get_extern_data(key)
        return self._create_layer(layer_name, {"class": "source", "data_key": key, "from": []})

    def construct_layer(self, net_dict: Dict[str, Dict[str, Any]], name: str,
                        get_layer: Optional[Callable[[str], LayerBase]] = None) -> LayerBase:
        """Constructs layer ``name`` (and, recursively, what it depends on).

        :raises LayerNotFound: ``name`` not in ``net_dict`` (and not extern data)
        :raises NetworkConstructionDependencyLoopException: a cycle
        """
        if name in self.layers:
            return self.layers[name]
        if name in self._constructing:
            raise NetworkConstructionDependencyLoopException(self, name, self._constructing, net_dict)
        if not self._constructing and name in net_dict and self.options.flat_net_construction:
            for dep in dependencies_first(net_dict, name, self.layers):
                self.construct_layer(net_dict, dep, get_layer=get_layer)
        extra = split_extra_name(name)
        if extra is not None and self.extra_parent_net is None:
            return construct_extra_layer(self, name)  # "extra.search:x": x in the extra network
        if extra is not None:  # inside an extra network
            if extra[0] != self.extra_prefix:
                return self.extra_parent_net.get_layer(name)
            name = extra[1]
            if name in self.layers:
                return self.layers[name]
            if name not in net_dict and name in self.extra_parent_net.layers_desc:
                net_dict[name] = self.extra_parent_net.layers_desc[name]
        if name not in net_dict and "/" in name and name.split("/", 1)[0] in net_dict:
            return self._get_sub_layer(net_dict, name)  # "rec/x": of this network's own "rec" (also in an extra net)
        if name not in net_dict and self.extra_parent_net is not None:
            return self.extra_parent_net.get_layer(name)  # not described for the extra network: the main one's
        if name not in net_dict:
            if name == "data" or name.startswith("data:"):
                return self._construct_source(name)
            if name.startswith("base:") and self.parent_net is not None:
                return self.parent_net.get_layer(name[len("base:"):])
            raise self._not_found(name, referenced_by=self.layer_under_construction)
        return self._create_layer(name, net_dict[name], net_dict=net_dict, get_layer=get_layer)

    def _get_sub_layer(self, net_dict: Dict[str, Dict[str, Any]], name: str) -> LayerBase:
        """:return: ``"rec/x"``: sub layer ``x`` of layer ``rec`` (constructed first), as the reference: of a rec
            layer with a unit dict the full sequence of ``x``, of a subnetwork its layer ``x``
        :raises LayerNotFound: the layer has no such sub layer"""
        base, rest = name.split("/", 1)
        parent = self.construct_layer(net_dict, base)
        if name in self.layers:  # a subnetwork's layers are registered as "sub/x"
            return self.layers[name]
        sub = parent.get_sub_layer(rest)
        if sub is None:
            raise LayerNotFound(f"layer {base!r} ({parent.layer_class}) has no sub layer {rest!r} (asked for as "
                                f"{name!r} in {self})", layer_name=name, network=self,
                                referenced_by=self.layer_under_construction)
        return sub

    @property
    def layer_under_construction(self) -> Optional[str]:
        """:return: the name of the innermost layer of this network being constructed now, or None"""
        return self._constructing[-1] if self._constructing else None

    def _create_layer(self, name: str, layer_desc: Dict[str, Any], net_dict: Optional[Dict] = None,
                      get_layer: Optional[Callable[[str], LayerBase]] = None) -> LayerBase:
        layer_class = validate_layer_dict(name, layer_desc)
        if "from" not in layer_desc and layer_class.layer_class not in NO_FROM_NEEDED:
            prefix = self.get_absolute_name_prefix()
            BehaviorVersion.require(False, MISSING_FROM.format(name=prefix + name if prefix else "/" + name),
                                    version=1)
        net_dict = self.layers_desc if net_dict is None else net_dict
        self.extern_data.check_batch_info(name)
        self._constructing.append(name)
        enter_construction(self)  # get_current_network() in the layer's code (configs' eval/custom layers)
        try:
            d = {key: self.extern_data.map_user_dim(value) for key, value in layer_desc.items()}
            d.pop("class")
            d["name"] = name
            d["network"] = self
            if get_layer is None:
                def get_layer(src: str) -> LayerBase:
                    if src in self.layers:
                        return self.layers[src]
                    return self.construct_layer(net_dict, src)
            layer_class.transform_config_dict(d, network=self, get_layer=get_layer)
            try:
                output = layer_class.get_out_data_from_opts(**d)
            except AxisDescriptionError as exc:
                raise exc.with_layer(name) from None
            mark_dims_created_by(name, output, input_dims(d))
            n_out = d.get("n_out", NotSpecified)
            if n_out not in (NotSpecified, None) and output.dim is not None and output.dim != n_out:
                raise LayerShapeError(layer=name, layer_class=layer_class.layer_class,
                                      problem=f"n_out={n_out} does not match the output dim {output.dim}",
                                      got=repr(output), hint="remove n_out or fix it")
            out_dim = d.get("out_dim")
            if out_dim is not None and output.feature_dim_or_sparse_dim is not None \
                    and getattr(out_dim, "dimension", None) != output.dim and out_dim not in output.dims:
                raise LayerShapeError(layer=name, layer_class=layer_class.layer_class,
                                      problem=f"out_dim {out_dim!r} does not match the output", got=repr(output))
            return self._instantiate_layer(name, layer_class, d, output, layer_desc)
        finally:
            leave_construction(self)
            self._constructing.pop()

    def _instantiate_layer(self, name: str, layer_class: Any, d: Dict[str, Any], output: Tensor,
                           layer_desc: Dict[str, Any]) -> LayerBase:
        """Creates the layer from its final options ``d`` and output template (in its variable scope), checks its
        output and registers it (also as extern data with ``register_as_extern_data``).

        :raises LayerShapeError: a config's layer class did not set its output
        """
        self._debug_print_template(name, output)
        self._templates_in_init[name] = output
        try:
            return self._instantiate_layer_in_scope(name, layer_class, d, output, layer_desc)
        finally:
            self._templates_in_init.pop(name, None)

    def _instantiate_layer_in_scope(self, name: str, layer_class: Any, d: Dict[str, Any], output: Tensor,
                                    layer_desc: Dict[str, Any]) -> LayerBase:
        # as the reference: get_variable reuses what exists in the scope (layers of the same name_scope share their
        # params; a layer reusing the params of one built later created them already); reuse_params: the layer's
        # getter (LayerBase.__init__)
        with absolute_variable_scope(self.get_layer_scope_name(name, d.get("name_scope")), reuse=True):
            try:
                layer = layer_class(output=output, **layer_init_kwargs(layer_class, d))
            except AxisDescriptionError as exc:
                raise exc.with_layer(name) from None
            if layer.use_batch_norm and layer.output.placeholder is not None:
                apply_batch_norm_option(layer)
        if layer.output.placeholder is None:
            if is_user_layer_class(layer_class):
                raise LayerShapeError(layer=name, layer_class=layer_class.layer_class or layer_class.__name__,
                                      problem=f"the layer class {layer_class.__qualname__} did not set its output",
                                      hint="set self.output.placeholder (a tf.Tensor with the dims of the output "
                                           "template from get_out_data_from_opts) in __init__")
            raise RuntimeError(f"layer {name!r} ({layer_class.__name__}) did not set its output (implementation bug)")
        check_static_shape(layer)
        layer.kwargs = {**d, "output": output}
        layer.post_init(layer_desc)
        self.layers[name] = layer
        if self.extra_parent_net is not None:
            self.extra_parent_net.layers.setdefault(f"{self.extra_prefix}:{name}", layer)
        if layer.register_as_extern_data:
            data = layer.output.copy(name=layer.register_as_extern_data)
            self.extern_data.register_data(data)
        return layer

    def construct_params_stand_in(self, name: str, net_dict: Optional[Dict[str, Any]] = None,
                                  get_layer: Optional[Callable[[str], LayerBase]] = None) -> LayerBase:
        """:return: a stand-in of layer ``name`` that cannot be constructed yet (it depends on a layer whose
            ``__init__`` runs, which needs its params through ``reuse_params``): built in a throwaway network of
            the same scope, from the output templates of the layers under construction, so that its params are the
            variables the layer itself gets later (see :mod:`returnn.tf.network.stand_in`)"""
        from returnn.tf.network.stand_in import construct_params_stand_in

        return construct_params_stand_in(self, name, self.layers_desc if net_dict is None else net_dict,
                                         get_layer or self.get_layer)

    def get_template_under_construction(self, name: str) -> Optional[Tensor]:
        """:return: the output template of layer ``name`` while it is under construction, if known: while its
            ``__init__`` runs, or from :attr:`layer_templates` (a rec unit's); else None"""
        if name in self._templates_in_init:
            return self._templates_in_init[name]
        return self.layer_templates.get(name) if name in self._constructing else None

    def _debug_print_template(self, name: str, output: Tensor) -> None:
        """``layer /'name': [B,T|...] float32``, as the reference: at verbosity 3, or 1 with
        ``debug_print_layer_output_template``"""
        stream = log.v1 if self.options.debug_print_layer_output_template else log.v3
        if not stream.is_enabled():  # every layer passes here: no repr when nobody reads it
            return
        text = f"layer {self.get_absolute_name_prefix() or '/'}{name!r}: {output.get_dims_repr()} {output.dtype}"
        if output.sparse_dim is not None:
            text += f" sparse_dim={output.sparse_dim!r}"
        print(text, file=stream)

    def add_layer(self, name: str, layer_class: Any, **layer_desc: Any) -> LayerBase:
        """Creates a layer directly from its class and its final constructor options (reference API), e.g.
        ``add_layer("energy", CombineLayer, kind="add", sources=[l1, l2])`` or
        ``add_layer("input", InternalLayer, output=Data(..., placeholder=x))``. Unlike a layer dict, the options are
        not transformed: ``sources`` are layers (none if not given), there is no ``from``/``loss`` name lookup.

        :param name: the layer name in this network
        :param layer_class: a :class:`LayerBase` subclass (a registered class name is accepted too)
        :param layer_desc: the constructor's options; ``output`` (a :class:`returnn.tensor.Tensor`) gives the output
            template, else the class's ``get_out_data_from_opts`` infers it
        :return: the layer, registered in :attr:`layers`
        :raises LayerArgError: a layer of that name exists already, or ``layer_class`` is no layer class
        """
        if isinstance(layer_class, str):
            layer_class = get_layer_class(layer_class)
        if not (isinstance(layer_class, type) and issubclass(layer_class, LayerBase)):
            raise LayerArgError(layer=name, layer_class="?", arg="layer_class", problem="not a layer class:",
                                got=layer_class, expected="a LayerBase subclass")
        if name in self.layers:
            raise LayerArgError(layer=name, layer_class=layer_class.layer_class or layer_class.__name__, arg="name",
                                problem="a layer of this name exists already in the network:", got=name)
        d = dict(layer_desc, name=name, network=self)
        output = d.pop("output", None)
        self._constructing.append(name)
        enter_construction(self)  # get_current_network() in the layer's code (configs' eval/custom layers)
        try:
            if output is None:
                output = layer_class.get_out_data_from_opts(**d)
                mark_dims_created_by(name, output, input_dims(d))
            return self._instantiate_layer(name, layer_class, d, output, layer_desc)
        finally:
            leave_construction(self)
            self._constructing.pop()

    @property
    def recurrent(self) -> bool:
        """Whether a layer of this network depends on other frames of its input (a layer class with ``recurrent =
        True``: rec, conv, ctc loss...): data batches must then keep whole sequences (reference API)."""
        return any(layer.recurrent for layer in self.layers.values())

    # ---- queries
    def get_default_output_layer_name(self) -> Optional[str]:
        if "output" in self.layers:
            return "output"
        outs = [n for n, l in self.layers.items() if l.is_output_layer()]
        return outs[0] if len(outs) == 1 else None

    def get_default_output_layer(self, must_exist: bool = True) -> Optional[LayerBase]:
        """:raises LayerNotFound: if there is none and ``must_exist``"""
        name = self.get_default_output_layer_name()
        if name is None:
            if must_exist:
                raise self._not_found("output")
            return None
        return self.layers[name]

    def get_output_layers(self) -> List[LayerBase]:
        return [layer for layer in self.layers.values() if layer.is_output_layer()]

    def get_params_list(self) -> List[tf.Variable]:
        """:return: all params of all layers (each variable once): layers sorted by name, and the params of a layer
        by their name in the layer (``layer_norm``: ``bias``, ``scale``), as the reference lists them"""
        seen, result = set(), []
        for _, layer in sorted(self.layers.items()):
            for _, param in sorted(layer.params.items()):
                if id(param) not in seen:
                    seen.add(id(param))
                    result.append(param)
        return result

    def get_saveable_params_list(self) -> List[tf.Variable]:
        """:return: params plus the global step (if created)"""
        params = self.get_params_list()
        if self.get_root_network()._global_train_step is not None:
            params.append(self.get_root_network()._global_train_step)
        return params

    def get_trainable_params(self) -> List[tf.Variable]:
        """:return: params of layers with ``trainable`` (the variable's own trainable flag is honoured)"""
        trainable = set(map(id, tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)))
        return [p for p in self.get_params_list() if id(p) in trainable]

    def get_num_params(self) -> int:
        return int(sum(int(np.prod(p.shape.as_list())) for p in self.get_params_list()))

    # ---- info
    def print_network_info(self, name: str = "Network") -> None:
        """Prints the layer topology, ``net params #: N`` and the trainable params, as the reference."""
        print(f"{name} layer topology:", file=log.v2)
        print(f"  extern data: {self.extern_data.get_data_description()}", file=log.v2)
        print(f"  used data keys: {self.get_used_data_keys()}", file=log.v2)
        print("  layers:", file=log.v2)
        for layer_name, layer in sorted(self.layers.items()):
            print(f"    layer {layer.layer_class} {layer_name!r} #: {layer.output.dim}", file=log.v2)
        if not self.layers:
            print("    (no layers)", file=log.v2)
        print(f"net params #: {self.get_num_params()}", file=log.v2)
        print(f"net trainable params: {self.get_trainable_params()}", file=log.v2)

    @contextlib.contextmanager
    def register_network_scope(self) -> Any:
        yield

    def get_global_batch_info(self) -> None:
        return None


def get_layer_class_for_name(name: str) -> Any:
    return get_layer_class(name)
