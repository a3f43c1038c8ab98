#!/usr/bin/env python3
"""
Per-epoch table of the ASR demo: dev/test CER from the learning-rate file, and the test set decoded with every
saved epoch (``forward`` + greedy CTC decoding) scored as CER **and WER**.

Usage (from the repository root, after training)::

    python3 demos/asr-synth/score-epochs.py                       # all saved epochs of blstm-ctc.config
    python3 demos/asr-synth/score-epochs.py --epochs 5 10         # only these

For each epoch whose checkpoint exists (``<model>.NNN.index``) it runs
``./rnn.py <config> ++task forward ++load_epoch N ++output_file <out>/forward.test.NNN.hdf``, decodes the
posteriors with ``ctc-greedy-decode.py`` and scores them against ``<data>/test.txt`` with
``tools/calculate-word-error-rate.py`` (both loaded as modules). Prints a markdown
table and writes it to ``<out>/epochs.md`` (temp name + rename). ``ASR_SYNTH_DATA`` / ``ASR_SYNTH_OUT`` are
honoured as by the config; the forward HDFs are deleted after scoring unless ``--keep-hdf``.

Keeping every epoch's checkpoint needs ``cleanup_old_models = False`` (as ``blstm-ctc.config`` sets);
epochs whose checkpoint is gone are listed with the learning-rate file's numbers only.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from returnn.lr_control.file_format import read_learning_rate_file  # noqa: E402


def _load_script(filename: str, name: str):
    """:return: the module of a hyphen-named script (``ctc-greedy-decode.py``, the WER tool)"""
    spec = importlib.util.spec_from_file_location(name, filename)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def forward_epoch(config: str, epoch: int, hdf: str) -> None:
    """Runs the forward task of ``config`` with ``load_epoch = epoch`` into ``hdf``.

    :raises RuntimeError: rnn.py failed (its last output lines are included)
    """
    cmd = [sys.executable, os.path.join(ROOT, "rnn.py"), config, "++task", "forward", "++load_epoch", str(epoch),
           "++output_file", hdf, "++log_verbosity", "2"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-8:])
        raise RuntimeError(f"forward of epoch {epoch} failed (exit {proc.returncode}):\n{tail}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Per-epoch CER/WER table of the asr-synth demo.")
    parser.add_argument("--config", default=os.path.join(HERE, "blstm-ctc.config"))
    parser.add_argument("--epochs", type=int, nargs="*", help="epochs to decode (default: all saved)")
    parser.add_argument("--keep-hdf", action="store_true", help="keep the forward HDFs")
    args = parser.parse_args(argv)
    data_dir = os.environ.get("ASR_SYNTH_DATA", os.path.join(ROOT, "demos/asr-synth/data"))
    out_dir = os.environ.get("ASR_SYNTH_OUT", os.path.join(ROOT, "demos/asr-synth/out"))
    lr_file = os.path.join(out_dir, "newbob.data")
    if not os.path.exists(lr_file):
        print(f"score-epochs.py: error: no learning-rate file {lr_file}; train first", file=sys.stderr)
        return 1
    epochs_data = read_learning_rate_file(lr_file)
    saved = sorted(int(p.rsplit(".", 2)[-2]) for p in glob.glob(os.path.join(out_dir, "net-model", "network.*.index")))
    todo = args.epochs if args.epochs else saved
    decoder = _load_script(os.path.join(HERE, "ctc-greedy-decode.py"), "ctc_greedy_decode")
    wer_tool = _load_script(os.path.join(ROOT, "tools", "calculate-word-error-rate.py"), "calculate_word_error_rate")
    vocab = decoder.read_vocab(os.path.join(data_dir, "vocab.txt"))
    refs = wer_tool.load_transcriptions(os.path.join(data_dir, "test.txt"))
    rows = ["| epoch | learning rate | train score | dev score | dev CER | test CER | test CER (decoded) "
            "| test WER (decoded) | train time |", "|---|---|---|---|---|---|---|---|---|"]
    for epoch in sorted(set(epochs_data) | set(todo)):
        info = epochs_data.get(epoch)
        err = info.error if info is not None else {}
        lr = f"{info.learning_rate:g}" if info is not None else ""
        cells = [str(epoch), lr, f"{err.get('train_score', float('nan')):.4f}",
                 f"{err.get('dev_score', float('nan')):.4f}",
                 f"{100 * err.get('dev_error', float('nan')):.2f} %", f"{100 * err.get('eval_error', float('nan')):.2f} %"]
        if epoch in todo and epoch in saved:
            hdf = os.path.join(out_dir, f"forward.test.{epoch:03d}.hdf")
            forward_epoch(args.config, epoch, hdf)
            words, chars, _, _ = wer_tool.score(refs, dict(decoder.decode_file(hdf, vocab)))
            if not args.keep_hdf:
                os.remove(hdf)
            cells += [f"{100 * chars.rate:.2f} %", f"{100 * words.rate:.2f} %"]
        else:
            cells += ["", ""]
        secs = info.meta.get("epoch_train_time_secs") if info is not None else None
        cells.append(f"{int(secs) // 60}:{int(secs) % 60:02d}" if secs is not None else "")
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    target = os.path.join(out_dir, "epochs.md")
    tmp = f"{target}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf8") as f:
        f.write(table)
    os.replace(tmp, target)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
