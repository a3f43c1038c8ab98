"""Runs one signature of a SavedModel in a process that cannot import ``returnn`` (used by test_saved_model.py).

    python3 run_saved_model.py MODEL_DIR INPUTS.npz OUTPUTS_PREFIX SIGNATURE...

Every ``sys.path`` entry that holds a ``returnn`` package is dropped before TensorFlow is imported; the script
fails when ``returnn`` is still importable. Each signature is called with the arrays of ``INPUTS.npz`` it takes (by
input name, cast to the signature's dtypes); its outputs are written to ``OUTPUTS_PREFIX-<signature>.npz``.
"""

import importlib.util
import os
import sys

sys.path[:] = [p for p in sys.path if p and not os.path.exists(os.path.join(p, "returnn"))]
if importlib.util.find_spec("returnn") is not None:
    raise SystemExit("returnn is still importable: %s" % importlib.util.find_spec("returnn").origin)

import numpy  # noqa: E402
import tensorflow as tf  # noqa: E402

model_dir, inputs_file, outputs_prefix = sys.argv[1:4]
model = tf.saved_model.load(model_dir)
inputs = numpy.load(inputs_file)
for signature in sys.argv[4:]:
    fn = model.signatures[signature]
    specs = fn.structured_input_signature[1]
    outputs = fn(**{name: tf.constant(inputs[name], dtype=spec.dtype) for name, spec in specs.items()})
    numpy.savez("%s-%s.npz" % (outputs_prefix, signature), **{name: value.numpy() for name, value in outputs.items()})
    print("%s: inputs %s, outputs %s" % (signature, sorted(specs), sorted(outputs)))
print("returnn loaded: %s" % ("returnn" in sys.modules))
