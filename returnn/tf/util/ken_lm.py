"""Public import path ``returnn.tf.util.ken_lm`` (the reference's KenLM TF op module).

The reference compiles the KenLM library (a git submodule checked out next to its package) into a native TF op.
This project compiles no native ops and ships no KenLM checkout: :func:`kenlm_checked_out` is False (callers such
as the reference's tests skip then), and :func:`get_tf_mod` raises naming what is missing.
"""

from __future__ import annotations

import os
from typing import Any

from returnn.tf.util.errors import NativeOpsUnavailableError

#: where the reference expects the KenLM checkout (``extern/kenlm`` of the package); nothing is there in this project
kenlm_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "extern",
                         "kenlm")


def kenlm_checked_out() -> bool:
    """:return: whether a KenLM source checkout is at :data:`kenlm_dir` (never shipped with this project)"""
    return os.path.exists(os.path.join(kenlm_dir, "lm", "test.arpa"))


def get_tf_mod(verbose: bool = False) -> Any:
    """The reference's compiled KenLM op module.

    :param verbose: accepted for the reference's signature
    :raises NativeOpsUnavailableError: always (no native ops are compiled in this project)
    """
    del verbose
    raise NativeOpsUnavailableError("KenLM")
