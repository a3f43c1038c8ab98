"""``from returnn.tf.engine import *`` gives the names the reference's module has (observed with the reference:
``tf``, ``tf_compat``, ``numpy``, ``Data``, ``TFNetwork``, ... are in its namespace; its test_TFEngine.py uses them
after the star import)."""

from __future__ import annotations


def test_star_import_names():
    namespace = {}
    exec("from returnn.tf.engine import *", namespace)
    import numpy
    import tensorflow as tf

    from returnn.tensor import Tensor
    from returnn.tf.network import ExternData, TFNetwork

    assert namespace["tf"] is tf and namespace["numpy"] is numpy
    assert namespace["tf_compat"].v1 is tf.compat.v1
    assert namespace["Data"] is Tensor and namespace["TFNetwork"] is TFNetwork and namespace["ExternData"] is ExternData
    observed = ("Engine", "get_global_engine", "CancelTrainingException", "Runner", "EngineBase", "Dataset",
                "init_dataset", "Batch", "BatchSetGenerator", "NumbersDict", "Vocabulary", "LayerBase", "Updater",
                "ForwardCallbackIface", "FeedDictDataProvider", "BackendEngine", "help_on_tf_exception", "hms", "log",
                "pretrain_from_config", "pprint", "os", "sys", "time", "util")
    assert [name for name in observed if name not in namespace] == []


def test_tf_session_is_the_session():
    # the reference's engine names its session tf_session (its tests/test_TFEngine.py reads engine.tf_session)
    from returnn.config import Config
    from returnn.tf.engine import Engine

    engine = Engine(Config())
    assert engine.tf_session is None and engine.session is None
    marker = object()
    engine.tf_session = marker
    assert engine.session is marker and engine.state.session is marker
