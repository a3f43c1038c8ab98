"""Names of call sites (``returnn.frontend._call_names``): the variable names of random generator states, as the
reference's ``tensorflow-net-dict`` backend writes them in its checkpoints (observed for the conformer AED demo:
``encoder/layers/0/cond/random/random_generator/StateVar``, ``encoder/layers/0/cond_0/...``, ``.../ffn1/cond/...``)."""

import returnn.frontend as rf
from returnn.frontend import _call_names
from returnn.tensor import Dim

SUFFIX = "/random_generator/StateVar"


class _Leaf(rf.Module):
    def __init__(self, names):
        super().__init__()
        self.lin = rf.Linear(Dim(2, name="a"), Dim(2, name="b"))
        self.names = names

    def __call__(self):
        self.names.append(_call_names.random_state_name())
        with _call_names.cond_scope():
            self.names.append(_call_names.random_state_name())
            self.names.append(_call_names.random_state_name())
        with _call_names.cond_scope():
            self.names.append(_call_names.random_state_name())


class _Sub(_Leaf):
    def __call__(self):  # a super() call is the same module call
        super().__call__()


class _Block(rf.Module):
    def __init__(self, names):
        super().__init__()
        self.ff = _Leaf(names)
        self.layers = rf.ModuleList(_Sub(names), _Leaf(names))
        self.names = names

    def __call__(self):
        with _call_names.cond_scope():
            self.names.append(_call_names.random_state_name())
        self.ff()
        for layer in self.layers:
            layer()


class _Root(rf.Module):
    def __init__(self, names):
        super().__init__()
        self.block = _Block(names)

    def __call__(self):
        self.block()


def test_names_of_random_states_in_module_calls_and_conds():
    names = []
    model = _Root(names)
    _call_names.activate(model)
    try:
        model()
        names.append(_call_names.random_state_name())  # outside every module call: the root scope
    finally:
        _call_names.deactivate()
    assert [n[:-len(SUFFIX)] if n.endswith(SUFFIX) else n for n in names] == [
        "block/cond/random",
        "block/ff/random", "block/ff/cond/random", "block/ff/cond/random_0", "block/ff/cond_0/random",
        "block/layers/0/random", "block/layers/0/cond/random", "block/layers/0/cond/random_0",
        "block/layers/0/cond_0/random",
        "block/layers/1/random", "block/layers/1/cond/random", "block/layers/1/cond/random_0",
        "block/layers/1/cond_0/random",
        "random",
    ]


def test_no_names_when_not_active():
    names = []
    _Leaf(names)()
    assert names == [None] * 4
    assert not _call_names.is_active()
