"""Side-by-side cases: shape, indexing, conv, variable and signal-processing layers (issue 17, part 1)."""

_DATA = {"data": {"dim": 6}, "classes": {"dim": 4, "sparse": True}}

CASES = [
    {"name": "reduce_out_max", "extern_data": _DATA,
     "network": {"lin": {"class": "linear", "activation": None, "n_out": 6, "from": "data"},
                 "output": {"class": "reduce_out", "mode": "max", "num_pieces": 2, "from": "lin"}}},
    {"name": "reduce_out_sum", "extern_data": _DATA,
     "network": {"output": {"class": "reduce_out", "mode": "sum", "num_pieces": 3, "from": "data"}}},
]
