"""Every error class of :mod:`returnn.errors` survives pickling with its message, its type and its structured
fields (errors cross process boundaries: ``MultiProcDataset`` workers, distributed training)."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil

import pytest

import returnn.errors as errors_mod
from returnn.errors import (
    AxisDescriptionError,
    ConfigFileError,
    ConfigValueError,
    DataFileError,
    DatasetFileError,
    LayerArgError,
    LayerShapeError,
    ReturnnError,
    TensorArgError,
    UnknownLearningRateControlError,
    UnknownNameError,
)

#: instances with every field set; classes not listed here are built from their signature (see _auto_instance)
EXAMPLES = [
    ConfigFileError("a.config", "SyntaxError: invalid syntax", line=3, source_line="x = = 1"),
    ConfigValueError("batch_size", expected="an int > 0", got=0, suggestions=["max_seqs"], hint="set it"),
    UnknownNameError(kind="layer class", name="lstm", suggestions=["rec"], known=["rec", "linear"], hint="use rec",
                     context="layer 'enc'"),
    UnknownLearningRateControlError(kind="learning-rate control", name="newbob_multiepoch",
                                    suggestions=["newbob_multi_epoch"], known=["constant", "newbob_multi_epoch"]),
    LayerArgError(layer="enc", layer_class="rec", arg="n_ot", problem="unknown argument", expected="n_out",
                  got=3, suggestions=["n_out"], hint="see the docs"),
    TensorArgError("Dim(...)", "no dimension", expected="an int", got=None, hint="pass dimension="),
    DataFileError("x.hdf", "not an HDF5 file"),
    DatasetFileError("corpus.txt", "truncated"),
    AxisDescriptionError("T", tensor="{B, F}", problem="matches no axis", layer="out", arg="axis"),
    LayerShapeError(layer="out", layer_class="softmax", problem="dims differ", expected="{B, F:3}", got="{B, F:4}"),
]


def _import_all_modules():
    """Imports every module of the package, so that every ReturnnError subclass exists (a module that fails to
    import fails this test: the project's own modules are never skipped)."""
    import returnn

    for info in pkgutil.walk_packages(returnn.__path__, "returnn."):
        importlib.import_module(info.name)


def _walk_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _walk_subclasses(sub)


def _error_classes():
    """Every subclass of ReturnnError in this package (walked recursively), and the classes of returnn.errors."""
    _import_all_modules()
    classes = {cls for cls in _walk_subclasses(ReturnnError) if cls.__module__.startswith("returnn.")}
    classes |= {cls for cls in vars(errors_mod).values() if isinstance(cls, type)
                and issubclass(cls, BaseException) and cls.__module__ == errors_mod.__name__}
    return sorted(classes, key=lambda cls: (cls.__module__, cls.__qualname__))


def _auto_instance(cls):
    """An instance built from the signature: every required parameter gets a string."""
    args, kwargs = [], {}
    for param in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or param.default is not param.empty:
            continue
        if param.kind == param.KEYWORD_ONLY:
            kwargs[param.name] = "v_" + param.name
        else:
            args.append("v_" + param.name)
    return cls(*args, **kwargs) if (args or kwargs) else cls("a message")


def _more_examples():
    """Instances of classes outside returnn.errors whose required arguments must fit together."""
    from returnn.tf.network.errors import NetworkConstructionDependencyLoopException

    return [NetworkConstructionDependencyLoopException(network=None, layer_name="a", constructing_layers=["a", "b"])]


def _instances():
    by_class = {type(err): err for err in EXAMPLES + _more_examples()}
    return [by_class.get(cls) or _auto_instance(cls) for cls in _error_classes()]


@pytest.mark.parametrize("err", _instances(), ids=lambda err: f"{type(err).__module__}.{type(err).__qualname__}")
def test_round_trip(err):
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is type(err)
    assert str(copy) == str(err) and copy.args == err.args
    assert copy.__dict__ == err.__dict__
    if isinstance(err, OSError):
        assert (copy.filename, copy.errno, copy.strerror) == (err.filename, err.errno, err.strerror)


def test_examples_cover_the_fields():
    """The hand-written examples keep their fields (not only the message) across pickling."""
    err = pickle.loads(pickle.dumps(EXAMPLES[1]))
    assert (err.key, err.expected, err.got, err.suggestions, err.hint) == (
        "batch_size", "an int > 0", 0, ("max_seqs",), "set it")
    err = pickle.loads(pickle.dumps(EXAMPLES[3]))
    assert isinstance(err, AssertionError) and isinstance(err, LookupError)
    assert err.suggestions == ("newbob_multi_epoch",) and err.known == ("constant", "newbob_multi_epoch")
    assert pickle.loads(pickle.dumps(EXAMPLES[6])).filename == "x.hdf"


def test_every_class_is_covered():
    """A new ReturnnError subclass anywhere in the package is picked up by test_round_trip (by signature when not in EXAMPLES)."""
    assert {type(err) for err in _instances()} == set(_error_classes())
    names = {f"{cls.__module__}.{cls.__qualname__}" for cls in _error_classes()}
    assert len(names) >= 33
    assert {"returnn.errors.LayerNotFound", "returnn.tf.engine.runner.NonFiniteLossError",
            "returnn.util.behavior_version.BehaviorVersion.RequirementNotSatisfied",
            "returnn.tf.layers.core.registry.LayerClassRegistrationError",
            "returnn.datasets.sprint.SprintNotAvailableError"} <= names


def test_subclass_elsewhere_pickles_too():
    """A ReturnnError subclass defined in another module (here: a plain message) pickles as well."""
    from returnn.tf.engine.runner import NonFiniteLossError

    err = NonFiniteLossError("train epoch 1, step 3: the training loss is not finite")
    copy = pickle.loads(pickle.dumps(err))
    assert type(copy) is NonFiniteLossError and str(copy) == str(err)


def test_one_renderer_for_detail_lines():
    """ConfigValueError, UnknownNameError and LayerArgError render their detail lines the same way."""
    from returnn.errors import format_details

    assert format_details(suggestions=["a"], expected="x", got=1, hint="h", known=["a", "b"]) == [
        "  did you mean: 'a'?", "  expected: x", "  got:      1", "  hint: h", "  known: a, b"]
    assert str(EXAMPLES[1]).splitlines() == [
        "config key 'batch_size': expected an int > 0, got 0", "  did you mean: 'max_seqs'?", "  hint: set it"]
    assert str(EXAMPLES[2]).splitlines() == [
        "unknown layer class 'lstm' (layer 'enc')", "  did you mean: 'rec'?", "  hint: use rec", "  known: rec, linear"]


def test_hint_lines_through_the_renderer():
    """Error classes outside returnn.errors render their hint line with format_details (same text)."""
    from returnn.errors import format_details
    from returnn.tf.layers.core.registry import LayerClassRegistrationError, register_layer_class
    from returnn.tf.util.errors import NativeOpsUnavailableError

    assert str(NativeOpsUnavailableError("x")).splitlines()[1] == format_details(
        hint="replace the custom op by TF ops in the config (e.g. an 'eval' layer), or use the reference RETURNN "
             "for this config")[0]

    class NoName:
        layer_class = None

    with pytest.raises(LayerClassRegistrationError) as exc_info:
        register_layer_class(NoName)
    assert str(exc_info.value).splitlines()[1] == \
        '  hint: set e.g. layer_class = "my_layer" in the class body, then use {"class": "my_layer"}'
