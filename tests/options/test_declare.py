"""Options declared once (returnn.options): reading through the Config getters, valid ranges, one error per key."""

from __future__ import annotations

import dataclasses

import pytest

from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.options import GROUPS, BatchingOptions, CheckpointOptions, DistributedKeys, OptionGroup, option


def test_every_key_declared_once_with_a_meaning():
    keys = [opt.key for group in GROUPS for opt in group.declared()]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
    for group in GROUPS:
        assert group.topic and dataclasses.is_dataclass(group)
        for opt in group.declared():
            assert len(opt.doc) > 10, opt.key


def test_defaults_without_config():
    for group in GROUPS:
        group.from_config(Config())  # nothing set: every default, no error
    opts = BatchingOptions.from_config(Config())
    assert (opts.batch_size, opts.max_seqs, opts.max_seq_length, opts.shuffle_batches) == (1, -1, None, False)


def test_values_are_read_with_the_config_getters():
    config = Config({"max_seqs": "40", "shuffle_batches": "yes", "max_seq_length": "200", "batch_size": "5000"})
    opts = BatchingOptions.from_config(config)
    assert (opts.max_seqs, opts.shuffle_batches, opts.max_seq_length, opts.batch_size) == (40, True, 200, 5000)
    config = Config()
    config.add_line("load_epoch", "3")  # a line-based config: a string
    assert CheckpointOptions.from_config(config).load_epoch_number == 3


@pytest.mark.parametrize("value", [0, -5, None, 2.5, {"data": 0}, {}, True])
def test_batch_size_out_of_range(value):
    """The reference rejects these when it builds the first batch ("batch_size must be set and be greater than 0",
    an AssertionError, a TypeError); here one error names the key before anything is built."""
    with pytest.raises(ConfigValueError) as info:
        BatchingOptions.from_config(Config({"batch_size": value}))
    err = info.value
    assert err.key == "batch_size" and err.got == value
    assert str(err).startswith("config key 'batch_size': expected an int > 0 (frames per batch, padding included) "
                               "or a dict data key -> int > 0, got ")
    assert "max_seqs" in err.hint


def test_batch_size_not_a_number():
    with pytest.raises(ConfigValueError, match="config key 'batch_size': expected an integer, got 'abc'"):
        BatchingOptions.from_config(Config({"batch_size": "abc"}))


@pytest.mark.parametrize("value", [1, 20000, {"data": 300, "classes": 100}])
def test_batch_size_valid(value):
    assert BatchingOptions.from_config(Config({"batch_size": value})).batch_size == value


def test_choices_with_did_you_mean_and_min():
    with pytest.raises(ConfigValueError) as info:
        DistributedKeys.from_config(Config({"horovod_reduce_type": "grads"}))
    assert info.value.suggestions == ("grad",)
    with pytest.raises(ConfigValueError) as info:
        DistributedKeys.from_config(Config({"horovod_reduce_type": "xyz"}))
    assert info.value.suggestions == ("grad", "param")  # no close one: all (few) choices
    with pytest.raises(ConfigValueError, match="expected an integer >= 1 .steps between parameter averaging., got 0"):
        DistributedKeys.from_config(Config({"horovod_param_sync_step": 0}))


def test_wrong_type_names_the_key():
    with pytest.raises(ConfigValueError, match="config key 'num_epochs': expected an integer, got 'five'"):
        from returnn.options import TrainingOptions

        TrainingOptions.from_config(Config({"num_epochs": "five"}))


def test_overrides_and_read_one():
    opts = BatchingOptions.from_config(Config({"batch_size": 0}), batch_size=100)
    assert opts.batch_size == 100
    with pytest.raises(ConfigValueError):
        BatchingOptions.from_config(Config(), batch_size=0)
    assert CheckpointOptions.read_one(Config({"load": "/x/m.003"}), "load") == "/x/m.003"
    with pytest.raises(KeyError):
        CheckpointOptions.read_one(Config(), "num_epochs")


def test_own_group():
    @dataclasses.dataclass(frozen=True)
    class MyOptions(OptionGroup):
        topic = "test"
        size: int = option(3, "the size of something", kind="int", min=1, max=10)
        name: str = option("a", "the name of something", kind="str", choices=("a", "b"))

    assert MyOptions.from_config(Config({"size": 10, "name": "b"})) == MyOptions(size=10, name="b")
    with pytest.raises(ConfigValueError, match=r"config key 'size': expected a number in \[1, 10\], got 11"):
        MyOptions.from_config(Config({"size": 11}))
    with pytest.raises(ConfigValueError, match="expected one of 'a', 'b', got 'c'"):
        MyOptions.from_config(Config({"name": "c"}))
    with pytest.raises(ValueError):
        option(1, "x", kind="integer")


def test_borrowed_key_read_and_checked_by_its_own_group():
    from returnn.options import DataOptions, PrecisionOptions, RunOptions, UpdaterOptions

    assert DataOptions.from_config(Config({"target": "bpe"})).target == "bpe"
    assert DataOptions.from_config(Config()).target == "classes"  # RunOptions' default
    assert UpdaterOptions.from_config(Config({"behavior_version": "12"})).behavior_version == 12
    with pytest.raises(ConfigValueError, match="config key 'tf_amp': expected one of 'bfloat16', 'float16', got "
                                               "'fp16'"):
        UpdaterOptions.from_config(Config({"tf_amp": "fp16"}))
    assert UpdaterOptions.from_config(Config(), tf_amp="bfloat16").tf_amp == "bfloat16"  # an override by its key
    # declared once: the borrowing groups do not list the key
    assert "target" not in {opt.key for opt in DataOptions.declared()}
    assert "target" in {opt.key for opt in RunOptions.declared()}
    assert "device" not in {opt.key for opt in PrecisionOptions.declared()}


def test_key_that_is_no_attribute_name():
    config = Config({"__debug_dummy_distributed_rank_and_size": (1, 3)})
    assert DistributedKeys.from_config(config).debug_dummy_rank_and_size == (1, 3)
    assert DistributedKeys.read_one(config, "__debug_dummy_distributed_rank_and_size") == (1, 3)
    with pytest.raises(ConfigValueError, match="__debug_dummy_distributed_rank_and_size': expected .rank, size., "
                                               "got 5"):
        DistributedKeys.from_config(Config({"__debug_dummy_distributed_rank_and_size": 5}))


def test_list_kinds():
    from returnn.options import LogOptions

    config = Config()
    config.add_line("log", "a.log,stdout")  # a line-based config
    config.add_line("log_verbosity", "5,4")
    opts = LogOptions.from_config(config)
    assert (opts.log, opts.log_verbosity, opts.log_format) == (["a.log", "stdout"], [5, 4], [])
    assert LogOptions.from_config(Config({"log_verbosity": 2})).log_verbosity == [2]
    assert LogOptions.from_config(Config()).log_verbosity == [3]
    with pytest.raises(ConfigValueError) as info:
        LogOptions.from_config(Config({"log_format": ["timed", "timd"]}))
    assert info.value.key == "log_format" and info.value.got == "timd" and info.value.suggestions == ("timed",)


def test_global_config_reads():
    from returnn.config import global_config_ctx
    from returnn.options.global_config import global_options, read_global

    with global_config_ctx(None):  # no global config: the declared default
        assert read_global(DistributedKeys, "horovod_reduce_type") == "grad"
        assert global_options(DistributedKeys) is None
    with global_config_ctx(Config({"horovod_reduce_type": "param"})):
        assert read_global(DistributedKeys, "horovod_reduce_type") == "param"
        assert global_options(DistributedKeys).horovod_reduce_type == "param"
