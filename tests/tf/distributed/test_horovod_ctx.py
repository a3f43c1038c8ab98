"""returnn.tf.horovod (legacy TFHorovod): the reference's Horovod context API, answered by the own distributed
training."""

from returnn.config import Config


def test_get_ctx():
    import TFHorovod
    import returnn.tf.horovod as horovod

    assert TFHorovod is horovod
    assert horovod.get_ctx(config=Config()) is None  # not distributed
    ctx = horovod.get_ctx(config=Config({"use_horovod": True, "horovod_reduce_type": "param",
                                         "horovod_param_sync_step": 3}))
    assert (ctx.rank(), ctx.size(), ctx.local_rank(), ctx.local_size()) == (0, 1, 0, 1)  # a single process
    assert ctx.is_reduce_type_param() and not ctx.is_reduce_type_grad() and ctx.get_param_sync_step() == 3
    assert not ctx.should_sync_every_step() and ctx.is_dataset_distribution_shard()
    assert ctx.get_dataset_shard_batch_slice() == slice(0, None, 1)
