"""The layer conformance test over the whole registry (issue 17): every registered layer class has a docstring and
an example (:data:`returnn.tf.layers.examples.LAYER_EXAMPLES`); each example is built, run forward and backward on
random inputs, and every layer of the class under test computes what its output template said before any TF op:

- at construction: the layer's output has the template's dims, dtype and sparse dim (the template is the
  ``Tensor`` returned by ``get_out_data_from_opts``, copied before ``__init__`` runs), the raw tensor has its dtype
  and rank;
- at run time: the raw tensor's shape is the template's batch shape: each static size, the batch size (times the
  beam size for a tensor with a beam), and for each dynamic axis the maximum of the dim's lengths. Layers inside a
  ``rec`` loop are checked by assertions run inside the loop.

The list of classes comes from the registry, not from this file: a layer class registered without an example or a
docstring fails here.
"""

from __future__ import annotations

import contextlib
import inspect
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf.layers  # noqa: F401  (registers all layers)
import returnn.tf.network.tfnetwork as tfnetwork_module
from returnn.config import Config
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import LAYERS, get_layer_class_name_list, is_user_layer_class, register_layer_class
from returnn.tf.layers.examples import LAYER_EXAMPLES, LayerExample, get_layer_example

BATCH = 3
MAX_LEN = 7


def _builtin_layer_names() -> List[str]:
    return [n for n in get_layer_class_name_list() if not is_user_layer_class(LAYERS.get(n))]


NAMES = _builtin_layer_names()


def test_every_registered_layer_class_has_an_example_and_a_docstring():
    names = _builtin_layer_names()
    assert len(names) >= 69
    missing = sorted(set(names) - set(LAYER_EXAMPLES))
    assert not missing, f"registered layer classes without an example in returnn/tf/layers/examples.py: {missing}"
    stale = sorted(set(LAYER_EXAMPLES) - set(names))
    assert not stale, f"examples of layer classes that are not registered: {stale}"
    undocumented = sorted(n for n in names if not (LAYERS.get(n).__dict__.get("__doc__") or "").strip())
    assert not undocumented, f"layer classes without their own docstring: {undocumented}"
    no_module_doc = sorted(n for n in names if not (inspect.getmodule(LAYERS.get(n)).__doc__ or "").strip())
    assert not no_module_doc, f"layer modules without a docstring: {no_module_doc}"


def test_every_example_builds_a_layer_of_its_class():
    for name, example in LAYER_EXAMPLES.items():
        assert isinstance(example, LayerExample)
        assert f"'class': '{name}'" in repr(example.network), f"example of {name!r} has no layer of that class"


@contextlib.contextmanager
def _patched_classmethod(cls: type, attr: str, wrapper: Any):
    """Sets classmethod ``wrapper(klass, **kwargs)`` as ``cls.attr`` and restores exactly what was there."""
    own = cls.__dict__.get(attr, None)
    setattr(cls, attr, classmethod(wrapper))
    try:
        yield
    finally:
        if own is None:
            delattr(cls, attr)
        else:
            setattr(cls, attr, own)


class _Recorder:
    """Records the template of each layer of ``cls`` (before ``__init__``) and checks the built layer against it."""

    def __init__(self, cls: type, batch: tf.Tensor, batch_changes: bool = False):
        self.cls = cls
        self.batch_changes = batch_changes
        self.batch = batch
        self.templates: Dict[Tuple[int, str], Any] = {}
        self.layers: List[Tuple[Any, Any]] = []  # (layer, template)
        self.errors: List[str] = []
        self.fetch: Dict[str, Any] = {}  # outside loops: raw tensors and the expected shapes, fetched after the run
        self.in_loop_asserts = 0

    def get_out_data_from_opts(self, orig: Any) -> Any:
        recorder = self

        def wrapper(klass: type, **kwargs: Any) -> Any:
            out = orig(klass, **kwargs)
            if "network" in kwargs and "name" in kwargs:
                recorder.templates[(id(kwargs["network"]), kwargs["name"])] = out.copy_template()
            return out
        return wrapper

    def check_static_shape(self, orig: Any) -> Any:
        def wrapper(layer: Any) -> None:
            orig(layer)
            if type(layer) is self.cls:
                self._check(layer)
        return wrapper

    def _expected_batch(self, layer: Any, template: Any, raw: tf.Tensor) -> Any:
        """the batch axis size the template implies (see the module doc)"""
        dim = template.dims[template.batch_dim_axis]
        actual = tf.shape(raw)[template.batch_dim_axis]
        if self.batch_changes:
            return actual
        packed_time = getattr(dim, "time_dim", None)  # flatten_batch: B&Packed{T} = the frames of all sequences
        if packed_time is not None:
            if packed_time.dyn_size is None:
                return self.batch * packed_time.dimension
            return tf.reduce_sum(packed_time.dyn_size)
        if layer.network.search_flag and layer.network.is_inside_rec_layer():
            # in a search loop, every tensor has B*K entries (K: the loop's beam) while templates say B (the loop
            # handles the beam): the size must be a multiple of B
            return tf.where(tf.equal(tf.math.floormod(actual, self.batch), 0), actual, -1)
        beam = getattr(template, "beam", None)
        return self.batch * (beam.beam_size if beam is not None else 1)

    def _expected_shape(self, layer: Any, template: Any, raw: tf.Tensor) -> List[Any]:
        shape = []
        for axis, dim in enumerate(template.dims):
            if axis == template.batch_dim_axis:
                shape.append(self._expected_batch(layer, template, raw))
            elif dim.dimension is not None:
                shape.append(tf.constant(dim.dimension))
            elif dim.dyn_size is not None:
                shape.append(tf.reduce_max(dim.dyn_size))
            else:
                self.errors.append(f"{template!r}: dynamic axis {axis} ({dim!r}) has no lengths")
                shape.append(None)
        return shape

    def _check(self, layer: Any) -> None:
        template = self.templates.get((id(layer.network), layer.name))
        where = f"layer {layer.network.get_absolute_name_prefix()}{layer.name!r}"
        if template is None:
            self.errors.append(f"{where}: get_out_data_from_opts was not called for it")
            return
        self.layers.append((layer, template))
        out = layer.output
        if tuple(out.dims) != tuple(template.dims):
            self.errors.append(f"{where}: output dims {out.dims} differ from the template's {template.dims}")
        if out.dtype != template.dtype:
            self.errors.append(f"{where}: output dtype {out.dtype} differs from the template's {template.dtype}")
        if out.sparse_dim != template.sparse_dim:
            self.errors.append(f"{where}: sparse dim {out.sparse_dim!r} differs from the template's "
                               f"{template.sparse_dim!r}")
        raw = out.placeholder
        if raw.dtype.base_dtype.name != template.dtype:
            self.errors.append(f"{where}: raw dtype {raw.dtype.name} differs from the template's {template.dtype}")
        if raw.shape.rank != template.batch_ndim:
            self.errors.append(f"{where}: raw rank {raw.shape.rank} differs from the template's {template.batch_ndim}")
            return
        expected = self._expected_shape(layer, template, raw)
        if any(e is None for e in expected):
            return
        expected = tf.stack([tf.cast(e, tf.int32) for e in expected]) if expected else tf.zeros([0], tf.int32)
        if raw.op._get_control_flow_context() is None:  # noqa: SLF001 (fetchable: compared after the run)
            self.fetch[f"{where} {template.get_dims_repr()}"] = (tf.shape(raw), expected)
        else:  # inside a rec loop: the check runs in the loop, before the output is used
            check = tf.debugging.assert_equal(
                tf.shape(raw), expected, message=f"{where}: raw shape differs from the template "
                                                 f"{template.get_dims_repr()}")
            with tf.control_dependencies([check]):
                out.placeholder = tf.identity(raw)
            self.in_loop_asserts += 1


def _make_feed(net: Any, rng: np.random.RandomState, ranges: Dict[str, Tuple[int, int]]) -> Dict[Any, np.ndarray]:
    feed = {}
    lengths: Dict[int, np.ndarray] = {}
    for key, data in sorted(net.extern_data.data.items()):
        if data.placeholder is None:
            continue
        low, high = ranges.get(key, (1, MAX_LEN))
        shape = [BATCH if axis == data.batch_dim_axis else (high if size is None else size)
                 for axis, size in enumerate(data.batch_shape)]
        if data.sparse:
            feed[data.placeholder] = rng.randint(0, data.dim, size=shape).astype(data.dtype)
        elif data.dtype == "string":  # seq_tag (added by hdf_dump)
            feed[data.placeholder] = np.array([b"seq-%i" % i for i in range(int(np.prod(shape)))]).reshape(shape)
        elif data.dtype.startswith("int"):
            feed[data.placeholder] = rng.randint(0, 5, size=shape).astype(data.dtype)
        else:
            feed[data.placeholder] = rng.normal(size=shape).astype(data.dtype)
        for _, size in sorted((data.size_placeholder or {}).items()):
            if id(size) not in lengths:
                lens = rng.randint(low, high + 1, size=(BATCH,)).astype("int32")
                lens[0] = high
                lengths[id(size)] = lens
            feed[size] = lengths[id(size)]
    return feed


def _build(example: LayerExample) -> Any:
    flags = {"train_flag": True, **example.flags}
    config = Config({"extern_data": example.extern_data, "debug_print_layer_output_template": False})
    net = tfnetwork_module.TFNetwork(config=config, **flags)
    net.construct_from_dict(example.network)
    return net


def _run_example(cls: type, example: LayerExample, monkeypatch: Any) -> None:
    """Builds ``example`` (recording and checking every layer of ``cls``), runs it forward and backward.

    :raises AssertionError: a check failed (see the module doc)
    """
    with tf.Graph().as_default() as graph:
        tf.compat.v1.set_random_seed(1)
        if example.raises:
            error_name, _, text = example.raises.partition(": ")
            with pytest.raises(Exception) as info:
                _build(example)
            assert type(info.value).__name__ == error_name and text in str(info.value), str(info.value)
            return
        recorder = _Recorder(cls, batch=tf.compat.v1.placeholder_with_default(BATCH, (), name="example_batch"),
                             batch_changes=example.batch_changes)
        orig_tmpl = cls.get_out_data_from_opts.__func__
        with monkeypatch.context() as patch:
            patch.setattr(tfnetwork_module, "check_static_shape",
                          recorder.check_static_shape(tfnetwork_module.check_static_shape))
            with _patched_classmethod(cls, "get_out_data_from_opts", recorder.get_out_data_from_opts(orig_tmpl)):
                net = _build(example)
        assert not recorder.errors, "\n".join(recorder.errors)
        assert recorder.layers, f"the example built no layer of class {cls.__name__}"
        out = net.get_layer("output").output
        y = out.placeholder
        params = net.get_trainable_params()
        float_inputs = [d.placeholder for d in net.extern_data.data.values()
                        if d.placeholder is not None and not d.sparse and d.placeholder.dtype.is_floating]
        grads = []
        if y.dtype.is_floating:
            noise = tf.random.stateless_normal(tf.shape(y), seed=[1, 2], dtype=y.dtype)
            objective = tf.reduce_sum(tf.cast(y * noise, tf.float32))
            if net.losses_dict:
                objective += net.get_objective()
            grads = [g for g in tf.gradients(objective, params + float_inputs) if g is not None]
        if example.grad:
            assert grads, f"{cls.layer_class}: no gradient from the output to a parameter or float input"
        with tf.compat.v1.Session(graph=graph, config=tf.compat.v1.ConfigProto(
                intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            feed = _make_feed(net, np.random.RandomState(1), example.lengths)
            try:
                y_val, grad_vals, shapes = session.run([y, grads, recorder.fetch], feed_dict=feed)
            finally:  # hdf_dump: write the file now, here (else at exit, into the working dir of that time)
                for layer, _ in recorder.layers:
                    close = getattr(getattr(layer, "dumper", None), "close", None)
                    if close is not None:
                        close()
    assert y_val.dtype == np.dtype(out.dtype)
    if np.issubdtype(y_val.dtype, np.floating):
        assert np.all(np.isfinite(y_val))
    for g in grad_vals:
        values = g.values if hasattr(g, "values") else g
        assert np.all(np.isfinite(values))
    for where, (shape, expected) in shapes.items():
        assert list(shape) == list(expected), f"{where}: raw shape {list(shape)}, template says {list(expected)}"
    assert shapes or recorder.in_loop_asserts


@pytest.mark.parametrize("name", NAMES)
def test_layer_example(name, monkeypatch, tmp_path, request):
    monkeypatch.chdir(tmp_path)  # examples that write files (hdf_dump) write there
    assert name in LAYER_EXAMPLES, f"no example for layer class {name!r} in returnn/tf/layers/examples.py"
    if LAYER_EXAMPLES[name].known_issue:  # expected to fail the template check until the layer is fixed
        request.node.add_marker(pytest.mark.xfail(strict=True, raises=AssertionError,
                                                  reason=LAYER_EXAMPLES[name].known_issue))
    _run_example(LAYERS.get(name), get_layer_example(name), monkeypatch)


# ---- the checks above can fail: layer classes whose raw output disagrees with their template


class _OneFrameTooManyLayer(LayerBase):
    """Claims the input's dims but pads one frame at the end of the time axis (a dynamic size mismatch that the
    static shape check of the network cannot see)."""
    layer_class = "_test_examples_one_frame_too_many"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        x = self.sources[0].output.copy_as_batch_major()
        pad = [[0, 0]] * x.batch_ndim
        pad[x.time_dim_axis] = [0, 1]
        self.output.placeholder = tf.pad(x.placeholder, pad)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Any:
        return sources[0].output.copy_as_batch_major().copy_template(name=f"{name}_output")


class _WrongDtypeLayer(LayerBase):
    """Says float32, computes float64."""
    layer_class = "_test_examples_wrong_dtype"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.output.placeholder = tf.cast(self.sources[0].output.placeholder, tf.float64)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Any:
        return sources[0].output.copy_template(name=f"{name}_output")


@pytest.mark.parametrize("cls", [_OneFrameTooManyLayer, _WrongDtypeLayer])
@pytest.mark.parametrize("in_loop", [False, True])
def test_a_layer_disagreeing_with_its_template_fails(cls, in_loop, monkeypatch):
    register_layer_class(cls)
    layer = {"class": cls.layer_class, "from": "data"}
    if in_loop:  # per step: the whole input sequence plus the previous output (which keeps it in the loop)
        layer = {"class": "rec", "from": "data", "unit": {
            "all": {"class": "combine", "kind": "add", "from": ["base:data", "prev:output"]},
            "x": {"class": cls.layer_class, "from": "all"},
            "output": {"class": "reduce", "mode": "sum", "axes": "T", "from": "x"}}}
    example = LayerExample({"data": {"dim": 5}}, {"output": layer})
    with pytest.raises((AssertionError, tf.errors.InvalidArgumentError), match="template"):
        _run_example(cls, example, monkeypatch)
