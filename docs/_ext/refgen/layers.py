"""The layer reference: every registered layer class (aliases included), grouped by family (the package folder under
``returnn/tf/layers/``), with its arguments (from the signatures and ``:param:`` fields along the class's MRO), its
description and output template (module and class docstrings), its example (:mod:`returnn.tf.layers.examples`, run
by the tests) and what the docstrings say differs from the reference. Plus the common layer arguments."""

from __future__ import annotations

import inspect
import os
import re
from typing import Any, Dict, List, Tuple

from refgen import rst

FAMILY_TITLES = {
    "alignment": "Alignment", "attention": "Attention", "control": "Subnetworks and control flow",
    "conv": "Convolution and pooling", "elementwise": "Element-wise", "indexing": "Indexing",
    "inputs": "Inputs and constants", "linear": "Linear and softmax", "loss_layers": "Losses as layers",
    "norm": "Normalization", "recurrent": "Recurrent", "reduce": "Reductions", "search": "Search",
    "shape": "Shape", "signal": "Signal processing", "utility": "Utility", "variables": "Variables",
}
_DIFF_RE = re.compile(r"(unlike (?:in )?the reference|differs? from the reference|not supported|not implemented|"
                      r"not built here|ignored here|without effect|no effect here|instead of the reference|"
                      r"needs? (?:RASR|the reference's native|a native op)|not available)", re.I)


def _family(cls: type) -> str:
    """:return: the package folder under ``returnn/tf/layers/`` that holds ``cls`` (e.g. ``"shape"``)"""
    parts = cls.__module__.split(".")
    return parts[3] if parts[:3] == ["returnn", "tf", "layers"] and len(parts) >= 4 else "other"


def _signature_params(func: Any) -> List[inspect.Parameter]:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return []
    return [p for p in sig.parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in ("self", "cls")]


def layer_arguments(cls: type) -> List[Tuple[str, str, str, str]]:
    """:return: [(name, default, type, meaning)] of the layer's own arguments: the keyword parameters of
    ``__init__`` and ``get_out_data_from_opts`` along the MRO (base classes up to ``LayerBase`` excluded), minus
    the common layer arguments and the internal ones"""
    from returnn.tf.layers.core.common_args import COMMON_LAYER_ARGS, INTERNAL_LAYER_KWARGS
    from returnn.tf.layers.core.layer_base import LayerBase
    skip = set(COMMON_LAYER_ARGS) | set(INTERNAL_LAYER_KWARGS)
    found: Dict[str, inspect.Parameter] = {}
    docs: List[str] = []
    for klass in cls.__mro__:
        if klass is LayerBase or klass is object:
            break
        docs.append(klass.__dict__.get("__doc__") or "")
        for attr in ("__init__", "get_out_data_from_opts", "transform_config_dict"):
            func = klass.__dict__.get(attr)
            if func is None:
                continue
            func = getattr(func, "__func__", func)
            docs.append(func.__doc__ or "")
            if attr == "transform_config_dict":
                continue
            for p in _signature_params(func):
                if p.name.startswith("_") or p.name in skip or p.name in found:
                    continue
                if attr == "get_out_data_from_opts" and p.name in ("name", "network", "sources"):
                    continue
                found[p.name] = p
    docs.append(inspect.getmodule(cls).__doc__ or "")
    meanings = rst.param_docs(docs)
    rows = []
    for name, p in found.items():
        default = "" if p.default is inspect.Parameter.empty else _default_repr(p.default)
        annotation = "" if p.annotation is inspect.Parameter.empty else str(p.annotation)
        annotation = "" if annotation in ("Any", "typing.Any") else annotation
        rows.append((name, default, annotation, meanings.get(name, "")))
    return rows


def _default_repr(value: Any) -> str:
    """:return: a default as a config would write it (a marker class such as ``NotSpecified`` by its name)"""
    return value.__name__ if isinstance(value, type) else repr(value)


def _prose(text: str) -> str:
    """:return: ``text`` without its field lists (``:raises X: ...`` lines and their continuations)"""
    lines, in_field = [], False
    for line in text.splitlines():
        if rst.FIELD_RE.match(line):
            in_field = True
            continue
        if in_field and line[:1].isspace() and line.strip():
            continue
        in_field = False
        lines.append(line)
    return "\n".join(lines)


def _differences(texts: List[str]) -> List[str]:
    """:return: the sentences of ``texts`` (prose, not fields) that say where the layer differs from the reference"""
    out = []
    for text in texts:
        flat = " ".join(_prose(text).split())
        for sentence in re.split(r"(?<=[.;])\s+(?=[A-Z`(])", flat):
            if _DIFF_RE.search(sentence) and sentence not in out and sentence.count("``") % 2 == 0:
                out.append(sentence)
    return out


def _layer_section(name: str, cls: type, aliases: Dict[str, List[str]]) -> Tuple[str, List[str]]:
    """:return: the reST section of layer ``name``, and its differences from the reference (rendered)"""
    from returnn.tf.layers.examples import LAYER_EXAMPLES
    where = f"layer {name}"
    out = [f".. _layer-{name}:", "", rst.heading(f"``{name}``", "-")]
    qual = f"{cls.__module__}.{cls.__name__}"
    canonical = cls.layer_class
    info = [f":Class: ``{qual}``"]
    if canonical != name:
        info.append(f":Alias of: :ref:`{canonical} <layer-{canonical}>`")
    elif aliases.get(name):
        info.append(":Aliases: " + ", ".join(f"``{a}``" for a in aliases[name]))
    src = os.path.relpath(inspect.getsourcefile(cls), _repo_root())
    info.append(f":Source: ``{src}``")
    out += info + [""]
    texts = []
    if canonical == name:
        module_doc = rst.split_fields(rst.cleandoc(inspect.getmodule(cls).__doc__))[0]
        class_doc = rst.split_fields(rst.cleandoc(cls.__dict__.get("__doc__")))[0]
        tmpl_func = cls.__dict__.get("get_out_data_from_opts")
        tmpl_doc = rst.split_fields(rst.cleandoc(getattr(tmpl_func, "__func__", tmpl_func).__doc__
                                                 if tmpl_func else ""))[0]
        texts = [module_doc, class_doc, tmpl_doc]
        for title, text in (("Description", module_doc), ("Class", class_doc), ("Output template", tmpl_doc)):
            body = rst.fragment(text, f"{where} ({title.lower()})")
            if body:
                out += [f"**{title}**", "", body, ""]
        rows = layer_arguments(cls)
        out += ["**Arguments** (besides the :ref:`common layer arguments <layer-common-args>`)", ""]
        if rows:
            out.append(rst.list_table(
                ["argument", "default", "type", "meaning"],
                [(rst.literal(n), rst.literal(d), rst.literal(t), rst.inline(m, f"{where} arg {n}"))
                 for n, d, t, m in rows], widths=[18, 14, 18, 50]))
        else:
            out += ["None of its own.", ""]
    example = LAYER_EXAMPLES.get(name)
    if example is not None:
        out += ["**Example** (built, run forward and backward, and checked against its template by "
                "``tests/tf/layers/test_layer_examples.py``)", ""]
        if example.notes:
            out += [rst.fragment(example.notes, f"{where} (example notes)"), ""]
        out.append(rst.code_block(rst.python_assignments(extern_data=example.extern_data,
                                                         network=example.network)))
        if example.raises:
            out += [f"Building it raises ``{example.raises.split(':')[0]}`` here.", ""]
        if example.known_issue:
            out += [".. note::", "", "   Known issue (found by this example, expected to fail its test): "
                    + rst.inline(example.known_issue, f"{where} (known issue)"), ""]
    diffs = [rst.inline(d, f"{where} (difference)")
             for d in _differences(texts + ([example.notes] if example is not None else []))]
    if diffs:
        out += ["**Differences from the reference** (sentences of the docstrings above)", ""]
        out += ["- " + d for d in diffs] + [""]
    return "\n".join(out) + "\n", diffs


def _summary(cls: type) -> str:
    """:return: the first sentence of the class docstring, or of the module docstring where the class docstring
    refers to it (without the leading layer dict: ````{"class": ...}``: <this>``)"""
    text = rst.first_sentence(cls.__dict__.get("__doc__") or "")
    if not text or text.lower().startswith("see the module"):
        text = rst.first_sentence(inspect.getmodule(cls).__doc__ or "")
        match = re.match(r"``\{.*?\}``(?: \([^)]*\))?:\s+(.+)$", text)
        if match:
            text = match.group(1)[:1].upper() + match.group(1)[1:]
    return text


def _repo_root() -> str:
    import returnn
    return os.path.dirname(os.path.dirname(os.path.abspath(returnn.__file__)))


def registered_layers() -> List[Tuple[str, type]]:
    """:return: [(name, class)] of every built-in registered layer name (aliases included), sorted"""
    from returnn.tf.layers.core.registry import LAYERS, get_layer_class_name_list, is_user_layer_class
    return [(n, LAYERS.get(n)) for n in get_layer_class_name_list() if not is_user_layer_class(LAYERS.get(n))]


def _common_args_page() -> str:
    from returnn.tf.layers.core import common_args
    out = [".. _layer-common-args:", "", rst.heading("Common layer arguments", "=", overline=True)]
    out += [rst.fragment(rst.cleandoc(common_args.__doc__), "common args"), ""]
    out += ["Every layer dict accepts these keys (handled by ``LayerBase``; the table "
            "``returnn.tf.layers.core.common_args.LAYER_ARGS``); grouped by concern. Status *no effect*: accepted "
            "for compatibility, changes nothing in this implementation (a warning when given); *unsupported*: "
            "only the default is accepted.", ""]
    for group, names in common_args.COMMON_LAYER_ARGS_GROUPS.items():
        out += [rst.heading(group, "-")]
        rows = []
        for n in names:
            arg = common_args.LAYER_ARGS_BY_NAME[n]
            default = "" if n == "from" else _default_repr(arg.default)  # "from": resolved to the sources
            meaning = arg.meaning
            rows.append((rst.literal(n), rst.literal(default), arg.status, rst.inline(meaning, f"common {n}")))
        out.append(rst.list_table(["key", "default", "status", "meaning"], rows, widths=[25, 20, 15, 40]))
    return "\n".join(out) + "\n"


def generate(outdir: str) -> Dict[str, int]:
    """Writes ``index.rst``, ``common-args.rst`` and one page per family into ``outdir``.

    :return: {"layers": number of layer sections written, "families": number of family pages}
    """
    os.makedirs(outdir, exist_ok=True)
    layers = registered_layers()
    aliases: Dict[str, List[str]] = {}
    for name, cls in layers:
        if cls.layer_class != name:
            aliases.setdefault(cls.layer_class, []).append(name)
    families: Dict[str, List[Tuple[str, type]]] = {}
    for name, cls in layers:
        families.setdefault(_family(cls), []).append((name, cls))
    import importlib
    all_diffs: List[Tuple[str, List[str]]] = []
    for family, members in sorted(families.items()):
        title = FAMILY_TITLES.get(family, family.replace("_", " ").capitalize())
        out = [f".. _layer-family-{family}:", "", rst.heading(f"{title} (``{family}``)", "=", overline=True)]
        try:
            pkg_doc = importlib.import_module(f"returnn.tf.layers.{family}").__doc__
        except ImportError:
            pkg_doc = ""
        if pkg_doc:
            out += [rst.fragment(rst.cleandoc(pkg_doc), f"family {family}"), ""]
        out += [", ".join(f":ref:`{n} <layer-{n}>`" for n, _ in members), ""]
        for name, cls in members:
            text, diffs = _layer_section(name, cls, aliases)
            out.append(text)
            if diffs:
                all_diffs.append((name, diffs))
        _write(outdir, f"{family}.rst", "\n".join(out))
    _write(outdir, "common-args.rst", _common_args_page())
    diff_page = [rst.heading("Differences from the reference, by layer", "=", overline=True),
                 "The sentences of the layer docstrings (and example notes) that say where a layer differs from the "
                 "reference, needs something this installation lacks, or accepts an argument without effect; "
                 "collected at each build (a sentence matches by its wording, e.g. *unlike the reference*, *not "
                 "supported*, *ignored here*). The full text is in each layer's section.", ""]
    for name, diffs in sorted(all_diffs):
        diff_page += [f":ref:`{name} <layer-{name}>`", ""] + ["- " + d for d in diffs] + [""]
    _write(outdir, "differences.rst", "\n".join(diff_page))
    rows = [(f":ref:`{n} <layer-{n}>`", f":ref:`{f} <layer-family-{f}>`",
             rst.inline(_summary(c) if c.layer_class == n else f"alias of ``{c.layer_class}``", f"layer {n} (summary)"))
            for f, members in sorted(families.items()) for n, c in members]
    rows.sort(key=lambda r: r[0])
    index = [rst.heading("Layers", "=", overline=True),
             f"{len(layers)} layer class names are registered (``returnn.tf.layers.core.registry.LAYERS``, "
             f"aliases included), in {len(families)} families. This reference is generated from the code at each "
             "documentation build: the arguments from the signatures and docstrings, the examples from "
             "``returnn/tf/layers/examples.py`` (each one is built and run by the tests).", "",
             ".. toctree::", "   :maxdepth: 1", "", "   common-args", "   differences"]
    index += [f"   {f}" for f in sorted(families)] + [""]
    index.append(rst.list_table(["layer class", "family", "summary"], rows, widths=[25, 15, 60]))
    _write(outdir, "index.rst", "\n".join(index))
    return {"layers": len(layers), "families": len(families)}


def _write(outdir: str, filename: str, text: str) -> None:
    from refgen import write_if_changed
    write_if_changed(os.path.join(outdir, filename), text)
