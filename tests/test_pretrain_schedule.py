"""The pretrain schedule: repetitions, construction functions, WrapEpochValue, ``str()``, config keys, bad input.

Expected values were printed by the reference for the same options (see the module doc of
``returnn.pretrain.schedule``).
"""

import pytest

from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.pretrain import Pretrain, PretrainError, PretrainOptionError, WrapEpochValue, pretrain_from_config

NET = {"l1": {"class": "linear", "n_out": 3, "from": ["data"]}, "l2": {"class": "linear", "n_out": 3, "from": ["l1"]},
       "l3": {"class": "linear", "n_out": 3, "from": ["l2"]},
       "output": {"class": "softmax", "loss": "ce", "from": ["l3"]}}


def layers_per_epoch(pretrain):
    return [len(pretrain.get_network_json_for_epoch(ep)) - 1 for ep in range(1, pretrain.get_train_num_epochs() + 1)]


@pytest.mark.parametrize("repetitions, per_epoch, text", [
    (None, [1, 2, 3], ""),
    (0, [1, 2, 3], ""),
    (2, [1, 1, 2, 2, 3, 3], " (repetitions: 2)"),
    ([1, 2, 3], [1, 2, 2, 3, 3, 3], " (repetitions: [1, 2, 3])"),
    ([1, 2], [1, 2, 2, 3, 3], " (repetitions: [1, 2, 2])"),
    ([2], [1, 1, 2, 2, 3, 3], " (repetitions: 2)"),
    ({"default": 0, "final": 6}, [3] * 6, " (repetitions: [0, 0, 6])"),
    ({"default": 1, 1: 3}, [1, 2, 2, 2, 3], " (repetitions: [1, 3, 1])"),
    ({"final": 3}, [1, 2, 3, 3, 3], " (repetitions: [1, 1, 3])"),
    ([0, 0, 0], [], " (repetitions: 0)"),
])
def test_repetitions(repetitions, per_epoch, text):
    pretrain = Pretrain(original_network_json=NET, repetitions=repetitions)
    assert layers_per_epoch(pretrain) == per_epoch
    assert str(pretrain) == "Pretrain construction algo 'from_output', number of pretrain epochs: %i%s" % (
        len(per_epoch), text)


@pytest.mark.parametrize("repetitions, match", [
    ([1, 2, 3, 4], "has 4 entries but the construction gives 3"), ((1, 2), "expected an int, a list"),
    ("2", "expected an int, a list"), ({"final": 2, 0: 1}, "mixes 'final' with network indices"),
    ({"default": 2, 5: 1}, "index 5, but the construction gives 3"),
])
def test_bad_repetitions(repetitions, match):
    with pytest.raises(PretrainError, match=match):
        Pretrain(original_network_json=NET, repetitions=repetitions)


def test_beyond_pretrain_and_bad_epoch():
    pretrain = Pretrain(original_network_json=NET)
    assert pretrain.get_network_json_for_epoch(100) == NET == pretrain.get_final_network_json()
    with pytest.raises(PretrainError, match="epoch >= 1, got 0"):
        pretrain.get_network_json_for_epoch(0)
    assert pretrain.get_train_param_args_for_epoch(2) == {}
    assert isinstance(PretrainError("x"), AssertionError)  # the reference asserted


def custom(idx, net_dict):
    if idx == 2:
        return None
    net_dict["#config"] = {"batch_size": 100 * (idx + 1), "learning_rate": WrapEpochValue(lambda epoch: epoch / 10)}
    net_dict["#info"] = {"idx": idx}
    if idx == 0:
        net_dict["#repetition"] = 3
        net_dict["#copy_param_mode"] = "subset"
    del net_dict["l3"]
    net_dict["output"]["from"] = ["l2"]
    return net_dict


def test_construction_function():
    pretrain = Pretrain(original_network_json=NET, construction_algo=custom, repetitions=2)
    assert pretrain.repetitions == [3, 2, 2] and pretrain.get_train_num_epochs() == 7
    assert str(pretrain).endswith("number of pretrain epochs: 7 (repetitions: [3, 2, 2])")
    nets = [pretrain.get_network_json_for_epoch(ep) for ep in range(1, 8)]
    assert [n.get("#config") for n in nets] == [
        {"batch_size": 100, "learning_rate": 0.1}, {"batch_size": 100, "learning_rate": 0.2},
        {"batch_size": 100, "learning_rate": 0.3}, {"batch_size": 200, "learning_rate": 0.4},
        {"batch_size": 200, "learning_rate": 0.5}, None, None]
    assert "#repetition" not in nets[0] and nets[0]["#copy_param_mode"] == "subset" and "#info" in nets[4]
    assert nets[-1] == NET and pretrain.get_final_network_json() == NET


def test_construction_function_gets_fresh_copies_by_keyword():
    seen = []

    def func(idx, net_dict):
        seen.append(sorted(net_dict))
        net_dict.pop("l3")
        return None if idx == 2 else {"l1": NET["l1"], "output": dict(NET["output"], **{"from": ["l1"]})}

    Pretrain(original_network_json=NET, construction_algo=func)
    assert seen == [["l1", "l2", "l3", "output"]] * 3

    def positional(i, d):
        return None

    with pytest.raises(PretrainError, match=r"positional \(idx=0, the network of pretrain epoch 1\) raised TypeError"):
        Pretrain(original_network_json=NET, construction_algo=positional)


@pytest.mark.parametrize("func, match", [
    (lambda idx, net_dict: 1 / 0 if idx == 1 else net_dict,
     r"\(idx=1, the network of pretrain epoch 3\) raised ZeroDivisionError: division by zero"),
    (lambda idx, net_dict: {"l1": net_dict["l1"]} if idx == 1 else (None if idx > 1 else net_dict),
     r"\(idx=1, the network of pretrain epoch 3\): the returned network has no layer 'output'"),
    (lambda idx, net_dict: [net_dict], r"expected a network dict or None .* got list"),
    (lambda idx, net_dict: net_dict, "did not return None after 1000 calls"),
])
def test_bad_construction_function(func, match):
    with pytest.raises(PretrainError, match=match):
        Pretrain(original_network_json=NET, construction_algo=func, repetitions=2)


def test_wrap_epoch_value_resolution():
    net = {"l1": {"class": "linear", "n_out": 3, "from": ["data"], "dropout": WrapEpochValue(lambda epoch: epoch),
                  "x": (WrapEpochValue(lambda epoch: epoch), 1), "sub": {"y": [WrapEpochValue(lambda epoch: -epoch)]},
                  "deep": [[WrapEpochValue(lambda epoch: epoch)]]},
           "output": {"class": "softmax", "loss": "ce", "from": ["l1"]}}
    pretrain = Pretrain(original_network_json=net, repetitions=2)
    layers = [pretrain.get_network_json_for_epoch(ep)["l1"] for ep in (1, 2, 3)]
    assert [(l["dropout"], l["x"], l["sub"]["y"]) for l in layers] == [(1, (1, 1), [-1]), (2, (2, 1), [-2]),
                                                                       (2, (2, 1), [-2])]
    assert isinstance(layers[0]["deep"][0][0], WrapEpochValue)  # not resolved in nested lists (as the reference)
    assert pretrain.get_final_network_json()["l1"]["dropout"] == 2
    assert isinstance(net["l1"]["dropout"], WrapEpochValue)  # the config's dict is left as it is
    assert WrapEpochValue.__module__ == "returnn.pretrain"


def make_config(**kwargs):
    config = Config()
    config.update(dict(kwargs, network=kwargs.get("network", NET)))
    return config


def test_pretrain_from_config():
    assert pretrain_from_config(make_config()) is None
    for off in (None, False, "", 0, {}):
        assert pretrain_from_config(make_config(pretrain=off)) is None
    pretrain = pretrain_from_config(make_config(pretrain="default", pretrain_construction_algo="from_input",
                                                pretrain_repetitions={"default": 0, "final": 2}, pretrain_greedy=True,
                                                pretrain_copy_param_mode="subset"))
    assert str(pretrain) == "Pretrain construction algo 'from_input', number of pretrain epochs: 2 (repetitions: [0, 0, 2])"
    assert pretrain.greedy is True and pretrain.copy_param_mode is None  # no pretrain_copy_param_mode key
    pretrain = pretrain_from_config(make_config(pretrain={"repetitions": 2, "copy_param_mode": "subset"},
                                                pretrain_repetitions=5, pretrain_construction_algo="from_input"))
    assert pretrain.repetitions == [2, 2, 2] and pretrain.construction_algo == "from_input"
    assert pretrain.copy_param_mode == "subset" and pretrain.copy_output_layer == "subset"
    assert pretrain_from_config(make_config(pretrain=True)).get_train_num_epochs() == 3


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(pretrain="foo"), ConfigValueError, "config key 'pretrain': expected 'default', True"),
    (dict(pretrain={"repetition": 2}), PretrainOptionError, "(?s)unknown option 'repetition'.*did you mean: 'repetitions'"),
    (dict(pretrain={"copy_param_mode": "all"}), PretrainError, "'copy_param_mode': expected one of None, 'ifpossible'"),
    (dict(pretrain={"construction_algo": "from_top"}), PretrainError, "'construction_algo': expected one of"),
    (dict(pretrain="default", network=None), ConfigValueError, "config key 'network'"),
])
def test_bad_pretrain_config(kwargs, error, match):
    with pytest.raises(error, match=match):
        pretrain_from_config(make_config(**kwargs))
