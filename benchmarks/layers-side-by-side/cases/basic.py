"""Side-by-side cases: layers that existed before the breadth round (sanity of the runner itself)."""

_DATA = {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}}

CASES = [
    {"name": "linear_tanh", "extern_data": _DATA,
     "network": {"output": {"class": "linear", "activation": "tanh", "n_out": 6, "from": "data"}}},
    {"name": "rec_lstm", "extern_data": _DATA,
     "network": {"output": {"class": "rec", "unit": "nativelstm2", "n_out": 4, "from": "data"}}},
    {"name": "linear_sparse_input", "extern_data": _DATA,
     "network": {"output": {"class": "linear", "activation": None, "n_out": 3, "from": "data:classes"}}},
]
