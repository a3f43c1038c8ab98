"""The calls into ``returnn.frontend`` the engine makes, in one place: the backend, the model with its parameter
variables, the run context of a step (train flag, losses, outputs)."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Dict, Iterator, List, Tuple

import tensorflow as tf

from returnn.tf.engine.frontend.param_names import checkpoint_name


def select_tf_backend() -> None:
    """RF operations without Tensor inputs (initialisation, ``rf.zeros``) build TF ops."""
    import returnn.frontend as rf

    rf.select_backend("tensorflow")


def register_dim_sizes(extern_data) -> None:
    """The batch and dynamic dims of the extern data placeholders get their sizes in this graph (RF ops that create
    such an axis, e.g. ``rf.zeros([batch_dim])``, need them)."""
    from returnn.tf.frontend_low_level import register_dim_sizes as register

    register(*extern_data.data.values())


def build_model(make_model: Callable[[], Any], *, net_seed: int) -> Tuple[Any, Dict[str, tf.Variable]]:
    """Calls ``make_model()`` (its parameters are templates until here) and creates the TF variables of its
    parameters, each named by its checkpoint name
    (:func:`~returnn.tf.engine.frontend.param_names.checkpoint_name`), at the root of the graph.

    :return: the model, checkpoint name → variable
    """
    import returnn.frontend as rf
    from returnn.tf.frontend_low_level import create_parameter_variables

    rf.set_random_seed(net_seed)
    model = make_model()
    variables = create_parameter_variables(model, name_fn=lambda path, _param: checkpoint_name(path))
    return model, dict(variables)


@contextlib.contextmanager
def call_site_names(model: Any) -> Iterator[None]:
    """While the step function is built: the random ops in the calls of ``model``'s modules draw from generator state
    variables named as the reference's ``tensorflow-net-dict`` backend names them
    (``encoder/layers/0/ffn1/cond/random/random_generator/StateVar``), which checkpoints then hold
    (:mod:`returnn.frontend._call_names`)."""
    from returnn.frontend import _call_names

    _call_names.activate(model)
    try:
        yield
    finally:
        _call_names.deactivate()


def tensor_dict_of(extern_data) -> Any:
    """The extern data as the ``TensorDict`` the step functions get (the placeholders' Tensors)."""
    from returnn.tensor import TensorDict

    return TensorDict(dict(extern_data.data))


def init_train_step_run_ctx(*, train_flag: Any, step: int, epoch: int) -> None:
    import returnn.frontend as rf

    rf.init_train_step_run_ctx(train_flag=train_flag, step=step, epoch=epoch)


def init_forward_step_run_ctx(*, expected_outputs: Any, step: int, epoch: int) -> None:
    import returnn.frontend as rf
    from returnn.tensor import TensorDict

    if isinstance(expected_outputs, dict):
        outputs = TensorDict()
        outputs.update(expected_outputs, auto_convert=True)
        expected_outputs = outputs
    rf.init_forward_step_run_ctx(expected_outputs=expected_outputs, step=step, epoch=epoch)


def run_ctx_losses() -> List[Any]:
    """The losses the step marked, in marking order."""
    import returnn.frontend as rf

    return list(rf.get_run_ctx().losses.values())


def run_ctx_outputs() -> Dict[str, Any]:
    """Output name → Tensor the step marked."""
    import returnn.frontend as rf

    return dict(rf.get_run_ctx().outputs.data)
