"""``Engine.analyze``: frame-wise statistics of the network's output distribution against its target, over one pass
of a dataset, as the reference's ``analyze`` (its statistics' names and the summary lines, observed).

Per frame with target label ``y`` and output distribution ``p``: the frame error (``argmax p != y``), the cross
entropy ``-log p[y]`` and a 20-bin histogram of ``p[y]`` over ``[0, 1]``; each also over the frames whose target
is config ``sil_label_idx`` (``_sil``) and over the others (``_no_sil``). ``batch_*`` are the values of the last
batch (nan where it has no such frame), ``accumulated_*`` those of the whole pass (frame-weighted);
``loss_perplexity`` is ``exp(loss_ce)`` and ``seq_length`` the number of frames.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.util.numbers_dict import NumbersDict
from returnn.util.timefmt import hms

NUM_BINS = 20
PREFIX = "stats:analyze:"
_SUBSETS = ("", "_sil", "_no_sil")


class FramewiseStatistics:
    """The statistics of the module doc, fed batch by batch.

    :param sil_label_idx: the target label counted as silence
    """

    def __init__(self, sil_label_idx: int):
        self.sil_label_idx = int(sil_label_idx)
        self.totals = {s: {"frames": 0, "errors": 0.0, "ce": 0.0, "hist": np.zeros(NUM_BINS)} for s in _SUBSETS}
        self.last_batch: Dict[str, Any] = {}

    def add(self, probs: np.ndarray, targets: np.ndarray) -> None:
        """One batch: ``probs`` ``[frames, classes]`` (the output distribution), ``targets`` ``[frames]`` (labels)."""
        probs = np.asarray(probs, np.float32)
        targets = np.asarray(targets).astype(np.int64)
        true_prob = probs[np.arange(len(targets)), targets]
        errors = (np.argmax(probs, axis=-1) != targets).astype(np.float32)
        ce = -np.log(true_prob)
        bins = np.clip(np.floor(true_prob * NUM_BINS).astype(np.int64), 0, NUM_BINS - 1)
        is_sil = targets == self.sil_label_idx
        batch: Dict[str, Any] = {}
        for subset, mask in (("", np.ones_like(is_sil)), ("_sil", is_sil), ("_no_sil", ~is_sil)):
            n = int(mask.sum())
            hist = np.bincount(bins[mask], minlength=NUM_BINS).astype(np.float32)
            with np.errstate(invalid="ignore", divide="ignore"):
                batch["frame_error" + subset] = np.float32(errors[mask].sum() / np.float32(n))
                batch["loss_ce" + subset] = np.float32(ce[mask].sum() / np.float32(n))
                batch["true_label_prob_histogram" + subset] = list(hist / np.float32(n))
            batch["loss_perplexity" + subset] = np.exp(batch["loss_ce" + subset])
            batch["seq_length" + subset] = n
            totals = self.totals[subset]
            totals["frames"] += n
            totals["errors"] += float(errors[mask].sum())
            totals["ce"] += float(ce[mask].astype(np.float64).sum())
            totals["hist"] += hist
        self.last_batch = batch

    def get_stats(self) -> Dict[str, Any]:
        """:return: ``stats:analyze:<name>`` → value, sorted by name (see the module doc)"""
        stats: Dict[str, Any] = {}
        for subset, totals in self.totals.items():
            n = totals["frames"]
            with np.errstate(invalid="ignore", divide="ignore"):
                ce = totals["ce"] / n if n else float("nan")
                stats["accumulated_frame_error" + subset] = totals["errors"] / n if n else float("nan")
                stats["accumulated_true_label_prob_histogram" + subset] = list(totals["hist"] / n) if n else \
                    [float("nan")] * NUM_BINS
            stats["accumulated_loss_ce" + subset] = ce
            stats["accumulated_loss_perplexity" + subset] = float(np.exp(ce))
            stats["accumulated_seq_length" + subset] = n
        stats.update({"batch_" + k: v for k, v in self.last_batch.items()})
        return {PREFIX + k: stats[k] for k in sorted(stats)}


def _output_and_target(network: Any):
    """:return: (the default output layer, its target data): a distribution over the target's classes"""
    layer = network.get_default_output_layer()
    target = getattr(layer, "target", None) or "classes"
    data = network.extern_data.data.get(target)
    if data is None or not data.sparse or layer.output.dim != data.dim:
        raise ConfigValueError("network", expected="an output layer with a distribution over the classes of a sparse "
                               "target for Engine.analyze", got="layer %r, target %r" % (layer.name, target))
    return layer, data


def analyze(state: Any, dataset: Any, sil_label_idx: int) -> Dict[str, Any]:
    """One pass of the network over ``dataset`` (train flag off) collecting :class:`FramewiseStatistics` of the
    default output layer; prints the reference's summary (``Finished analyzing of the dataset ...``, elapsed,
    number of mini-batches, frames, score, error, every statistic).

    :return: the statistics (:meth:`FramewiseStatistics.get_stats`)
    :raises ConfigValueError: the output layer is no distribution over a sparse target's classes
    """
    import tensorflow as tf

    from returnn.tf.engine.evaluation import format_values, loss_fetches
    from returnn.tf.engine.runner import Runner

    print("Analyze with network on %r." % (dataset,), file=log.v1)
    network = state.network
    layer, target = _output_and_target(network)
    with state.graph.as_default():
        output = layer.output.copy_as_batch_major()
        fetches = {"analyze:output": output.placeholder, "analyze:target": target.copy_as_batch_major().placeholder}
        if target.have_time_axis():
            fetches["analyze:lens"] = target.get_sequence_lengths()
        else:
            fetches["analyze:lens"] = tf.fill([tf.shape(fetches["analyze:target"])[0]], 1)
    stats = FramewiseStatistics(sil_label_idx)
    num_frames = [NumbersDict(0)]

    def on_step(batch, values):
        lens = values["analyze:lens"]
        probs = values["analyze:output"].reshape(len(lens), -1, output.dim)
        targets = values["analyze:target"].reshape(len(lens), -1)
        stats.add(np.concatenate([probs[i, :n] for i, n in enumerate(lens)]),
                  np.concatenate([targets[i, :n] for i, n in enumerate(lens)]))
        num_frames[0] = num_frames[0] + batch.num_frames

    state.strategy.init_epoch(dataset, state.epoch or 1)
    batches = dataset.generate_batches(epoch=state.epoch or 1, **state.options.batching.generate_batches_kwargs(
        train=False, recurrent_net=network.recurrent))
    feed = {state.train_flag: False} if state.train_flag is not None else {}
    runner = Runner(state, network=network, dataset=dataset, batches=batches, name="%s analyze" % state.epoch_str(),
                    loss_fetches=loss_fetches(state), extra_fetches=fetches, step_callback=on_step, feed_extra=feed)
    result = runner.run()
    print("Finished analyzing of the dataset %r." % (dataset,), file=log.v1)
    print("elapsed: %s" % hms(result.elapsed), file=log.v1)
    print("num mini-batches: %i" % result.num_steps, file=log.v1)
    print("total num_frames: %r" % (num_frames[0],), file=log.v1)
    print("score: %s" % format_values(result.scores()), file=log.v1)
    print("error: %s" % (format_values(result.errors()) if result.errors() else None), file=log.v1)
    values = stats.get_stats()
    for key, value in values.items():
        print("%s: %s" % (key, value), file=log.v1)
    print("That are all collected stats.", file=log.v1)
    return values


def sil_label_idx_of(value: Optional[int]) -> int:
    """:return: config ``sil_label_idx``
    :raises ConfigValueError: not set (the reference requires it for ``analyze``)"""
    if value is None:
        raise ConfigValueError("sil_label_idx", expected="the silence label (an int) for Engine.analyze", got=None)
    return int(value)
