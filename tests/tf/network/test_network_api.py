"""The network API that configs call (eval strings, out_type functions, custom layers), scope names of layer names
TF rejects, ``"#..."`` keys, and construction order. Expected values were observed with the reference (RETURNN
from PyPI)."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import LayerArgError
from returnn.tf.layers.core.scope_names import get_valid_scope_name_from_str
from returnn.tf.network import CannotHandleUndefinedSourcesException, LayerNotFound, NotInsideRecLoopError, TFNetwork
from tf_net_helpers import build_net

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}


def _spec_augment_like(data, network):
    """Zeroes the first frame of each sequence in training, as SpecAugment functions of configs do: reads
    ``network.global_train_step``, branches with ``network.cond_on_train``, masks with TFUtil's ``where_bc``."""
    from TFUtil import where_bc

    x = data.placeholder
    step = tf.cast(network.global_train_step, tf.int32)  # 0 here: only that it is there
    time = tf.shape(x)[data.time_dim_axis]
    first = tf.equal(tf.range(time), step)  # [T]
    mask = tf.reshape(first, [1, -1, 1] if data.time_dim_axis == 1 else [-1, 1, 1])
    return network.cond_on_train(lambda: where_bc(mask, 0.0, x), lambda: x)


def _spec_net(train_flag):
    config = Config({"extern_data": EXTERN, "transform": _spec_augment_like})
    net = TFNetwork(config=config, train_flag=train_flag)
    net.construct_from_dict({
        "source": {"class": "eval", "from": "data",
                   "eval": "self.network.get_config().typed_value('transform')(source(0, as_data=True), "
                           "network=self.network)"},
        "output": {"class": "copy", "from": "source"}})
    return net


@pytest.mark.parametrize("train_flag", [True, False, "placeholder"])
def test_spec_augment_eval_string_with_get_config_and_cond_on_train(session, train_flag):
    flag = tf.compat.v1.placeholder(tf.bool, ()) if train_flag == "placeholder" else train_flag
    net = _spec_net(flag)
    data = net.extern_data.data["data"]
    x = np.arange(2 * 3 * 3, dtype="float32").reshape(2, 3, 3) + 1.0
    feed = {data.placeholder: x, data.size_placeholder[0]: [3, 2]}
    session.run(tf.compat.v1.global_variables_initializer())
    for train in ([True, False] if train_flag == "placeholder" else [train_flag]):
        if train_flag == "placeholder":
            feed[flag] = train
        out = session.run(net.layers["output"].output.placeholder, feed)
        expected = x.copy()
        if train:
            expected[:, 0] = 0.0
        np.testing.assert_array_equal(out, expected)


def test_get_config_and_private_config_name(session):
    net = _spec_net(False)
    assert net.get_config() is net.config and net._config is net.config  # noqa: SLF001 (configs read it)
    assert net.get_config().typed_value("transform") is _spec_augment_like
    sub = build_net({"sub": {"class": "subnetwork", "from": "data", "subnetwork": {
        "output": {"class": "eval", "from": "data",
                   "eval": "source(0) * self.network._config.typed_value('scale')"}}},
        "output": {"class": "copy", "from": "sub"}}, EXTERN, scale=2.0)
    assert sub.layers["sub/output"].network.get_config() is sub.config
    data = sub.extern_data.data["data"]
    out = session.run(sub.layers["output"].output.placeholder,
                      {data.placeholder: np.ones((1, 2, 3), "float32"), data.size_placeholder[0]: [2]})
    np.testing.assert_array_equal(out, np.full((1, 2, 3), 2.0, "float32"))


def test_cond_on_train_with_python_bool_calls_one_branch_only(session):
    net = build_net({"output": {"class": "copy", "from": "data"}}, EXTERN, train_flag=False)
    calls = []
    assert net.cond_on_train(lambda: calls.append("train"), lambda: calls.append("eval") or 7) == 7
    assert calls == ["eval"]


def test_network_attributes_like_reference(session):
    """Observed: ``random`` is a numpy RandomState, ``global_train_step`` the int64 variable ``global_step``,
    the root's name scope prefix is ``""``, no rec step info outside of a loop (an AssertionError there)."""
    net = build_net({"output": {"class": "copy", "from": "data"}}, EXTERN)
    assert isinstance(net.random, np.random.RandomState)
    assert net.global_train_step.name == "global_step:0" and net.global_train_step.dtype.base_dtype == tf.int64
    assert net.get_absolute_name_scope_prefix() == "" and net.get_root_network() is net and net.parent_net is None
    assert net.train_flag is True and net.search_flag is False and not net.is_inside_rec_layer()
    assert net.get_search_choices(src=net.layers["output"]) is None
    assert net.get_rec_step_info(must_exist=False) is None and not net.have_rec_step_info()
    with pytest.raises(NotInsideRecLoopError, match="We expect to be the subnet of a RecLayer, but we are not"):
        net.get_rec_step_index()
    with pytest.raises(AssertionError, match="We expect to be the subnet of a RecLayer, but we are not"):
        net.get_rec_step_info()


def _rec_step_net(unit_extra, from_):
    def step_values(self, source, **_kwargs):
        source(0)
        info = self.network.get_rec_step_info()
        prev_end = tf.cast(info.get_prev_end_flag(), tf.float32)
        source(1, auto_convert=False)
        step = tf.cast(self.network.get_rec_step_index(), tf.float32)
        return tf.stack([prev_end, tf.zeros_like(prev_end) + step], axis=1)

    unit = {"a": {"class": "eval", "from": ["prev:a", from_], "eval": step_values,
                  "out_type": {"shape": (2,), "dim": 2, "time_dim_axis": None}},
            "output": {"class": "copy", "from": "a"}, **unit_extra}
    return build_net({"enc": {"class": "copy", "from": "data"},
                      "output": {"class": "rec", "from": [] if from_ == "base:enc" else "data",
                                 "unit": unit, **({"max_seq_len": 10} if from_ == "base:enc" else {})}},
                     EXTERN, train_flag=False)


def test_rec_step_index_and_prev_end_flag_over_input_time_like_reference(session):
    """Observed with the reference for lengths [4, 2]: steps 0..3; ``get_prev_end_flag()`` true from step
    ``len + 1`` on (sequence 1: step 3)."""
    net = _rec_step_net({}, "data:source")
    inner = [layer for layer in net.layers.values() if layer.name == "output"][0]
    assert inner.output.placeholder is not None
    data = net.extern_data.data["data"]
    out = session.run(net.layers["output"].output.placeholder,
                      {data.placeholder: np.zeros((2, 4, 3), "float32"), data.size_placeholder[0]: [4, 2]})
    np.testing.assert_array_equal(out[:, :, 1], [[0, 0], [1, 1], [2, 2], [3, 3]])  # [T, B]: step index
    np.testing.assert_array_equal(out[:, :, 0], [[0, 0], [0, 0], [0, 0], [0, 1]])  # prev end flag


def test_rec_step_prev_end_flag_with_end_layer_like_reference(session):
    """Observed with the reference: ``end`` true at step 3 (sequence 0) and step 1 (sequence 1); the previous end
    flag is the end of an earlier step (sequence 1: from step 2 on)."""
    def end_at(self, source, **_kwargs):
        batch = tf.shape(source(0, auto_convert=False))[0]
        return tf.greater_equal(self.network.get_rec_step_index(), tf.constant([3, 1])[:batch])

    end = {"end": {"class": "eval", "from": "prev:a", "eval": end_at,
                   "out_type": {"shape": (), "dtype": "bool", "time_dim_axis": None}}}
    net = _rec_step_net(end, "base:enc")
    data = net.extern_data.data["data"]
    out = session.run(net.layers["output"].output.placeholder,
                      {data.placeholder: np.zeros((2, 4, 3), "float32"), data.size_placeholder[0]: [4, 2]})
    np.testing.assert_array_equal(out[:3, :, 1], [[0, 0], [1, 1], [2, 2]])
    np.testing.assert_array_equal(out[:3, :, 0], [[0, 0], [0, 0], [0, 1]])


def _end_flag_net(unit_extra, from_):
    def step_values(self, source, **_kwargs):
        source(0)
        source(1, auto_convert=False)
        ended = self.network.get_rec_step_info().get_end_flag(target_search_choices=None)
        return tf.expand_dims(tf.cast(ended, tf.float32), -1)

    unit = {"a": {"class": "eval", "from": ["prev:a", from_], "eval": step_values,
                  "out_type": {"shape": (1,), "dim": 1, "time_dim_axis": None}},
            "output": {"class": "copy", "from": "a"}, **unit_extra}
    return build_net({"enc": {"class": "copy", "from": "data"},
                      "output": {"class": "rec", "from": [] if from_ == "base:enc" else "data",
                                 "unit": unit, **({"max_seq_len": 10} if from_ == "base:enc" else {})}},
                     EXTERN, train_flag=False)


def test_rec_step_end_flag_dropped_api_over_input_time_like_old_release(session, capsys):
    """``get_end_flag(target_search_choices)``, which the reference dropped (AttributeError now; 10 published configs
    call it). Observed with release 1.20201223 (TF 2.8), lengths [4, 2], a loop over the input's time: per step
    [[0, 0], [0, 0], [0, 1], [0, 1]] ([T, B]), i.e. ``step >= len``: one step before ``get_prev_end_flag``."""
    from returnn.util.dropped_api import dropped_api_uses, reset_dropped_api_uses

    reset_dropped_api_uses()
    net = _end_flag_net({}, "data:source")
    data = net.extern_data.data["data"]
    out = session.run(net.layers["output"].output.placeholder,
                      {data.placeholder: np.zeros((2, 4, 3), "float32"), data.size_placeholder[0]: [4, 2]})
    np.testing.assert_array_equal(out[:, :, 0], [[0, 0], [0, 0], [0, 1], [0, 1]])
    out_text = capsys.readouterr().out
    assert "WARNING: dropped API: RecStepInfoLayer.get_end_flag(target_search_choices) (removed from" in out_text
    assert "Use get_prev_end_flag(), which is true one step later" in out_text
    assert "rec_step_info_get_end_flag" in dropped_api_uses()
    reset_dropped_api_uses()


def test_rec_step_end_flag_dropped_api_with_end_layer_is_a_clear_error():
    def end_at(self, source, **_kwargs):
        return tf.greater_equal(self.network.get_rec_step_index(), 2) & tf.ones_like(source(0)[:, 0], tf.bool)

    end = {"end": {"class": "eval", "from": "prev:a", "eval": end_at,
                   "out_type": {"shape": (), "dtype": "bool", "time_dim_axis": None}}}
    with pytest.raises(ValueError, match="use get_prev_end_flag"):
        _end_flag_net(end, "base:enc")


def test_rec_step_info_found_through_subnetwork_of_loop_network(session):
    root = build_net({"output": {"class": "copy", "from": "data"}}, EXTERN)
    loop_net = TFNetwork(parent_net=root, absolute_name_prefix="_dec/rec/", name="_dec", is_inside_rec_layer=True)
    loop_net.set_rec_step_info(tf.constant(3))
    sub = TFNetwork(parent_net=loop_net, absolute_name_prefix="_dec/rec/sub/", name="sub")
    assert session.run(sub.get_rec_step_index()) == 3 and sub.get_rec_step_info() is loop_net.get_rec_step_info()
    assert sub.get_absolute_name_scope_prefix() == ".95.dec/rec/sub/" and sub.get_config() is root.config
    template_net = TFNetwork(parent_net=root, absolute_name_prefix="_dec/rec/", is_inside_rec_layer=True)
    assert template_net.get_rec_step_info(must_exist=False) is None  # a rec unit's template network: no step


def test_valid_scope_names_like_reference():
    """Observed: ``returnn.tf.util.basic.get_valid_scope_name_from_str`` of the reference."""
    cases = {"_bpe0": ".95.bpe0", "__x": ".95._x", "a:b": "a__b", "data:classes": "data__classes", "a b": "a__b",
             "-x": ".95._x", ".x": ".x", "x/_y": "x/_y", "a(b)": "a__b__", "a,b": "a__b", "/x": ".47.x",
             "\\x": ".92.x", ">x": ">x", "#b": "#b", "a'b": "a__b", "a{b}": "a__b__", "aäb": "ab", "_": ".95.",
             "a::b": "a____b", "a/-b": "a/__b", "a\\b": "a\\b"}
    assert {name: get_valid_scope_name_from_str(name) for name in cases} == cases


def test_layer_names_starting_with_underscore_like_reference(session):
    """Observed param names: ``.95.bpe0/W`` for layer ``_bpe0``, ``sub/.95.in/W`` inside subnetwork ``sub``."""
    net = build_net({
        "_bpe0": {"class": "linear", "from": "data", "n_out": 5},
        "__x": {"class": "linear", "from": "_bpe0", "n_out": 5},
        "sub": {"class": "subnetwork", "from": "__x", "subnetwork": {
            "_in": {"class": "linear", "from": "data", "n_out": 2}, "output": {"class": "copy", "from": "_in"}}},
        "output": {"class": "softmax", "from": "sub", "loss": "ce"}}, EXTERN)
    assert sorted(v.name for v in tf.compat.v1.trainable_variables()) == sorted([
        ".95.bpe0/W:0", ".95.bpe0/b:0", ".95._x/W:0", ".95._x/b:0", "sub/.95.in/W:0", "sub/.95.in/b:0",
        "output/W:0", "output/b:0"])
    assert net.layers["_bpe0"].get_absolute_name_scope_prefix() == ".95.bpe0/"
    assert net.layers["sub/_in"].get_absolute_name_scope_prefix() == "sub/.95.in/"
    assert set(net.layers["_bpe0"].params) == {"W", "b"}


def test_hash_keys_are_not_layers_like_reference(session):
    net = build_net({"#copy_param_mode": "subset", "#config": {"x": 1},
                     "#foo": {"class": "linear", "from": "data", "n_out": 5, "is_output_layer": True},
                     "output": {"class": "softmax", "from": "data", "loss": "ce"}}, EXTERN)
    assert sorted(net.layers) == ["data", "data:classes", "output"]


def test_register_as_extern_data_layers_first_then_by_name_like_reference(session, capsys):
    """Observed construction order: the layers with ``register_as_extern_data`` (by name), then the output layers
    by name; a ``target`` may name the registered data."""
    from returnn.log import log
    log.initialize(verbosity=[3])
    net = build_net({
        "a": {"class": "linear", "from": "data", "n_out": 3, "loss": "mse", "target": "tgt", "is_output_layer": True},
        "y": {"class": "copy", "from": "data", "register_as_extern_data": "t2"},
        "x": {"class": "copy", "from": "data", "register_as_extern_data": "tgt"},
        "output": {"class": "softmax", "from": "data", "loss": "ce"}}, EXTERN)
    names = [line.split("'")[1] for line in capsys.readouterr().out.splitlines() if line.startswith("layer /")]
    assert names == ["data", "x", "y", "data:tgt", "a", "data:classes", "output"]
    assert net.extern_data.data["tgt"].dim == 3
    assert sorted(net.get_losses_initialized()[0]) == ["a", "output"]


def test_target_naming_registered_data_inside_subnetwork(session):
    net = build_net({
        "sub": {"class": "subnetwork", "from": "data", "subnetwork": {
            "a": {"class": "linear", "from": "data", "n_out": 3, "loss": "mse", "target": "tgt"},
            "output": {"class": "copy", "from": "a"}}},
        "z": {"class": "copy", "from": "data"},
        "zz": {"class": "copy", "from": "z", "register_as_extern_data": "tgt"},
        "output": {"class": "softmax", "from": "sub", "loss": "ce"}}, EXTERN)
    assert "zz" in net.layers and net.extern_data.data["tgt"].dim == 3


def test_legacy_exception_names_importable():
    import TFNetwork as legacy_tfnetwork  # the legacy module name (installed by importing returnn)

    assert legacy_tfnetwork.CannotHandleUndefinedSourcesException is CannotHandleUndefinedSourcesException
    exc = CannotHandleUndefinedSourcesException(layer_name="att", layer_desc={"n_out": 3})
    assert "'att'" in str(exc) and exc.layer_desc == {"n_out": 3}


def test_extra_networks_like_reference(session):
    """Observed: ``"extra.search:x"`` builds ``x`` in the extra network ``(extra.search)`` (search flag set, same
    train flag), from ``"extra.search:x"`` if described, else from ``"x"``; its dependencies are built there only
    if described with the prefix, else they are the main network's; the params are shared (no new names)."""
    net = build_net({
        "enc": {"class": "linear", "from": "data", "n_out": 5},
        "enc2": {"class": "linear", "from": "enc", "n_out": 5},
        "extra.search:enc2": {"class": "linear", "from": "enc", "n_out": 5, "dropout": 0.1},
        "extra.search:sonly": {"class": "linear", "from": "enc2", "n_out": 6},
        "use": {"class": "copy", "from": ["extra.search:enc2", "extra.search:sonly", "extra.search:enc",
                                          "extra.foo:enc2", "extra:enc"], "is_output_layer": True},
        "output": {"class": "softmax", "from": "enc2", "loss": "ce"}}, EXTERN)
    assert sorted(v.name for v in tf.compat.v1.trainable_variables()) == [
        "enc/W:0", "enc/b:0", "enc2/W:0", "enc2/b:0", "output/W:0", "output/b:0", "sonly/W:0", "sonly/b:0"]
    assert sorted(net.extra_nets) == ["extra", "extra.foo", "extra.search"]
    search_net, foo_net = net.extra_nets["extra.search"], net.extra_nets["extra.foo"]
    assert search_net.search_flag and search_net.train_flag is True and not foo_net.search_flag
    assert sorted(search_net.layers) == ["enc", "enc2", "sonly"] and sorted(foo_net.layers) == ["enc2"]
    assert net.layers["extra.search:sonly"].sources == [search_net.layers["enc2"]]
    assert net.layers["extra.search:enc2"].dropout == 0.1 and net.layers["extra.foo:enc2"].dropout == 0.0
    assert net.layers["extra.foo:enc2"].sources == [net.layers["enc"]]  # not described for extra.foo: the main one
    assert net.layers["extra.search:enc"] is not net.layers["enc"]  # asked for explicitly: built in the extra net
    assert search_net.get_root_network() is net and repr(search_net) == "<TFNetwork '(extra.search)' train=True search>"
    data = net.extern_data.data["data"]
    x = np.random.RandomState(0).randn(1, 2, 3).astype("float32")
    session.run(tf.compat.v1.global_variables_initializer())
    main, extra = session.run([net.layers["enc"].output.placeholder, net.layers["extra.search:enc"].output.placeholder],
                              {data.placeholder: x, data.size_placeholder[0]: [2]})
    np.testing.assert_array_equal(main, extra)  # same params


def test_get_layer_inside_rec_loop_sees_the_units_names(session):
    """As the reference: ``self.network.get_layer("prev:a")`` is ``a`` of the previous step ``{B, F}``, a unit layer
    its value in this step, ``"base:x"`` the layer outside the loop."""
    seen = {}

    def fn(self, source, **_kwargs):
        for name in ("prev:a", "b", "base:enc"):
            seen[name] = self.network.get_layer(name)
        return source(0) + source(1)

    net = build_net({"enc": {"class": "copy", "from": "data"}, "output": {"class": "rec", "from": "data", "unit": {
        "b": {"class": "copy", "from": "prev:a"},
        "a": {"class": "eval", "from": ["data:source", "b"], "eval": fn},
        "output": {"class": "copy", "from": "a"}}}}, EXTERN, train_flag=False)
    assert seen["prev:a"].output.get_dims_repr() == seen["b"].output.get_dims_repr() == "[B,F|F'feature:data'(3)]"
    assert seen["b"].sources == [seen["prev:a"]] and seen["base:enc"] is net.layers["enc"]


def test_sub_layers_of_rec_and_subnetwork_by_name_like_reference(session):
    """Observed: ``"output2/readout"`` is the full sequence ``{T, B, F}`` of the rec unit's layer ``readout`` (which
    needs ``is_output_layer``), ``"sub/x"`` the subnetwork's layer; the same params as the reference lists."""
    net = build_net({
        "output2": {"class": "rec", "from": "data", "target": "classes", "unit": {
            "readout": {"class": "linear", "from": ["data:source", "prev:output"], "n_out": 5, "is_output_layer": True},
            "hid": {"class": "linear", "from": "readout", "n_out": 6},
            "output": {"class": "softmax", "from": "hid", "loss": "ce", "target": "classes"}}},
        "h": {"class": "copy", "from": "output2/readout"},
        "sub": {"class": "subnetwork", "from": "data", "subnetwork": {
            "x": {"class": "linear", "n_out": 2, "from": "data"}, "output": {"class": "copy", "from": "x"}}},
        "s": {"class": "copy", "from": "sub/x"},
        "output": {"class": "softmax", "from": ["h", "s"], "loss": "ce"}}, EXTERN)
    assert net.layers["h"].output.get_dims_repr() == "[T|'time:var:extern_data:data'[B],B,F|F'readout:feature-dense'(5)]"
    assert net.layers["s"].sources == [net.layers["sub/x"]]
    assert sorted(v.name for v in tf.compat.v1.trainable_variables()) == [
        "output/W:0", "output/b:0", "output2/rec/hid/W:0", "output2/rec/hid/b:0", "output2/rec/output/W:0",
        "output2/rec/output/b:0", "output2/rec/readout/W:0", "output2/rec/readout/b:0", "sub/x/W:0", "sub/x/b:0"]
    with pytest.raises(LayerNotFound, match="has no sub layer 'hid'"):
        net.get_layer("output2/hid")  # in the loop only (the reference: add 'is_output_layer': True)


def test_target_without_loss_gives_the_output_dim_like_reference(session):
    """Observed: without a loss, ``target`` sets the output dim when ``n_out`` is not given (its dim object), not
    when it is."""
    net = build_net({"c": {"class": "softmax", "from": "data", "target": "classes", "is_output_layer": True},
                     "g": {"class": "linear", "from": "data", "target": "classes", "n_out": 4, "is_output_layer": True},
                     "output": {"class": "copy", "from": "data"}}, EXTERN)
    classes_dim = net.extern_data.data["classes"].sparse_dim
    assert net.layers["c"].output.feature_dim is classes_dim and net.layers["c"].output.dim == 4
    assert net.layers["g"].output.feature_dim is not classes_dim and net.layers["g"].output.dim == 4


def test_unknown_target_only_rejected_with_a_loss_like_reference(session):
    """Observed: a rec unit layer training does not use may name a target that is no extern data (the reference
    never reads it); with a loss, an unknown target is an error."""
    net = build_net({"output": {"class": "rec", "from": "data", "unit": {
        "search_only": {"class": "activation", "activation": "softmax", "from": "prev:output", "target": "bpe"},
        "output": {"class": "linear", "from": "data:source", "n_out": 3}}}}, EXTERN)
    assert net.layers["output"].output.dim == 3
    with pytest.raises(LayerArgError, match="unknown extern data key in 'target'"):
        build_net({"output": {"class": "softmax", "from": "data", "loss": "ce", "target": "bpe"}}, EXTERN)


@pytest.mark.parametrize("train_flag, expected", [
    (True, [[[1.29138, 1.63169], [-0.17518, -0.21548], [1.54828, 1.80974]],
            [[-0.17518, -0.21548], [1.71805, 1.88905], [-0.17518, -0.21548]]]),
    (False, [[[1.30203, 1.64474], [-0.16607, -0.20548], [1.5592, 1.82309]],
             [[-0.16607, -0.20548], [1.72915, 1.90253], [-0.16607, -0.20548]]])])
def test_batch_norm_option_of_any_layer_like_reference(session, train_flag, expected):
    """Observed: ``"batch_norm": True`` normalizes the layer's output after its activation, with params
    ``<layer>/batch_norm/<layer>_<layer>_output_*`` (gamma and beta trainable); outputs for the same param values."""
    net = build_net({"output": {"class": "linear", "activation": "relu", "batch_norm": True, "from": "data",
                                "n_out": 2}}, EXTERN, train_flag=train_flag)
    trainable = tf.compat.v1.trainable_variables()
    assert [(v.name, v.shape.as_list(), v in trainable) for v in tf.compat.v1.global_variables()] == [
        ("output/W:0", [3, 2], True), ("output/b:0", [2], True),
        ("output/batch_norm/output_output_output_mean:0", [1, 1, 2], False),
        ("output/batch_norm/output_output_output_variance:0", [1, 1, 2], False),
        ("output/batch_norm/output_output_output_gamma:0", [1, 1, 2], True),
        ("output/batch_norm/output_output_output_beta:0", [1, 1, 2], True)]
    assert sorted(net.layers["output"].params) == [
        "W", "b", "batch_norm/output_output_output_beta", "batch_norm/output_output_output_gamma",
        "batch_norm/output_output_output_mean", "batch_norm/output_output_output_variance"]
    session.run(tf.compat.v1.global_variables_initializer())
    for v in trainable:
        shape = v.shape.as_list()
        v.load(np.sin(np.arange(int(np.prod(shape))).reshape(shape) * 0.37 + 1).astype("float32"), session)
    data = net.extern_data.data["data"]
    x = np.cos(np.arange(2 * 3 * 3).reshape(2, 3, 3)).astype("float32")
    out = session.run(net.layers["output"].output.placeholder, {data.placeholder: x, data.size_placeholder[0]: [3, 2]})
    np.testing.assert_allclose(out, expected, atol=2e-5)


def test_extra_search_sub_layer_and_decide_search_choices(session):
    """As published hard-attention configs: ``"extra.search:output/t"`` is the sub layer ``t`` of the extra
    network's own ``output`` rec (not the main network's), and ``decide.search_choices.beam_scores`` (the reference's
    attribute, read in ``eval`` strings) is ``[B, 1]``: the final score of the chosen hypothesis."""
    unit = {"emb": {"class": "linear", "activation": None, "with_bias": False, "n_out": 4, "from": "prev:output"},
            "prob": {"class": "softmax", "from": ["emb", "base:enc_last"], "target": "classes", "loss": "ce"},
            "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 3, "initial_output": 0},
            "t": {"class": "copy", "from": "output", "is_output_layer": True},
            "end": {"class": "compare", "from": "output", "value": 0}}
    net = build_net({
        "enc_last": {"class": "reduce", "mode": "mean", "axes": "T", "from": "data"},
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 5, "unit": unit},
        "extra.search:output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 5, "unit": unit},
        "extra.search:t_search": {"class": "decide", "from": "extra.search:output/t"},
        "extra.search:dec": {"class": "decide", "from": "extra.search:output"},
        "score": {"class": "eval", "from": "extra.search:dec", "is_output_layer": True,
                  "out_type": {"dtype": "float32", "shape": (), "dim": None, "batch_dim_axis": 0, "time_dim_axis": None},
                  "eval": "(source(0, auto_convert=False), "
                          "tf.squeeze(self.sources[0].search_choices.beam_scores, axis=1))[-1]"},
        "use": {"class": "copy", "from": "extra.search:t_search", "is_output_layer": True}}, EXTERN)
    search_net = net.extra_nets["extra.search"]
    assert net.layers["extra.search:t_search"].sources[0] is search_net.layers["output"].get_sub_layer("t")
    dec = net.layers["extra.search:dec"]
    assert dec.search_choices.beam_size == 1 and net.layers["output"].search_choices is None
    assert net.layers["enc_last"].search_choices is None
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    session.run(tf.compat.v1.global_variables_initializer())
    rnd = np.random.RandomState(1)
    feed = {data.placeholder: rnd.randn(2, 3, 3).astype("float32"), data.size_placeholder[0]: [3, 2],
            classes.placeholder: [[1, 2, 0], [3, 0, 0]], classes.size_placeholder[0]: [3, 2]}
    score, best = session.run([net.layers["score"].output.placeholder, dec.best_scores], feed)
    assert score.shape == (2,) and np.all(score <= 0)
    np.testing.assert_allclose(score, best)
