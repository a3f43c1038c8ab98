"""The pretrain construction algorithms: networks per pretrain epoch, as observed from the reference.

Every expected schedule below was printed by the reference (``Pretrain(...).get_network_json_for_epoch``) for the
same network; each network is shown as ``{layer: from}`` (``"-"``: no ``from`` key).
"""

import pytest

from returnn.pretrain import Pretrain, PretrainError


def lin(*sources, **kwargs):
    return dict({"class": "linear", "n_out": 3, "from": list(sources)}, **kwargs)


def sm(*sources):
    return {"class": "softmax", "loss": "ce", "from": list(sources)}


def schedule(net, **opts):
    pretrain = Pretrain(original_network_json=net, **opts)
    return [{k: (v.get("from", "-") if isinstance(v, dict) else v) for k, v in
             pretrain.get_network_json_for_epoch(ep).items()} for ep in range(1, pretrain.get_train_num_epochs() + 1)]


CHAIN = {"l1": lin("data"), "l2": lin("l1"), "l3": lin("l2"), "output": sm("l3")}
CHAIN_SCHEDULE = [{"l1": ["data"], "output": ["l1"]},
                  {"l1": ["data"], "l2": ["l1"], "output": ["l2"]},
                  {"l1": ["data"], "l2": ["l1"], "l3": ["l2"], "output": ["l3"]}]


@pytest.mark.parametrize("algo", ["from_output", "from_input"])
def test_chain_grows_one_layer_per_network(algo):
    assert schedule(CHAIN, construction_algo=algo) == CHAIN_SCHEDULE


def test_from_output_bidirectional_sorted_sources():
    net = {"f1": lin("data"), "b1": lin("data"), "f2": lin("f1", "b1"), "b2": lin("f1", "b1"), "f3": lin("f2", "b2"),
           "b3": lin("f2", "b2"), "output": sm("f3", "b3")}
    assert schedule(net) == [
        {"f1": ["data"], "b1": ["data"], "output": ["b1", "f1"]},
        {"f1": ["data"], "b1": ["data"], "f2": ["f1", "b1"], "b2": ["f1", "b1"], "output": ["b2", "f2"]},
        {"f1": ["data"], "b1": ["data"], "f2": ["f1", "b1"], "b2": ["f1", "b1"], "f3": ["f2", "b2"],
         "b3": ["f2", "b2"], "output": ["f3", "b3"]}]


def test_from_input_bidirectional_step_layers_sorted():
    net = {"f1": lin("data"), "b1": lin("data"), "f2": lin("f1", "b1"), "b2": lin("f1", "b1"), "f3": lin("f2", "b2"),
           "b3": lin("f2", "b2"), "output": sm("f3", "b3")}
    got = schedule(net, construction_algo="from_input")
    assert got[:2] == [{"b1": ["data"], "f1": ["data"], "output": ["f1", "b1"]},
                       {"b1": ["data"], "f1": ["data"], "b2": ["f1", "b1"], "f2": ["f1", "b1"], "output": ["f2", "b2"]}]
    assert list(got[0]) == ["b1", "f1", "output"] and list(got[2]) == list(net)


def test_from_output_stops_at_input_on_any_branch():
    net = {"x": lin("data"), "a": lin("x"), "b": lin("data"), "output": sm("a", "b")}
    assert schedule(net) == [{"x": ["data"], "a": ["x"], "b": ["data"], "output": ["a", "b"]}]
    assert schedule(net, construction_algo="from_input") == [
        {"b": ["data"], "x": ["data"], "output": ["x", "b"]},
        {"x": ["data"], "a": ["x"], "b": ["data"], "output": ["a", "b"]}]


def test_from_output_keeps_side_layers_untouched():
    net = {"l1": lin("data"), "l2": lin("l1"), "l3": lin("l2"), "ctc": sm("l3"), "output": sm("l3")}
    assert [n["ctc"] for n in schedule(net)] == [["l3"]] * 3  # as the reference: not rewired
    assert [n["ctc"] for n in schedule(net, construction_algo="from_input")] == [["l1"], ["l2"], ["l3"]]


def test_from_output_options():
    assert schedule(CHAIN, output_layers=["l3"]) == [
        {"l1": ["data"], "l3": ["l1"], "output": ["l3"]}, {"l1": ["data"], "l2": ["l1"], "l3": ["l2"], "output": ["l3"]}]
    assert schedule(CHAIN, input_layers=["l1"]) == CHAIN_SCHEDULE[1:]
    assert schedule(CHAIN, input_layers=["l1"], construction_algo="from_input") == CHAIN_SCHEDULE  # ignored there


def test_from_input_rewires_to_existing_layers():
    net = {"l1": lin("data"), "l2": lin("l1"), "r": lin("l1", "l3"), "l3": lin("l2"), "l4": lin("r"), "output": sm("l4")}
    assert schedule(net, construction_algo="from_input")[:2] == [
        {"l1": ["data"], "output": ["l1"]}, {"l1": ["data"], "l2": ["l1"], "r": ["l1", "l2"], "output": ["r"]}]
    # residual connections: from_input works, from_output fails (as the reference)
    res = {"l1": lin("data"), "l2": lin("l1"), "r2": {"class": "combine", "kind": "add", "from": ["l1", "l2"]},
           "l3": lin("r2"), "r3": {"class": "combine", "kind": "add", "from": ["r2", "l3"]}, "output": sm("r3")}
    assert len(schedule(res, construction_algo="from_input")) == 3
    with pytest.raises(PretrainError, match="'r2', which is not in the network anymore"):
        schedule(res)


def test_from_input_stops_when_nothing_rewired():
    net = {"l1": lin("data"), "a": lin("l1"), "b": lin("a"), "c": lin("l1", "b"), "output": sm("c")}
    got = schedule(net, construction_algo="from_input")
    assert got[1] == {"l1": ["data"], "a": ["l1"], "c": ["l1", "a"], "output": ["c"]} and len(got) == 3
    unreachable = {"l1": lin("data"), "l2": lin("l1"), "l3": lin(), "output": sm("l2")}
    assert schedule(unreachable, construction_algo="from_input") == [
        {"l1": ["data"], "output": ["l1"]}, {"l1": ["data"], "l2": ["l1"], "l3": [], "output": ["l2"]}]


def test_non_trainable_only_additions_are_dropped():
    net = {"l1": lin("data"), "c": lin("l1", trainable=False), "l2": lin("c"), "output": sm("l2")}
    assert schedule(net) == [{"l1": ["data"], "output": ["l1"]},
                             {"l1": ["data"], "c": ["l1"], "l2": ["c"], "output": ["l2"]}]
    last = {"l1": lin("data"), "l2": lin("l1"), "c": lin("l2", trainable=False), "output": sm("c")}
    assert schedule(last) == [{"l1": ["data"], "output": ["l1"]},
                              {"l1": ["data"], "l2": ["l1"], "c": ["l2"], "output": ["c"]}]
    copy = {"l1": lin("data"), "c": {"class": "copy", "from": ["l1"]}, "l2": lin("c"), "output": sm("l2")}
    assert len(schedule(copy)) == 3  # a copy layer counts as trainable (no "trainable": False)


def test_no_network_modifications():
    assert schedule(CHAIN, construction_algo="no_network_modifications", repetitions=3) == [CHAIN_SCHEDULE[-1]] * 3


@pytest.mark.parametrize("net, algo, match", [
    ({"l1": lin("data"), "l2": {"class": "linear", "from": "l1"}, "output": sm("l2")}, "from_output",
     "'from' must be a list"),
    ({"l1": lin("data"), "l2": lin("l1", "data:classes"), "l3": lin("l2"), "output": sm("l3")}, "from_output",
     "'data:classes', which is neither a layer nor one of input_layers"),
    ({"l1": lin("data"), "l2": lin("l1", "data:classes"), "l3": lin("l2"), "output": sm("l3")}, "from_input",
     "'data:classes', which is neither 'data' nor a layer"),
    (dict(CHAIN, **{"#config": {"batch_size": 5}}), "from_output", "'#config' of the network is not a layer dict"),
    ({"l1": lin("data"), "out2": sm("l1")}, "from_output", "output layer 'output' is not in the network"),
])
def test_networks_the_algorithms_cannot_grow(net, algo, match):
    with pytest.raises(PretrainError, match=match):
        Pretrain(original_network_json=net, construction_algo=algo)
