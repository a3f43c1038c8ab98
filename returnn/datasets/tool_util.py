"""Helpers shared by ``tools/dump-dataset.py`` and ``tools/hdf_dump.py``: loading a dataset from a config file or a
dataset string, a progress bar, and error reporting."""

from __future__ import annotations

import os
import sys
import time


def load_dataset(spec: str, dataset_key: str = "train", extra_config=()):
    """A dataset from a dataset dict literal / ``Class:key=value`` string, or a config file's ``dataset_key``.

    :raises returnn.errors.ReturnnError: for bad specs, unknown classes/args or config errors
    """
    from returnn.config import Config, set_global_config
    from returnn.datasets import init_dataset
    from returnn.datasets.from_config import init_dataset_from_config_key
    from returnn.errors import ConfigValueError
    text = spec.strip()
    if text.startswith("{") or (not os.path.exists(text) and ":" in text and "/" not in text) or (
            not os.path.exists(text) and text[:1].isupper()):
        config = Config()
        config.parse_cmd_args(list(extra_config))
        set_global_config(config)
        return init_dataset(text), config
    config = Config()
    config.load_file(text)
    config.parse_cmd_args(list(extra_config))
    set_global_config(config)
    ds = init_dataset_from_config_key(config, dataset_key, is_train=(dataset_key == "train"))
    if ds is None:
        raise ConfigValueError(dataset_key, expected="a dataset in the config (use --dataset train|dev|eval)",
                               got=None)
    return ds, config


class Progress:
    """A one-line progress bar on stderr (only when stderr is a terminal, or when forced)."""

    def __init__(self, total, enabled=None):
        self.total = total
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.start = time.time()
        self._last = 0.0

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.time()
        if now - self._last < 0.1 and done != self.total:
            return
        self._last = now
        elapsed = now - self.start
        if self.total:
            frac = min(done / self.total, 1.0)
            bar = "#" * int(frac * 30)
            sys.stderr.write(f"\r[{bar:<30}] {done}/{self.total} ({frac * 100:.1f}%) {elapsed:.1f}s")
        else:
            sys.stderr.write(f"\r{done} seqs {elapsed:.1f}s")
        sys.stderr.flush()

    def finish(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def run_main(main) -> None:
    """Runs ``main()``; a ReturnnError prints just its message and exits with status 1."""
    from returnn.errors import ReturnnError
    try:
        main()
    except ReturnnError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    except BrokenPipeError:
        sys.exit(0)


class ValueStats:
    """Scalar values (one per sequence or batch) summarised as the reference's tools print them::

        Batch num seqs Stats:
          16 seqs
          Mean: 1.2500000000000002
          Std dev: 0.43301270189221924
          Min/max: 1 / 2

    Mean and (population) standard deviation are accumulated in float64 one value at a time
    (:class:`returnn.util.stats.Stats`), which gives the reference's last digits.
    """

    def __init__(self):
        from returnn.util.stats import Stats
        self._stats = Stats()
        self.count = 0
        self.min = None
        self.max = None

    def collect(self, value) -> None:
        """Adds one value (int or float)."""
        import numpy
        self._stats.collect(numpy.array([[value]], dtype="float64"))
        self.count += 1
        self.min = value if self.min is None else min(self.min, value)
        self.max = value if self.max is None else max(self.max, value)

    def dump(self, stream, prefix: str = "") -> None:
        """Prints ``<prefix>Stats:`` and the indented lines to ``stream`` (``0 seqs`` and ``(No data)`` when
        empty)."""
        print(f"{prefix}Stats:", file=stream)
        print(f"  {self.count} seqs", file=stream)
        if not self.count:
            print("  (No data)", file=stream)
            return
        print(f"  Mean: {float(self._stats.get_mean()[0])}", file=stream)
        print(f"  Std dev: {float(self._stats.get_std_dev()[0])}", file=stream)
        print(f"  Min/max: {self.min} / {self.max}", file=stream)


def load_config(filename: str, extra_args=()):
    """A :class:`returnn.config.Config` read from ``filename`` (plus ``++key value`` style ``extra_args``),
    made the global config.

    :raises returnn.errors.ReturnnError: the file cannot be read or parsed
    """
    from returnn.config import Config, set_global_config
    config = Config()
    config.load_file(filename)
    config.parse_cmd_args(list(extra_args))
    set_global_config(config)
    return config
