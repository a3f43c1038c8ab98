"""The ``search`` task: the network with the search flag (beam search in ``choice`` layers) over
``search_data`` (default ``eval``), hypotheses logged and optionally written to ``search_output_file``.

Config: ``search_data`` (dataset dict, or ``"eval"``/``"dev"``/``"train"``), ``search_output_layer``
(layer name or list, default ``"output"``), ``search_do_eval`` (default True: losses/errors against the
targets), ``search_output_file`` and ``search_output_file_format`` (``"txt"``: one hypothesis per line, as
text; ``"py"``: a Python dict ``seq_tag -> hypothesis``, for an output layer that still has a beam (no
``decide``) the n-best list ``[(score, hypothesis), ...]`` best first, one tuple per line, scores as plain
floats (the reference writes ``np.float32(...)``); with several output layers the value is a dict layer ->
hypothesis). Hypotheses are label strings joined by spaces when the dataset has a vocabulary for the target,
else lists of label indices.

Log lines as the reference: ``Search with network on <dataset>.``, at verbosity 4 ``seq_idx: I, seq_tag:
'<tag>', output '<layer>': array([...], dtype=int32)``, per step ``epoch N search, step I, error:<loss> X,
loss Y, ...``, then ``Search done. Num steps N, Final: score X error Y``.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options import RunOptions, SearchOptions
from returnn.tf.engine.evaluation import format_values
from returnn.tf.engine.runner import LossFetches, Runner
from returnn.tf.engine.state import RunState


def get_search_dataset(options: SearchOptions, datasets: Dict[str, Any]):
    """``search_data`` as a dataset (dict spec, or the name of one of train/dev/eval); default ``eval``.

    :param options: the parsed ``search_data``
    :param datasets: name -> the run's datasets (``train``, ``dev``, ``eval``)
    :raises ConfigValueError: nothing to search on
    """
    spec = options.search_data
    if spec is None or spec == "eval":
        dataset = datasets.get("eval")
    elif isinstance(spec, str) and spec in ("train", "dev"):
        dataset = datasets.get(spec)
    else:
        from returnn.datasets import init_dataset

        dataset = init_dataset(spec, default_kwargs={"name": "search_data", "seq_ordering": "default"})
    if dataset is None:
        raise ConfigValueError("search_data", expected="a dataset to search on (search_data, or eval)", got=spec)
    return dataset


def search(state: RunState, dataset, *, do_eval: bool = True, output_layer_names: Union[str, Sequence[str]] = "output",
           output_file: Optional[str] = None, output_file_format: str = "txt") -> None:
    """Runs the search over ``dataset`` (network built with :meth:`Engine.init_network_from_config`
    ``(task="search")``, or with its ``use_search_flag``).

    :param do_eval: also fetch the losses/errors against the targets (those the network built)
    :param output_layer_names: the layer (or layers) whose hypotheses are logged and written
    :param output_file: write the hypotheses there (None: not written)
    :param output_file_format: ``"txt"`` or ``"py"`` (see the module doc)
    :raises ConfigValueError: a name that is no layer of the network (config key ``search_output_layer``), or an
        unknown ``output_file_format`` (``search_output_file_format``)
    """
    names: List[str] = [output_layer_names] if isinstance(output_layer_names, str) else list(output_layer_names)
    network = state.network
    for name in names:
        if name not in network.layers:
            from returnn.util.suggest import close_matches

            raise ConfigValueError("search_output_layer", expected="a layer of the network", got=name,
                                   suggestions=close_matches(name, list(network.layers)))
    file_format = output_file_format
    if file_format not in ("txt", "py"):
        raise ConfigValueError("search_output_file_format", expected="'txt' or 'py'", got=file_format)
    with state.graph.as_default():
        fetches = _output_fetches(network, names)
        loss_fetches = LossFetches(network) if do_eval else None
    target = state.options.get(RunOptions).target
    vocab = (getattr(dataset, "labels", None) or {}).get(target)
    print("Search with network on %r." % (dataset,), file=log.v1)
    _print_output_beams(network, names)
    results: Dict[str, Any] = {}
    epoch = state.epoch or 1

    def on_step(batch, values):
        for b in range(batch.num_seqs):
            tag = batch.seq_tags[b]
            hyps = {}
            for i, name in enumerate(names):
                arr = values["out%i" % i]
                beam = arr.shape[0] // max(batch.num_seqs, 1) if arr.shape[0] != batch.num_seqs else 1
                row = beam * b
                lens = values.get("len%i" % i)
                # the hypotheses of this sequence, best first (one without beam)
                seqs = [arr[row + k][: int(lens[row + k])] if lens is not None else arr[row + k] for k in range(beam)]
                if beam > 1:  # all hypotheses, as the reference
                    print("seq_idx: %i, seq_tag: %r, outputs %r: %r" % (batch.seq_idx[b], tag, name, seqs),
                          file=log.v4)
                else:
                    print("seq_idx: %i, seq_tag: %r, output %r: %r" % (batch.seq_idx[b], tag, name, seqs[0]),
                          file=log.v4)
                hyps[name] = _as_hyp(seqs[0], vocab)
                if "scores%i" % i in values and file_format == "py":  # n-best list, as the reference
                    hyps[name] = [(float(values["scores%i" % i][b, k]), _as_hyp(seq, vocab))
                                  for k, seq in enumerate(seqs)]
            results[tag] = hyps[names[0]] if len(names) == 1 else hyps

    state.strategy.init_epoch(dataset, epoch)
    batches = dataset.generate_batches(epoch=epoch, **state.options.batching.generate_batches_kwargs(train=False))
    runner = Runner(state, network=network, dataset=dataset, batches=batches, name="epoch %i search" % epoch,
                    loss_fetches=loss_fetches, extra_fetches=fetches, step_callback=on_step)
    result = runner.run()
    scores = result.scores() if loss_fetches else {}
    scores = {k: v for k, v in scores.items() if result.loss.get(k)}
    errors = result.errors() if loss_fetches else {}
    print("Search done. Num steps %i, Final: score %s error %s" % (
        result.num_steps, format_values(scores) if scores else None, format_values(errors) if errors else None),
        file=log.v1)
    if output_file:
        write_search_output_file(output_file, results, file_format)


def _output_fetches(network: Any, names: Sequence[str]) -> Dict[str, Any]:
    """:return: per output layer ``i``: ``out<i>`` (its batch-major output), ``len<i>`` (the lengths of its time
        axis, if any) and ``scores<i>`` (``[B, K]`` beam scores, best first, where its beam has them)"""
    fetches: Dict[str, Any] = {}
    for i, name in enumerate(names):
        output = network.get_layer(name).output
        if output.batch_dim_axis is not None and output.batch_dim_axis != 0:
            output = output.copy_as_batch_major()
        fetches["out%i" % i] = output.placeholder
        if output.time_dim_axis is not None:
            fetches["len%i" % i] = output.get_sequence_lengths()
        beam = getattr(network.get_layer(name).output, "beam", None)
        if beam is not None and getattr(beam, "scores", None) is not None:
            fetches["scores%i" % i] = beam.scores  # [B, K], best first: n-best lists
    return fetches


def _print_output_beams(network: Any, names: Sequence[str]) -> None:
    """Logs whether each output layer has a beam (the reference's lines)."""
    for name in names:
        layer = network.get_layer(name)
        beam = getattr(layer.output, "beam", None)
        if beam is None:
            print("Given output %r is after decision (no beam)." % (layer,), file=log.v1)
        else:
            print("Given output %r has beam SearchBeam(name=%r, beam_size=%i)." % (layer, beam.name, beam.beam_size),
                  file=log.v1)


def _as_hyp(seq: np.ndarray, vocab) -> Any:
    if vocab is not None and seq.ndim == 1 and np.issubdtype(seq.dtype, np.integer):
        return " ".join(vocab[int(i)] for i in seq)
    return seq.tolist()


def write_search_output_file(filename: str, results: Dict[str, Any], file_format: str) -> None:
    """Writes the hypotheses (temp file + rename; ``.gz`` compresses)."""
    print("Write search output to %r" % filename, file=log.v3)
    if file_format == "py":
        parts = ["{\n"]
        for tag, hyp in results.items():
            if isinstance(hyp, list) and hyp and isinstance(hyp[0], tuple):  # n-best: one (score, hyp) per line
                parts.append("%r: [\n" % (tag,) + "".join("(%r, %r),\n" % item for item in hyp) + "],\n")
            else:
                parts.append("%r: %r,\n" % (tag, hyp))
        text = "".join(parts + ["}\n"])
    else:  # "txt": one hypothesis per line, as plain text (the reference writes str, not repr)
        text = "".join("%s\n" % (hyp,) for hyp in results.values())
    directory = os.path.dirname(os.path.abspath(filename))
    os.makedirs(directory, exist_ok=True)
    tmp = filename + ".tmp-%d" % os.getpid()
    if filename.endswith(".gz"):
        import gzip

        with gzip.open(tmp, "wt") as f:
            f.write(text)
    else:
        with open(tmp, "w") as f:
            f.write(text)
    os.replace(tmp, filename)
