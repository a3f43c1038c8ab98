"""Every argument row of the generated layer reference has a meaning: for a layer's own arguments the ``:param``
line of its class (``__init__``/``get_out_data_from_opts`` docstrings along the MRO, :func:`refgen.layers.
layer_arguments`), for the common arguments the table ``returnn.tf.layers.core.common_args.LAYER_ARGS``. A new
layer argument without a ``:param`` line fails here, naming the layer and the argument."""

import os
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "docs", "_ext"))

pytest.importorskip("sphinx", reason='the docs extra: pip install -e ".[docs]"')  # napoleon, docutils

from docutils import nodes  # noqa: E402
from docutils.core import publish_doctree  # noqa: E402
from refgen import layers, rst  # noqa: E402

from returnn.tf.layers.core import common_args  # noqa: E402
from returnn.tf.layers.core.layer_base import LayerBase  # noqa: E402


def _rows_without_meaning():
    missing, total = [], 0
    for name, cls in layers.registered_layers():
        if cls.layer_class != name:  # an alias: its page links to the canonical layer's table
            continue
        for arg, _default, _type, meaning in layers.layer_arguments(cls):
            total += 1
            if not meaning.strip():
                missing.append(f"{name}.{arg} ({cls.__module__}.{cls.__name__})")
    return missing, total


def test_every_registered_layer_argument_has_a_meaning():
    missing, total = _rows_without_meaning()
    assert total > 500  # the registry's layers have their arguments listed at all
    assert not missing, (f"{len(missing)} of {total} layer arguments have no ':param' line (write it in the layer "
                         "class's __init__ docstring): " + ", ".join(missing))


def test_every_common_layer_argument_has_a_meaning():
    names = [n for group in common_args.COMMON_LAYER_ARGS_GROUPS.values() for n in group]
    assert names
    assert [n for n in names if not common_args.LAYER_ARGS_BY_NAME[n].meaning.strip()] == []


def test_an_argument_without_param_line_is_found():
    class _UndocumentedLayer(LayerBase):  # not registered
        def __init__(self, size: int = 3, documented: bool = False, **kwargs):
            """:param documented: a described argument"""
            super().__init__(**kwargs)

    rows = {name: meaning for name, _d, _t, meaning in layers.layer_arguments(_UndocumentedLayer)}
    assert rows == {"size": "", "documented": "a described argument"}


def test_a_raises_field_after_text_does_not_run_into_it():
    doc = ("Output template: the input's dims.\n"
           ":param axis: which axis\n"
           ":raises LayerArgError: a bad axis\n"
           "    (continued)\n"
           ":return: the template")
    text, fields = rst.split_fields(doc)
    assert text == ("Output template: the input's dims.\n\n:raises LayerArgError: a bad axis\n    (continued)\n"
                    ":return: the template")
    assert [(k, a) for k, a, _ in fields] == [("param", "axis"), ("raises", "LayerArgError"), ("return", "")]
    tree = publish_doctree(text, settings_overrides={"report_level": 5})
    paragraphs = [p.astext() for p in tree.findall(nodes.paragraph) if not isinstance(p.parent, nodes.field_body)]
    assert paragraphs == ["Output template: the input's dims."]
    assert [f[0].astext() for f in tree.findall(nodes.field)] == ["raises LayerArgError", "return"]


def test_layer_docstrings_have_one_field_per_line():
    """``:raises A: x; :raises B: y`` on one line would show as one field whose text holds the second one."""
    import inspect
    import re
    found = []
    for name, cls in layers.registered_layers():
        docs = [inspect.getmodule(cls).__doc__]
        for klass in cls.__mro__:
            if klass is LayerBase or klass is object:
                break
            docs.append(klass.__dict__.get("__doc__"))
            for attr in ("__init__", "get_out_data_from_opts", "transform_config_dict"):
                func = getattr(klass.__dict__.get(attr), "__func__", klass.__dict__.get(attr))
                docs.append(getattr(func, "__doc__", None))
        for doc in docs:
            for line in (doc or "").splitlines():
                if re.search(r"\S.*\s:(raises?|returns?|param|rtype)\b[^:`]*:", line):
                    found.append(f"{name}: {line.strip()}")
    assert not found


def test_continuation_of_a_field_on_the_docstring_first_line_stays_indented():
    def f():
        """:return: a field whose text
            goes on here
        :raises ValueError: bad"""

    def g():
        """:return: one field
            continued"""

    assert rst.cleandoc(f.__doc__) == ":return: a field whose text\n    goes on here\n:raises ValueError: bad"
    assert rst.cleandoc(g.__doc__) == ":return: one field\n    continued"
    assert rst.split_fields(rst.cleandoc(g.__doc__)) == (":return: one field\n    continued",
                                                         [("return", "", "one field continued")])
    assert rst.fragment(rst.cleandoc(g.__doc__), "t") == ":return: one field\n    continued"  # clean reST


def test_layer_pages_show_every_docstring_as_rest(tmp_path):
    """No layer docstring fragment falls back to preformatted text (e.g. a field whose continuation is not
    indented, which reST reads as text running on after the field list)."""
    before = len(rst.FALLBACKS)
    layers.generate(str(tmp_path))
    assert rst.FALLBACKS[before:] == []
