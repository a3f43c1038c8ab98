"""``rf.Parameter``: a trainable (or auxiliary) Tensor of a module. Its raw tensor is the backend's variable, created
by the backend for a whole module (TF: :func:`returnn.tf.frontend_low_level.create_parameter_variables`) under
names it is given; until then it is a template with its initial value recipe (:attr:`Parameter.initial`)."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from returnn.errors import FrontendError
from returnn.frontend.dtype import get_default_float_dtype
from returnn.tensor import Dim, Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A model parameter.

    :param dims_or_tensor: the dims (or a Tensor whose dims, dtype and sparse dim are taken)
    :param dtype: default: the default float dtype
    :param dims: the same as ``dims_or_tensor`` given by keyword
    :param sparse_dim: for an int parameter
    :param trainable: whether the optimizer updates it; None (default): True unless ``auxiliary``
    :param auxiliary: not part of the model function proper (e.g. running statistics); not trainable by default
    :param non_critical_for_restore: a checkpoint without it still loads (it keeps its initial value)
    :param weight_decay: L2 weight decay factor for the optimizer (default 0.0)
    :param initial: the initial value: an ``rf.init.ParamInit`` (e.g. ``rf.init.Glorot()``), a number, a numpy
        array or a Tensor with these dims; None: zeros
    :param raw_tensor: an existing variable
    :raises FrontendError: no dims, or dims that are not all static
    """

    def __init__(self, dims_or_tensor: Union[None, Sequence[Dim], Tensor] = None, dtype: Optional[str] = None, *,
                 dims: Optional[Sequence[Dim]] = None, sparse_dim: Optional[Dim] = None,
                 trainable: Optional[bool] = None, auxiliary: bool = False, non_critical_for_restore: bool = False,
                 weight_decay: Optional[float] = 0.0, initial: Any = None, raw_tensor: Any = None,
                 device: Optional[str] = None):
        if isinstance(dims_or_tensor, Tensor):
            dims, dtype = dims_or_tensor.dims, dtype or dims_or_tensor.dtype
            sparse_dim = sparse_dim or dims_or_tensor.sparse_dim
        elif dims_or_tensor is not None:
            dims = dims_or_tensor
        if dims is None:
            raise FrontendError("Parameter", "needs dims")
        for d in dims:
            if not isinstance(d, Dim) or d.dimension is None:
                raise FrontendError("Parameter", f"needs static dims, got {d!r}", got=tuple(dims))
        super().__init__("parameter", dims=list(dims), dtype=dtype or get_default_float_dtype(),
                         sparse_dim=sparse_dim)
        self.trainable = trainable
        self.auxiliary = auxiliary
        self.non_critical_for_restore = non_critical_for_restore
        self.weight_decay = weight_decay
        self._initial = initial
        self.device = device
        if raw_tensor is not None:
            self.raw_tensor = raw_tensor

    @property
    def initial(self) -> Any:
        """The initial value recipe (``rf.init.ParamInit``, number, array, Tensor) or None (zeros)."""
        return self._initial

    @initial.setter
    def initial(self, value: Any) -> None:
        self._initial = value

    @property
    def is_trainable(self) -> bool:
        """:return: ``trainable`` if set, else ``not auxiliary``"""
        return (not self.auxiliary) if self.trainable is None else bool(self.trainable)

    def initial_value(self) -> Tensor:
        """:return: the initial value as a Tensor with this parameter's dims (computed by the selected backend: a
        random initialiser draws here)"""
        from returnn.frontend import const
        from returnn.frontend.init import ParamInit
        value = self._initial
        if value is None:
            value = 0
        if isinstance(value, ParamInit):
            value = value(dims=self.dims, dtype=self.dtype, sparse_dim=self.sparse_dim)
        if isinstance(value, Tensor):
            return const.expand_to(value, self.dims) if value.dims != self.dims else value
        if isinstance(value, (int, float, bool)):
            return const.full(dims=self.dims, fill_value=value, dtype=self.dtype)
        return const.convert_to_tensor(value, dims=self.dims, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"Parameter{self.get_description(with_name=False)[6:]}"
