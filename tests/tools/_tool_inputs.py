"""Inputs of the tool tests, written with plain TF (not with the code under test): small checkpoints, a summary
log, a pickle file. The expected outputs in the tests were observed by running the reference's tools on exactly
these files."""

import os
import subprocess
import sys

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: three checkpoints to average (float32 values whose float32 sum would round differently from the float64 one)
AVG_INPUTS = [
    {"layer/W": np.array([[0.1, 0.2, 0.3], [1e-3, -2.5, 7.0]], np.float32),
     "layer/b": np.array([1.0, 2.0], np.float64),
     "half": np.array([0.5, 1.25, -3.0], np.float16)},
    {"layer/W": np.array([[0.7, -0.2, 0.3333], [1e-3, 2.5, 1e8]], np.float32),
     "layer/b": np.array([2.0, 3.0], np.float64),
     "half": np.array([0.25, 1.0, 2.0], np.float16)},
    {"layer/W": np.array([[0.11, 0.2, 0.3], [3e-3, 0.5, 1.0]], np.float32),
     "layer/b": np.array([4.0, 0.5], np.float64),
     "half": np.array([0.125, 1.5, 0.0], np.float16)},
]

#: a checkpoint to inspect
INSPECT_VALUES = {
    "enc/W": np.arange(12, dtype=np.float32).reshape(3, 4) / 7.0 - 0.5,
    "enc/b": np.array([0.25, -0.75], np.float32),
    "global_step": np.int64(42),
}


def write_checkpoint(prefix, values):
    """Writes ``values`` (name -> array) as a TF checkpoint with a plain ``tf.compat.v1.train.Saver``."""
    import tensorflow as tf

    tf1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        variables = {name: tf1.Variable(np.asarray(value), name=name) for name, value in values.items()}
        saver = tf1.train.Saver(var_list=variables)
        with tf1.Session(graph=graph) as session:
            session.run(tf1.global_variables_initializer())
            saver.save(session, prefix, write_meta_graph=False)


def write_summary_log(directory):
    """An events file with ``objective/loss`` at steps 0, 3, 6, 9 (two values at 9), a histogram with the same tag
    at step 11, and ``cost/output`` at steps 0 and 5. :return: the file name"""
    import tensorflow as tf

    tf1 = tf.compat.v1
    with tf.Graph().as_default():
        _write_summaries(tf1.summary.FileWriter(directory))
    names = [n for n in os.listdir(directory) if n.startswith("events.out.tfevents")]
    assert len(names) == 1, names
    return os.path.join(directory, names[0])


def _write_summaries(writer):
    import tensorflow as tf

    tf1 = tf.compat.v1
    for step, value in ((0, 0.1), (3, float("nan")), (6, 1e30), (9, -2.0)):
        writer.add_summary(tf1.Summary(value=[tf1.Summary.Value(tag="objective/loss", simple_value=value)]), step)
    writer.add_summary(tf1.Summary(value=[tf1.Summary.Value(tag="objective/loss", simple_value=2.5),
                                          tf1.Summary.Value(tag="objective/loss", simple_value=3.5)]), 9)
    writer.add_summary(tf1.Summary(value=[tf1.Summary.Value(tag="objective/loss",
                                                            histo=tf1.HistogramProto(min=1.0))]), 11)
    for step, value in ((0, 4.25), (5, 1.125)):
        writer.add_summary(tf1.Summary(value=[tf1.Summary.Value(tag="cost/output", simple_value=value)]), step)
    writer.close()


def run_tool(name, *args, stdin=None, cwd=None, timeout=300):
    """Runs ``tools/<name>``: (exit status, stdout, stderr)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=REPO_ROOT)
    proc = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "tools", name), *args], capture_output=True,
                          text=True, input=stdin, cwd=cwd or REPO_ROOT, env=env, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr
