"""returnn.tf.ops.masks: the one sequence-mask implementation, checked against numpy."""

import numpy as np
import tensorflow as tf

from returnn.tf.ops.masks import pack_valid_frames, sequence_mask, sequence_mask_time_major

LENS = np.array([3, 0, 5, 1], dtype=np.int32)


def _np_mask(lens, maxlen):
    return np.arange(maxlen)[None, :] < lens[:, None]  # [B, T]


def _run(x):
    with tf.compat.v1.Session(graph=x.graph) as session:
        return session.run(x)


def test_sequence_mask_batch_and_time_major():
    with tf.Graph().as_default():
        bm = sequence_mask(tf.constant(LENS))
        tm = sequence_mask_time_major(tf.constant(LENS), maxlen=7)
        fl = sequence_mask(tf.constant(LENS), "m", maxlen=6, dtype=tf.float32)
        bm_v, tm_v, fl_v = _run(bm), _run(tm), _run(fl)
    assert bm_v.dtype == np.bool_ and bm_v.shape == (4, 5)
    np.testing.assert_array_equal(bm_v, _np_mask(LENS, 5))
    assert tm_v.shape == (7, 4)
    np.testing.assert_array_equal(tm_v, _np_mask(LENS, 7).T)
    assert fl_v.dtype == np.float32
    np.testing.assert_array_equal(fl_v, _np_mask(LENS, 6).astype(np.float32))


def test_pack_valid_frames_both_orders_any_layout():
    rng = np.random.RandomState(1)
    x_tbf = rng.randn(5, 4, 2).astype(np.float32)  # [T, B, F]
    mask = _np_mask(LENS, 5)  # [B, T]
    want_bm = np.concatenate([x_tbf[:LENS[b], b] for b in range(4)], axis=0)
    want_tm = np.stack([x_tbf[t, b] for t in range(5) for b in range(4) if mask[b, t]])
    with tf.Graph().as_default():
        got_bm = _run(pack_valid_frames(x_tbf, LENS, batch_axis=1, time_axis=0))
        got_tm = _run(pack_valid_frames(x_tbf, LENS, 1, 0, time_major_order=True))
        got_from_btf = _run(pack_valid_frames(np.transpose(x_tbf, (1, 0, 2)), LENS, 0, 1))
    assert got_bm.shape == (int(LENS.sum()), 2)
    np.testing.assert_array_equal(got_bm, want_bm)
    np.testing.assert_array_equal(got_tm, want_tm)
    np.testing.assert_array_equal(got_from_btf, want_bm)


def test_public_paths_are_this_implementation():
    import returnn.tf.util.basic as tf_util

    assert tf_util.sequence_mask is sequence_mask
    assert tf_util.sequence_mask_time_major is sequence_mask_time_major


def test_no_other_function_of_these_names_under_returnn_tf():
    """One implementation: under returnn/tf, only tf/ops/masks.py defines sequence_mask(_time_major); the raw backend's
    method of that name (the interface returnn.tensor calls) delegates to it; no time_mask anywhere."""
    import ast
    import pathlib

    import returnn.tf

    root = pathlib.Path(returnn.tf.__file__).parent
    found = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name in ("sequence_mask", "sequence_mask_time_major",
                                                                   "time_mask"):
                found.append((str(path.relative_to(root)), node.name))
    assert sorted(found) == [("ops/masks.py", "sequence_mask"), ("ops/masks.py", "sequence_mask_time_major"),
                             ("ops/raw.py", "sequence_mask")]
