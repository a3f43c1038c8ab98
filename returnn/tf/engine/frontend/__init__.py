"""The engine side of configs written with the RETURNN frontend (``returnn.frontend``, "RF"): ``get_model``,
``train_step``, ``forward_step``, ``forward_callback`` and ``model_outputs`` instead of a ``network`` dict.

The RF code runs as TF graph ops (graph mode) inside a :class:`~.network.RFNetwork`, a ``TFNetwork`` without layers
whose params are the model's parameters and whose losses are those the step function marked; the rest of the
layer engine (datasets and batching, updater, learning-rate control, checkpoints, log lines, learning-rate file)
runs it unchanged. Both ``backend = "tensorflow"`` and ``backend = "tensorflow-net-dict"`` run this way, with the
parameters under the checkpoint names of the reference's net-dict backend (:mod:`~.param_names`).

- :mod:`~.config_entry`: whether a config is an RF config, its entry points, the checks of user mistakes
- :mod:`~.param_names`: checkpoint names of the parameters
- :mod:`~.losses`: the loss holders of the marked losses
- :mod:`~.network`: :class:`~.network.RFNetwork`
- :mod:`~.forward`: the ``forward`` task with ``forward_callback``
"""
