"""Public import path ``returnn.tf.layers.variable``, kept for user configs. Defines nothing; each name is
re-exported from the module that owns it."""

from returnn.tf.layers.variables.variable import VariableLayer as VariableLayer
