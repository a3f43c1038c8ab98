"""Runs one signature of a SavedModel in a process that cannot import ``returnn`` (used by test_saved_model.py).

    python3 run_saved_model.py MODEL_DIR SIGNATURE INPUTS.npz OUTPUTS.npz

Every ``sys.path`` entry that holds a ``returnn`` package is dropped before TensorFlow is imported; the script
fails when ``returnn`` is still importable. The signature is called with the arrays of ``INPUTS.npz`` (by input
name, cast to the signature's dtypes); its outputs are written to ``OUTPUTS.npz``.
"""

import importlib.util
import os
import sys

sys.path[:] = [p for p in sys.path if p and not os.path.exists(os.path.join(p, "returnn"))]
if importlib.util.find_spec("returnn") is not None:
    raise SystemExit("returnn is still importable: %s" % importlib.util.find_spec("returnn").origin)

import numpy  # noqa: E402
import tensorflow as tf  # noqa: E402

model_dir, signature, inputs_file, outputs_file = sys.argv[1:5]
model = tf.saved_model.load(model_dir)
fn = model.signatures[signature]
specs = fn.structured_input_signature[1]
inputs = numpy.load(inputs_file)
outputs = fn(**{name: tf.constant(inputs[name], dtype=spec.dtype) for name, spec in specs.items()})
numpy.savez(outputs_file, **{name: value.numpy() for name, value in outputs.items()})
print("inputs: %s; outputs: %s; returnn loaded: %s" % (sorted(specs), sorted(outputs), "returnn" in sys.modules))
