"""The LSTM op of the reference's ``NativeLstm`` unit as graph functions of TensorFlow ops (no compiled C++):
an op of type ``LstmGenericBase`` and its gradient, an op of type ``GradOfLstmGenericBase``, with the reference's
inputs and outputs (observed), so that graph inspection and gradient lookup by op type work as with the
reference's native op.

``LstmGenericBase(Z, V_h, c, i) -> (Y, H, d)``:

- ``Z`` float32 ``[T, B, 4n]``: the projected input ``x W + b`` of every frame, gate blocks (cell input ``u``,
  input gate ``i``, forget gate ``f``, output gate ``o``);
- ``V_h`` float32 ``[n, 4n]``: the recurrent weights; ``c`` float32 ``[B, n]``: the initial cell state (the
  initial output is 0); ``i`` float32 ``[T, B]``: 1 for a real frame, 0 for a padded one (padding at the end);
- ``Y`` ``[T, B, n]``: the output (0 at padded frames); ``H`` ``[T, B, 4n]``: per frame the cell state and the
  three gates after their sigmoid, ``(c_t, sigmoid(z_i), sigmoid(z_f), sigmoid(z_o))`` (a padded frame keeps the
  cell state, gates 0); ``d`` ``[B, n]``: the cell state after the last real frame.

Per real frame: ``z = Z_t + y_{t-1} V_h``; ``c_t = f c_{t-1} + i tanh(z_u)``; ``y_t = o tanh(c_t)``.

``GradOfLstmGenericBase(V_h, c, i, Y, H, dY, dd) -> (dZ, dV_h, dc, dummy)`` (``dummy``: zeros ``[B, n]``) is the
backward loop; ``tanh(z_u)``
is recovered from ``H`` as ``(c_t - f c_{t-1}) / i`` (clipped to [-1, 1]; where the input gate is 0 its gradient
factor is 0 anyway), so the gradient stays finite for saturated gates.
"""

from __future__ import annotations

from typing import Any, List, Tuple

import tensorflow as tf
from tensorflow.python.framework import function, ops

OP_TYPE = "LstmGenericBase"
GRAD_OP_TYPE = "GradOfLstmGenericBase"


def _gates(h: tf.Tensor, n: Any) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]:
    return tuple(h[..., k * n:(k + 1) * n] for k in range(4))


def _forward(z: tf.Tensor, v_h: tf.Tensor, c0: tf.Tensor, index: tf.Tensor) -> List[tf.Tensor]:
    n = tf.shape(v_h)[0]
    num_frames = tf.shape(z)[0]
    y_ta = tf.TensorArray(tf.float32, size=num_frames)
    h_ta = tf.TensorArray(tf.float32, size=num_frames)

    def body(t, c, y_prev, y_ta_, h_ta_):
        zt = z[t] + tf.matmul(y_prev, v_h)
        u = tf.tanh(zt[:, :n])
        gates = tf.sigmoid(zt[:, n:])
        i, f, o = gates[:, :n], gates[:, n:2 * n], gates[:, 2 * n:]
        new_c = f * c + i * u
        y = o * tf.tanh(new_c)
        real = index[t][:, None] > 0
        c = tf.where(real, new_c, c)
        y_out = tf.where(real, y, tf.zeros_like(y))
        h = tf.concat([c, tf.where(real, gates, tf.zeros_like(gates))], axis=-1)
        return t + 1, c, tf.where(real, y, y_prev), y_ta_.write(t, y_out), h_ta_.write(t, h)

    _, c, _, y_ta, h_ta = tf.while_loop(lambda t, *_: t < num_frames, body,
                                        (tf.constant(0), c0, tf.zeros_like(c0), y_ta, h_ta), parallel_iterations=1)
    return [y_ta.stack(), h_ta.stack(), c]


def _backward(v_h: tf.Tensor, c0: tf.Tensor, index: tf.Tensor, y_all: tf.Tensor, h_all: tf.Tensor,
              dy_all: tf.Tensor, dd: tf.Tensor) -> List[tf.Tensor]:
    n = tf.shape(v_h)[0]
    num_frames = tf.shape(y_all)[0]
    c_all, i_all, f_all, o_all = _gates(h_all, n)
    c_prev_all = tf.concat([c0[None], c_all[:-1]], axis=0)
    y_prev_all = tf.concat([tf.zeros_like(y_all[:1]), y_all[:-1]], axis=0)
    one = tf.constant(1.0)
    tiny = tf.constant(1e-30)
    u_all = tf.clip_by_value((c_all - f_all * c_prev_all) / tf.maximum(i_all, tiny), -one, one)
    dz_ta = tf.TensorArray(tf.float32, size=num_frames)
    v_h_t = tf.transpose(v_h)

    def body(t, dc, dy_rec, dz_ta_):
        real = index[t][:, None] > 0
        i, f, o, u, c = i_all[t], f_all[t], o_all[t], u_all[t], c_all[t]
        dy = dy_all[t] + dy_rec
        tc = tf.tanh(c)
        dc_total = dc + dy * o * (one - tc * tc)
        dz = tf.concat([dc_total * i * (one - u * u), dc_total * u * i * (one - i),
                        dc_total * c_prev_all[t] * f * (one - f), dy * tc * o * (one - o)], axis=-1)
        dz = tf.where(real, dz, tf.zeros_like(dz))
        new_dc = tf.where(real, dc_total * f, dc)
        new_dy_rec = tf.where(real, tf.matmul(dz, v_h_t), dy_rec)
        return t - 1, new_dc, new_dy_rec, dz_ta_.write(t, dz)

    _, dc0, _, dz_ta = tf.while_loop(lambda t, *_: t >= 0, body,
                                     (num_frames - 1, dd, tf.zeros_like(dd), dz_ta), parallel_iterations=1)
    dz = dz_ta.stack()
    dv_h = tf.matmul(tf.reshape(y_prev_all, [-1, n]), tf.reshape(dz, [-1, 4 * n]), transpose_a=True)
    return [dz, dv_h, dc0, tf.zeros_like(dd)]


def _forward_shapes(op: Any) -> List[tf.TensorShape]:
    z, v_h, c0 = op.inputs[0].shape, op.inputs[1].shape, op.inputs[2].shape
    n = v_h[0] if v_h.rank == 2 else None
    time_batch = z[:2] if z.rank == 3 else tf.TensorShape([None, None])
    return [time_batch.concatenate([n]), z if z.rank == 3 else time_batch.concatenate([None]),
            c0 if c0.rank == 2 else tf.TensorShape([None, n])]


def _backward_shapes(op: Any) -> List[tf.TensorShape]:
    return [op.inputs[4].shape, op.inputs[0].shape, op.inputs[1].shape, op.inputs[6].shape]


_F32 = tf.float32
lstm_forward_op = function.Defun(_F32, _F32, _F32, _F32, func_name=OP_TYPE, shape_func=_forward_shapes)(_forward)
lstm_grad_op = function.Defun(_F32, _F32, _F32, _F32, _F32, _F32, _F32, func_name=GRAD_OP_TYPE,
                              shape_func=_backward_shapes)(_backward)


def _lstm_generic_base_grad(op: Any, dy: Any, dh: Any, dd: Any) -> Tuple[Any, ...]:
    """Gradient of ``LstmGenericBase`` (registered for its op type); ``dh`` (of ``H``) is not propagated."""
    del dh
    _, v_h, c0, index = op.inputs
    y_all, _, d = op.outputs
    dy = tf.zeros_like(y_all) if dy is None else dy
    dd = tf.zeros_like(d) if dd is None else dd
    dz, dv_h, dc0, _ = lstm_grad_op(v_h, c0, index, y_all, op.outputs[1], dy, dd)
    return dz, dv_h, dc0, None


#: the reference's attribute of the gradient function: the op that computes it
_lstm_generic_base_grad.grad_op = lstm_grad_op

try:
    ops.RegisterGradient(OP_TYPE)(_lstm_generic_base_grad)
except KeyError:  # registered already (this module reloaded)
    pass


def native_lstm(z: tf.Tensor, v_h: tf.Tensor, c0: tf.Tensor, index: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor,
                                                                                          tf.Tensor]:
    """
    :param z: float32 [T, B, 4n]
    :param v_h: float32 [n, 4n]
    :param c0: float32 [B, n]
    :param index: float32 [T, B] (1: real frame)
    :return: (Y [T, B, n], H [T, B, 4n], d [B, n]); see the module docstring
    """
    y, h, d = lstm_forward_op(z, v_h, c0, index)
    return y, h, d
