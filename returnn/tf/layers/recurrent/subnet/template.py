"""Templates of the layers of a recurrent subnetwork (``{"class": "rec", "unit": {...}}``): per-frame output
shapes and the dependency graph, computed before any TF op of the loop is created.

Names inside the unit (as in the reference):

- ``"X"``: layer ``X`` of the unit in the *current* step; ``"prev:X"``: its output of the previous step
  (``initial_output`` of ``X`` at step 0); ``"base:X"``: layer ``X`` of the enclosing network (outside the loop);
  ``"data:KEY"``: the current frame of extern data ``KEY`` when its time axis is the loop's time axis, else the
  whole tensor; ``"data:source"`` / ``"data"``: the current frame of the rec layer's input (its ``from``);
  ``":i"``: the step index (int32 scalar, no batch axis).

A template is a :class:`returnn.tensor.Tensor` without the loop's time axis (``{B, F}`` for most layers).
Cycles through ``prev:`` (``s`` uses ``prev:context``, ``context`` uses ``s``) are resolved by first guessing
the template of a layer still under construction (``{B, F=n_out}``, the target's classes for ``choice``) and then
rebuilding all templates with the templates of the previous pass until they no longer change (at most 3 passes).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from returnn.errors import LayerArgError, LayerNotFound, NetworkConstructionDependencyLoopException
from returnn.tensor import Dim, FeatureDim, Tensor
from returnn.tf.layers.core.spec import validate_layer_dict
from returnn.util.suggest import close_matches

STEP_INDEX = ":i"
_FAILED = object()  # a source left out in the first template pass (see SubnetTemplates._partial_sources_get_layer)
SOURCE_KEYS = ("data", "data:source")


class BaseLayerError(Exception):
    """A layer outside the loop (``base:X``) failed while the unit's templates were built: :meth:`SubnetTemplates.build`
    re-raises :attr:`error` (the layer's own exception) at once, as the reference, instead of treating it as a
    template that does not fit yet.

    :param error: the exception of the layer outside the loop
    """

    def __init__(self, error: Exception):
        super().__init__(str(error))
        self.error = error


class TemplateLayer:
    """Stand-in for a layer during template construction: ``.output`` (template), ``.name``, ``.network``.

    :ivar deps: names of same-step layers of the unit this layer uses directly
    :ivar prev_deps: names ``X`` used as ``prev:X``
    :ivar base_deps: names ``X`` used as ``base:X``
    :ivar data_deps: ``"data:..."``/``":i"`` names used
    """

    def __init__(self, name: str, network: Any, output: Tensor, layer_class: Any = None,
                 layer_desc: Optional[Dict[str, Any]] = None, kwargs: Optional[Dict[str, Any]] = None):
        self.name = name
        self.network = network
        self.output = output
        self.cls = layer_class
        self.layer_class = getattr(layer_class, "layer_class", "template")
        self.layer_desc = layer_desc or {}
        self.kwargs = kwargs or {}
        self.deps: List[str] = []
        self.prev_deps: List[str] = []
        self.base_deps: List[str] = []
        self.data_deps: List[str] = []
        self.sources: List[Any] = []
        self.params: Dict[str, Any] = {}
        self.loss = self.kwargs.get("loss")
        self.target = self.kwargs.get("target")
        self.hidden_state_of: Optional[Tuple[Any, Dict[str, Any]]] = None  # prev:X: (class, layer dict) of X

    def __repr__(self) -> str:
        return f"<TemplateLayer {self.name!r} {self.layer_class} {self.output.get_dims_repr()}>"

    def is_choice(self) -> bool:
        return self.layer_class == "choice"

    def get_last_hidden_state_dim(self, key: Any = "*") -> Optional[int]:
        """:return: feature dim of the layer's hidden state for ``key`` (a ``prev:X`` template: that of ``X``), or
            None when the layer has no hidden state (its class has no ``get_last_hidden_state_dim_from_opts``)"""
        cls, desc = self.hidden_state_of or (self.cls, self.layer_desc)
        from_opts = getattr(cls, "get_last_hidden_state_dim_from_opts", None)
        if from_opts is None:
            return None
        return from_opts(key, **{k: v for k, v in desc.items() if k != "class"})


def frame_template(full: Tensor, name: str) -> Tensor:
    """:return: template of one frame of ``full`` (its time axis removed)"""
    if full.time_dim_axis is None:
        return full.copy_template(name=name)
    return full.copy_template_excluding_time_dim().copy_template(name=name)


class SubnetTemplates:
    """Builds the templates and the dependency graph of a unit dict.

    :param rec_name: name of the rec layer (for messages: ``output/s``)
    :param unit: the unit dict (layer name -> layer dict)
    :param sub_net: the TFNetwork the sub layers belong to (``parent_net`` = the enclosing network)
    :param loop_time_dim: the loop's time dim if known (the input's or the target's), else None
    :param source_template: the rec layer's input (``from``) with its time axis, or None without sources
    """

    def __init__(self, rec_name: str, unit: Dict[str, Any], sub_net: Any, loop_time_dim: Any,
                 source_template: Optional[Tensor]):
        self.rec_name = rec_name
        self.unit = unit
        self.sub_net = sub_net
        self.loop_time_dim = loop_time_dim
        self.source_template = source_template
        self.layers: Dict[str, TemplateLayer] = {}
        self._previous: Dict[str, TemplateLayer] = {}
        self._constructing: List[str] = []
        self._tolerant = False
        self.failed: Dict[str, Exception] = {}  # layers whose template could not be built (last pass)
        self.sub_layer_refs: Set[str] = set()  # "x/y" names of sub layers the unit's layers read (split/0, ...)

    # ---- names
    def full_name(self, name: str) -> str:
        return f"{self.rec_name}/{name}"

    def not_found(self, name: str, referenced_by: Optional[str]) -> LayerNotFound:
        candidates = list(self.unit) + [f"prev:{n}" for n in self.unit] + ["data:source", STEP_INDEX]
        by = f" (referenced by layer {self.full_name(referenced_by)!r})" if referenced_by else ""
        return LayerNotFound(f"layer {name!r} not found in the unit of rec layer {self.rec_name!r}{by}",
                             layer_name=self.full_name(name), network=self.sub_net,
                             suggestions=close_matches(name, candidates), referenced_by=referenced_by)

    # ---- extern data frames
    def data_template(self, name: str) -> Tensor:
        """:return: template for ``"data:KEY"``/``"data:source"`` inside the loop (a frame if it is on the loop's
        time axis)"""
        if name in SOURCE_KEYS:
            if self.source_template is None:
                raise LayerArgError(layer=self.rec_name, layer_class="rec", arg="from",
                                    problem="the unit uses 'data:source' but the rec layer has no input",
                                    got=[], hint='set "from" of the rec layer')
            return frame_template(self.source_template, name)
        key = name[len("data:"):]
        full = self.sub_net.get_extern_data(key)
        if full.time_dim is not None and self.loop_time_dim is not None and full.time_dim == self.loop_time_dim:
            return frame_template(full, name)
        if full.time_dim is not None and self.loop_time_dim is None:
            return frame_template(full, name)
        return full.copy_template(name=name)

    # ---- construction
    def build(self) -> Dict[str, TemplateLayer]:
        """Builds the templates of the layers that may be needed (fixpoint over ``prev:`` cycles), in the unit's
        order: :meth:`roots` and every unit layer their dicts name (``"X"``, ``"prev:X"``), recursively. As the
        reference, a layer of the unit that nothing needs is never constructed: its errors (e.g. an argument of an
        old RETURNN version, a name that is not in the unit, or the sources of a ``choice`` in training) do not
        matter, and the ``base:`` layers only it reads are not built (nor their params).

        :raises LayerNotFound: a needed layer uses a name that is neither in the unit nor ``base:``/``data:``/``:i``
        :raises LayerArgError/LayerShapeError: from the layers' own checks, naming ``rec/layer``
        """
        roots = self.roots()
        named, todo = set(roots), list(roots)
        while todo:
            for dep in self._named_unit_layers(self.unit[todo.pop()]):
                if dep not in named:
                    named.add(dep)
                    todo.append(dep)
        for pass_idx in range(4):
            signature_before = self._signature(self.layers)
            self._previous = self.layers
            self.layers = {}
            tolerant = pass_idx == 0
            self._tolerant = tolerant
            self.failed = {}
            for name in self.unit:
                if name not in named:
                    continue
                try:
                    self._construct(name)
                except BaseLayerError as exc:  # a layer outside the loop failed: its own error, at once
                    raise exc.error from None
                except Exception as exc:  # noqa: BLE001 (first pass: guessed prev: templates may not fit yet)
                    self._constructing.clear()
                    if not tolerant:
                        self.failed.setdefault(name, exc)
            if pass_idx > 0 and self._signature(self.layers) == signature_before:
                break
        self._raise_needed_failures(roots)
        return self.layers

    def _raise_needed_failures(self, roots: List[str]) -> None:
        """:raises Exception: the template error of the first layer that failed and is needed: a root or used by
        a needed layer (same step or ``prev:``)"""
        if not self.failed:
            return
        needed, todo = set(roots), list(roots)
        while todo:
            name = todo.pop()
            if name in self.failed:
                raise self.failed[name]
            tmpl = self.layers.get(name)
            for dep in (tmpl.deps + tmpl.prev_deps) if tmpl is not None else ():
                if dep not in needed:
                    needed.add(dep)
                    todo.append(dep)

    def _named_unit_layers(self, value: Any) -> List[str]:
        """:return: the unit layers that strings in a layer dict name (``"X"``, ``"prev:X"``, a target ``"layer:X"``;
        and ``"base:X"``, which names layer ``X`` of the unit inside a nested subnetwork dict), in order"""
        if isinstance(value, str):
            name = value[len("layer:"):] if value.startswith("layer:") else value  # a target "layer:X"
            while name.startswith(("prev:", "base:")):
                name = name[5:]
            return [name] if name in self.unit else []
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, (list, tuple)):
            return [name for item in value for name in self._named_unit_layers(item)]
        return []

    def roots(self) -> List[str]:
        """:return: the layers needed in any case: ``output``, ``end``, layers with ``is_output_layer`` or
        ``need_last``, with a ``loss`` (searching: only with the train flag, a loss without ``target``, as the
        reference reports those), ``choice`` layers (searching)"""
        search = bool(self.sub_net.search_flag)
        return [n for n, d in self.unit.items()
                if n in ("output", "end") or (isinstance(d, dict) and (
                    d.get("is_output_layer") or d.get("need_last") or builds_loss(d, self.sub_net)
                    or (d.get("class") == "choice" and search)))]

    def discovery_order(self) -> List[str]:
        """:return: the unit's layer names in the order the reference discovers them (observed: the order its
        layers moved out of the loop before it are built in): depth-first from ``output`` through the names each
        layer dict refers to (``from`` first, ``prev:`` included), then the other layers in the unit's order"""
        order: List[str] = []
        seen: Set[str] = set()

        def visit(name: str) -> None:
            if name in seen or name not in self.unit:
                return
            seen.add(name)
            desc = self.unit[name]
            if isinstance(desc, dict):
                refs = self._named_unit_layers(desc.get("from", [])) + self._named_unit_layers(
                    {k: v for k, v in desc.items() if k != "from"})
                for ref in refs:
                    visit(ref)
            order.append(name)

        visit("output")
        for name in self.unit:
            visit(name)
        return order

    def construction_order(self, roots: List[str]) -> List[str]:
        """:return: the unit's layer names depth-first from ``roots`` (in order), each layer before the names its dict
        refers to (``from`` first, ``prev:`` included), then the other layers in the unit's order"""
        order: List[str] = []
        seen: Set[str] = set()
        todo = list(reversed(roots))
        while todo:
            name = todo.pop()
            if name in seen or name not in self.unit:
                continue
            seen.add(name)
            order.append(name)
            desc = self.unit[name]
            if isinstance(desc, dict):
                refs = self._named_unit_layers(desc.get("from", [])) + self._named_unit_layers(
                    {k: v for k, v in desc.items() if k != "from"})
                todo.extend(reversed(refs))
        return order + [name for name in self.unit if name not in seen]

    @staticmethod
    def _signature(layers: Dict[str, TemplateLayer]) -> Dict[str, Any]:
        return {n: (l.output.batch_shape, l.output.dtype, l.output.sparse, l.output.time_dim_axis)
                for n, l in layers.items()}

    def _guess(self, name: str, _seen: Optional[Set[str]] = None) -> TemplateLayer:
        """Template of a layer referenced via ``prev:`` while it is still being constructed: its template of the
        previous pass; a ``choice`` with a target: the target's frame; a ``copy`` (or an ``eval`` without
        ``out_type``) of another unit layer: the guess of that layer (e.g. ``t`` = copy of ``t1`` = eval of the
        choice ``t0``: the choice's int32 labels); a ``choice`` without target: int32 ``{B}`` labels of classes not
        known yet; else float32 ``{B, n_out}``."""
        if name in self._previous:
            return self._previous[name]
        desc = self.unit[name]
        first = _first_source(desc)
        seen = _seen or set()
        if (desc.get("class") in ("copy", "eval") and "out_type" not in desc and first in self.unit
                and first not in seen):
            seen.add(name)
            if first in self.layers:
                return TemplateLayer(name, self.sub_net, self.layers[first].output.copy_template(name=f"{name}_output"))
            return self._guess(first, seen)
        init_guess = self._guess_from_initial_output(name, desc)
        if init_guess is None:
            init_guess = self._guess_from_out_shape(name, desc)
        if init_guess is not None:
            out = init_guess
        elif desc.get("class") == "choice" and desc.get("target"):
            # only its dims for the template: not a use of the data (as the reference, observed: a search network
            # with a choice on a target not available for inference does not use the target)
            target = self.sub_net.get_extern_data(desc["target"], mark_data_key_as_used=False)
            out = frame_template(target, f"{name}_output")
        elif desc.get("class") == "choice":  # (a search over e.g. positions) int32 labels of the hypotheses
            out = Tensor(name=f"{name}_output", dims=[_batch()], dtype="int32",
                         sparse_dim=FeatureDim(f"{name}:guess-classes", None))
        else:
            n_out = desc.get("n_out")
            if n_out is None and desc.get("out_dim") is not None:
                n_out = desc["out_dim"].dimension
            out = Tensor(name=f"{name}_output", dims=[_batch(), FeatureDim(f"{name}:guess", n_out or 1)])
        return TemplateLayer(name, self.sub_net, out)

    def _guess_from_initial_output(self, name: str, desc: Dict[str, Any]) -> Optional[Tensor]:
        """:return: for a layer dict with a layer as ``initial_output`` (``"base:..."``): that layer's template when
            the dict has an ``out_shape`` (a set of dims) and the dims are exactly those, or when it has none, is no
            ``choice`` and the layer has two or more axes besides the batch, none the loop's (e.g. accumulated
            attention weights ``{B, T_enc, 1}`` starting from zeros of the encoder's shape: the frame has that shape,
            which a guess ``{B, F}`` would miss); else None"""
        init, out_shape = desc.get("initial_output"), desc.get("out_shape")
        if not (isinstance(init, str) and init.startswith("base:")):
            return None
        if out_shape is None and desc.get("class") != "choice":
            try:
                layer = self.sub_net.parent_net.get_layer(init[len("base:"):])
            except Exception:  # noqa: BLE001 (only a guess: the usual guess then)
                return None
            out = layer.output
            if out.batch_dim_axis is None or len(out.dims) <= 2 or (
                    self.loop_time_dim is not None and self.loop_time_dim in out.dims):
                return None
            return out.copy_template(name=f"{name}_output")
        if not isinstance(out_shape, (set, frozenset)):
            return None
        wanted = {self.sub_net.extern_data.map_user_dim(d) for d in out_shape}
        if not all(isinstance(d, Dim) for d in wanted):
            return None
        try:
            layer = self.sub_net.parent_net.get_layer(init[len("base:"):])
        except Exception:  # noqa: BLE001 (only a guess: the usual guess then)
            return None
        if len(layer.output.dims) != len(wanted) or set(layer.output.dims) != wanted:
            return None
        return layer.output.copy_template(name=f"{name}_output")

    def _guess_from_out_shape(self, name: str, desc: Dict[str, Any]) -> Optional[Tensor]:
        """:return: for a layer dict with ``out_shape`` (a set of dims per frame; ``{}``: a scalar), a template with
            these dims (the batch dim first, the others in their creation order; float32, int32 with an
            ``ImplicitSparseDim`` as its sparse dim), else None"""
        out_shape = desc.get("out_shape")
        if isinstance(out_shape, dict) and not out_shape:
            out_shape = set()
        if not isinstance(out_shape, (set, frozenset)):
            return None
        from returnn.tensor.marked_dim import ImplicitSparseDim
        entries = [self.sub_net.extern_data.map_user_dim(d) for d in out_shape]
        dims = sorted((d for d in entries if isinstance(d, Dim) and d != self.loop_time_dim),
                      key=lambda d: (not d.is_batch_dim(), d))
        sparse = [d.tag for d in entries if isinstance(d, ImplicitSparseDim)]
        if sparse:
            return Tensor(name=f"{name}_output", dims=dims, dtype="int32", sparse_dim=sparse[0])
        return Tensor(name=f"{name}_output", dims=dims, dtype="float32")

    def _construct(self, name: str) -> TemplateLayer:
        if name in self.layers:
            return self.layers[name]
        if name in self._constructing:
            raise NetworkConstructionDependencyLoopException(self.sub_net, name, self._constructing, self.unit)
        if not self._tolerant:
            return self._construct_once(name, skip_guessed_prev=False)
        # first pass, as the reference (observed): the template from the sources whose templates are known, the
        # "prev:" ones not yet known left out (e.g. "add" from ["data:source", "prev:add"] is the frame's int32
        # scalar); where that leaves no source, or fails, with guessed "prev:" templates (see _guess)
        try:
            return self._construct_once(name, skip_guessed_prev=True)
        except (LayerNotFound, BaseLayerError):
            raise
        except Exception:  # noqa: BLE001 (retried with the guesses)
            return self._construct_once(name, skip_guessed_prev=False)

    def _construct_once(self, name: str, skip_guessed_prev: bool) -> TemplateLayer:
        """:param skip_guessed_prev: leave out the ``prev:X`` sources whose template is only guessed (first pass)
        :return: the template of unit layer ``name`` (registered in :attr:`layers`)"""
        desc = self.unit[name]
        layer_class = validate_layer_dict(self.full_name(name), desc)
        tmpl = TemplateLayer(name, self.sub_net, None, layer_class, desc)
        self._constructing.append(name)
        try:
            d = {key: self.sub_net.extern_data.map_user_dim(value) for key, value in desc.items()}  # config dims
            d.pop("class")
            # reuse_params names no input: the template does not depend on it, and the layer it names is no
            # dependency in the loop (it may even depend on this layer; the loop's layers resolve it themselves)
            d.pop("reuse_params", None)
            d["name"] = name
            d["network"] = self.sub_net
            get_layer = self._make_get_layer(tmpl, skip_guessed_prev)
            if self._tolerant:
                get_layer = self._partial_sources_get_layer(get_layer)
            layer_class.transform_config_dict(d, network=self.sub_net, get_layer=get_layer)
            cycle_only = None
            if self._tolerant and isinstance(d.get("sources"), list) and _FAILED in d["sources"]:
                d["sources"] = [src for src in d["sources"] if src is not _FAILED]
                if not d["sources"]:
                    cycle_only = self._cycle_only_template(name, desc)
                    if cycle_only is None:
                        raise LayerArgError(layer=name, layer_class=tmpl.layer_class, arg="from",
                                            problem="no source template could be built (first template pass)",
                                            got=[])
            tmpl.kwargs = d
            tmpl.output = cycle_only if cycle_only is not None else layer_class.get_out_data_from_opts(**d)
            if skip_guessed_prev and d.get("out_shape") is not None:  # else with the guesses (out_shape, initial)
                tmpl.output.verify_out_shape(d["out_shape"])
            tmpl.loss = d.get("loss")
            tmpl.target = d.get("target")
        except LayerNotFound:
            raise
        finally:
            self._constructing.pop()
        self.layers[name] = tmpl
        return tmpl

    def _cycle_only_template(self, name: str, desc: Dict[str, Any]) -> Optional[Tensor]:
        """First template pass: the template of a layer whose sources are all ``prev:`` of layers under construction
        (e.g. a counter ``output`` from ``prev:output``), as the reference (observed): only the feature dim its size
        gives (``out_type["dim"]``, ``n_out``, ``out_dim``), no batch axis, dtype ``out_type["dtype"]`` (float32).

        :return: that template, or None when a source is something else or the layer has no size (or an
            ``out_type`` with a shape): then the usual guesses"""
        sources = desc.get("from")
        sources = [sources] if isinstance(sources, str) else list(sources or ())
        if not sources or not all(isinstance(src, str) and src.startswith("prev:")
                                  and src[len("prev:"):] in self._constructing for src in sources):
            return None
        out_type = desc.get("out_type") or {}
        if not isinstance(out_type, dict) or any(key in out_type for key in ("shape", "dims", "dim_tags", "sparse")):
            return None
        out_dim = desc.get("out_dim")
        if isinstance(out_dim, Dim):
            feature = out_dim
        else:
            size = out_type.get("dim", desc.get("n_out"))
            if not isinstance(size, int) or isinstance(size, bool):
                return None
            feature = FeatureDim(f"{name}:feature-dense", size)
        return Tensor(name=f"{name}_output", dims=[feature], dtype=out_type.get("dtype", "float32"))

    def _partial_sources_get_layer(self, get_layer: Callable[[str], Any]) -> Callable[[str], Any]:
        """First template pass only: a source whose template cannot be built yet (it depends, through a cycle via
        ``prev:``, on a layer whose template is only guessed) is left out, so the layer's template comes from its
        other sources, as the reference does; e.g. ``att_energy_in`` from ``base:enc_ctx`` and ``s`` while the
        location feedback from ``prev:accum_att_weights`` is not known yet. Later passes are strict."""
        def partial_get_layer(src: str) -> Any:
            try:
                return get_layer(src)
            except (LayerNotFound, BaseLayerError):
                raise
            except Exception:  # noqa: BLE001 (a guessed prev: template does not fit yet)
                return _FAILED
        return partial_get_layer

    def _make_get_layer(self, tmpl: TemplateLayer, skip_guessed_prev: bool = False) -> Callable[[str], Any]:
        def get_layer(src: str) -> Any:
            return self.resolve(src, tmpl, skip_guessed_prev=skip_guessed_prev)
        return get_layer

    def resolve(self, src: str, consumer: TemplateLayer, skip_guessed_prev: bool = False) -> Any:
        """:param skip_guessed_prev: a ``prev:X`` whose template would only be guessed gives the marker of a
            left-out source (see :meth:`_construct`)
        :return: the template layer (or real parent layer for ``base:``) that ``src`` names in ``consumer``
        :raises BaseLayerError: building a ``base:`` layer failed (its error inside)"""
        if src.startswith("prev:"):
            target = src[len("prev:"):]
            if target not in self.unit:
                raise self.not_found(src, consumer.name)
            _add(consumer.prev_deps, target)
            if skip_guessed_prev and target not in self.layers and target not in self._previous:
                return _FAILED
            if target in self.layers:
                out = self.layers[target].output
            else:
                out = self._guess(target).output
            prev = TemplateLayer(src, self.sub_net, out.copy_template(name=f"prev:{target}"))
            from returnn.tf.layers.core.registry import get_layer_class
            prev.hidden_state_of = (get_layer_class(self.unit[target].get("class"), raise_exception=False),
                                    self.unit[target])
            return prev
        if src.startswith("base:"):
            _add(consumer.base_deps, src[len("base:"):])
            try:
                return self.sub_net.parent_net.get_layer(src[len("base:"):])
            except LayerNotFound as exc:
                raise LayerNotFound(f"layer {src!r} (used by {self.full_name(consumer.name)!r}) not found in the "
                                    f"network enclosing rec layer {self.rec_name!r}", layer_name=src,
                                    network=self.sub_net, suggestions=exc.suggestions,
                                    referenced_by=self.full_name(consumer.name)) from None
            except BaseLayerError:
                raise
            except Exception as exc:  # noqa: BLE001 (re-raised as it is by build, not tolerated as a template's)
                raise BaseLayerError(exc) from exc
        if src == STEP_INDEX:
            _add(consumer.data_deps, src)
            return TemplateLayer(src, self.sub_net, Tensor(name=STEP_INDEX, shape=(), dtype="int32",
                                                           batch_dim_axis=None))
        if src in SOURCE_KEYS or src.startswith("data:"):
            key = "data:source" if src in SOURCE_KEYS else src
            if key not in self.unit:
                _add(consumer.data_deps, key)
                if consumer.layer_class == "choice" and key == f"data:{consumer.layer_desc.get('target')}":
                    # a choice emits one label per step: its target's frame, also where the target's time axis
                    # is not the loop's (as the reference, observed: a choice on a target of another time axis)
                    full = self.sub_net.get_extern_data(key[len("data:"):])
                    return TemplateLayer(key, self.sub_net, frame_template(full, key))
                return TemplateLayer(key, self.sub_net, self.data_template(key))
            src = key
        if src not in self.unit and "/" in src and src.split("/", 1)[0] in self.unit:
            return self._sub_layer(src, consumer)
        if src not in self.unit:
            raise self.not_found(src, consumer.name)
        _add(consumer.deps, src)
        return self._construct(src)

    def _sub_layer(self, src: str, consumer: TemplateLayer) -> TemplateLayer:
        """:return: the template of ``"x/y"``: sub layer ``y`` of unit layer ``x`` (``split/0``, ``top_k/indices``);
            the consumer depends on ``x``"""
        base, rest = src.split("/", 1)
        parent = self.resolve(base, consumer)
        self.sub_layer_refs.add(src)
        from_opts = getattr(parent.cls, "get_sub_layer_out_data_from_opts", None)
        out = from_opts(rest, parent.kwargs) if from_opts is not None and parent.kwargs else None
        if out is None:
            raise self.not_found(src, consumer.name)
        return TemplateLayer(src, self.sub_net, out)

    # ---- graph queries
    def same_step_closure(self, names: Set[str]) -> Set[str]:
        """:return: ``names`` plus all same-step dependencies, transitively"""
        result: Set[str] = set()
        todo = list(names)
        while todo:
            n = todo.pop()
            if n in result:
                continue
            result.add(n)
            todo.extend(self.layers[n].deps)
        return result

    def depends_on(self, name: str, targets: Set[str]) -> bool:
        """:return: whether ``name`` depends (same step, transitively, or is) on one of ``targets``"""
        return bool(self.same_step_closure({name}) & targets)


def builds_loss(desc: Any, sub_net: Any) -> bool:
    """:return: whether the loss of a sub layer (its dict ``desc``) is built, as the reference (observed): always
    outside a search; in a search only with the train flag (True or a tensor: e.g. the extra search network of a
    training network, not a search task), with or without ``target`` (a target of the extern data makes the loop
    run for the target's length, see ``SubnetworkRecCell._fixed_time_dim``; ``"layer:..."`` targets, e.g. soft
    targets of optimal completions, are per hypothesis)"""
    if not isinstance(desc, dict) or not desc.get("loss"):
        return False
    if not sub_net.search_flag:
        return True
    return sub_net.train_flag is not False


def _batch() -> Any:
    from returnn.tensor import batch_dim
    return batch_dim


def _first_source(desc: Dict[str, Any]) -> Optional[str]:
    """:return: the first entry of a layer dict's ``from`` (a name), or None"""
    src = desc.get("from")
    if isinstance(src, (list, tuple)):
        src = src[0] if src else None
    return src if isinstance(src, str) else None


def _add(lst: List[str], item: str) -> None:
    if item not in lst:
        lst.append(item)
