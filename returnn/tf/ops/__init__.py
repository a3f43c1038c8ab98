"""TF helpers split by topic (the reference's ``returnn.tf.util.basic``); importing installs the raw backend."""

from returnn.tf.ops import raw as _raw  # noqa: F401  (installs the TF raw backend for returnn.tensor)
