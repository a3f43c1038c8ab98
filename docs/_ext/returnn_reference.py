"""Sphinx extension: writes the generated reference pages (:mod:`refgen`) into ``docs/reference/`` when the build
starts, so that they are read like the hand-written pages. Docstring fragments shown as preformatted text (not
clean reST) are listed in the build output (not as warnings: the text is still shown)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Dict

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)


def _generate(app: Any) -> None:
    import refgen
    from refgen import rst
    from sphinx.util import logging
    logger = logging.getLogger(__name__)
    start = time.time()
    counts = refgen.generate_all(os.path.join(app.srcdir, "reference"))
    logger.info("returnn_reference: generated %s in %.1f s", counts, time.time() - start)
    for fallback in rst.FALLBACKS:
        logger.info("returnn_reference: shown as preformatted text (not clean reST): %s", fallback)


def setup(app: Any) -> Dict[str, Any]:
    app.connect("builder-inited", _generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
