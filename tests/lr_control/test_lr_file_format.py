"""The learning_rate_file: exact format (as written by the reference), round trip, resume, bad files."""

import os

import numpy
import pytest

from returnn.config import Config
from returnn.errors import DataFileError
from returnn.learning_rate_control import EpochData, load_learning_rate_control_from_config
from returnn.lr_control.file_format import format_learning_rate_file, read_learning_rate_file

HERE = os.path.dirname(os.path.abspath(__file__))

# Written by the reference for: epoch 1 scored with meta entries, epoch 2 only got its learning rate.
EXPECTED_TEXT = """{
1: EpochData(learningRate=0.001, error={
':meta:foo': 3,
'dev_score': 0.3333333333333333,
'train_score': 1e-20,
'x': 1.5e+300,
}),
2: EpochData(learningRate=0.001, error={}),
}
"""


def make(**opts):
    config = Config()
    config.update(opts)
    return load_learning_rate_control_from_config(config)


def test_exact_format(tmp_path):
    filename = str(tmp_path / "lr.txt")
    lrc = make(learning_rate_control="newbob", learning_rate_file=filename, learning_rate=0.001)
    lrc.get_learning_rate_for_epoch(1)
    lrc.set_epoch_error(1, {"dev_score": 1.0 / 3, "train_score": 1e-20, "x": 1.5e300})
    lrc.epoch_data[1].meta["foo"] = 3
    lrc.get_learning_rate_for_epoch(2)
    assert not os.path.exists(filename)  # only save() writes
    lrc.save()
    with open(filename) as f:
        assert f.read() == EXPECTED_TEXT
    assert os.listdir(tmp_path) == ["lr.txt"]  # no temp file left behind


def test_round_trip(tmp_path):
    filename = str(tmp_path / "lr.txt")
    lrc = make(learning_rate_control="newbob", learning_rate_file=filename)
    for epoch, score in enumerate([1.0, 0.9, 0.95, float("inf")], 1):
        lrc.get_learning_rate_for_epoch(epoch)
        lrc.set_epoch_error(epoch, {"dev_score": score, "dev_error": score / 7,
                                    ":meta:epoch_num_train_steps": 5 * epoch,
                                    ":meta:effective_learning_rate": numpy.float32(0.01)})
    lrc.save()
    loaded = read_learning_rate_file(filename)
    assert loaded == lrc.epoch_data
    assert format_learning_rate_file(loaded) == open(filename).read()
    assert loaded[4].error["dev_score"] == float("inf")
    assert loaded[2].meta == {"epoch_num_train_steps": 10, "effective_learning_rate": numpy.float32(0.01)}
    assert "':meta:effective_learning_rate': np.float32(0.01),\n" in open(filename).read()


def test_reads_reference_file():
    """A file written by the reference (3 epochs of Newbob training, engine meta entries included)."""
    data = read_learning_rate_file(os.path.join(HERE, "reference_learning_rate_file.txt"))
    assert sorted(data) == [1, 2, 3]
    assert data[1].learning_rate == 0.01
    assert data[1].error == {"dev_error": 0.23736461997032166, "dev_score": 0.5651313662528992,
                             "train_error": 0.4623023271560669, "train_score": 0.6940396428108215}
    assert data[2].meta["global_train_step"] == 5
    assert data[3].meta["epoch_num_train_steps"] == 5
    assert float(data[1].meta["effective_learning_rate"]) == pytest.approx(0.01)
    with open(os.path.join(HERE, "reference_learning_rate_file.txt")) as f:
        assert format_learning_rate_file(data) == f.read()


def test_resume_continues_schedule(tmp_path):
    filename = str(tmp_path / "lr.txt")
    scores = [1.0, 1.0, 0.9, 0.9, 0.899, 0.8]
    uninterrupted = make(learning_rate_control="newbob")
    expected = []
    for epoch, score in enumerate(scores, 1):
        expected.append(uninterrupted.get_learning_rate_for_epoch(epoch))
        uninterrupted.set_epoch_error(epoch, {"dev_score": score})
    got = []
    for epoch, score in enumerate(scores, 1):
        lrc = make(learning_rate_control="newbob", learning_rate_file=filename)  # fresh process each epoch
        got.append(lrc.get_learning_rate_for_epoch(epoch))
        lrc.set_epoch_error(epoch, {"dev_score": score})
        lrc.save()
    assert got == expected == [1.0, 1.0, 0.5, 0.5, 0.25, 0.125]


def test_epoch_data_repr_and_kwargs():
    data = EpochData(learningRate=0.5, error={"b": 2.0, "a": 1.0, ":meta:m": 1})
    assert data.learning_rate == 0.5 and data.error == {"a": 1.0, "b": 2.0} and data.meta == {"m": 1}
    assert repr(data) == "EpochData(learningRate=0.5, error={':meta:m': 1, 'a': 1.0, 'b': 2.0})"
    assert EpochData(0.5, {"a": 1.0}) == EpochData(learning_rate=0.5, error={"a": 1.0})


@pytest.mark.parametrize("content, problem", [
    ("{\n1: EpochData(learningRate=0.01, error={\n'dev_score': 0.5,\n", "truncated"),
    ("[1, 2]", "expected a dict"),
    ("{1: EpochData(learningRate=0.01, error=foo)}", "NameError"),
])
def test_bad_file(tmp_path, content, problem):
    filename = str(tmp_path / "lr.txt")
    with open(filename, "w") as f:
        f.write(content)
    with pytest.raises(DataFileError) as info:
        make(learning_rate_control="newbob", learning_rate_file=filename)
    assert info.value.filename == filename and problem in info.value.message


# Written by the reference: short score dicts stay on one line (observed threshold: the "'key': value" texts
# together shorter than 40 characters).
SHORT_DICTS_TEXT = """{
1: EpochData(learningRate=1.0, error={'a': 1.0}),
2: EpochData(learningRate=1.0, error={'a': 1.0, 'b': 2.0}),
3: EpochData(learningRate=0.5, error={'a': 1.0, 'b': 2.0, 'c': 3.0}),
4: EpochData(learningRate=0.25, error={':meta:m': 2.0, 'a': 1.0}),
5: EpochData(learningRate=0.25, error={':meta:m': 2.0}),
}
"""


def test_short_dicts_on_one_line(tmp_path):
    filename = str(tmp_path / "lr.txt")
    lrc = make(learning_rate_control="newbob", learning_rate_file=filename)
    rates = [1.0, 1.0, 0.5, 0.25, 0.25]
    scores = [{"a": 1.0}, {"a": 1.0, "b": 2.0}, {"a": 1.0, "b": 2.0, "c": 3.0}, {"a": 1.0, ":meta:m": 2.0},
              {":meta:m": 2.0}]
    for epoch, (rate, error) in enumerate(zip(rates, scores), 1):
        lrc.set_default_learning_rate_for_epoch(epoch, rate)
        lrc.set_epoch_error(epoch, error)
    lrc.save()
    with open(filename) as f:
        assert f.read() == SHORT_DICTS_TEXT
    assert read_learning_rate_file(filename) == lrc.epoch_data


@pytest.mark.parametrize("error, multi_line", [
    ({"k" * 32: 1.0}, False), ({"k" * 33: 1.0}, True),
    ({"a": 1.0, "k" * 24: 1.0}, False), ({"a": 1.0, "k" * 25: 1.0}, True),
    ({"a": 0.3333333333333333, "k" * 9: 1.0}, False), ({"a": 0.3333333333333333, "k" * 10: 1.0}, True),
    ({chr(97 + i): 1.0 for i in range(4)}, False), ({chr(97 + i): 1.0 for i in range(5)}, True),
])
def test_multi_line_threshold(error, multi_line):
    """Thresholds observed in the reference's EpochData repr."""
    text = repr(EpochData(learningRate=1.0, error=error))
    assert ("\n" in text) == multi_line
    if multi_line:
        assert text.startswith("EpochData(learningRate=1.0, error={\n'") and text.endswith(",\n})")


def test_learning_rate_not_set_uses_control(capsys):
    from returnn.log import log

    log.initialize(verbosity=[4])
    lrc = make(learning_rate_control="newbob")
    lrc.get_learning_rate_for_epoch(1)
    lrc.set_epoch_error(1, {"train_score": 1.0, ":meta:x": 1.0})
    lrc.set_epoch_error(1, {"dev_score": 1.0, "dev_error": 0.5})
    lrc.get_learning_rate_for_epoch(2)
    lrc.set_epoch_error(2, {"train_score": 1.0})
    lrc.set_epoch_error(2, {"dev_score": 1.0})
    lrc.set_epoch_error(3, {"zz": 1.0})
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "Learning-rate-control: no file specified, not saving history (no proper restart possible)",
        "Learning-rate-control: error key 'train_score' from {'train_score': 1.0, ':meta:x': 1.0}",
        "Learning-rate-control: error key 'dev_score' from {'dev_score': 1.0, 'dev_error': 0.5}",
        "Learning rate not set for epoch 3. Assuming default.",
    ]
    assert lrc.epoch_data[3].learning_rate == 0.5


def test_write_creates_missing_directory(tmp_path):
    # observed: the reference's LearningRateControl.save() creates the directories of learning_rate_file
    from returnn.lr_control.file_format import read_learning_rate_file, write_learning_rate_file

    filename = str(tmp_path / "a" / "b" / "lr")
    write_learning_rate_file(filename, {1: EpochData(0.1, {"dev_score": 0.5})})
    assert read_learning_rate_file(filename) == {1: EpochData(0.1, {"dev_score": 0.5})}
