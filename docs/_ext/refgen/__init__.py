"""Generates the reference pages of the documentation from the code (run at each Sphinx build by
``docs/_ext/returnn_reference.py``; importable without Sphinx, e.g. by ``tests/docs``).

:func:`generate_all` writes into ``docs/reference/`` (not committed):

- ``layers/``: every registered layer class by family (:mod:`refgen.layers`),
- ``datasets.rst``: every registered dataset class (:mod:`refgen.datasets`),
- ``config-keys.rst``: the config keys found by a scan of the code (:mod:`refgen.config_keys`),
- ``tools.rst``: the tasks and the ``--help`` of ``rnn.py`` and ``tools/*.py`` (:mod:`refgen.tools`).

``docs/index.md`` links these pages.
"""

from __future__ import annotations

import os
from typing import Dict

DOCS_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPO_ROOT = os.path.dirname(DOCS_DIR)


WRITTEN: set = set()


def write_if_changed(path: str, text: str) -> None:
    """Writes ``text`` to ``path`` unless it holds that already (keeps Sphinx's incremental builds incremental)."""
    WRITTEN.add(os.path.abspath(path))
    if os.path.exists(path):
        with open(path, encoding="utf8") as f:
            if f.read() == text:
                return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf8") as f:
        f.write(text)
    os.replace(tmp, path)


def generate_all(outdir: str = os.path.join(DOCS_DIR, "reference"), root: str = REPO_ROOT,
                 with_tools: bool = True) -> Dict[str, int]:
    """Writes all generated pages under ``outdir``. :return: counts per page ({"layers": N, ...})"""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from refgen import config_keys, datasets, layers, rst, tools
    rst.FALLBACKS.clear()
    WRITTEN.clear()
    counts: Dict[str, int] = {}
    counts.update(layers.generate(os.path.join(outdir, "layers")))
    counts.update(datasets.generate(outdir))
    counts.update(config_keys.generate(outdir, root))
    if with_tools:
        counts.update(tools.generate(outdir, root))
    for dirpath, _, names in os.walk(outdir):  # pages of an earlier build (a family that is gone): not in any toctree
        for name in names:
            path = os.path.abspath(os.path.join(dirpath, name))
            if name.endswith(".rst") and path not in WRITTEN:
                os.remove(path)
    return counts
