"""Tests import this project's own modules; they never ``pytest.importorskip`` them (a broken import would then
skip tests instead of failing them). Optional third-party packages may still be skipped."""

import os
import re

TESTS = os.path.dirname(os.path.abspath(__file__))
_OWN = re.compile(r"importorskip\(\s*['\"](returnn|tests|tools)(\.|['\"])")


def test_no_importorskip_of_own_modules():
    offenders = []
    for root, _dirs, files in os.walk(TESTS):
        for name in files:
            if name.endswith(".py") and name != os.path.basename(__file__):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    for lineno, line in enumerate(f, 1):
                        if _OWN.search(line):
                            offenders.append(f"{os.path.relpath(path, TESTS)}:{lineno}: {line.strip()}")
    assert offenders == []


def test_pattern_catches_the_forms():
    call = "pytest." + "importorskip"  # written split, so that this file's own samples do not look like such calls
    assert _OWN.search(call + '("returnn.tf.layers.search.choice")')
    assert _OWN.search(call + "( 'returnn')")
    assert not _OWN.search(call + '("datasets")')
    assert not _OWN.search(call + '("returnn_ext")')
