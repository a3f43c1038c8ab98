"""The LSTM kernels of the reference's ``NativeLstm2`` and ``LstmLowMem`` ops, in TensorFlow ops (a
``tf.while_loop`` over the visited frames; gradients by TF's automatic differentiation).

Both run over the frames ``start', start' + step, ...`` of ``[T, B, ...]`` inputs, with ``start' = start`` for
``step > 0`` and ``start' = T - 1 - start`` for ``step < 0`` (a backward direction counts ``start`` from the end).
The gate blocks of the ``4n`` pre-activations are in the order cell input ``u``, input gate ``i``, forget gate
``f``, output gate ``o``. Per visited frame: ``c_t = sigmoid(f) c_{t-1} + sigmoid(i) tanh(u)``,
``y_t = sigmoid(o) tanh(c_t)``. A frame with ``index[t, b] == 0`` keeps the state (``y``, ``c``) of sequence ``b``
and outputs ``Y = 0``; its ``C`` is the kept cell state. Frames that are not visited (``step`` other than +-1,
``start > 0``) get 0 in every output.
"""

from __future__ import annotations

from typing import Any, Callable, List, NamedTuple, Sequence, Tuple

import tensorflow as tf


def _visited_frames(num_frames: tf.Tensor, start: Any, step: Any, low_mem: bool = False
                    ) -> tf.Tensor:
    """int32 ``[N]``: the frame indices visited, in visiting order.

    :param low_mem: ``LstmLowMem``'s frames (observed): for ``step < 0`` only the frames ``>= start``
    """
    start = tf.cast(start, tf.int32)
    step = tf.cast(step, tf.int32)
    first = tf.where(step >= 0, start, num_frames - 1 - start)
    limit = tf.where(step >= 0, num_frames, start - 1 if low_mem else -1)
    return tf.range(first, limit, step)


def _scatter_frames(values: tf.Tensor, frames: tf.Tensor, num_frames: tf.Tensor) -> tf.Tensor:
    """``values`` ``[N, ...]`` written at ``frames`` of a zero tensor ``[T, ...]``."""
    shape = tf.concat([[num_frames], tf.shape(values)[1:]], axis=0)
    return tf.scatter_nd(frames[:, None], values, shape)


class _Loop(NamedTuple):
    """What :func:`_lstm_loop` computes: the outputs ``[T, ...]`` (0 at unvisited frames), the final state, and
    per visited step (``[N, ...]``, in visiting order) what the backward pass of ``NativeLstm2`` needs."""

    y: tf.Tensor
    c: tf.Tensor
    h: tf.Tensor
    c_last: tf.Tensor
    y_last: tf.Tensor
    frames: tf.Tensor
    y_prev: tf.Tensor
    c_prev: tf.Tensor
    gates: tf.Tensor
    c_new: tf.Tensor


def _cell(z: tf.Tensor, c_prev: tf.Tensor, n: Any) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """:return: ``(gates (tanh(u), sigmoid(i, f, o)), c_new, y_new)``, the nonlinearities evaluated in float64
    (the reference's kernels round once, in their dtype; float32 ``tanh`` of TF is a few ulp off)"""
    z64 = tf.cast(z, tf.float64)
    gates = tf.concat([tf.tanh(z64[:, :n]), tf.sigmoid(z64[:, n:])], axis=-1)
    u, i, f, o = gates[:, :n], gates[:, n:2 * n], gates[:, 2 * n:3 * n], gates[:, 3 * n:]
    c_new = f * tf.cast(c_prev, tf.float64) + i * u
    y_new = o * tf.tanh(c_new)
    return tf.cast(gates, z.dtype), tf.cast(c_new, z.dtype), tf.cast(y_new, z.dtype)


def _lstm_loop(pre_activation: Callable[[tf.Tensor, tf.Tensor], tf.Tensor], num_frames: tf.Tensor,
               index: tf.Tensor, y0: tf.Tensor, c0: tf.Tensor, start: Any, step: Any,
               low_mem: bool = False) -> _Loop:
    """:param pre_activation: ``(t, y_prev) -> z [B, 4n]``
    :param low_mem: ``LstmLowMem``'s conventions (observed): the frames of :func:`_visited_frames` with
        ``low_mem``, and after a padded frame the previous output is 0 (its output), not the kept one
    """
    frames = _visited_frames(num_frames, start, step, low_mem)
    num_steps = tf.shape(frames)[0]
    n = tf.shape(c0)[-1]
    dtype = c0.dtype
    # one extra element at the end (written after the loop), so that stacking works for 0 visited frames
    names = ("y", "c", "h", "y_prev", "c_prev", "c_new")
    arrays = tuple(tf.TensorArray(dtype, size=num_steps + 1, infer_shape=False) for _ in names)

    def body(k, y_prev, c_prev, tas):
        t = frames[k]
        gates, c_new, y_new = _cell(pre_activation(t, y_prev), c_prev, n)
        real = (tf.cast(index[t], tf.bool) if index.dtype == tf.bool else index[t] > 0)[:, None]
        c = tf.where(real, c_new, c_prev)
        y = tf.where(real, y_new, tf.zeros_like(y_prev) if low_mem else y_prev)
        c.set_shape(c0.shape)
        y.set_shape(y0.shape)
        values = (tf.where(real, y_new, tf.zeros_like(y_new)), c, gates, y_prev, c_prev, c_new)
        return k + 1, y, c, tuple(ta.write(k, v) for ta, v in zip(tas, values))

    _, y_last, c_last, arrays = tf.while_loop(lambda k, *_: k < num_steps, body, (tf.constant(0), y0, c0, arrays))
    zeros = tf.zeros_like(c0)
    stacked = [ta.write(num_steps, tf.concat([zeros] * 4, axis=-1) if name == "h" else zeros).stack()[:-1]
               for name, ta in zip(names, arrays)]
    y_all, c_all, h_all, y_prev, c_prev, c_new = stacked
    return _Loop(y=_scatter_frames(y_all, frames, num_frames), c=_scatter_frames(c_all, frames, num_frames),
                 h=_scatter_frames(h_all, frames, num_frames), c_last=c_last, y_last=y_last, frames=frames,
                 y_prev=y_prev, c_prev=c_prev, gates=h_all, c_new=c_new)


def _native_lstm2_backward(loop: _Loop, w_r: tf.Tensor, index: tf.Tensor, num_frames: tf.Tensor, d_y: tf.Tensor,
                           d_c: tf.Tensor, d_d: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]:
    """The gradients of ``NativeLstm2`` for ``(x, w_r, y0, c0)`` from those of ``Y``, ``C``, ``d`` (one backward
    loop; the weight gradient is one product over all steps, outside the loop). ``H`` gets no gradient."""
    n = tf.shape(w_r)[0]
    num_steps = tf.shape(loop.frames)[0]
    w_r_t = tf.transpose(w_r)
    dz_ta = tf.TensorArray(w_r.dtype, size=num_steps + 1, infer_shape=False)
    d_y = tf.zeros_like(loop.y) if d_y is None else d_y
    d_c = tf.zeros_like(loop.c) if d_c is None else d_c
    d_d = tf.zeros_like(loop.c_last) if d_d is None else d_d

    def body(k, g_y, g_c, ta):
        t = loop.frames[k]
        real = (tf.cast(index[t], tf.bool) if index.dtype == tf.bool else index[t] > 0)[:, None]
        g_c = g_c + d_c[t]
        gates = tf.cast(loop.gates[k], tf.float64)
        u, i, f, o = gates[:, :n], gates[:, n:2 * n], gates[:, 2 * n:3 * n], gates[:, 3 * n:]
        tc = tf.tanh(tf.cast(loop.c_new[k], tf.float64))
        zero = tf.zeros_like(g_y)
        g_y_new = tf.cast(tf.where(real, g_y + d_y[t], zero), tf.float64)
        g_c_new = tf.cast(tf.where(real, g_c, zero), tf.float64) + g_y_new * o * (1.0 - tc * tc)
        c_prev = tf.cast(loop.c_prev[k], tf.float64)
        dz = tf.concat([g_c_new * i * (1.0 - u * u), g_c_new * u * i * (1.0 - i), g_c_new * c_prev * f * (1.0 - f),
                        g_y_new * tc * o * (1.0 - o)], axis=-1)
        dz = tf.cast(dz, w_r.dtype)
        g_c_prev = tf.where(real, tf.cast(g_c_new * f, w_r.dtype), g_c)
        g_y_prev = tf.where(real, tf.matmul(dz, w_r_t), g_y)
        g_c_prev.set_shape(loop.c_last.shape)
        g_y_prev.set_shape(loop.y_last.shape)
        return k - 1, g_y_prev, g_c_prev, ta.write(k, dz)

    init = (num_steps - 1, tf.zeros_like(loop.y_last), d_d, dz_ta)
    _, d_y0, d_c0, dz_ta = tf.while_loop(lambda k, *_: k >= 0, body, init)
    dz = dz_ta.write(num_steps, tf.zeros_like(tf.concat([loop.y_last] * 4, axis=-1))).stack()[:-1]  # [N, B, 4n]
    d_w = tf.matmul(tf.reshape(loop.y_prev, [-1, n]), tf.reshape(dz, [-1, 4 * n]), transpose_a=True)
    return _scatter_frames(dz, loop.frames, num_frames), d_w, d_y0, d_c0


def _set_time_batch_shapes(x: tf.Tensor, outs: Sequence[tf.Tensor], dims: Sequence[Any]) -> None:
    time_batch = x.shape[:2] if x.shape.rank is not None else tf.TensorShape([None, None])
    for out, dim in zip(outs, dims):
        out.set_shape(time_batch.concatenate([dim]))


def native_lstm2(x: Any, w_r: Any, y0: Any, c0: Any, index: Any, start: Any = 0, step: Any = 1
                 ) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor, tf.Tensor]:
    """The reference's ``NativeLstm2`` op.

    :param x: float32 ``[T, B, 4n]``, the projected input (bias included)
    :param w_r: float32 ``[n, 4n]``, the recurrent weights
    :param y0: float32 ``[B, n]``, the initial output; :param c0: float32 ``[B, n]``, the initial cell state
    :param index: ``[T, B]``, 1 (non-zero) for a real frame
    :param start: int scalar; :param step: int scalar, not 0 (negative: backwards)
    :return: ``(Y [T, B, n], C [T, B, n], H [T, B, 4n], d [B, n])``: outputs, cell states, the gate activations
        ``(tanh(u), sigmoid(i), sigmoid(f), sigmoid(o))``, the cell state after the last visited frame
    """
    x = tf.convert_to_tensor(x)
    w_r = tf.convert_to_tensor(w_r, dtype=x.dtype)
    y0 = tf.convert_to_tensor(y0, dtype=x.dtype)
    c0 = tf.convert_to_tensor(c0, dtype=x.dtype)
    index = tf.convert_to_tensor(index)

    @tf.custom_gradient
    def _op(x_, w_r_, y0_, c0_):
        loop = _lstm_loop(lambda t, y_prev: x_[t] + tf.matmul(y_prev, w_r_), tf.shape(x_)[0], index, y0_, c0_,
                          start, step)

        def grad(d_y, d_c, d_h, d_d):
            del d_h
            return _native_lstm2_backward(loop, w_r_, index, tf.shape(x_)[0], d_y, d_c, d_d)

        return (loop.y, loop.c, loop.h, loop.c_last), grad

    y, c, h, d = _op(x, w_r, y0, c0)
    n = w_r.shape[0] if w_r.shape.rank == 2 else None
    _set_time_batch_shapes(x, [y, c, h], [n, n, None if n is None else 4 * n])
    d.set_shape(tf.TensorShape([x.shape[1] if x.shape.rank is not None else None, n]))
    return y, c, h, d


def lstm_low_mem(x: Any, w: Any, b: Any, y0: Any, c0: Any, index: Any, start: Any = 0, step: Any = 1
                 ) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """The reference's ``LstmLowMem`` op: the input projection inside the loop. Backwards (``step < 0``) it
    visits the frames ``T - 1 - start`` down to ``start`` only (the reference's, observed; ``NativeLstm2`` goes
    down to frame 0), and the frame after a padded one sees the previous output 0 (the padded frame's output; the
    cell state is kept), as the reference (observed).

    :param x: float32 ``[T, B, n_in]``; :param w: float32 ``[n_in + n, 4n]`` (rows: input, then recurrent)
    :param b: float32 ``[4n]``; :param y0, c0: float32 ``[B, n]``; :param index: ``[T, B]``
    :param start: int scalar; :param step: int scalar, not 0
    :return: ``(Y [T, B, n], C [T, B, n], d [B, n])``
    """
    x = tf.convert_to_tensor(x)
    w = tf.convert_to_tensor(w, dtype=x.dtype)
    b = tf.convert_to_tensor(b, dtype=x.dtype)
    y0 = tf.convert_to_tensor(y0, dtype=x.dtype)
    c0 = tf.convert_to_tensor(c0, dtype=x.dtype)
    index = tf.convert_to_tensor(index)
    loop = _lstm_loop(lambda t, y_prev: tf.matmul(tf.concat([x[t], y_prev], axis=-1), w) + b, tf.shape(x)[0],
                      index, y0, c0, start, step, low_mem=True)
    y, c, d = loop.y, loop.c, loop.c_last
    n = w.shape[1] // 4 if w.shape.rank == 2 and w.shape[1] is not None else None
    _set_time_batch_shapes(x, [y, c], [n, n])
    return y, c, d


def lstm_last_output(out: Any, y0: Any, mask: Any, start: Any, step: Any) -> tf.Tensor:
    """The output of the last visited real frame per sequence (``y0`` where there is none).

    :param out: ``[T, B, n]``; :param y0: ``[B, n]``; :param mask: ``[T, B]`` (non-zero: real frame)
    :param start: int; :param step: int or None (None: 1)
    :return: ``[B, n]``
    """
    out = tf.convert_to_tensor(out)
    y0 = tf.convert_to_tensor(y0, dtype=out.dtype)
    mask = tf.convert_to_tensor(mask)
    num_frames = tf.shape(out)[0]
    frames = _visited_frames(num_frames, start, 1 if step is None else step)
    real = tf.gather(mask, frames) > 0 if mask.dtype != tf.bool else tf.gather(mask, frames)  # [N, B]
    num_steps = tf.shape(frames)[0]
    pos = tf.where(real, tf.range(num_steps)[:, None], -1)  # [N, B]
    last = tf.reduce_max(tf.concat([tf.fill([1, tf.shape(mask)[1]], -1), pos], axis=0), axis=0)  # [B]
    last_frame = tf.gather(tf.concat([frames, [0]], axis=0), tf.where(last >= 0, last, num_steps))
    picked = tf.gather(tf.transpose(out, [1, 0, 2]), last_frame, batch_dims=1)  # [B, n]
    return tf.where((last >= 0)[:, None], picked, y0)


def gradient_op(forward: Callable[..., Sequence[tf.Tensor]], num_inputs: int, grad_inputs: Sequence[int],
                grad_outputs: Sequence[int]) -> Callable[..., List[tf.Tensor]]:
    """A function ``(*inputs, *outputs, *output_grads) -> input_grads`` in the calling convention of the
    reference's gradient ops (``op.grad_op``): the gradients of ``forward``'s outputs numbered ``grad_outputs``
    (their gradients are the last arguments) with respect to its inputs numbered ``grad_inputs`` (of the first
    ``num_inputs`` arguments). The given outputs are not used: the forward pass is recomputed.
    """

    def grad(*args: Any) -> List[tf.Tensor]:
        inputs = [tf.convert_to_tensor(a) for a in args[:num_inputs]]
        out_grads = list(args[len(args) - len(grad_outputs):])
        wrt = [inputs[k] for k in grad_inputs]
        if tf.executing_eagerly():
            with tf.GradientTape() as tape:
                tape.watch(wrt)
                outs = forward(*inputs)
        else:
            outs = forward(*inputs)
        targets = [outs[k] for k in grad_outputs]
        out_grads = [tf.convert_to_tensor(g, dtype=t.dtype) for g, t in zip(out_grads, targets)]
        if tf.executing_eagerly():
            return tape.gradient(targets, wrt, output_gradients=out_grads,
                                 unconnected_gradients=tf.UnconnectedGradients.ZERO)
        return tf.gradients(targets, wrt, grad_ys=out_grads, unconnected_gradients=tf.UnconnectedGradients.ZERO)

    return grad
