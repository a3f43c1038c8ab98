"""Updater: gradient clipping/noise/filters, accumulation, learning rate handling, per-parameter options,
checkpoint resume."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.tf.updater import Updater, set_param_updater_opts

from updater_test_helpers import SCALE, TARGET, X0, make_config, quadratic_grad, train_quadratic

TF = tf.compat.v1
SGD = {"optimizer": {"class": "sgd"}}


def sgd_step(grad, lr=1.0):
    return X0 - lr * grad


def test_gradient_clip_by_value():
    got = train_quadratic({**SGD, "gradient_clip": 1.5}, 1, learning_rate=1.0)
    np.testing.assert_allclose(got, sgd_step(np.clip(quadratic_grad(X0), -1.5, 1.5)), rtol=1e-6)


def test_gradient_clip_norm_per_parameter():
    grad = quadratic_grad(X0)
    norm = np.linalg.norm(grad)
    assert norm > 2.0
    got = train_quadratic({**SGD, "gradient_clip_norm": 2.0}, 1, learning_rate=1.0)
    np.testing.assert_allclose(got, sgd_step(grad * 2.0 / norm), rtol=1e-5)


def test_gradient_clip_global_norm_over_all_params():
    graph = tf.Graph()
    with graph.as_default():
        a = TF.get_variable("a", initializer=np.array([3.0], np.float32))
        b = TF.get_variable("b", initializer=np.array([4.0, 0.0], np.float32))
        loss = 0.5 * tf.reduce_sum(tf.square(a)) + 0.5 * tf.reduce_sum(tf.square(b))  # grads = (3), (4, 0): norm 5
        updater = Updater(make_config(**SGD, gradient_clip_global_norm=1.0), initial_learning_rate=1.0, loss=loss,
                          var_list=[a, b])
        op = updater.get_optim_op()
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            session.run(op)
            np.testing.assert_allclose(session.run(a), [3.0 - 0.6], rtol=1e-6)
            np.testing.assert_allclose(session.run(b), [4.0 - 0.8, 0.0], rtol=1e-6)


def test_gradient_nan_inf_filter():
    coefficients = np.array([[1.0, np.nan, 2.0], [np.inf, -3.0, -np.inf]], np.float32)
    loss_fn = lambda x: tf.reduce_sum(x * coefficients)  # noqa: E731  (gradient = coefficients)
    got = train_quadratic({**SGD, "gradient_nan_inf_filter": True}, 1, learning_rate=1.0, loss_fn=loss_fn)
    np.testing.assert_allclose(got, X0 - np.array([[1.0, 0.0, 2.0], [0.0, -3.0, 0.0]]), rtol=1e-6)
    unfiltered = train_quadratic(SGD, 1, learning_rate=1.0, loss_fn=loss_fn)
    assert np.isnan(unfiltered).any()


def test_gradient_noise_statistics():
    zeros = np.zeros((100, 100), np.float32)
    got = train_quadratic({**SGD, "gradient_noise": 0.3}, 1, learning_rate=1.0, x0=zeros,
                          loss_fn=lambda x: tf.reduce_sum(x * 0.0))
    assert abs(float(np.std(got)) - 0.3) < 0.03  # 10000 samples: std error of the std ~0.002
    assert abs(float(np.mean(got))) < 0.02


def test_accum_grad_multiple_step():
    steps = train_quadratic({**SGD, "accum_grad_multiple_step": 3}, 6, learning_rate=0.1,
                            fetch_after_each_step=True)
    grad = quadratic_grad(X0)
    np.testing.assert_array_equal(steps[0], X0)  # only accumulated
    np.testing.assert_array_equal(steps[1], X0)
    after3 = X0 - 0.1 * 3 * grad  # applied with the sum of 3 equal gradients
    np.testing.assert_allclose(steps[2], after3, rtol=1e-5)
    np.testing.assert_array_equal(steps[3], steps[2])
    np.testing.assert_array_equal(steps[4], steps[2])
    np.testing.assert_allclose(steps[5], after3 - 0.1 * 3 * quadratic_grad(after3), rtol=1e-5, atol=1e-6)


def test_accum_grad_with_adam_equals_adam_on_summed_grad():
    accumulated = train_quadratic({"optimizer": {"class": "adam"}, "accum_grad_multiple_step": 2}, 2)
    x = X0.astype(np.float64)
    g = 2 * quadratic_grad(x)
    m, v = 0.1 * g, 0.001 * g * g
    lr_t = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
    np.testing.assert_allclose(accumulated, x - lr_t * m / (np.sqrt(v) + 1e-16), rtol=1e-5)


def test_set_learning_rate_and_dynamic_learning_rate():
    def dynamic_learning_rate(*, network, global_train_step, learning_rate, **kwargs):
        assert network is None
        return learning_rate * tf.cast(global_train_step + 1, tf.float32)

    graph = tf.Graph()
    with graph.as_default():
        x = TF.get_variable("x", initializer=np.array([0.0], np.float32))
        loss = -tf.reduce_sum(x)  # gradient -1: SGD moves x by +lr
        updater = Updater(make_config(**SGD, dynamic_learning_rate=dynamic_learning_rate),
                          initial_learning_rate=0.5, loss=loss, var_list=[x])
        op = updater.get_optim_op()
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            session.run(op)  # lr 0.5 * 1
            updater.set_learning_rate(0.25, session=session)
            assert session.run(updater.learning_rate_var) == 0.25
            session.run(op)  # lr 0.25 * 2
            assert session.run(updater.get_current_step_learning_rate()) == 0.75  # 0.25 * 3
            np.testing.assert_allclose(session.run(x), [1.0], rtol=1e-6)
            updater.set_learning_rate(0.5, session=session)  # back to the initial value: must be assigned
            assert session.run(updater.learning_rate_var) == 0.5


def test_set_learning_rate_skips_unchanged_value():
    """An unchanged value costs no Session.run (one per epoch otherwise); a changed one is assigned."""
    graph = tf.Graph()
    with graph.as_default():
        x = TF.get_variable("x", initializer=np.array([0.0], np.float32))
        updater = Updater(make_config(**SGD), initial_learning_rate=0.5, loss=-tf.reduce_sum(x), var_list=[x])
        updater.get_optim_op()
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            runs = []
            real_run = session.run
            session.run = lambda *args, **kwargs: runs.append(args) or real_run(*args, **kwargs)
            updater.set_learning_rate(0.5, session=session)
            assert runs == []
            updater.set_learning_rate(0.125, session=session)
            updater.set_learning_rate(0.125, session=session)
            assert len(runs) == 1 and real_run(updater.learning_rate_var) == 0.125


def test_bad_dynamic_learning_rate():
    with pytest.raises(ConfigValueError, match="dynamic_learning_rate"):
        train_quadratic({**SGD, "dynamic_learning_rate": 0.1}, 1)


def test_per_parameter_updater_opts():
    graph = tf.Graph()
    with graph.as_default():
        a = TF.get_variable("layer_a/W", initializer=np.array([1.0, 1.0], np.float32))
        b = TF.get_variable("layer_b/W", initializer=np.array([1.0, 1.0], np.float32))
        c = TF.get_variable("layer_c/W", initializer=np.array([10.0, 0.0], np.float32))
        set_param_updater_opts(a, {"learning_rate_multiplier": 0.5})
        set_param_updater_opts(b, {"optimizer": {"class": "momentum", "momentum": 0.9}, "gradient_clip": 0.5})
        set_param_updater_opts(c, {"grad_filter": 5.0})
        loss = tf.reduce_sum(a * [1.0, 2.0]) + tf.reduce_sum(b * [1.0, -2.0]) + 0.5 * tf.reduce_sum(tf.square(c))
        updater = Updater(make_config(**SGD), initial_learning_rate=0.1, loss=loss, var_list=[a, b, c])
        op = updater.get_optim_op()
        assert len(updater.optimizers) == 3
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            session.run(op)
            np.testing.assert_allclose(session.run(a), [1.0 - 0.05, 1.0 - 0.1], rtol=1e-6)
            np.testing.assert_allclose(session.run(b), [1.0 - 0.05, 1.0 + 0.05], rtol=1e-6)
            np.testing.assert_allclose(session.run(c), [10.0, 0.0])  # norm 10 > 5: filtered
            session.run(op)  # momentum: accum = 0.9 * g + g
            np.testing.assert_allclose(session.run(b), [0.95 - 0.1 * 1.9 * 0.5, 1.05 + 0.1 * 1.9 * 0.5], rtol=1e-6)


def test_unknown_updater_opt():
    graph = tf.Graph()
    with graph.as_default():
        a = TF.get_variable("a", initializer=np.array([1.0], np.float32))
        with pytest.raises(ConfigValueError) as info:
            set_param_updater_opts(a, {"gradient_clipp": 1.0}, layer_name="enc")
        assert "'enc'" in str(info.value) and "'gradient_clip'" in str(info.value)


def test_max_norm_constraint():
    graph = tf.Graph()
    with graph.as_default():
        w = TF.get_variable("W", initializer=np.array([[3.0, 0.1], [4.0, 0.1]], np.float32))
        set_param_updater_opts(w, {"max_norm": 1.0})
        loss = tf.reduce_sum(w * 0.0)
        updater = Updater(make_config(**SGD), initial_learning_rate=0.1, loss=loss, var_list=[w])
        op = updater.get_optim_op()
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            session.run(op)
            # column norms 5 and 0.1414: first column rescaled to norm 1, second kept
            np.testing.assert_allclose(session.run(w), [[0.6, 0.1], [0.8, 0.1]], rtol=1e-6)


class FakeNetwork:
    """What the Updater uses of a TFNetwork."""

    def __init__(self):
        self.x = TF.get_variable("output/W", initializer=X0)
        self.global_train_step = TF.get_variable("global_step", shape=(), dtype=tf.int64,
                                                 initializer=TF.zeros_initializer(), trainable=False)

    def get_objective(self):
        return tf.reduce_sum(SCALE * tf.square(self.x - TARGET))

    def get_trainable_params(self):
        return [self.x]


def test_with_network():
    graph = tf.Graph()
    with graph.as_default():
        network = FakeNetwork()
        updater = Updater(make_config(**SGD), network=network, initial_learning_rate=0.1)
        op = updater.get_optim_op()
        assert updater.get_optim_op() is op
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            session.run(op)
            np.testing.assert_allclose(session.run(network.x), X0 - 0.1 * quadratic_grad(X0), rtol=1e-6)
            assert session.run(network.global_train_step) == 1


def _mlp_graph(config_opts):
    rng = np.random.RandomState(1)
    inputs = rng.randn(8, 5).astype(np.float32)
    targets = rng.randn(8, 3).astype(np.float32)
    TF.set_random_seed(1)
    w1 = TF.get_variable("l1/W", initializer=rng.randn(5, 7).astype(np.float32) * 0.3)
    w2 = TF.get_variable("l2/W", initializer=rng.randn(7, 3).astype(np.float32) * 0.3)
    index = tf.math.floormod(TF.train.get_or_create_global_step(), 2) * 4
    batch_in, batch_out = inputs[None][0], targets  # two alternating mini-batches of 4
    x = tf.slice(tf.constant(batch_in), [index, 0], [4, 5])
    y = tf.slice(tf.constant(batch_out), [index, 0], [4, 3])
    loss = tf.reduce_sum(tf.square(tf.matmul(tf.tanh(tf.matmul(x, w1)), w2) - y))
    updater = Updater(make_config(**config_opts), initial_learning_rate=0.01, loss=loss, var_list=[w1, w2])
    return updater, updater.get_optim_op(), [w1, w2]


@pytest.mark.parametrize("config_opts", [
    {"optimizer": {"class": "adam"}},
    {"optimizer": {"class": "rmsprop", "momentum": 0.5}, "accum_grad_multiple_step": 3},
    {"optimizer": {"class": "nadam"}, "gradient_clip_global_norm": 1.0},
])
def test_resume_from_checkpoint_continues_identically(tmp_path, config_opts):
    """Train 5 steps, save, restore into a fresh graph, 4 more steps == 9 uninterrupted steps (bit-exact)."""
    def run(num_steps, restore_from=None, save_to=None, learning_rate=0.01):
        graph = tf.Graph()
        with graph.as_default():
            updater, op, params = _mlp_graph(config_opts)
            saver = TF.train.Saver(TF.global_variables())
            slot_names = {v.op.name for v in updater.get_optimizer_vars()}
            assert slot_names <= {v.op.name for v in TF.global_variables()}
            with TF.Session(graph=graph) as session:
                if restore_from:
                    saver.restore(session, restore_from)
                else:
                    session.run(TF.global_variables_initializer())
                    updater.init_optimizer_vars(session)
                updater.set_learning_rate(learning_rate, session=session)
                for _ in range(num_steps):
                    session.run(op)
                if save_to:
                    saver.save(session, save_to)
                return [session.run(p) for p in params], session.run(updater.global_train_step)

    uninterrupted, step = run(9)
    assert step == 9
    run(5, save_to=str(tmp_path / "model.001"))
    resumed, step = run(4, restore_from=str(tmp_path / "model.001"))
    assert step == 9
    for a, b in zip(uninterrupted, resumed):
        np.testing.assert_array_equal(a, b)
    fresh, _ = run(4)  # sanity: without the restored state the result differs
    assert not np.allclose(fresh[0], uninterrupted[0])


def test_sparse_gradient_and_finalized_graph():
    """Gathers give IndexedSlices gradients (densified); set_learning_rate adds no ops (graph may be finalized)."""
    graph = tf.Graph()
    with graph.as_default():
        emb = TF.get_variable("emb/W", initializer=np.arange(8, dtype=np.float32).reshape(4, 2))
        loss = tf.reduce_sum(tf.gather(emb, [0, 2, 2]))
        updater = Updater(make_config(**{"optimizer": {"class": "momentum", "momentum": 0.5}}),
                          initial_learning_rate=1.0, loss=loss, var_list=[emb])
        op = updater.get_optim_op()
        with TF.Session() as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            graph.finalize()
            updater.set_learning_rate(0.5, session=session)
            session.run(op)
            expected = np.arange(8, dtype=np.float32).reshape(4, 2) - 0.5 * np.array([[1, 1], [0, 0], [2, 2], [0, 0]])
            np.testing.assert_allclose(session.run(emb), expected)


def test_reset_updater_vars_mod_step():
    """With momentum SGD and a reset every 2 steps, steps 1-2 and 3-4 repeat the same momentum history."""
    steps = train_quadratic({"optimizer": {"class": "momentum", "momentum": 0.9}, "reset_updater_vars_mod_step": 2},
                            3, learning_rate=0.01, fetch_after_each_step=True)
    x = X0.astype(np.float64)
    accum = np.zeros_like(x)
    expected = []
    for step in range(3):
        if step == 2:
            accum[...] = 0.0  # reset after the 2nd step
        accum = 0.9 * accum + quadratic_grad(x)
        x = x - 0.01 * accum
        expected.append(x)
    for got, want in zip(steps, expected):
        np.testing.assert_allclose(got, want, rtol=1e-5)
