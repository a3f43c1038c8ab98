"""The reference's public path of its TF engine for configs written with the RETURNN frontend
(``get_model``/``train_step``/``forward_step``, ``backend = "tensorflow"``).

This project's one TF engine runs both layer dicts and RF models (:mod:`returnn.tf.engine.frontend`), so
``Engine`` here is :class:`returnn.tf.engine.Engine`.
"""

from returnn.tf.engine.engine import Engine as Engine
