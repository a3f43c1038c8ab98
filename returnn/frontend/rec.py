"""Recurrent modules: ``rf.LSTM`` and ``rf.ZoneoutLSTM`` with their state ``rf.LstmState`` (``h``, ``c``).

Parameters (names and dims as the reference): ``ff_weight`` ``[4*out_dim, in_dim]``, ``rec_weight``
``[4*out_dim, out_dim]``, ``bias`` ``[4*out_dim]``. The ``4*out_dim`` rows hold the gates in the order input,
forget, cell input ("j"), output (``"ifjo"``; PyTorch's order i, f, g, o is the same). One step::

    z = ff_weight · x + rec_weight · h + bias;  i, f, j, o = split(z)
    c' = sigmoid(f + forget_bias) * c + sigmoid(i) * tanh(j);  h' = sigmoid(o) * tanh(c')

Over a dynamic spatial dim, the state of a sequence stays at its last frame; the outputs beyond a sequence's length
are not masked.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from returnn.errors import FrontendError
from returnn.frontend import init as _init
from returnn.frontend.module import Module
from returnn.frontend.parameter import Parameter
from returnn.frontend.state import State
from returnn.tensor import Dim, Tensor, single_step_dim

__all__ = ["LSTM", "LstmState", "ZoneoutLSTM"]


class LstmState(State):
    """The state of an LSTM: ``h`` (the output) and ``c`` (the cell), each ``[batch..., out_dim]``."""

    def __init__(self, *_args: Any, h: Optional[Tensor] = None, c: Optional[Tensor] = None):
        if _args:
            super().__init__(*_args)
        else:
            super().__init__(h=h, c=c)


class LSTM(Module):
    """A single-layer LSTM over ``spatial_dim`` (or one step for ``single_step_dim``).

    :param in_dim: the input feature dim
    :param out_dim: the output (and state) dim
    :param with_bias: whether ``bias`` exists (zeros initially); weights are Glorot-initialised
    """

    parts_order = "ifjo"
    forget_bias = 0.0

    def __init__(self, in_dim: Dim, out_dim: Dim, *, with_bias: bool = True):
        super().__init__()
        for name, d in (("in_dim", in_dim), ("out_dim", out_dim)):
            if not isinstance(d, Dim) or d.dimension is None:
                raise FrontendError(type(self).__name__, f"{name} must be a static Dim", got=d)
        self.in_dim, self.out_dim = in_dim, out_dim
        gates_dim = 4 * out_dim
        self.ff_weight = Parameter((gates_dim, in_dim), initial=_init.Glorot())
        self.rec_weight = Parameter((gates_dim, out_dim), initial=_init.Glorot())
        self.bias = Parameter((gates_dim,), initial=0.0) if with_bias else None

    def default_initial_state(self, *, batch_dims: Sequence[Dim]) -> LstmState:
        """:return: zeros ``[batch_dims..., out_dim]`` for ``h`` and ``c``"""
        from returnn.frontend.const import zeros
        dims = list(batch_dims) + [self.out_dim]
        return LstmState(h=zeros(dims), c=zeros(dims))

    def __call__(self, source: Tensor, *, state: LstmState, spatial_dim: Dim) -> Tuple[Tensor, LstmState]:
        """:return: (output, new state); output: ``[spatial_dim, batch..., out_dim]`` (for ``single_step_dim``:
        ``[batch..., out_dim]``)

        :raises FrontendError: ``source`` lacks ``in_dim`` or ``spatial_dim``
        """
        from returnn.frontend import _utils
        call = type(self).__name__
        if not isinstance(source, Tensor):
            raise FrontendError(call, "expected a Tensor", got=source)
        _utils.check_dims(call, source, [self.in_dim])
        if state is None or not isinstance(state, State) or "h" not in state or "c" not in state:
            raise FrontendError(call, "needs state=rf.LstmState(h=..., c=...)", got=state)
        ff = self._ff(source)
        if spatial_dim == single_step_dim:
            y, h, c = self._step(ff, state.h, state.c)
            return y, LstmState(h=h, c=c)
        _utils.check_dims(call, source, [spatial_dim])
        from returnn.frontend.loop import scan
        batch_dims = [d for d in ff.dims if d not in (spatial_dim, self.ff_weight.dims[0])]
        y_template = Tensor("lstm_out", dims=batch_dims + [self.out_dim], dtype=source.dtype)

        def _body(x_t: Tensor, s: LstmState) -> Tuple[Tensor, LstmState]:
            y_, h_, c_ = self._step(x_t, s.h, s.c)
            return y_, LstmState(h=h_, c=c_)

        ys, final, _ = scan(spatial_dim=spatial_dim, xs=ff, ys=y_template, initial=LstmState(h=state.h, c=state.c),
                            body=_body)
        return ys, final

    def _ff(self, source: Tensor) -> Tensor:
        from returnn.frontend.matmul import matmul
        out = matmul(source, self.ff_weight, reduce=self.in_dim)
        if self.bias is not None:
            out = out + self.bias
        return out

    def _cell(self, z: Tensor, h: Tensor, c: Tensor) -> Tuple[Tensor, Tensor]:
        """:return: (h', c') before zoneout, from the gate pre-activations ``z`` ``[..., 4*out_dim]``"""
        from returnn.frontend.array_ import split
        from returnn.frontend.math_ import sigmoid, tanh
        parts = dict(zip(self.parts_order, split(z, axis=self.ff_weight.dims[0], out_dims=[self.out_dim] * 4)))
        f = parts["f"] + self.forget_bias if self.forget_bias else parts["f"]
        new_c = sigmoid(f) * c + sigmoid(parts["i"]) * tanh(parts["j"])
        new_h = sigmoid(parts["o"]) * tanh(new_c)
        return new_h, new_c

    def _step(self, ff: Tensor, h: Tensor, c: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        """:return: (output, state h, state c) of one step"""
        from returnn.frontend.matmul import matmul
        z = ff + matmul(h, self.rec_weight, reduce=self.out_dim)
        new_h, new_c = self._cell(z, h, c)
        new_h = _transpose_like(new_h, h)
        return new_h, new_h, _transpose_like(new_c, c)


def _transpose_like(x: Tensor, like: Tensor) -> Tensor:
    if x.dims == like.dims or set(x.dims) != set(like.dims):
        return x
    from returnn.frontend import _utils
    return _utils.make_tensor(x.name, like.dims, x.dtype, _utils.aligned_raw(x, like.dims), feature_dim=x.feature_dim)


class ZoneoutLSTM(LSTM):
    """An LSTM with zoneout (Krueger et al., 2016): in training, each entry of ``c``/``h`` keeps its previous value
    with probability ``zoneout_factor_cell``/``zoneout_factor_output``; otherwise the expectation
    ``(1 - z) * new + z * old``.

    :param forget_bias: added to the forget gate's pre-activation (default 0.0)
    :param use_zoneout_output: the output is the zoned-out ``h`` (default True), else the new ``h``; the state's
        ``h`` is the zoned-out one either way
    :param parts_order: the gate order of the ``4*out_dim`` rows (default ``"ifjo"``)
    :param dropout_broadcast: kept for the reference's signature (masks are drawn per entry here)
    """

    def __init__(self, in_dim: Dim, out_dim: Dim, *, with_bias: bool = True, zoneout_factor_cell: float = 0.0,
                 zoneout_factor_output: float = 0.0, use_zoneout_output: bool = True, forget_bias: float = 0.0,
                 parts_order: str = "ifjo", dropout_broadcast: bool = True):
        super().__init__(in_dim, out_dim, with_bias=with_bias)
        if sorted(parts_order) != sorted("ifjo"):
            raise FrontendError("ZoneoutLSTM", f"parts_order must be a permutation of 'ifjo', got {parts_order!r}")
        for name, z in (("zoneout_factor_cell", zoneout_factor_cell), ("zoneout_factor_output", zoneout_factor_output)):
            if not 0.0 <= z < 1.0:
                raise FrontendError("ZoneoutLSTM", f"{name} must be in [0, 1), got {z}")
        self.zoneout_factor_cell = zoneout_factor_cell
        self.zoneout_factor_output = zoneout_factor_output
        self.use_zoneout_output = use_zoneout_output
        self.forget_bias = forget_bias
        self.parts_order = parts_order.replace("c", "j").replace("g", "j")
        self.dropout_broadcast = dropout_broadcast

    def _step(self, ff: Tensor, h: Tensor, c: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        """:return: (output, state h, state c): the state's ``h`` is always the zoned-out one; the output too unless
        ``use_zoneout_output`` is False (then the new ``h``), as the reference (observed)"""
        from returnn.frontend.matmul import matmul
        z = ff + matmul(h, self.rec_weight, reduce=self.out_dim)
        new_h, new_c = self._cell(z, h, c)
        new_h, new_c = _transpose_like(new_h, h), _transpose_like(new_c, c)
        new_c = _zoneout(new_c, c, self.zoneout_factor_cell)
        zoned_h = _zoneout(new_h, h, self.zoneout_factor_output)
        return (zoned_h if self.use_zoneout_output else new_h), zoned_h, new_c


def _zoneout(new: Tensor, old: Tensor, factor: float) -> Tensor:
    """:return: in training: per entry ``old`` with probability ``factor``, else ``new``; otherwise
    ``(1 - factor) * new + factor * old``"""
    if not factor:
        return new
    from returnn.frontend.cond import cond
    from returnn.frontend.dropout import dropout
    from returnn.frontend.run_ctx import get_run_ctx

    def _train() -> Tensor:
        return dropout(new - old, drop_prob=factor, on_forward=True) * (1.0 - factor) + old

    def _eval() -> Tensor:
        return new * (1.0 - factor) + old * factor

    train = get_run_ctx().train_flag
    if isinstance(train, bool):
        return _train() if train else _eval()
    return cond(train, _train, _eval)
