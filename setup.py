"""Installs the ``returnn`` package and the ``rnn.py`` entry point.

``pip install -e .`` (or ``pip install .``); tests need ``pip install -e .[test]``.
"""

import os

from setuptools import find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def _read_requirements():
    with open(os.path.join(HERE, "requirements.txt")) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def _read_version():
    namespace = {}
    with open(os.path.join(HERE, "returnn", "__init__.py")) as f:
        exec(f.read(), namespace)
    return namespace["__version__"]


setup(
    name="returnn-tf",
    version=_read_version(),
    description="RETURNN's command-line toolkit with the TensorFlow backend, re-implemented for current TensorFlow",
    long_description=open(os.path.join(HERE, "README.md")).read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=find_packages(include=["returnn", "returnn.*"]),
    install_requires=_read_requirements(),
    # text post-processing "english_cleaners" (returnn.datasets.lm) transliterates and spells out numbers with
    # these, as the reference does; optional
    # docs: the Sphinx site under docs/ (python3 -m sphinx -W -b html docs docs/_build/html) and its tests
    extras_require={"test": ["pytest", "pytest-xdist", "import-linter", "inflect", "unidecode", "subword-nmt", "datasets"], "text-cleaners": ["unidecode", "inflect"],
                    "docs": ["sphinx>=8", "myst-parser>=4", "sphinx-rtd-theme>=3"]},
    scripts=["rnn.py"],
    entry_points={"console_scripts": ["returnn=returnn.__main__:main"]},
)
