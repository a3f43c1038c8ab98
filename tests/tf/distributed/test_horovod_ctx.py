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


def test_get_ctx_of_the_global_config():
    """Without a config argument: the global config's distributed keys (read through returnn.options); keys of a run
    that is not distributed are not checked, as before."""
    import pytest

    import returnn.tf.horovod as horovod
    from returnn.config import global_config_ctx
    from returnn.errors import ConfigValueError

    with global_config_ctx(None):
        assert horovod.get_ctx() is None
    with global_config_ctx(Config({"horovod_reduce_type": "bogus"})):
        assert horovod.get_ctx() is None  # not distributed: the other keys are not parsed
    with global_config_ctx(Config({"distributed": True, "horovod_dataset_distribution": "random_seed_offset"})):
        ctx = horovod.get_ctx()
        assert ctx.is_dataset_distribution_random_seed_offset() and ctx.is_reduce_type_grad()
    with global_config_ctx(Config({"use_horovod": True, "horovod_reduce_type": "grads"})):
        with pytest.raises(ConfigValueError, match="horovod_reduce_type"):
            horovod.get_ctx()
