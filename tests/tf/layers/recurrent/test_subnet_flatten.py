"""``subnetwork`` layers inside a rec unit are flattened into the unit (``"sub/x"``), as the reference lists them:
the name rewriting (pure dicts), then rec layers built with such units (which layers run in the loop, values
against numpy, params loaded with ``load_on_init``)."""

from returnn.tf.layers.recurrent.subnet.flatten import flatten_unit, pop_load_on_init


def test_flatten_rewrites_names_into_the_unit():
    unit = {
        "outside": {"class": "reduce", "mode": "max", "axis": "t", "from": "base:encoder"},
        "subnet": {"class": "subnetwork", "from": "data:source", "initial_output": 0, "subnetwork": {
            "a": {"class": "eval", "from": "base:outside", "eval": "source(0)"},
            "b": {"class": "combine", "kind": "add", "from": ["data", "a", "base:prev:inside", "prev:b"]},
            "c": {"class": "linear", "n_out": 2},  # no "from": the subnetwork's input
            "d": {"class": "copy", "from": "base:base:encoder"},
            "output": {"class": "copy", "from": "b"}}},
        "inside": {"class": "combine", "kind": "add", "from": ["subnet/a", "subnet"]},
        "output": {"class": "copy", "from": "inside"},
    }
    flat = flatten_unit(unit)
    assert list(flat) == ["outside", "subnet", "subnet/a", "subnet/b", "subnet/c", "subnet/d", "subnet/output",
                          "inside", "output"]
    assert flat["subnet"] == {"class": "copy", "from": "subnet/output", "initial_output": 0}
    assert flat["subnet/a"]["from"] == "outside"
    assert flat["subnet/b"]["from"] == ["data:source", "subnet/a", "prev:inside", "prev:subnet/b"]
    assert flat["subnet/c"]["from"] == "data:source"
    assert flat["subnet/d"]["from"] == "base:encoder"
    assert flat["subnet/output"]["from"] == "subnet/b"
    assert flat["inside"] is unit["inside"]
    assert flatten_unit(flat) is flat  # nothing left to flatten


def test_flatten_several_sources_nested_and_load_on_init():
    unit = {
        "s": {"class": "subnetwork", "from": ["data:source", "prev:output"], "dropout": 0.1, "load_on_init": "m",
              "subnetwork": {
                  "t": {"class": "subnetwork", "from": "data", "subnetwork": {
                      "x": {"class": "linear", "from": ["data", "base:base:prev:output"], "n_out": 3,
                            "reuse_params": {"map": {"W": {"reuse_layer": "base:y"}}}},
                      "output": {"class": "copy", "from": "x"}}},
                  "y": {"class": "linear", "n_out": 3},
                  "output": {"class": "copy", "from": "t"}}},
        "output": {"class": "copy", "from": "s"},
    }
    flat = flatten_unit(unit)
    assert flat["s/data"] == {"class": "copy", "from": ["data:source", "prev:output"], "dropout": 0.1}
    assert flat["s/t"] == {"class": "copy", "from": "s/t/output"}
    assert flat["s/t/x"]["from"] == ["s/data", "prev:output"]
    assert flat["s/t/x"]["reuse_params"] == {"map": {"W": {"reuse_layer": "s/y"}}}
    assert flat["s/y"]["from"] == "s/data"
    assert flat["s"]["_flattened_load_on_init"] == "m"
    assert pop_load_on_init(flat) == {"s": "m"}
    assert flat["s"] == {"class": "copy", "from": "s/output"}


def test_flatten_concat_sources_false():
    unit = {"s": {"class": "subnetwork", "from": ["a", "b"], "concat_sources": False, "subnetwork": {
        "output": {"class": "combine", "kind": "add", "from": ["data:1", "data:0", "data:classes"]}}}}
    flat = flatten_unit(unit)
    assert flat["s/output"]["from"] == ["b", "a", "data:classes"]
    assert "s/data" not in flat
