"""Checkpoint names of an RF model's parameters.

The reference's ``tensorflow-net-dict`` backend (observed: ``tf.train.list_variables`` of its checkpoints) stores
the parameter ``a.b.c`` of ``model.named_parameters()`` as ``a/b/c/param`` (e.g. ``layers/0/filter/param``,
``seq/1/weight/param``, ``norm/scale/param``), next to ``global_step``. This engine names the TF variables so,
for both TF backends, so that checkpoints move between the two backends and the reference.
"""

from __future__ import annotations


def checkpoint_name(param_name: str) -> str:
    """``a.b.c`` → ``a/b/c/param``."""
    return param_name.replace(".", "/") + "/param"


def param_name_of_checkpoint_name(name: str) -> str:
    """The inverse of :func:`checkpoint_name` (``a/b/c/param`` → ``a.b.c``).

    :raises ValueError: ``name`` does not end with ``/param``
    """
    if not name.endswith("/param"):
        raise ValueError(f"not a checkpoint name of an RF parameter: {name!r} (expected '<path>/param')")
    return name[:-len("/param")].replace("/", ".")
