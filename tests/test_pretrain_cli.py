"""``python3 -m returnn.pretrain CONFIG [--diff]`` prints the pretrain networks as the reference's tool does (the
expected text was printed by the reference for the same config)."""

from returnn.pretrain import demo

CONFIG = """#!rnn.py
network = {"l1": {"class": "linear", "n_out": 3, "from": ["data"]}, "l2": {"class": "linear", "n_out": 3, "from": ["l1"]},
           "output": {"class": "softmax", "loss": "ce", "from": ["l2"]}}
pretrain = {"repetitions": [1, 2]}
"""

PLAIN = """pretrain: Pretrain construction algo 'from_output', number of pretrain epochs: 3 (repetitions: [1, 2])
epoch 1 (of 3) network json:
{'l1': {'class': 'linear', 'from': ['data'], 'n_out': 3},
 'output': {'class': 'softmax', 'from': ['l1'], 'loss': 'ce'}}
epoch 2 (of 3) network json:
{'l1': {'class': 'linear', 'from': ['data'], 'n_out': 3},
 'l2': {'class': 'linear', 'from': ['l1'], 'n_out': 3},
 'output': {'class': 'softmax', 'from': ['l2'], 'loss': 'ce'}}
epoch 3 (of 3) network json:
{'l1': {'class': 'linear', 'from': ['data'], 'n_out': 3},
 'l2': {'class': 'linear', 'from': ['l1'], 'n_out': 3},
 'output': {'class': 'softmax', 'from': ['l2'], 'loss': 'ce'}}
done.
"""

DIFF = """pretrain: Pretrain construction algo 'from_output', number of pretrain epochs: 3 (repetitions: [1, 2])
epoch 1 (of 3) network json:
(initial)
epoch 2 (of 3) network json:
dict diff:
  key 'l2' not in self
['output'] dict diff:
['output'] ['from'] list diff:
['output'] ['from'] [0] self: 'l1' != other: 'l2'
epoch 3 (of 3) network json:
No diff.
done.
"""


def test_pretrain_tool(tmp_path, capsys):
    path = tmp_path / "cli.config"
    path.write_text(CONFIG)
    demo([str(path)])
    assert capsys.readouterr().out == PLAIN
    demo(["--diff", str(path)])
    assert capsys.readouterr().out == DIFF
    demo([str(path), "++pretrain", "None"])
    out = capsys.readouterr().out
    assert out.startswith("config option 'pretrain' not set, will set it for this demo to 'default'\n"
                          "pretrain: Pretrain construction algo 'from_output', number of pretrain epochs: 2\n")
