"""The generated reference pages of the documentation (``docs/_ext/refgen``): the layer pages list every registered
layer (the count equals the registry's), each with the example of ``returnn/tf/layers/examples.py``; the dataset
page every dataset class; the config-key page every key the scan collects (and the scan finds the reads it
claims to find); the tools page the ``--help`` of every script. The Sphinx build itself runs in ``.ci/run``."""

import glob
import os
import re
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "docs", "_ext"))

pytest.importorskip("sphinx", reason='the docs extra: pip install -e ".[docs]"')  # napoleon, docutils

import refgen  # noqa: E402
from refgen import config_keys, rst  # noqa: E402

from returnn.datasets.registry import get_dataset_class_names  # noqa: E402
from returnn.tf.layers.core.registry import LAYERS, get_layer_class_name_list, is_user_layer_class  # noqa: E402
from returnn.tf.layers.examples import LAYER_EXAMPLES  # noqa: E402


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    outdir = str(tmp_path_factory.mktemp("reference"))
    counts = refgen.generate_all(outdir)
    texts = {}
    for path in glob.glob(os.path.join(outdir, "**", "*.rst"), recursive=True):
        with open(path, encoding="utf8") as f:
            texts[os.path.relpath(path, outdir)] = f.read()
    return counts, texts


def _builtin_layers():
    return [n for n in get_layer_class_name_list() if not is_user_layer_class(LAYERS.get(n))]


def test_layer_pages_list_every_registered_layer_once(pages):
    counts, texts = pages
    layer_text = "".join(t for p, t in texts.items() if p.startswith("layers" + os.sep))
    labels = re.findall(r"^\.\. _layer-([A-Za-z0-9_]+):$", layer_text, re.M)
    labels = [n for n in labels if not n.startswith("family-") and n != "common-args"]
    assert sorted(labels) == sorted(_builtin_layers())
    assert counts["layers"] == len(_builtin_layers()) == len(labels)
    index = texts[os.path.join("layers", "index.rst")]
    assert f"{len(labels)} layer class names are registered" in index
    for name in _builtin_layers():
        assert f":ref:`{name} <layer-{name}>`" in index


def test_every_layer_page_example_is_the_tested_example(pages):
    _, texts = pages
    layer_text = "".join(t for p, t in texts.items() if p.startswith("layers" + os.sep))
    for name, example in LAYER_EXAMPLES.items():
        code = rst.python_assignments(extern_data=example.extern_data, network=example.network)
        assert rst.code_block(code) in layer_text, f"the example of {name!r} is not on its page"
    # and the pages show no other layer dict: every "network = ..." block is one of the examples
    shown = re.findall(r"^   network = ", layer_text, re.M)
    assert len(shown) == len(LAYER_EXAMPLES)


def test_layer_arguments_come_from_signature_and_docstring(pages):
    _, texts = pages
    linear = texts[os.path.join("layers", "linear.rst")]
    section = linear[linear.index(".. _layer-linear:"):linear.index(".. _layer-softmax:")]
    # LinearLayer.__init__(activation=NotSpecified, with_bias=True, ...), ":param with_bias: add ``b``"
    assert "   * - ``with_bias``\n     - ``True``\n     - ``bool``\n     - add ``b``" in section
    assert "``forward_weights_init``" in section and "initializer spec for ``W``" in section
    # common args are not repeated per layer
    assert "   * - ``loss_scale``" not in section
    assert "``loss_scale``" in texts[os.path.join("layers", "common-args.rst")]
    alias = linear[linear.index(".. _layer-forward:"):linear.index(".. _layer-hidden:")]
    assert ":Alias of: :ref:`linear <layer-linear>`" in alias


def test_dataset_page_lists_every_dataset_class(pages):
    counts, texts = pages
    page = texts["datasets.rst"]
    labels = re.findall(r"^\.\. _dataset-([A-Za-z0-9_]+):$", page, re.M)
    assert sorted(labels) == sorted(get_dataset_class_names())
    assert counts["datasets"] == len(labels)
    hdf = page[page.index(".. _dataset-HDFDataset:"):]
    assert "   * - ``files``" in hdf and "list of HDF file paths" in hdf
    common = page[page.index(".. _dataset-common-options:"):]
    assert "   * - ``partition_epoch``" in common


def test_config_key_page_lists_every_collected_key(pages):
    counts, texts = pages
    page = texts["config-keys.rst"]
    keys = config_keys.collect(REPO_ROOT)
    assert counts["config_keys"] == len(keys)
    assert f"**{len(keys)} keys**" in page
    rows = re.findall(r"^   \* - ``([^`]+)``", page, re.M)
    assert sorted(rows) == sorted(keys)
    # keys every engine run reads, found through the different paths of the scan
    for key in ("num_epochs", "learning_rate", "model", "batch_size", "max_seqs", "optimizer", "task", "log",
                "log_verbosity", "extern_data", "network",  # direct reads
                "train", "dev", "eval",  # through init_dataset_from_config_key(config, "train") -> _get_spec
                "load_epoch",  # for key in ("load_epoch", "epoch")
                "use_horovod"):
        assert key in keys, key
    assert keys["num_epochs"].types == {"int"}


def test_config_key_scan_on_a_synthetic_module(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text('''
NAMES = ("k_const_a", "k_const_b")

def direct(config):
    config.int("k_int", 3)
    self_like.config.bool("k_bool", default=False)
    config.typed_value(f"{prefix}_k_pattern")
    other.int("not_a_config_read", 1)

def loops(config):
    for key in ("k_loop_a", "k_loop_b"):
        config.has(key)
    for key in NAMES:
        config.float(key, 0.5)

def _get(config, key, default):
    return config.value(key, default)

def _outer(config, name):
    return _get(config, name, None)

def calls(config):
    _get(config, "k_param", default="d")
    _outer(config, "k_two_levels")
''')
    keys = config_keys.scan(["pkg"], str(tmp_path))
    assert sorted(keys) == sorted(["k_bool", "k_const_a", "k_const_b", "k_int", "k_loop_a", "k_loop_b", "k_param",
                                   "k_two_levels", "<prefix>_k_pattern"])
    assert keys["k_int"].types == {"int"} and keys["k_int"].defaults == {"3"}
    assert keys["k_bool"].defaults == {"False"}
    assert keys["k_const_b"].types == {"float"} and keys["k_loop_a"].types == {"(set or not)"}
    assert keys["k_param"].types == {"str"} and keys["k_param"].defaults == {"'d'"}
    assert keys["<prefix>_k_pattern"].pattern and keys["k_two_levels"].modules == {"pkg.mod"}


def test_tools_page_has_the_help_of_every_script(pages):
    counts, texts = pages
    page = texts["tools.rst"]
    scripts = ["rnn.py"] + sorted(f"tools/{os.path.basename(p)}" for p in glob.glob(os.path.join(REPO_ROOT, "tools",
                                                                                                 "*.py"))
                                  if not os.path.basename(p).startswith("_"))
    assert counts["tools"] == len(scripts)
    for script in scripts:
        assert f"``python3 {script} --help``:" in page
    assert "Usage: rnn.py [config_filename]* [option]* [++key value]*" in page
    assert "   * - ``train``" in page and "   * - ``config:<function>``" in page


def test_docstring_fragments_that_are_not_clean_rest_are_shown_preformatted():
    ok = rst.fragment("Shape: ``{B, T, F}``; see :class:`returnn.tensor.Tensor`.", "t")
    assert ok == "Shape: ``{B, T, F}``; see :class:`returnn.tensor.Tensor`."
    broken = rst.fragment(":return: a field\nwhose continuation is not indented", "t")
    assert broken.startswith(".. code-block:: text\n")
    assert rst.inline("a *b", "t") == "a \\*b"
    # a cross-reference could name a missing target (only the whole site knows): preformatted too
    assert rst.fragment("see :ref:`somewhere`", "t").startswith(".. code-block:: text\n")


def test_param_docs_from_rest_and_google_style():
    assert rst.param_docs([":param x: the x\n    continued\n:param int y: why"]) == {"x": "the x continued",
                                                                                  "y": "why"}
    google = "Does it.\n\nArgs:\n    a (int): the a\n    b: the b\n"
    assert rst.param_docs([google]) == {"a": "the a", "b": "the b"}


def test_hand_written_pages_show_no_untested_layer_dict():
    """Layer dicts belong in returnn/tf/layers/examples.py (tested, shown on the layer pages)."""
    names = set(_builtin_layers())
    for path in glob.glob(os.path.join(REPO_ROOT, "docs", "*.md")):
        with open(path, encoding="utf8") as f:
            text = f.read()
        for match in re.finditer(r"""["']class["']\s*:\s*["']([A-Za-z0-9_]+)["']""", text):
            assert match.group(1) not in names, (
                f"{os.path.basename(path)} shows a {match.group(1)!r} layer dict; link its example on the layer "
                "reference page instead (returnn/tf/layers/examples.py)")
