"""tools/analyze-dataset-batches.py (returnn/datasets/batch_analysis.py): the lines below were printed by the
reference's tool on the same configs (its start-up lines and the time estimate in parentheses left out)."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_AX = """#!rnn.py
backend = "tensorflow"
train = {"class": "Task12AXDataset", "num_seqs": 20}
dev = {"class": "Task12AXDataset", "num_seqs": 7, "fixed_random_seed": 1}
batch_size = 100
max_seqs = 4
"""

_AX_CHUNKED = """#!rnn.py
backend = "tensorflow"
train = {"class": "Task12AXDataset", "num_seqs": 10}
batch_size = 200
max_seqs = 10
chunking = "50:25"
"""

_AX_PRETRAIN = """#!rnn.py
backend = "tensorflow"
train = {"class": "Task12AXDataset", "num_seqs": 10}
batch_size = 200
max_seqs = 10
num_inputs = 9
num_outputs = 2
network = {"l1": {"class": "linear", "activation": "tanh", "n_out": 5},
           "l2": {"class": "linear", "activation": "tanh", "n_out": 5, "from": "l1"},
           "output": {"class": "softmax", "loss": "ce", "from": "l2"}}
def custom_construction_algo(idx, net_dict):
    if idx == 2:
        return None
    net_dict["#config"] = {"batch_size": 60 + idx}
    return net_dict
pretrain = {"construction_algo": custom_construction_algo}
"""


def _run(tmp_path, config_text, *args):
    cfg = tmp_path / "x.config"
    cfg.write_text(config_text)
    out = subprocess.run([sys.executable, "tools/analyze-dataset-batches.py", str(cfg), *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = [re.sub(r" \(\d+:\d\d:\d\d\), batch", ", batch", line) for line in out.stdout.splitlines()]
    assert lines[0] == f"Using config file {str(cfg)!r}."
    assert lines[1].startswith("Returnn ") and lines[1].endswith("analyze-dataset-batches.py starting up.")
    return lines[2:]


def _nd(n, key2=None):
    return "NumbersDict({'data': %s, 'classes': %s})" % (n, n if key2 is None else key2)


def test_analyze_all_batches(tmp_path):
    lines = _run(tmp_path, _AX)
    assert lines[:4] == ["Using dataset: config:train", "Epoch: 1", "Dataset keys: ['data', 'classes']",
                         "Dataset target keys: ['classes']"]
    assert lines[4] == "0/20 (0.00%%), batch 0, num seqs 1, frames %s, used %s (%s)" % (_nd(84), _nd(84), _nd(1.0))
    assert lines[8] == ("4/20 (20.00%%), batch 4, num seqs 2, frames %s, used %s (%s)"
                        % (_nd(90), _nd(71), _nd(0.7888888888888889)))
    # the completed fraction is the dataset's at the first sequence of the previous batch
    assert lines[9].startswith("6/20 (25.00%), batch 5, num seqs 1, ")
    assert lines[19].startswith("18/20 (90.00%), batch 15, num seqs 2, ")
    assert lines[20:] == [
        "Done. Total time 0:00:00. More seqs which we did not dumped: False",
        "Dataset epoch 1, order 'default'.",
        "Num batches (steps): 16",
        "Num seqs: 20",
        "Batch num seqs Stats:",
        "  16 seqs",
        "  Mean: 1.2500000000000002",
        "  Std dev: 0.43301270189221924",
        "  Min/max: 1 / 2",
        "Data key 'data':",
        "  Num frames: 1096",
        "  Num used frames: 1016",
        "  Fraction used frames: 0.927007299270073",
        "Data key 'classes':",
        "  Num frames: 1096",
        "  Num used frames: 1016",
        "  Fraction used frames: 0.927007299270073",
        "Quitting",
    ]


def test_analyze_endseq_dev_epoch_verbosity(tmp_path):
    lines = _run(tmp_path, _AX, "--endseq", "5", "--key", "classes", "--dataset", "dev", "--epoch", "2")
    assert lines[:2] == ["Using dataset: config:dev", "Epoch: 2"]
    assert [line.split(",")[0] for line in lines[4:9]] == ["0/7 (0.00%)", "1/7 (14.29%)", "2/7 (28.57%)",
                                                         "3/7 (42.86%)", "4/7 (57.14%)"]
    assert lines[9:17] == [
        "Done. Total time 0:00:00. More seqs which we did not dumped: True",
        "Dataset epoch 2, order 'default'.",
        "Num batches (steps): 5",
        "Num seqs: 6",
        "Batch num seqs Stats:",
        "  5 seqs",
        "  Mean: 1.2",
        "  Std dev: 0.4",
    ]
    quiet = _run(tmp_path, _AX, "--endseq", "2", "--verbosity", "4")
    assert quiet[4] == "Done. Total time 0:00:00. More seqs which we did not dumped: True"
    assert quiet[-1] == "Quitting" and "  Num frames: 164" in quiet


def test_analyze_chunking(tmp_path):
    lines = _run(tmp_path, _AX_CHUNKED)
    assert lines[4] == ("0/10 (0.00%%), batch 0, num seqs 4, frames %s, used %s (%s)"
                        % (_nd(200), _nd(143), _nd(0.715)))
    assert lines[7].startswith("4/10 (40.00%%), batch 3, num seqs 4, frames %s, used %s" % (_nd(180), _nd(92)))
    assert lines[12:16] == ["Num batches (steps): 6", "Num seqs: 24", "Batch num seqs Stats:", "  6 seqs"]
    assert lines[-2] == "  Fraction used frames: 0.65"


def test_analyze_use_pretrain(tmp_path):
    lines = _run(tmp_path, _AX_PRETRAIN, "--use_pretrain", "--epoch", "2")
    assert re.fullmatch(r"Using pretrain Pretrain construction algo <function custom_construction_algo at 0x\w+>, "
                        r"number of pretrain epochs: 3, epoch 2", lines[0])
    assert lines[1:4] == ["Pretrain overwrites these config options:",
                          "Config key 'batch_size' for epoch 2: 200 -> 61", "Using dataset: config:train"]
    warn = "warning: sequence length (NumbersDict({'data': %i, 'classes': %i})) larger than limit (NumbersDict(61))"
    assert lines[7] == warn % (77, 77)
    assert lines[10] == warn % (76, 76)
    assert lines[11] == ("2/10 (20.00%%), batch 2, num seqs 2, frames %s, used %s (%s)"
                         % (_nd(42), _nd(41), _nd(0.9761904761904762)))
    assert "Num seqs: 10" in lines and "  Fraction used frames: 0.9979591836734694" in lines


def test_analyze_dataset_dict():
    # the reference stops here asking for the config option 'backend'; here a dataset dict works without a config
    spec = '{"class": "Task12AXDataset", "num_seqs": 3}'
    out = subprocess.run([sys.executable, "tools/analyze-dataset-batches.py", spec, "--verbosity", "3"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"Using dataset {spec}." and lines[2] == f"Using dataset: {spec}"
    # batch_size 1 (the default) gives one sequence per batch
    assert "Num batches (steps): 3" in lines and "  Min/max: 1 / 1" in lines
