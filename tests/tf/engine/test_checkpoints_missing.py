"""Loading a checkpoint that lacks variables of the network: one DataFileError listing the missing variables (with
the checkpoint's closest names) and the hint line rendered by returnn.errors.format_details."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import DataFileError
from returnn.tf.engine.checkpoints import CheckpointLoader, CheckpointSaver

TF = tf.compat.v1


def test_missing_variables_message(tmp_path):
    prefix = str(tmp_path / "model.001")
    graph = tf.Graph()
    with graph.as_default(), TF.Session(graph=graph) as session:
        w = TF.get_variable("layer/W", initializer=np.ones([2, 3], np.float32))
        session.run(w.initializer)
        CheckpointSaver([w], write_meta_graph=False).save(session, prefix)
    graph = tf.Graph()
    with graph.as_default(), TF.Session(graph=graph) as session:
        w = TF.get_variable("layer/W", initializer=np.zeros([2, 3], np.float32))
        b = TF.get_variable("layer/Wb", initializer=np.zeros([3], np.float32))
        session.run([w.initializer, b.initializer])
        with pytest.raises(DataFileError) as info:
            CheckpointLoader().load(session, prefix, [w, b])
        assert str(info.value) == (
            f"data file {prefix!r}: checkpoint: 1 variable(s) of the network are not in the checkpoint:\n"
            "  layer/Wb (checkpoint has: layer/W)\n"
            "  hint: set load_ignore_missing_vars = True (or preload_from_files with ignore_missing) to keep them "
            "randomly initialized")
        loaded = CheckpointLoader().load(session, prefix, [w, b], ignore_missing=True)
        assert [v.op.name for v in loaded] == ["layer/W"]
        np.testing.assert_array_equal(session.run(w), np.ones([2, 3], np.float32))
