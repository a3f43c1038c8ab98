"""reST helpers of the reference generator: docstrings split into text and ``:param:`` fields, fragments checked
before they go into a page, tables and code blocks.

Docstrings here are reST (``:param x:`` fields, ````literals````); Google-style sections (``Args:``) are converted
with napoleon first. A docstring fragment that docutils cannot parse cleanly (e.g. a stray ``*``) is shown as
preformatted text instead of breaking the ``-W`` build; :data:`FALLBACKS` lists where that happened (the build
prints it), so it can be fixed in the docstring.
"""

from __future__ import annotations

import inspect
import io
import pprint
import re
import textwrap
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

FIELD_RE = re.compile(r"^:(param|parameter|arg|argument|key|keyword|type|raises?|except|exception|returns?|rtype|"
                      r"ivar|cvar|var|vartype|meta)\b\s*([^:]*):\s?(.*)$")
_ROLE_RE = re.compile(r":(?:[a-zA-Z]+:)?[a-zA-Z]+:`([^`]*)`")
FALLBACKS: List[str] = []


def cleandoc(doc: Optional[str]) -> str:
    """:return: the docstring without its indentation; Google/NumPy sections converted to reST fields"""
    if not doc:
        return ""
    text = _dedent_after_field_line(doc) or inspect.cleandoc(doc)
    if re.search(r"^(Args|Arguments|Returns|Raises|Parameters|Yields|Attributes):\s*$", text, re.M):
        from sphinx.ext.napoleon import Config
        from sphinx.ext.napoleon.docstring import GoogleDocstring
        text = str(GoogleDocstring(text, Config(napoleon_use_param=True, napoleon_use_rtype=True)))
    return text


def _dedent_after_field_line(doc: str) -> str:
    """A docstring that starts with a field on its first line (````\"\"\":return: x```` then ``    more``)
    loses the continuation's indentation under :func:`inspect.cleandoc`, which dedents the other lines by their
    own common indentation: the continuation would then read as text after the field list. Here the other lines
    are dedented to the column of the first line instead: the column of the other field lines (and of text after a
    blank line), else 4 columns left of the continuation lines (this project's continuation indent).

    :return: the cleaned docstring, or "" where ``doc`` does not start with a field followed by more lines
    """
    lines = doc.expandtabs().split("\n")
    if len(lines) < 2 or not FIELD_RE.match(lines[0].strip()):
        return ""
    rest = lines[1:]
    indents = [len(line) - len(line.lstrip()) for line in rest if line.strip()]
    if not indents:
        return ""
    anchors = [len(line) - len(line.lstrip()) for i, line in enumerate(rest)
               if line.strip() and (FIELD_RE.match(line.strip()) or (i > 0 and not rest[i - 1].strip()))]
    base = min(min(anchors), min(indents)) if anchors else max(0, min(indents) - 4)
    out = [lines[0].strip()] + [line[base:].rstrip() for line in rest]
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def split_fields(doc: str) -> Tuple[str, List[Tuple[str, str, str]]]:
    """Splits a cleaned docstring into its text and its fields.

    :return: (text without the ``:param:``/``:type:`` fields, [(kind, argument, text)] of all fields)
    """
    text_lines: List[str] = []
    fields: List[List[str]] = []  # [kind, arg, text]
    keep: List[bool] = []  # per field: stays in the text (not a param/type)
    current: Optional[int] = None
    in_kept_field = False  # the last text line belongs to a field kept in the text (``:raises:``, ``:return:``)
    for line in doc.splitlines():
        match = FIELD_RE.match(line)
        if match:
            kind, arg, rest = match.group(1), match.group(2).strip(), match.group(3)
            fields.append([kind, arg, rest])
            is_param = kind in ("param", "parameter", "arg", "argument", "key", "keyword", "type")
            keep.append(not is_param)
            current = len(fields) - 1
            if not is_param:
                # a field list needs a blank line before it, else reST reads it as the previous paragraph's text
                # (the ``:param:`` lines removed in between often were that separation)
                if text_lines and text_lines[-1].strip() and not in_kept_field:
                    text_lines.append("")
                text_lines.append(line)
            in_kept_field = not is_param
            continue
        if current is not None and line[:1].isspace() and line.strip():
            fields[current][2] += " " + line.strip()
            if keep[current]:
                text_lines.append(line)
            continue
        current = None if not line.strip() or not line[:1].isspace() else current
        in_kept_field = False
        text_lines.append(line)
    text = "\n".join(text_lines).strip()
    return text, [(k, a, t.strip()) for k, a, t in fields]


def param_docs(docs: Iterable[str]) -> Dict[str, str]:
    """:return: argument name -> meaning, from the ``:param name:`` fields of ``docs`` (the first one wins)"""
    out: Dict[str, str] = {}
    for doc in docs:
        for kind, arg, text in split_fields(cleandoc(doc))[1]:
            if kind in ("param", "parameter", "arg", "argument", "key", "keyword") and arg:
                name = arg.split()[-1].lstrip("*")
                out.setdefault(name, text)
    return out


def first_sentence(doc: str) -> str:
    """:return: the first sentence of the text of a docstring (for tables), on one line"""
    text = split_fields(cleandoc(doc))[0]
    para = " ".join(text.split("\n\n")[0].split())
    for match in re.finditer(r"\.(\s|$)", para):
        head = para[:match.start() + 1]
        if not re.search(r"(\be\.g|\bi\.e|\betc|\bvs)\.$", head) and head.count("``") % 2 == 0:
            return head
    return para


def _problems(text: str) -> List[str]:
    """:return: the docutils warnings/errors for ``text`` as a fragment inside a directive (Sphinx roles are
    replaced by literals for the check: plain docutils does not know them)"""
    from docutils import nodes
    from docutils.core import publish_doctree
    cross_refs = re.findall(r":(?:ref|doc|numref|term|any):`[^`]*`", text)
    if cross_refs:  # targets of these are resolved only in the whole site: a missing one would fail the build
        return [f"cross-reference {cross_refs[0]} in a docstring"]
    checked = _ROLE_RE.sub(lambda m: "``" + m.group(1).replace("`", "") + "``", text)
    wrapped = ".. container::\n\n" + textwrap.indent(checked, "   ") + "\n"
    stream = io.StringIO()
    tree = publish_doctree(wrapped, settings_overrides={"report_level": 2, "halt_level": 5,
                                                       "warning_stream": stream, "file_insertion_enabled": False,
                                                       "raw_enabled": False})
    found = [n.astext() for n in tree.findall(nodes.system_message) if n["level"] >= 2]
    return found or ([stream.getvalue()] if stream.getvalue().strip() else [])


def fragment(text: str, where: str) -> str:
    """:return: ``text`` (reST from a docstring) if it parses cleanly, else the same as a preformatted block"""
    text = text.strip("\n")
    if not text.strip():
        return ""
    problems = _problems(text)
    if not problems:
        return text
    FALLBACKS.append(f"{where}: {problems[0].splitlines()[0] if problems[0] else 'invalid reST'}")
    return code_block(text, "text")


def inline(text: str, where: str) -> str:
    """:return: one-paragraph ``text`` for a table cell; escaped to plain text if it is not clean reST"""
    text = " ".join(text.split())
    if not text:
        return ""
    if not _problems(text) and "\n" not in text:
        return text
    FALLBACKS.append(f"{where}: inline text escaped")
    return re.sub(r"([\\`*_|<>\[\]])", r"\\\1", text)


def literal(value: str) -> str:
    """:return: ``value`` as an inline literal (safe for any text)"""
    value = " ".join(str(value).split())
    if not value:
        return ""
    if "``" in value or value.endswith("`") or value.startswith("`"):
        return ":code:`" + value.replace("\\", "\\\\").replace("`", "\\`") + "`"
    return f"``{value}``"


def heading(title: str, char: str, overline: bool = False) -> str:
    line = char * max(len(title), 4)
    return f"{line}\n{title}\n{line}\n" if overline else f"{title}\n{line}\n"


def code_block(code: str, language: str = "python") -> str:
    return f".. code-block:: {language}\n\n" + textwrap.indent(code.rstrip("\n"), "   ", lambda _: True) + "\n"


class _Name:
    """Prints as a bare name inside ``pprint`` output."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


def _dim_expr(dim: object) -> str:
    """:return: the constructor of a ``returnn.tensor.Dim`` as a config writes it"""
    description = getattr(dim, "description", None) or "dim"
    size = getattr(dim, "dimension", None)
    if dim.is_feature_dim():
        return f"FeatureDim({description!r}, {size!r})"
    return f"SpatialDim({description!r}" + (f", {size!r})" if size is not None else ")")


def python_assignments(**values: object) -> str:
    """:return: ``name = <value>`` lines, values pretty-printed as Python literals; ``Dim`` objects in them become
    variables defined first (``history = SpatialDim("history")``)"""
    from returnn.tensor import Dim, batch_dim
    dims: Dict[int, Tuple[str, object]] = {}
    uses_batch_dim = []

    def replace(value: object) -> object:
        if value is batch_dim:
            uses_batch_dim.append(True)
            return _Name("batch_dim")
        if isinstance(value, Dim):
            if id(value) not in dims:
                name = re.sub(r"\W+", "_", str(value.description or "dim")).strip("_").lower() or "dim"
                while name in {n for n, _ in dims.values()}:
                    name += "_"
                dims[id(value)] = (name, value)
            return _Name(dims[id(value)][0])
        if isinstance(value, dict):
            return {k: replace(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(replace(v) for v in value)
        return value

    values = {name: replace(value) for name, value in values.items()}
    lines = []
    if dims or uses_batch_dim:
        kinds = sorted({_dim_expr(d).split("(")[0] for _, d in dims.values()} | ({"batch_dim"} if uses_batch_dim
                                                                                   else set()))
        lines.append(f"from returnn.tf.util.data import {', '.join(kinds)}")
        lines += [f"{name} = {_dim_expr(dim)}" for name, dim in dims.values()]
    for name, value in values.items():
        text = pprint.pformat(value, width=80, sort_dicts=False)
        lines.append(f"{name} = " + text.replace("\n", "\n" + " " * (len(name) + 3)))
    return "\n".join(lines)


def list_table(header: Sequence[str], rows: Sequence[Sequence[str]], widths: Optional[Sequence[int]] = None) -> str:
    """:return: a ``list-table`` directive (cells are reST; empty cells allowed)"""
    out = [".. list-table::", "   :header-rows: 1"]
    if widths:
        out.append("   :widths: " + " ".join(str(w) for w in widths))
    out.append("")
    for row in [list(header)] + [list(r) for r in rows]:
        for i, cell in enumerate(row):
            prefix = "   * - " if i == 0 else "     - "
            cell_lines = (cell or "").splitlines() or [""]
            out.append((prefix + cell_lines[0]).rstrip())
            out.extend(("       " + line).rstrip() for line in cell_lines[1:])
    return "\n".join(out) + "\n"
