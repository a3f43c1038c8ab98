#!/usr/bin/env python3
"""RETURNN main entry point: ``./rnn.py CONFIG [CONFIG ...] [options] [++key value ...]``.

See ``./rnn.py --help`` and :mod:`returnn.__main__`.
"""

import os
import sys

# allow running from a source checkout without installing the package
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from returnn.__main__ import main  # noqa: E402

if __name__ == "__main__":
    main()
