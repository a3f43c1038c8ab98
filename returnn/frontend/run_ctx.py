"""The run context ``rf.get_run_ctx()``: which step runs (``stage``: ``"init"``, ``"train_step"``,
``"forward_step"``), the train flag, epoch and step, and what the step marks: losses (``mark_as_loss``) and outputs
(``mark_as_output``, ``mark_as_default_output``), which the engine reads afterwards (:attr:`RunCtx.losses`,
:attr:`RunCtx.outputs`)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

from returnn.errors import FrontendError
from returnn.tensor import Dim, Tensor, TensorDict

__all__ = ["RunCtx", "Loss", "get_run_ctx", "init_train_step_run_ctx", "init_forward_step_run_ctx",
           "reset_run_ctx", "get_run_ctx_step"]


class Loss:
    """A loss marked by ``mark_as_loss``.

    :param loss: the loss values (e.g. per frame ``[B, T]`` or packed ``[B&T]``)
    :param name: e.g. ``"ce"``
    :param scale: factor in the total loss
    :param as_error: an error measure (reported, not optimised)
    :param use_normalized_loss: the optimised loss is the mean (else the sum), as the reference
    :param custom_inv_norm_factor: the normalisation (default: the number of frames)
    """

    def __init__(self, loss: Tensor, name: str, *, scale: float = 1.0, as_error: bool = False,
                 use_normalized_loss: bool = False, use_flatten_frames: bool = True,
                 custom_inv_norm_factor: Optional[Tensor] = None):
        self.loss, self.name, self.scale, self.as_error = loss, name, scale, as_error
        self.use_normalized_loss, self.use_flatten_frames = use_normalized_loss, use_flatten_frames
        self.custom_inv_norm_factor = custom_inv_norm_factor

    def get_summed_loss(self) -> Tensor:
        """:return: the sum over all dims (padded frames excluded), float32 scalar"""
        from returnn.frontend.math_ import cast
        from returnn.frontend.reduce import reduce_sum
        x = self.loss if self.loss.dtype.startswith("float") else cast(self.loss, "float32")
        return reduce_sum(x, axis=list(x.dims)) if x.dims else x

    def get_inv_norm_factor(self) -> Union[int, Tensor]:
        """:return: ``custom_inv_norm_factor`` (summed) if given, else the number of frames of the loss"""
        from returnn.frontend.dims import num_elements_of_shape
        from returnn.frontend.reduce import reduce_sum
        if self.custom_inv_norm_factor is not None:
            f = self.custom_inv_norm_factor
            return reduce_sum(f, axis=list(f.dims)) if f.dims else f
        return num_elements_of_shape(list(self.loss.dims))

    def get_mean_loss(self) -> Tensor:
        """:return: summed loss / inv norm factor"""
        from returnn.frontend.math_ import cast
        summed = self.get_summed_loss()
        n = self.get_inv_norm_factor()
        if isinstance(n, Tensor):
            return summed / cast(n, summed.dtype)
        return summed / float(n)

    def get_scaled_reduced_loss(self) -> Tensor:
        """:return: the loss the optimiser uses: ``scale`` times the mean (``use_normalized_loss``) or the sum"""
        loss = self.get_mean_loss() if self.use_normalized_loss else self.get_summed_loss()
        return loss * float(self.scale) if self.scale != 1.0 else loss

    def __repr__(self) -> str:
        return f"Loss({self.name!r}, {self.loss!r}, scale={self.scale}, as_error={self.as_error})"


class RunCtx:
    """What one step runs with and marks."""

    def __init__(self, *, stage: str, train_flag: Any = False, step: Any = 0, epoch: Any = 1,
                 expected_outputs: Optional[TensorDict] = None):
        self.stage, self.train_flag, self.step, self.epoch = stage, train_flag, step, epoch
        self.expected_outputs = expected_outputs
        self.losses: Dict[str, Loss] = {}
        self.outputs = TensorDict()

    def __repr__(self) -> str:
        return f"<RunCtx stage={self.stage!r} train_flag={self.train_flag!r} step={self.step!r} epoch={self.epoch!r}>"

    def mark_as_loss(self, loss: Union[Tensor, Any], name: str, *, dims: Optional[Sequence[Dim]] = None,
                     scale: float = 1.0, as_error: bool = False, use_normalized_loss: bool = False,
                     use_flatten_frames: bool = True, custom_inv_norm_factor: Optional[Tensor] = None) -> None:
        """Marks ``loss`` (any dims; bool/int are cast to float32) as a loss named ``name``.

        :raises FrontendError: outside a train step, a name marked twice, not a Tensor
        """
        if self.stage != "train_step":
            raise FrontendError("mark_as_loss", f"is only possible in a train step, the run context is {self.stage!r}",
                                hint="call it from train_step (the engine sets up the run context)")
        if not isinstance(loss, Tensor):
            from returnn.frontend.const import convert_to_tensor
            loss = convert_to_tensor(loss, dims=dims or ())
        if name in self.losses:
            raise FrontendError("mark_as_loss", f"loss {name!r} is marked twice")
        if not loss.dtype.startswith("float"):
            from returnn.frontend.math_ import cast
            loss = cast(loss, "float32")
        self.losses[name] = Loss(loss, name, scale=scale, as_error=as_error, use_normalized_loss=use_normalized_loss,
                                 use_flatten_frames=use_flatten_frames, custom_inv_norm_factor=custom_inv_norm_factor)

    def mark_as_output(self, tensor: Union[Tensor, Any], name: str, *, dims: Optional[Sequence[Dim]] = None,
                       shape: Optional[Sequence[Dim]] = None) -> None:
        """Marks ``tensor`` as the output ``name``; with ``dims``/``shape``, its dims must be these (in any order;
        the output gets this order).

        :raises FrontendError: an output marked twice, dims that differ, a name not in the expected outputs
        """
        dims = dims if dims is not None else shape
        if not isinstance(tensor, Tensor):
            from returnn.frontend.const import convert_to_tensor
            tensor = convert_to_tensor(tensor, dims=dims or ())
        if name in self.outputs.data:
            raise FrontendError("mark_as_output", f"output {name!r} is marked twice")
        if self.expected_outputs is not None and name not in self.expected_outputs.data:
            raise FrontendError("mark_as_output", f"output {name!r} is not among the expected outputs",
                                expected=", ".join(self.expected_outputs.data))
        if dims is None and self.expected_outputs is not None:
            dims = self.expected_outputs.data[name].dims
        if dims is not None:
            if set(dims) != set(tensor.dims) or len(dims) != len(tensor.dims):
                raise FrontendError("mark_as_output", f"output {name!r} has dims {tensor.dims}, expected {tuple(dims)}")
            if tuple(dims) != tuple(tensor.dims):
                from returnn.frontend import _utils
                tensor = _utils.make_tensor(tensor.name, dims, tensor.dtype, _utils.aligned_raw(tensor, dims),
                                            sparse_dim=tensor.sparse_dim, feature_dim=tensor.feature_dim)
        self.outputs.data[name] = tensor

    def mark_as_default_output(self, tensor: Union[Tensor, Any], *, shape: Optional[Sequence[Dim]] = None) -> None:
        """:meth:`mark_as_output` with the name ``"output"``."""
        self.mark_as_output(tensor, "output", shape=shape)

    def total_loss(self) -> Optional[Tensor]:
        """:return: the sum of the scaled reduced losses that are not errors (None: no loss)"""
        total = None
        for loss in self.losses.values():
            if loss.as_error:
                continue
            value = loss.get_scaled_reduced_loss()
            total = value if total is None else total + value
        return total


_ctx: list = [RunCtx(stage="init")]


def get_run_ctx() -> RunCtx:
    """:return: the current run context (stage ``"init"`` before a step is set up)"""
    return _ctx[0]


def get_run_ctx_step() -> Any:
    """:return: the current step"""
    return _ctx[0].step


def reset_run_ctx() -> None:
    """Back to the ``"init"`` stage."""
    _ctx[0] = RunCtx(stage="init")


def init_train_step_run_ctx(*, train_flag: Union[bool, Tensor, Any] = True, step: Any = 0, epoch: Any = 1) -> None:
    """Starts a train step run context (``train_flag``: a bool, or a raw/Tensor bool scalar in graph mode)."""
    _ctx[0] = RunCtx(stage="train_step", train_flag=train_flag, step=step, epoch=epoch)


def init_forward_step_run_ctx(*, expected_outputs: Optional[TensorDict] = None, step: Any = 0, epoch: Any = 1
                              ) -> None:
    """Starts a forward step run context (train flag False)."""
    _ctx[0] = RunCtx(stage="forward_step", train_flag=False, step=step, epoch=epoch,
                     expected_outputs=expected_outputs)
