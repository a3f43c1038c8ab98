"""The shell examples of the hand-written documentation pages that are marked as tested are run.

A runnable example is a fenced ``bash`` block preceded by the line ``<!-- docs-test: run -->`` (invisible in the
rendered page), optionally ``<!-- docs-test: run; output contains: <text> -->`` to check the output too. The blocks
of one page run in order, in one scratch directory that links ``rnn.py``, ``returnn/``, ``demos/`` and ``tools/`` of
the checkout (so what a block writes stays there and a later block of the page can use it), with ``python3`` being
this interpreter. Blocks without the marker (installs, long trainings) are not run.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
from typing import List, NamedTuple, Optional

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC_PAGES = sorted(glob.glob(os.path.join(REPO_ROOT, "docs", "*.md")))
MARKER_RE = re.compile(r"^<!--\s*docs-test:\s*(?P<what>[^;>]*?)\s*(?:;\s*output contains:\s*(?P<expect>.*?))?\s*-->$")


class ShellExample(NamedTuple):
    page: str
    line: int
    code: str
    expect: Optional[str]


def extract(text: str, page: str) -> List[ShellExample]:
    """:return: the marked examples of a Markdown page, in order
    :raises ValueError: a marker that is not ``run``, or not followed by a fenced ``bash``/``sh`` block
    """
    lines = text.splitlines()
    out = []
    for i, line in enumerate(lines):
        match = MARKER_RE.match(line.strip())
        if not match:
            if line.strip().startswith("<!--") and "docs-test" in line:
                raise ValueError(f"{page}:{i + 1}: malformed docs-test marker: {line!r}")
            continue
        if match.group("what") != "run":
            raise ValueError(f"{page}:{i + 1}: unknown docs-test marker {match.group('what')!r} (only 'run')")
        if i + 1 >= len(lines) or not re.match(r"^```(bash|sh|shell)\s*$", lines[i + 1]):
            raise ValueError(f"{page}:{i + 1}: a docs-test marker must be followed by a ```bash block")
        end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"{page}:{i + 2}: unterminated code block")
        out.append(ShellExample(page, i + 2, "\n".join(lines[i + 2:end]), match.group("expect")))
    return out


def _examples_by_page():
    pages = {}
    for path in DOC_PAGES:
        with open(path, encoding="utf8") as f:
            examples = extract(f.read(), os.path.relpath(path, REPO_ROOT))
        if examples:
            pages[os.path.relpath(path, REPO_ROOT)] = examples
    return pages


EXAMPLES = _examples_by_page()


def test_extract_finds_marked_blocks_only():
    text = "\n".join([
        "```bash", "not marked", "```",
        "<!-- docs-test: run -->", "```bash", "echo one", "echo two", "```",
        "<!-- docs-test: run; output contains: two words -->", "```sh", "echo two words", "```"])
    assert extract(text, "p.md") == [ShellExample("p.md", 5, "echo one\necho two", None),
                                     ShellExample("p.md", 10, "echo two words", "two words")]
    with pytest.raises(ValueError, match="followed by"):
        extract("<!-- docs-test: run -->\ntext", "p.md")
    with pytest.raises(ValueError, match="unknown docs-test marker"):
        extract("<!-- docs-test: skip -->\n```bash\nx\n```", "p.md")
    with pytest.raises(ValueError, match="malformed"):
        extract("<!-- docs-test run -->\n```bash\nx\n```", "p.md")
    assert extract("a mention of `<!-- docs-test: run -->` in the text", "p.md") == []


def test_the_getting_started_page_has_tested_examples():
    """The cheap examples of the guide are marked: rnn.py --help, the 12AX demo for one epoch, eval."""
    codes = [e.code for e in EXAMPLES.get(os.path.join("docs", "getting-started.md"), [])]
    assert "./rnn.py --help" in codes
    assert any("demo-tf-native-lstm.12ax.config ++num_epochs 1" in c for c in codes)
    assert any("++task eval" in c for c in codes)


def _scratch_dir(tmp_path) -> str:
    for name in ("rnn.py", "returnn", "demos", "tools"):
        os.symlink(os.path.join(REPO_ROOT, name), os.path.join(tmp_path, name))
    return str(tmp_path)


@pytest.mark.parametrize("page", sorted(EXAMPLES))
def test_shell_examples_of_page_run(page, tmp_path):
    cwd = _scratch_dir(tmp_path)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3",
               PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
               PYTHONPATH=REPO_ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for example in EXAMPLES[page]:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", example.code], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=600)
        where = f"{example.page}:{example.line}"
        assert proc.returncode == 0, f"{where}: exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        if example.expect:
            assert example.expect in proc.stdout + proc.stderr, f"{where}: output lacks {example.expect!r}"
