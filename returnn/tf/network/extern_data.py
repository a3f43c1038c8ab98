"""``ExternData``: the network's inputs and targets (``extern_data`` config key), as Tensor templates with
placeholders.

Config forms (as the reference; parsed by :func:`returnn.datasets.extern_data.extern_data_from_config`):

- ``extern_data = {"data": {"dim": 40}, "classes": {"dim": 5000, "sparse": True}}``: each value is a dict of
  :class:`returnn.tensor.Tensor` kwargs (``dim``, ``shape`` with None for dynamic axes, ``sparse``, ``dtype``,
  ``time_dim_axis``, ``batch_dim_axis``, ``same_dim_tags_as`` with ``DimensionTag`` values,
  ``available_for_inference``, ...); or the old ``(dim, ndim)`` (ndim 1: sparse ``[B,T]``, 2: dense
  ``[B,T,dim]``). ``available_for_inference`` defaults to False for the default target, and for every key
  but the default input when there is one.
- deprecated ``num_inputs``/``num_outputs``: ``num_outputs`` an int (classes, sparse) or a dict
  key → ``dim`` or ``[dim, ndim]``; ``num_inputs`` is the dim of ``data``. Prints the reference's deprecation
  warning; both must be given.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Dict, Iterable, List, Optional, Tuple

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.tensor import Dim, MarkedDim, Tensor
from returnn.tensor._dim_math import substitute


@dataclasses.dataclass(frozen=True)
class ExternBatchInfo:
    """The batch of the extern data (:meth:`ExternData.get_batch_info`).

    :param dim: int32 scalar tensor, the batch size: the size of the batch axis of the first batched extern data's
        placeholder (the layers take theirs from their own tensors). A feed dict may feed it with the batch size of
        the fed data (as for the reference's batch placeholder); that changes nothing else.
    """

    dim: tf.Tensor


class ExternData:
    """Holds the extern data templates by key.

    :param data: optional dict key → Tensor, dict of Tensor kwargs or ``(dim, ndim)``; the entries given as kwargs
        get their placeholders in the current graph at once (as the reference)
    :param default_input: key of the default input (``"data"``)
    :param default_target: key of the default target (``"classes"``)
    """

    def __init__(self, data: Optional[Dict[str, Any]] = None, default_input: str = "data",
                 default_target: str = "classes"):
        self.data: Dict[str, Tensor] = {}
        self._user_dim_copies: Dict[int, Tuple[Dim, Dim]] = {}  # id(config Dim) -> (config Dim, this copy)
        self.default_input = default_input
        self.default_target = default_target
        self._batch_info: Optional[Tuple[Any, ExternBatchInfo]] = None  # (placeholder it is built from, info)
        self._registered: set = set()  # ids of the entries added by register_data (not assigned to .data directly)
        from_dicts = False
        # one copy per config Dim for all entries (as init_from_options): two entries declaring an axis the same
        # (same_dim_tags_as) share it
        dict_opts = [value for value in (data or {}).values() if not isinstance(value, Tensor)]
        fresh_tags: Dict[int, Dim] = {id(d): d for opts in dict_opts for d in _direct_user_dims(opts)}
        users = {id(d): d for opts in dict_opts for d in _user_dims(opts)}
        for key, value in (data or {}).items():
            if isinstance(value, Tensor):
                self.register_data(value)
            else:
                self.register_data_from_dict(key, value, fresh_tags=fresh_tags, keys=data.keys())
                from_dicts = True
        self._link_user_dim_copies(users, fresh_tags)
        if from_dicts and not tf.executing_eagerly():
            # as the reference (observed): entries given as dicts get their placeholders (and the global batch) in
            # the current graph right away, e.g. for a feed dict made before the network is built; a network in
            # another graph makes new ones
            from returnn.tf.network.construction import create_placeholders
            create_placeholders(self)
            if all(d.batch is None for d in self.data.values()):
                self.init_batch_info()

    def __repr__(self) -> str:
        return f"<ExternData data={self.data!r}>"

    # ---- construction
    def init_from_config(self, config: Any, auto_create_placeholders: bool = False) -> None:
        """:meth:`init_from_options` of ``config`` parsed as :class:`~returnn.options.data.DataOptions`."""
        from returnn.options.data import DataOptions

        self.init_from_options(DataOptions.from_config(config), auto_create_placeholders=auto_create_placeholders)

    def init_from_options(self, opts: Any, auto_create_placeholders: bool = False) -> None:
        """Registers the data of the parsed :class:`~returnn.options.data.DataOptions`: ``extern_data`` (dicts of
        Tensor kwargs or ``(dim, ndim)``) or ``num_inputs``/``num_outputs`` (deprecated), and
        ``target``/``default_input``; see :func:`returnn.datasets.extern_data.extern_data_from_options`.

        :raises ConfigValueError: malformed entries (names the key), ``num_inputs``/``num_outputs`` incomplete
        """
        from returnn.datasets.extern_data import extern_data_from_options
        self.default_input = opts.default_input
        self.default_target = opts.target
        extern = extern_data_from_options(opts, print_warnings=True)
        # user Dim -> the dim this network uses for it: the Dim itself where an entry names it as an axis or sparse
        # dim (as the reference: the outputs hold the config's Dim objects); a copy where it only appears in
        # same_dim_tags_as (an axis of its own, declared the same)
        fresh_tags: Dict[int, Dim] = {id(d): d for opts in (extern or {}).values() for d in _direct_user_dims(opts)}
        users = {id(d): d for opts in (extern or {}).values() for d in _user_dims(opts)}
        for key, opts in (extern or {}).items():
            self.register_data_from_dict(key, opts, fresh_tags=fresh_tags, keys=extern.keys())
        self._link_user_dim_copies(users, fresh_tags)

    def _link_user_dim_copies(self, users: Dict[int, Dim], fresh_tags: Dict[int, Dim]) -> None:
        """Records this network's copy of each config Dim that only ``same_dim_tags_as`` names (for
        :meth:`map_user_dim`) and makes the config Dim the same as that copy, so that it equals the extern data's axis
        (as the reference, observed: ``time_dim == data.dim_tags[1]``). A later network re-points it to its own copy;
        the copy is assigned directly (no size is carried over from another network's graph)."""
        for key, fresh in fresh_tags.items():
            user = users.get(key)
            if user is None or fresh is user:
                continue
            self._user_dim_copies[key] = (user, fresh)
            if fresh.get_same_base() is user or user.same_as is fresh:
                continue
            if user.same_as is None or id(user.same_as) in _COPIES:  # not a dim the user declared the same
                user.same_as = fresh

    def map_user_dim(self, value: Any) -> Any:
        """:return: ``value`` with each config ``Dim`` that ``extern_data`` uses replaced by this network's copy of it
        (see :meth:`register_data_from_dict`), in a list, tuple or dict value too, so that a layer
        argument holding the config's Dim (``"size": time_dim``, ``"out_dim": ...``, an ``out_shape`` set, marked dims
        in it) is the same dim as the extern
        data's axis, as in the reference, where both are one object; a Dim computed from config Dims (``time_dim + 2``,
        ``time_dim * 5``, also of dims not in extern data) becomes the same expression of this network's copies, made
        in the current graph (the dim a layer computing it here gets); nested lists, tuples and dicts (keys too; the
        layer dicts of a subnetwork) are mapped too, a container without such Dims is returned as it is; other values
        unchanged"""
        if not self._user_dim_copies:  # the common case: extern_data made of plain dicts (called for every argument)
            return value
        if isinstance(value, Dim):
            return substitute(value, self._map_plain_user_dim, in_current_graph=True)
        if isinstance(value, MarkedDim):  # in an out_shape set
            return type(value)(self.map_user_dim(value.tag))
        if isinstance(value, (list, tuple, set, frozenset)):  # also nested: ("data", time_dim) in a "from" list
            items = [self.map_user_dim(v) for v in value]
            if all(new is old for new, old in zip(items, value)):
                return value
            return type(value)(items) if not hasattr(value, "_fields") else type(value)(*items)
        if isinstance(value, dict):  # also nested: the layer dicts of a subnetwork or of a cond's branches
            pairs = [(self.map_user_dim(k), self.map_user_dim(v)) for k, v in value.items()]
            if all(nk is k and nv is v for (nk, nv), (k, v) in zip(pairs, value.items())):
                return value
            return dict(pairs)
        return value

    def _map_plain_user_dim(self, dim: Dim) -> Dim:
        pair = self._user_dim_copies.get(id(dim))
        return pair[1] if pair is not None and pair[0] is dim else dim

    def register_data_from_dict(self, key: str, opts: Any, fresh_tags: Optional[Dict[int, Dim]] = None,
                                keys: Optional[Iterable[str]] = None) -> Tensor:
        """Creates the Tensor for ``key`` from Tensor kwargs (or ``(dim, ndim)``) and registers it.

        :param keys: all keys being registered (for the default of ``available_for_inference``)
        """
        from returnn.datasets.extern_data import extern_data_entry_to_kwargs
        opts = extern_data_entry_to_kwargs(key, opts, default_input=self.default_input,
                                           default_target=self.default_target, keys=keys)
        same = {}
        for same_key in ("same_time_dim_as", "same_dim_tags_as"):
            value = opts.pop(same_key, None) or {}
            bad = {axis: tag for axis, tag in value.items() if tag is not None and not isinstance(tag, Dim)} \
                if isinstance(value, dict) else value
            if bad:  # the reference rejects these too (an assertion)
                raise ConfigValueError(f"extern_data[{key!r}][{same_key!r}]", got=bad,
                                       expected="a dict axis -> Dim (DimensionTag), e.g. {'t': time_dim} with "
                                                "time_dim = DimensionTag(kind=DimensionTag.Types.Spatial, "
                                                "description='time', dimension=None), the same object for each key")
            same.update(value)
        if fresh_tags is None:
            fresh_tags = {}
        direct = _direct_user_dims(opts)  # used as they are (their lengths: see create_placeholders); so is a
        # feature_dim, which is one of them
        fresh_tags.update({id(d): d for d in direct})
        try:
            data = Tensor(name=key, **opts)
        except (TypeError, ValueError) as exc:
            raise ConfigValueError(f"extern_data[{key!r}]", expected="valid Tensor kwargs (dim, shape, sparse, dtype, "
                                   "time_dim_axis, batch_dim_axis, same_dim_tags_as, available_for_inference)",
                                   got=opts, hint=str(exc)) from exc
        self._rename_dims(data, key, keep={id(d) for d in direct})
        if same:
            for axis_desc, tag in same.items():
                if tag is None:
                    continue
                for axis in data.get_axes_from_description(axis_desc):
                    fresh = _fresh(tag, fresh_tags)
                    if fresh is tag:  # a Dim that is an axis of an entry itself: it names the axis
                        if data.dims[axis] is not tag:
                            data.dims[axis].declare_same_as(tag)
                    elif fresh.same_as is None and fresh.dyn_size is None:
                        fresh.declare_same_as(data.dims[axis])  # the first key's dim names the axis, as the reference
                    else:
                        data.dims[axis].declare_same_as(fresh)
        return self.register_data(data)

    @staticmethod
    def _rename_dims(data: Tensor, key: str, keep: Iterable[int] = ()) -> None:
        """Names the dims the entry made itself as the reference (``'time:var:extern_data:<key>'``); the dims of
        ``keep`` (ids of the config's Dims) keep their names."""
        keep = set(keep)
        for i, d in enumerate(data.dims):
            if d.is_batch_dim() or id(d) in keep:
                continue
            if i == data.time_dim_axis and data.batch_dim_axis is not None:
                d.description = f"time:var:extern_data:{key}"
            elif d.dimension is None and d.description and ":var-unk:" in d.description:
                d.description = d.description.replace(":var-unk:", ":var:extern_data:")

    def register_data(self, data: Tensor) -> Tensor:
        """Adds ``data`` under ``data.name`` (replacing an existing entry)."""
        self.data[data.name] = data
        self._registered.add(id(data))
        return data

    def init_from_dataset(self, dataset: Any, auto_create_placeholders: bool = True) -> None:
        """Registers all keys the dataset provides (via ``returnn.datasets.extern_data``), if not yet present.

        :param auto_create_placeholders: also create the placeholders of the keys without one (data and lengths,
            ``extern_data/placeholders/<key>/...``) in the current default graph (graph mode), as the reference's
            default; False: templates only (a ``TFNetwork`` creates them, or a data provider sets its tensors)
        """
        from returnn.datasets.extern_data import get_extern_data_dict_from_dataset
        for key, opts in get_extern_data_dict_from_dataset(dataset).items():
            if key not in self.data:
                self.register_data_from_dict(key, opts)
        if auto_create_placeholders:
            from returnn.tf.network.construction import create_placeholders

            create_placeholders(self)

    # ---- batch info
    def init_batch_info(self) -> None:
        """Gives all entries one new global :class:`returnn.tensor.BatchInfo`: its size is the batch size of the
        first entry with a raw tensor and a batch axis (a raw scalar; an int for a static batch dim), else -1
        (unknown)."""
        from returnn.tensor import BatchInfo
        size: Any = -1
        for data in self.data.values():
            if data.placeholder is not None and data.batch_dim_axis is not None:
                # a static batch dim (Dim(kind=Dim.Types.Batch, dimension=n)): its int size, as the reference
                size = data.dims[data.batch_dim_axis].dimension
                if size is None:
                    size = data.get_batch_dim()
                break
        self.set_batch_info(BatchInfo.make_global_batch_info(size))

    def init_batch_info_for_network(self) -> None:
        """What a root :class:`TFNetwork` does with its extern data: the global batch info (:meth:`init_batch_info`)
        when no entry has one yet, unless an entry with a batch axis was assigned to :attr:`data` directly (not
        through :meth:`register_data`, the constructor or ``init_from_*``): as the reference, that one gets none, and
        building a layer then fails (:meth:`check_batch_info`)."""
        if self.data and all(d.batch is None for d in self.data.values()) and not self._assigned_without_batch():
            self.init_batch_info()

    def _assigned_without_batch(self) -> List[str]:
        return [key for key, d in self.data.items()
                if id(d) not in self._registered and d.batch_dim_axis is not None and d.batch is None]

    def check_batch_info(self, layer_name: str) -> None:
        """:raises MissingBatchInfoError: (an AssertionError, as the reference's) an entry with a batch axis was
            assigned to :attr:`data` directly and has no batch info (``Tensor.batch``); call :meth:`init_batch_info`
            or add it with :meth:`register_data`"""
        missing = self._assigned_without_batch()
        if missing:
            from returnn.errors import MissingBatchInfoError
            raise MissingBatchInfoError(layer_name, missing)

    def set_batch_info(self, batch_info: Any) -> None:
        """Sets ``batch_info`` on all entries, on their dynamic dims and on their batch dims (the global ``batch_dim``
        too, as the reference: its ``get_dim_value()`` is then this batch's size; a later network sets it again)."""
        for data in self.data.values():
            data.batch = batch_info
            for dim in data.dims:
                if dim.is_dynamic() or dim.is_batch_dim():
                    dim.batch = batch_info

    # ---- queries
    def has_data(self, key: str) -> bool:
        return key in self.data

    def get_data(self, key: str) -> Tensor:
        """:raises KeyError: unknown key"""
        return self.data[key]

    def get_default_input_data(self) -> Tensor:
        return self.data[self.default_input]

    def get_default_target_data(self) -> Tensor:
        return self.data[self.default_target]

    def get_data_description(self) -> str:
        return ", ".join(f"{key}: {data.get_description(with_name=False)}" for key, data in self.data.items())

    def get_sorted_data_items(self) -> List[Any]:
        keys = sorted(self.data, key=lambda k: (k != self.default_input, k != self.default_target, k))
        return [(k, self.data[k]) for k in keys]

    def get_all_dimension_tags(self, allow_same_feature_dim: bool = False) -> List[Dim]:
        """:return: the dims of all data (keys sorted), each once, in axis order (sparse dims not included); with
            ``allow_same_feature_dim``, a feature dim of the same size as an earlier one counts as that one"""
        result: List[Dim] = []
        feature_sizes = set()
        for key in sorted(self.data):
            data = self.data[key]
            for axis, dim in enumerate(data.dims):
                if dim in result:
                    continue
                if allow_same_feature_dim and axis == data.feature_dim_axis:
                    if dim.dimension in feature_sizes:
                        continue
                    feature_sizes.add(dim.dimension)
                result.append(dim)
        return result

    def get_batch_info(self) -> ExternBatchInfo:
        """:return: the batch of the extern data (see :class:`ExternBatchInfo`), built once per set of placeholders

        :raises ConfigValueError: no extern data has a batch axis with a placeholder (nothing defines the batch)
        """
        for key, data in self.get_sorted_data_items():
            if data.batch_dim_axis is not None and data.placeholder is not None:
                cached = self._batch_info
                if cached is not None and cached[0] is data.placeholder:
                    return cached[1]
                with tf.name_scope("extern_data/"):
                    dim = tf.shape(data.placeholder, name=f"batch_dim_{key}")[data.batch_dim_axis]
                self._batch_info = (data.placeholder, ExternBatchInfo(dim=dim))
                return self._batch_info[1]
        raise ConfigValueError("extern_data", expected="a data key with a batch axis and a placeholder (for the batch "
                               "size)", got=self.get_data_description() or "no data")

    def get_queue_args(self, with_batch_dim: bool = True) -> Dict[str, Any]:
        return {key: data.get_kwargs() for key, data in self.data.items()}


def _user_dims(opts: Any) -> List[Dim]:
    """:return: the Dim objects of an ``extern_data`` entry (dims, sparse_dim, same_dim_tags_as values)"""
    if not isinstance(opts, dict):
        return []
    found = [d for key in ("dims", "dim_tags") for d in (opts.get(key) or ()) if isinstance(d, Dim)]
    found += [opts["sparse_dim"]] if isinstance(opts.get("sparse_dim"), Dim) else []
    for key in ("same_dim_tags_as", "same_time_dim_as"):
        found += [d for d in (opts.get(key) or {}).values() if isinstance(d, Dim)]
    return found


def _direct_user_dims(opts: Any) -> List[Dim]:
    """:return: the Dim objects an ``extern_data`` entry names as its axes (``dims``/``dim_tags``, except the batch
    dim) or as its ``sparse_dim``"""
    if not isinstance(opts, dict):
        return []
    found = [d for key in ("dims", "dim_tags") for d in (opts.get(key) or ())
             if isinstance(d, Dim) and not d.is_batch_dim()]
    return found + ([opts["sparse_dim"]] if isinstance(opts.get("sparse_dim"), Dim) else [])


def _fresh(tag: Dim, fresh_tags: Dict[int, Dim]) -> Dim:
    """:return: this ExternData's dim for a user Dim: the one registered in ``fresh_tags``, else a new copy (the
    same copy for the same user Dim)"""
    if id(tag) not in fresh_tags:
        fresh_tags[id(tag)] = Dim(tag.dimension, description=tag.description, kind=tag.kind)
        _COPIES[id(fresh_tags[id(tag)])] = fresh_tags[id(tag)]
    return fresh_tags[id(tag)]


# the copies _fresh made, by id (a config Dim pointing at one of them is re-pointed by a later network)
_COPIES: "weakref.WeakValueDictionary[int, Dim]" = weakref.WeakValueDictionary()


def extern_data_types_from_config(config: Any) -> Dict[str, Dict[str, Any]]:
    """:return: per data key of the config's ``extern_data`` (or ``num_inputs``/``num_outputs``) its Tensor kwargs
        as :meth:`ExternData.init_from_config` uses them (``(dim, ndim)`` converted, ``available_for_inference``
        filled in)

    :raises ConfigValueError: the config describes no data (neither ``extern_data`` nor ``num_inputs``/
        ``num_outputs``), or a malformed entry
    """
    from returnn.datasets.extern_data import extern_data_entry_to_kwargs, extern_data_from_options
    from returnn.options.data import DataOptions

    data_opts = DataOptions.from_config(config)
    extern = extern_data_from_options(data_opts, print_warnings=True)
    if extern is None:
        raise ConfigValueError("extern_data", expected="extern_data (or num_inputs/num_outputs) in the config")
    default_input, default_target = data_opts.default_input, data_opts.target
    result = {}
    for key, opts in extern.items():
        kwargs = extern_data_entry_to_kwargs(key, opts, default_input=default_input, default_target=default_target,
                                             keys=extern.keys())
        kwargs.setdefault("available_for_inference", True)  # the Tensor default, stated as the reference does
        result[key] = kwargs
    return result
