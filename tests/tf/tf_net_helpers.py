"""Shared helpers for layer tests: build a net, feed padded batches, run forward + one gradient step."""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork


def build_net(net_dict: Dict[str, Any], extern_data: Optional[Dict[str, Any]] = None, train_flag: Any = True,
              **config: Any) -> TFNetwork:
    """Builds a TFNetwork in the current default graph."""
    if extern_data is None:
        extern_data = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}
    net = TFNetwork(config=Config({"extern_data": extern_data, **config}), train_flag=train_flag)
    net.construct_from_dict(net_dict)
    return net


def load_uniform_params(session: tf.compat.v1.Session, params: Dict[str, Any], rs: np.random.RandomState,
                        bound: float = 1.5) -> Dict[str, np.ndarray]:
    """Loads values uniform in ``[-bound, bound)`` into ``params`` (name -> variable), drawn from ``rs`` in sorted
    name order (so that tests compare with values observed from the reference for the same draws).

    :return: name -> the loaded value"""
    values = {}
    for name in sorted(params):
        values[name] = rs.uniform(-bound, bound, size=params[name].shape.as_list()).astype("float32")
        params[name].load(values[name], session)
    return values


def load_random_params(session: tf.compat.v1.Session, net: TFNetwork, prefix: str, seed: int = 1
                       ) -> Dict[str, np.ndarray]:
    """Initializes the network's variables, then loads uniform ``[-1, 1)`` values (seed ``seed``) into its params.

    :return: param name without ``prefix`` (e.g. ``"output/rec/"``) -> the loaded value"""
    params = {p.name[:-2]: p for p in net.get_params_list()}
    session.run(tf.compat.v1.global_variables_initializer())
    values = load_uniform_params(session, params, np.random.RandomState(seed), bound=1.0)
    return {name[len(prefix):]: value for name, value in values.items()}


def make_feed(net: TFNetwork, values: Dict[str, np.ndarray], seq_lens: Dict[str, Any]) -> Dict[Any, Any]:
    """:return: feed dict for extern data ``values`` (raw order as the placeholder) and ``seq_lens`` (time axis)"""
    feed = {}
    for key, value in values.items():
        data = net.extern_data.data[key]
        feed[data.placeholder] = value
        for axis, size in data.size_placeholder.items():
            lens = seq_lens[key] if not isinstance(seq_lens[key], dict) else seq_lens[key][axis]
            feed[size] = np.asarray(lens, dtype="int32")
    return feed


def forward_and_grad_step(session: tf.compat.v1.Session, net: TFNetwork, feed: Dict[Any, Any],
                          layer: str = "output", extra: Any = ()) -> Any:
    """Runs the output of ``layer`` and one SGD step on a scalar loss (the net objective if any, else the sum of
    squares of ``layer``'s output); asserts the step changes the params if there are trainable ones.

    :return: the output of ``layer`` (before the step); with ``extra`` layer names: (output, [extra outputs])
    """
    out = net.get_layer(layer).output
    objective = net.get_objective()
    if not net.losses_dict:
        # squared: the plain sum has zero gradient for normalized outputs (softmax sums to 1 per frame)
        objective = objective + tf.reduce_sum(tf.square(tf.cast(out.placeholder, tf.float32)))
    params = net.get_trainable_params()
    session.run(tf.compat.v1.global_variables_initializer())
    result = session.run([out.placeholder] + [net.get_layer(n).output.placeholder for n in extra], feed_dict=feed)
    if params:
        before = session.run(params)
        step = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(objective, var_list=params)
        session.run(step, feed_dict=feed)
        after = session.run(params)
        assert any(not np.allclose(b, a) for b, a in zip(before, after)), "gradient step changed nothing"
    else:
        grads = [g for g in tf.gradients(objective, [net.extern_data.data["data"].placeholder]) if g is not None]
        if grads and net.extern_data.data["data"].dtype.startswith("float"):
            session.run(grads, feed_dict=feed)
    return (result[0], result[1:]) if extra else result[0]


def search_net_with_uniform_params(session: tf.compat.v1.Session, config: Dict[str, Any], net_dict: Dict[str, Any],
                                   train_flag: Any, seed: int = 3) -> Dict[str, Any]:
    """Builds a search network (``search_flag=True``, ``eval_flag=True``) from ``net_dict`` in the session's graph,
    the total loss and its gradients w.r.t. all trainable params, loads uniform params (:func:`load_uniform_params`,
    from ``RandomState(seed)``) and draws a feed of 2 sequences (``data`` ``[2, 4, 3]`` normal from the same
    generator; ``classes`` of lengths 4 and 2), as the search tests observed the reference with.

    :return: dict with ``net``, ``params`` (name -> variable), ``loss``, ``grads`` (in sorted param name order),
        ``feed``"""
    net = TFNetwork(config=Config(config), train_flag=train_flag, eval_flag=True, search_flag=True)
    net.construct_from_dict(net_dict)
    params = {v.name[:-2]: v for v in tf.compat.v1.trainable_variables()}
    loss = net.get_total_loss()
    grads = tf.gradients(loss, [params[k] for k in sorted(params)])
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(seed)
    load_uniform_params(session, params, rs)
    ed = net.extern_data.data
    feed = {ed["data"].placeholder: rs.normal(size=(2, 4, 3)).astype("float32"),
            ed["data"].size_placeholder[0]: np.array([4, 2]),
            ed["classes"].placeholder: np.array([[1, 2, 3, 4], [2, 3, 0, 0]]),
            ed["classes"].size_placeholder[0]: np.array([4, 2])}
    return {"net": net, "params": params, "loss": loss, "grads": grads, "feed": feed}
