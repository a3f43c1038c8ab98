"""Loading the demo scripts (their folders have hyphens, so they are not importable packages)."""

import importlib.util
import os
import shutil
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ASR_DIR = os.path.join(REPO_ROOT, "demos", "asr-synth")
LM_DIR = os.path.join(REPO_ROOT, "demos", "lm-fortunes")
FORTUNES_DIR = "/usr/share/games/fortunes"


def load_module(path: str, name: str):
    """Import the file at ``path`` as module ``name`` (its folder goes on sys.path for sibling imports)."""
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def have_espeak() -> bool:
    return shutil.which("espeak-ng") is not None


def have_fortunes() -> bool:
    return os.path.isfile(os.path.join(FORTUNES_DIR, "fortunes"))
