#!/usr/bin/env python3
"""
Plot (or tabulate) the scores per epoch stored in a ``learning_rate_file`` (the newbob file of a training run).

Usage::

    tools/plot-learning-curve.py LR_FILE [--out curve.png] [--keys dev_score,dev_error] [--percent-errors]
    tools/plot-learning-curve.py LR_FILE --table      # markdown table on stdout, needs no matplotlib

The PNG has two panels sharing the epoch axis: scores (``*_score`` keys; losses) on top, errors (``*_error``
keys, e.g. the CTC label error rate = CER) below, and the learning rate on a log-scaled right axis of the
top panel. ``:meta:`` entries are ignored. ``--keys`` restricts the plotted/tabulated keys (comma
separated); by default all keys found in any epoch are used. Epochs without a key leave a gap.

matplotlib is needed only for the PNG (``python3 -m pip install matplotlib``); without it the tool says so
and exits with status 2. Bad or unreadable files exit with status 1 and one message.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from returnn.errors import ReturnnError  # noqa: E402
from returnn.lr_control.file_format import read_learning_rate_file  # noqa: E402


def collect(filename: str, keys: list[str] | None = None) -> tuple[list[int], list[float | None], dict]:
    """
    :return: (epochs sorted, learning rate per epoch, {key: [value or None per epoch]}) with keys sorted
    :raises ReturnnError: (DataFileError) unreadable/invalid file
    :raises ValueError: a requested key does not occur in any epoch (message lists the available keys)
    """
    data = read_learning_rate_file(filename)
    epochs = sorted(data)
    available = sorted({k for e in epochs for k in data[e].error})
    if keys:
        missing = [k for k in keys if k not in available]
        if missing:
            raise ValueError(f"{filename}: key(s) {missing} not found; available: {available}")
    else:
        keys = available
    lrs = [data[e].learning_rate for e in epochs]
    series = {k: [(float(data[e].error[k]) if k in data[e].error else None) for e in epochs] for k in keys}
    return epochs, lrs, series


def format_table(epochs, lrs, series, *, percent_errors: bool = False) -> str:
    """:return: a markdown table ``| epoch | learning rate | key... |`` (errors in % with percent_errors)"""
    keys = list(series)
    header = ["epoch", "learning rate"] + [f"{k} (%)" if percent_errors and k.endswith("_error") else k for k in keys]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for i, epoch in enumerate(epochs):
        cells = [str(epoch), "" if lrs[i] is None else f"{lrs[i]:.3g}"]
        for k in keys:
            v = series[k][i]
            if v is None:
                cells.append("")
            elif percent_errors and k.endswith("_error"):
                cells.append(f"{100.0 * v:.2f}")
            else:
                cells.append(f"{v:.4f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(epochs, lrs, series, out: str, *, title: str, percent_errors: bool = False):
    """Write the PNG (see module docstring) via a temp file + rename. Needs matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    score_keys = [k for k in series if not k.endswith("_error")]
    error_keys = [k for k in series if k.endswith("_error")]
    n_panels = 2 if score_keys and error_keys else 1
    fig, axes = plt.subplots(n_panels, 1, sharex=True, figsize=(7, 3.2 * n_panels), squeeze=False)
    panels = []
    if score_keys:
        panels.append((axes[len(panels)][0], score_keys, "score"))
    if error_keys:
        panels.append((axes[len(panels)][0], error_keys, "error (%)" if percent_errors else "error"))
    # one colour per dataset prefix ("dev", "eval", "train", ...), the same in both panels
    prefixes = sorted({k.rsplit("_", 1)[0] for k in series})
    colors = {p: f"C{i % 10}" for i, p in enumerate(prefixes)}
    for ax, keys, label in panels:
        for k in keys:
            scale = 100.0 if percent_errors and k.endswith("_error") else 1.0
            ys = [None if v is None else v * scale for v in series[k]]
            ax.plot(epochs, [float("nan") if y is None else y for y in ys], marker="o", label=k,
                    color=colors[k.rsplit("_", 1)[0]])
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    top = axes[0][0]
    if any(lr is not None for lr in lrs):
        ax_lr = top.twinx()
        ax_lr.plot(epochs, [float("nan") if lr is None else lr for lr in lrs], color="gray", linestyle="--",
                   label="learning rate")
        ax_lr.set_yscale("log")
        ax_lr.set_ylabel("learning rate", color="gray")
    from matplotlib.ticker import MaxNLocator

    axes[-1][0].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[-1][0].set_xlabel("epoch")
    top.set_title(title)
    fig.tight_layout()
    base, ext = os.path.splitext(out)
    tmp = f"{base}.tmp{os.getpid()}{ext or '.png'}"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Plot the scores of a learning_rate_file per epoch.")
    parser.add_argument("lr_file", help="learning_rate_file of a training run (e.g. newbob.data)")
    parser.add_argument("--out", help="PNG to write (default: <lr_file>.png)")
    parser.add_argument("--keys", help="comma-separated score keys (default: all), e.g. dev_score,dev_error")
    parser.add_argument("--table", action="store_true", help="print a markdown table instead of plotting")
    parser.add_argument("--percent-errors", action="store_true", help="show *_error keys in percent")
    parser.add_argument("--title", help="plot title (default: the file name)")
    args = parser.parse_args(argv)
    keys = [k.strip() for k in args.keys.split(",") if k.strip()] if args.keys else None
    try:
        epochs, lrs, series = collect(args.lr_file, keys)
    except (ReturnnError, ValueError) as exc:
        print(f"plot-learning-curve.py: error: {exc}", file=sys.stderr)
        return 1
    if not epochs:
        print(f"plot-learning-curve.py: error: {args.lr_file}: no epochs stored yet", file=sys.stderr)
        return 1
    if args.table:
        sys.stdout.write(format_table(epochs, lrs, series, percent_errors=args.percent_errors))
        return 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(
            "plot-learning-curve.py: matplotlib is needed for the PNG (it is an optional dependency of this "
            "tool only): python3 -m pip install matplotlib. Use --table for a text table without it.",
            file=sys.stderr,
        )
        return 2
    out = args.out or args.lr_file + ".png"
    plot(epochs, lrs, series, out, title=args.title or os.path.basename(args.lr_file),
         percent_errors=args.percent_errors)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
