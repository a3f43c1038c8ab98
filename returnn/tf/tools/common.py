"""What the network tools share: starting up like ``rnn.py`` (config, log, datasets, engine), loading the model
as training would continue from it, the dataset named on the command line, and running fetches over one sequence
or a whole dataset."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

import numpy

from returnn.errors import ConfigValueError


def start_up(config_file: str, *, greeting: str, command_line_options: Sequence[str] = (),
             config_updates: Optional[Dict[str, Any]] = None, with_data: bool = True):
    """Config, log, start-up lines, backend, the config's datasets (when ``with_data`` and the task needs them)
    and an engine without network, as ``rnn.py`` starts (:func:`returnn.__main__.init`).

    :return: the module :mod:`returnn.__main__` (its ``config``, ``engine``, ``train_data``, ``dev_data``,
        ``eval_data``)
    :raises ReturnnError: bad config file or options
    """
    import returnn.__main__ as rnn

    updates = dict(config_updates or {})
    if not with_data:
        updates.setdefault("need_data", False)
    rnn.init(config_filename=config_file, command_line_options=list(command_line_options),
             config_updates=updates, extra_greeting=greeting)
    return rnn


def init_network_as_training_continues(engine, config, *, eval_flag: bool = True) -> None:
    """Builds the network (train flag off) and loads the checkpoint training would continue from (config
    ``model``'s newest, ``load``, ...; random parameters when there is none), as the reference's tools that
    start the engine for training. The engine's ``epoch`` is that checkpoint's epoch (1 for random parameters).

    :raises ConfigValueError: ``load``/``load_epoch`` name a missing checkpoint
    """
    from returnn.options import CheckpointOptions, RunOptions
    from returnn.tf.engine.model_selection import choose_model_for_train

    choice = choose_model_for_train(CheckpointOptions.from_config(config), RunOptions.read_one(config, "model"))
    if choice.filename:
        config.set("load", choice.filename)
    else:
        config.set("allow_random_model_init", True)
    engine.init_network_from_config(config, task="forward", eval_flag=eval_flag)
    if not engine.epoch:
        engine.epoch = 1


def dataset_from_arg(rnn, config, name: str, *, option: str = "--data"):
    """The dataset named on a tool's command line: ``train``/``dev``/``eval`` (the ones started up),
    ``config:<key>`` (the dataset dict of config key ``<key>``, built anew), or a dataset dict / spec string.

    :raises ConfigValueError: the name gives no dataset
    """
    from returnn.datasets import init_dataset
    from returnn.datasets.from_config import init_dataset_from_config_key

    started = {"train": rnn.train_data, "dev": rnn.dev_data, "eval": rnn.eval_data}
    if name in started and started[name] is not None:
        return started[name]
    key = name[len("config:"):] if name.startswith("config:") else name
    if key in started or name.startswith("config:"):
        dataset = init_dataset_from_config_key(config, key, is_train=(key == "train"))
        if dataset is None:
            raise ConfigValueError(option, expected="a dataset the config defines (train, dev, eval, config:<key>)",
                                   got=name)
        return dataset
    return init_dataset(name)


def reset_dataset_dict(config, key: str, *, partition_epoch: Optional[int], seq_ordering: Optional[str],
                       epoch_wise_filter: Any) -> Dict[str, Any]:
    """The dataset dict of config ``key`` with ``partition_epoch``, ``seq_ordering`` and ``epoch_wise_filter``
    replaced where given (the tools' ``--reset_*`` options), printing the reference's ``NOTE:`` lines.

    :raises ConfigValueError: the config has no dataset dict under ``key``
    """
    from returnn.log import log
    from returnn.options.data import dataset_spec_of_key

    value = dataset_spec_of_key(config, key)
    if not isinstance(value, dict):
        raise ConfigValueError(key, expected="a dataset dict in the config (for the --reset_* options)", got=value)
    value = dict(value)
    if partition_epoch is not None:
        print("NOTE: We are resetting partition epoch to %i." % partition_epoch, file=log.v3)
        value["partition_epoch"] = partition_epoch
    if seq_ordering is not None:
        print("NOTE: We will use %r seq ordering." % (seq_ordering,), file=log.v3)
        value["seq_ordering"] = seq_ordering
    if epoch_wise_filter is not None:
        print("NOTE: We will use epoch-wise filter %r." % (epoch_wise_filter,), file=log.v3)
        value["epoch_wise_filter"] = epoch_wise_filter
    return value


def layer_output_fetches(engine, layer, prefix: str) -> Dict[str, Any]:
    """``{"<prefix>:out": output tensor, "<prefix>:shape(<axis>)": sizes of each dynamic axis}`` (axis counted
    with the batch axis), as the reference's ``dump-forward.py`` names them."""
    out = layer.output
    fetches = {"%s:out" % prefix: out.placeholder}
    with engine.graph.as_default():
        for axis, tag in enumerate(out.dim_tags):
            if tag.is_batch_dim() or not tag.is_dynamic():
                continue
            size = tag.dyn_size
            if size is not None:
                fetches["%s:shape(%i)" % (prefix, axis)] = size
    return fetches


def run_seq(engine, dataset, seq_idx: int, fetches: Dict[str, Any]) -> Dict[str, numpy.ndarray]:
    """Runs ``fetches`` on a batch of sequence ``seq_idx`` alone (``dataset`` already ``init_seq_order``-ed).

    :return: fetch name -> value (with the batch axis of size 1)
    """
    from returnn.datasets.batching import Batch
    from returnn.tf.engine.runner import Runner

    dataset.load_seqs(seq_idx, seq_idx + 1)
    lengths = dataset.get_seq_length(seq_idx)
    keys = dataset.get_data_keys()
    batch = Batch()
    batch.add_sequence_as_slice(seq_idx, {k: 0 for k in keys}, {k: int(lengths[k]) for k in keys})
    result: Dict[str, numpy.ndarray] = {}
    runner = Runner(engine.state, network=engine.network, dataset=dataset, batches=[batch], name="forward",
                    extra_fetches=fetches, step_callback=lambda _batch, values: result.update(values), report=False)
    runner.run()
    return {k: result[k] for k in fetches}


def run_batches(engine, dataset, *, epoch: int, fetches: Dict[str, Any],
                step_callback: Callable[[Any, Dict[str, Any]], None], name: str, batch_size: Optional[int] = None,
                max_seqs: Optional[int] = None, max_seq_idx: Optional[int] = None,
                seq_list: Optional[Sequence[str]] = None, min_seq_length: Any = None,
                feed_extra: Optional[Dict[Any, Any]] = None) -> None:
    """Runs ``fetches`` over ``dataset`` (``init_seq_order(epoch, seq_list)`` is called here) in batches of the
    config's batching (``batch_size``/``max_seqs`` override it), calling ``step_callback(batch, values)`` after each
    step; prints the ``<name>, finished after N steps, ...`` line. ``max_seq_idx``: only the sequences up to this
    index (inclusive); ``min_seq_length``: leave out shorter sequences (int, or a dict per data key)."""
    from returnn.tf.engine.runner import Runner

    dataset.init_seq_order(epoch=epoch, seq_list=list(seq_list) if seq_list else None)
    kwargs = engine.state.options.batching.generate_batches_kwargs(train=False, batch_size=batch_size or None)
    if batch_size:
        kwargs["batch_size"] = batch_size
    if max_seqs:
        kwargs["max_seqs"] = max_seqs
    if min_seq_length:
        kwargs["min_seq_length"] = min_seq_length
    batches = dataset.generate_batches(epoch=epoch, **kwargs)
    if max_seq_idx is not None:
        batches = _batches_up_to(batches, max_seq_idx)
    runner = Runner(engine.state, network=engine.network, dataset=dataset, batches=batches, name=name,
                    extra_fetches=fetches, step_callback=step_callback, feed_extra=feed_extra)
    runner.run()


def _batches_up_to(batches, max_seq_idx: int):
    """The batches whose sequences all have an index <= ``max_seq_idx`` (the first batch beyond ends it)."""
    from returnn.datasets.batching import Batch

    class _Limited:
        def __init__(self):
            self._inner = batches

        def __iter__(self):
            for batch in self._inner:
                seqs = [s for s in batch.seqs if s.seq_idx <= max_seq_idx]
                if not seqs:
                    return
                if len(seqs) < len(batch.seqs):
                    cut = Batch()
                    for s in seqs:
                        cut.add_sequence_as_slice(s.seq_idx, s.seq_start_frame, s.frame_length)
                    yield cut
                    return
                yield batch

        def __getattr__(self, item):
            return getattr(self._inner, item)

    return _Limited()
