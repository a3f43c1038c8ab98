"""The ``analyze_data`` task: one pass over a dataset computing sequence-length statistics, the class
priors of the target and the mean/std of the input features.

Dataset: config ``analyze_dataset`` (``"train"``, ``"dev"``, ``"eval"``; default ``"train"``). With
``statistics_save_prefix`` set, writes ``<prefix>.log_priors.txt``, ``<prefix>.mean.txt`` and
``<prefix>.std_dev.txt`` (``numpy.savetxt``, one value per line), as the reference names them.
"""

from __future__ import annotations

import os
from typing import Dict, Optional

import numpy as np

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options import AnalysisOptions


def analyze_data(options: AnalysisOptions, datasets: Dict[str, object], *,
                 target: str = "classes") -> Dict[str, np.ndarray]:
    """Runs the analysis; returns ``{"mean", "std_dev", "log_priors"}`` (those that apply).

    :param options: the parsed ``analyze_dataset`` and ``statistics_save_prefix``
    :param datasets: name (``train``/``dev``/``eval``) → dataset
    :param target: the data key whose class priors are computed (config ``target``)
    :raises ConfigValueError: the chosen dataset is not defined
    """
    name = options.analyze_dataset
    dataset = datasets.get(name)
    if dataset is None:
        raise ConfigValueError("analyze_dataset", expected="one of the defined datasets %s" %
                               sorted(k for k, v in datasets.items() if v is not None), got=name)
    dataset.init_seq_order(epoch=1)
    keys = dataset.get_data_keys()
    input_key = "data" if "data" in keys else keys[0]
    dim = dataset.get_data_dim(input_key)
    sparse_in = dataset.is_data_sparse(input_key)
    sums = np.zeros([dim], np.float64)
    sq_sums = np.zeros([dim], np.float64)
    counts: Optional[np.ndarray] = None
    if target in keys and dataset.is_data_sparse(target):
        counts = np.zeros([dataset.get_data_dim(target)], np.float64)
    lengths = []
    frames = 0
    seq_idx = 0
    while dataset.is_less_than_num_seqs(seq_idx):
        dataset.load_seqs(seq_idx, seq_idx + 1)
        x = dataset.get_data(seq_idx, input_key)
        lengths.append(int(x.shape[0]) if x.ndim else 1)
        if not sparse_in:
            x2 = x.reshape(x.shape[0], -1).astype(np.float64)
            sums += x2.sum(axis=0)
            sq_sums += (x2 ** 2).sum(axis=0)
            frames += x2.shape[0]
        if counts is not None:
            y = dataset.get_data(seq_idx, target).reshape(-1)
            counts += np.bincount(y, minlength=counts.shape[0])[: counts.shape[0]]
        seq_idx += 1
    out: Dict[str, np.ndarray] = {}
    print("Analyze dataset %r: %i seqs, seq length min %s, max %s, mean %.2f" % (
        name, seq_idx, min(lengths) if lengths else 0, max(lengths) if lengths else 0,
        float(np.mean(lengths)) if lengths else 0.0), file=log.v1)
    if frames:
        mean = sums / frames
        out["mean"] = mean
        out["std_dev"] = np.sqrt(np.maximum(sq_sums / frames - mean ** 2, 0.0))
        print("Mean: %s" % (out["mean"],), file=log.v2)
        print("Std dev: %s" % (out["std_dev"],), file=log.v2)
    if counts is not None and counts.sum() > 0:
        with np.errstate(divide="ignore"):
            out["log_priors"] = np.log(counts / counts.sum())
        print("Prior (%r): %s" % (target, counts / counts.sum()), file=log.v2)
    prefix = options.statistics_save_prefix
    if prefix:
        for key, suffix in (("log_priors", "log_priors"), ("mean", "mean"), ("std_dev", "std_dev")):
            if key in out:
                filename = "%s.%s.txt" % (prefix, suffix)
                tmp = filename + ".tmp-%d" % os.getpid()
                np.savetxt(tmp, out[key])
                os.replace(tmp, filename)
                print("Wrote %s" % filename, file=log.v3)
    return out
