"""``tools/dump-forward-stats.py``: forwards a dataset of the config and collects the mean, standard deviation,
min and max of one layer's output over all frames (:class:`returnn.util.stats.Stats`), as the reference's tool::

    Load model: <checkpoint>
    Epoch: 1
    forward, finished after 5 steps, 0:00:00 elapsed (73.9% computing time)
    Layer 'lstm' Stats:
      20 seqs, 1016 total frames, 50.800000 average frames
      Mean: [...]
      Std dev: [...]
      Min/max: [...] / [...]

The dataset is the config's dict of ``--dataset`` with ``partition_epoch``, ``seq_ordering`` and
``epoch_wise_filter`` replaced (defaults 1 and ``sorted_reverse``: every sequence once, as the reference). Each
sequence's frames are the layer's output cut to the sequence's length. ``--dump_stats PREFIX`` writes
``PREFIX.mean.txt``, ``.std_dev.txt``, ``.min.txt``, ``.max.txt`` and ``.info.txt``.
"""

from __future__ import annotations

from typing import Any, Optional

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.tf.tools import common
from returnn.util.stats import Stats

GREETING = "RETURNN dump-forward starting up."


def forward_stats(config_file: str, *, layer: str, dataset: str = "train", reset_partition_epoch: Optional[int] = 1,
                  reset_seq_ordering: Optional[str] = "sorted_reverse", reset_epoch_wise_filter: Any = None,
                  epoch: int = 1, load: Optional[str] = None, dump_stats: Optional[str] = None,
                  command_line_options=()) -> Stats:
    """Runs the tool (see module doc).

    :param reset_epoch_wise_filter: the ``epoch_wise_filter`` for the dataset (None: as in the config)
    :param load: the checkpoint (default: as the ``forward`` task chooses, ``load``/``load_epoch``/newest)
    :return: the collected stats
    :raises ReturnnError: bad config, unknown layer or dataset key, no checkpoint
    """
    from returnn.datasets import init_dataset
    from returnn.options import CheckpointOptions, RunOptions
    from returnn.tf.engine.model_selection import choose_model_for_eval

    rnn = common.start_up(config_file, greeting=GREETING, command_line_options=command_line_options,
                          with_data=False)
    engine, config = rnn.engine, rnn.config
    ds_dict = common.reset_dataset_dict(config, dataset, partition_epoch=reset_partition_epoch,
                                        seq_ordering=reset_seq_ordering, epoch_wise_filter=reset_epoch_wise_filter)
    data = init_dataset(ds_dict, default_kwargs={"name": dataset})
    if load:
        config.set("load", load)
    choice = choose_model_for_eval(CheckpointOptions.from_config(config), RunOptions.read_one(config, "model"),
                                   task="dump-forward-stats")
    config.set("load", choice.filename)
    engine.init_network_from_config(config, task="forward", eval_flag=False)
    print("Load model: %s" % choice.filename, file=log.v1)
    if layer not in engine.network.layers:
        from returnn.util.suggest import close_matches

        raise ConfigValueError("--layer", expected="a layer of the network", got=layer,
                               suggestions=close_matches(layer, list(engine.network.layers)))
    out = engine.network.get_layer(layer).output
    with engine.graph.as_default():
        out = out.copy_as_batch_major()
        fetches = {"out": out.placeholder}
        if out.time_dim_axis is not None:
            fetches["seq_lens"] = out.get_sequence_lengths()
    print("Epoch: %i" % epoch, file=log.v1)
    stats = Stats()

    def on_step(batch, values):
        for i in range(batch.num_seqs):
            value = values["out"][i]
            if "seq_lens" in values:
                value = value[:int(values["seq_lens"][i])]
            stats.collect(value)

    common.run_batches(engine, data, epoch=epoch, fetches=fetches, step_callback=on_step, name="forward")
    stats.dump(output_file_prefix=dump_stats, stream=log.v1, stream_prefix="Layer %r " % layer)
    return stats
