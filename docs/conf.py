"""Sphinx configuration of the documentation site.

Build (from the repository root; ``pip install -e ".[docs]"`` first)::

    python3 -m sphinx -W -b html docs docs/_build/html

The reference pages (layers, datasets, config keys, tools) are generated from the code at each build by
``_ext/returnn_reference.py`` into ``docs/reference/`` (not committed).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # this checkout's returnn, also without an install
sys.path.insert(0, os.path.join(HERE, "_ext"))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import returnn  # noqa: E402

project = "RETURNN (TensorFlow backend), re-implemented"
author = "the contributors"
copyright = "the contributors"  # noqa: A001
version = release = returnn.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "returnn_reference",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the signatures use postponed annotations; the docstrings state the types
napoleon_use_param = True

html_theme = "sphinx_rtd_theme"  # the Read the Docs theme (as the reference's documentation)
html_title = project
html_theme_options = {"navigation_depth": 3, "collapse_navigation": False}
html_static_path = ["_static"]
html_css_files = ["custom.css"]
