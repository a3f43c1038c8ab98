"""The dataset reference: every registered dataset class (``returnn/datasets/registry.py``) with its options (the
keyword parameters of ``__init__`` along the MRO, meanings from the ``:param:`` fields), and the options every
dataset accepts (``Dataset.__init__``)."""

from __future__ import annotations

import inspect
import os
from typing import Dict, List, Tuple

from refgen import rst


def registered_datasets() -> List[Tuple[str, type]]:
    """:return: [(name, class)] of every registered dataset class, sorted by name"""
    from returnn.datasets.registry import get_dataset_class, get_dataset_class_names
    return [(n, get_dataset_class(n)) for n in get_dataset_class_names()]


def dataset_options(cls: type, stop: type) -> List[Tuple[str, str, str, str]]:
    """:return: [(name, default, type, meaning)] of the ``__init__`` keyword parameters of ``cls`` and its bases
    before ``stop`` (following ``**kwargs`` into the base class; ``stop`` itself excluded unless ``cls is stop``)"""
    found: Dict[str, inspect.Parameter] = {}
    docs: List[str] = []
    for klass in cls.__mro__:
        if klass is object or (klass is stop and cls is not stop):
            break
        docs += [klass.__dict__.get("__doc__") or "", getattr(klass.__dict__.get("__init__"), "__doc__", "") or ""]
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            params = list(inspect.signature(init).parameters.values())[1:]
        except (TypeError, ValueError):
            continue
        for p in params:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and not p.name.startswith("_"):
                found.setdefault(p.name, p)
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            break
    meanings = rst.param_docs(docs)
    rows = []
    for name, p in found.items():
        default = "" if p.default is inspect.Parameter.empty else repr(p.default)
        annotation = "" if p.annotation is inspect.Parameter.empty else str(p.annotation)
        rows.append((name, default, "" if annotation in ("Any", "typing.Any") else annotation,
                     meanings.get(name, "")))
    return rows


def _options_table(rows: List[Tuple[str, str, str, str]], where: str) -> str:
    return rst.list_table(["option", "default", "type", "meaning"],
                          [(rst.literal(n), rst.literal(d), rst.literal(t), rst.inline(m, f"{where} option {n}"))
                           for n, d, t, m in rows], widths=[20, 15, 20, 45])


def generate(outdir: str) -> Dict[str, int]:
    """Writes ``datasets.rst`` into ``outdir``. :return: {"datasets": number of dataset sections}"""
    from returnn.datasets.dataset import Dataset
    from refgen import write_if_changed
    datasets = registered_datasets()
    out = [".. _datasets:", "", rst.heading("Datasets", "=", overline=True),
           f"{len(datasets)} dataset classes are registered (``returnn.datasets.registry``): a dataset dict "
           '``{"class": "<name>", ...}`` (the config keys ``train``, ``dev``, ``eval``, ...) takes the options '
           "below plus the :ref:`options of every dataset <dataset-common-options>`. Generated from the code at "
           "each documentation build.", ""]
    out.append(rst.list_table(["class", "module", "summary"],
                              [(f":ref:`{n} <dataset-{n}>`", rst.literal(c.__module__),
                                rst.inline(rst.first_sentence(c.__dict__.get("__doc__") or ""), f"dataset {n}"))
                               for n, c in datasets], widths=[25, 30, 45]))
    out += [".. _dataset-common-options:", "", rst.heading("Options of every dataset", "-")]
    out += [rst.fragment(rst.split_fields(rst.cleandoc(Dataset.__doc__))[0], "Dataset"), ""]
    out.append(_options_table(dataset_options(Dataset, Dataset), "Dataset"))
    for name, cls in datasets:
        where = f"dataset {name}"
        out += [f".. _dataset-{name}:", "", rst.heading(f"``{name}``", "-")]
        src = os.path.relpath(inspect.getsourcefile(cls), _repo_root())
        out += [f":Class: ``{cls.__module__}.{cls.__name__}``", f":Source: ``{src}``", ""]
        text = rst.split_fields(rst.cleandoc(cls.__dict__.get("__doc__")))[0]
        body = rst.fragment(text, where)
        if body:
            out += [body, ""]
        rows = dataset_options(cls, Dataset)
        if rows:
            out += ["**Options**", "", _options_table(rows, where)]
        else:
            out += ["Only the options of every dataset.", ""]
    write_if_changed(os.path.join(outdir, "datasets.rst"), "\n".join(out) + "\n")
    return {"datasets": len(datasets)}


def _repo_root() -> str:
    import returnn
    return os.path.dirname(os.path.dirname(os.path.abspath(returnn.__file__)))
