"""``{"class": "self_attention", "num_heads": H, "total_key_dim": K, "n_out": V, "from": "x"}``: multi-head
scaled dot-product self-attention over the time axis (Vaswani et al., 2017), as the reference's layer.

Shape: ``{B, T, F}`` -> ``{B, T, n_out}``. One param ``QKV`` ``[F, 2K + V]`` (no bias; default init
``glorot_uniform``); per head ``k = K/H``, ``v = V/H``; queries are scaled by ``k ** -0.5``. The columns of
``QKV`` are grouped by head, as the reference's (observed: its outputs with the same ``QKV``): head ``h`` has the
``2k + v`` columns from ``h * (2k + v)`` on, its query, key and value in this order.
``energy[b, h, i, j] = q[b, h, i] . (key[b, h, j] + key_shift[i, j])`` (``key_shift``: a layer ``{T, T', k}``,
e.g. ``relative_positional_encoding``); keys beyond the sequence length, and with ``attention_left_only`` keys
after the query (``j > i``), get weight 0; softmax over ``j``; ``attention_dropout`` (training); output the
weighted sum of the values, heads concatenated.

Inside a rec unit (input ``{B, F}`` per step) it attends over the keys/values of all steps so far (the
current one included; i.e. ``attention_left_only`` implied): the loop carries buffers ``[B, H, max_len, d]``
(``max_len``: the loop's maximal length); ``key_shift`` is then ``{T', k}`` for the current query (a
``relative_positional_encoding`` inside the same unit). When the rec unit moves
it out of the loop (training), it runs over the whole sequence, which equals the step-wise result with
``attention_left_only``.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, NotSpecified, Tensor
from returnn.tf.layers.core import kept_state
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.dense import dense_matmul
from returnn.tf.ops.init import get_initializer


@register_layer
class SelfAttentionLayer(ConcatInputLayer):
    """See the module docstring.

    :param num_heads: H (must divide ``total_key_dim`` and ``n_out``)
    :param total_key_dim: K
    :param key_shift: layer name, output ``{T, T', K/H}``
    :param attention_left_only: causal masking
    :param attention_dropout: dropout on the attention weights (training only)
    :param forward_weights_init: initializer of ``QKV``
    """

    layer_class = "self_attention"
    recurrent = True  # depends on other frames (as the reference's class)
    has_rec_state = True
    can_run_over_time = True

    def __init__(self, num_heads: int, total_key_dim: int, key_shift: Any = None, attention_left_only: bool = False,
                 attention_dropout: float = 0.0, forward_weights_init: Any = "glorot_uniform",
                 initial_state: Any = None, restrict_state_to: Optional[int] = None, state_var_lengths: Any = None,
                 rec_previous_state: Optional[Dict[str, tf.Tensor]] = None, rec_step: Any = None,
                 **kwargs: Any):
        """
        :param initial_state: the keys and values of frames before the sequence (see :meth:`get_rec_initial_state`):
            None (none), ``"placeholder"``, ``"keep_over_epoch"``, ``"keep_over_epoch_no_init"``
        :param restrict_state_to: accepted for compatibility with the reference; no effect here
        :param state_var_lengths: accepted for compatibility with the reference; no effect here
        :param rec_previous_state: set by the rec loop, not in a config: this layer's state from the previous step
        :param rec_step: set by the rec loop, not in a config: the current step
        """
        super().__init__(**kwargs)
        n_out = self.output.dim
        heads = num_heads
        init = get_initializer(forward_weights_init, seed=self.network.random.randint(2 ** 31),
                               key=f"{self.name}/forward_weights_init")
        if self.input_data.time_dim_axis is None:
            self._step(rec_previous_state, rec_step, heads, total_key_dim, n_out, init, key_shift)
            return
        inp = self.input_data.copy_as_batch_major().copy_with_time_dim_axis(1)
        n_in = inp.dim
        qkv_w = self.create_param("QKV", (n_in, 2 * total_key_dim + n_out), init)
        x = inp.placeholder
        if inp.sparse:
            x = tf.one_hot(x, n_in)
        # tf_amp: the products in bfloat16/float16, and q, k, v and the attention's output (its heads merged) stay in
        # that dtype between them; the energies (softmax input) and the layer output float32
        amp = self.network.amp
        batch, length = tf.shape(x)[0], tf.shape(x)[1]
        # [B, T, F] as [B*T, F] for one MatMul (tf.tensordot would add a copying transpose and shape ops)
        qkv = dense_matmul(amp.cast(tf.reshape(x, [-1, n_in])), amp.cast(qkv_w))
        qkv = tf.reshape(qkv, [batch, length, 2 * total_key_dim + n_out])  # [B, T, 2K + V]
        dk, dv = total_key_dim // heads, n_out // heads
        qkv = tf.transpose(tf.reshape(qkv, [batch, length, heads, 2 * dk + dv]), [0, 2, 1, 3])  # [B, H, T, 2k + v]
        # as the reference's graph (observed; its tests fetch the keys as "<layer>/qkv_1:1"): the split is named
        # "qkv", which TF makes "qkv_1" (op names are unique ignoring case: the param "QKV" is there)
        q, k, v = tf.split(qkv, [dk, dk, dv], axis=3, name="qkv")  # [B, H, T, d] each
        q = q * tf.constant(float(dk) ** -0.5, q.dtype)
        if initial_state is not None:  # concatenated with the float32 state below
            q, k, v = amp.uncast(q), amp.uncast(k), amp.uncast(v)
        energy = amp.matmul(q, k, transpose_b=True)  # [B, H, T, T']
        if key_shift is not None:
            shift = key_shift.output.copy_as_time_major().placeholder  # [T, T', d]
            energy = energy + _relative_energy(amp, q, shift, batch, heads, length)
        key_mask = tf.sequence_mask(inp.get_sequence_lengths(), maxlen=length)[:, None, None, :]
        mask = key_mask
        if attention_left_only:
            # the causal mask only, as step by step in a rec loop (as the reference, observed: a rec unit's
            # self-attention moved out of the loop equals the loop's also in the padded frames, where a query sees the
            # padded keys before it; for the real frames the key mask changes nothing)
            mask = tf.linalg.band_part(tf.ones([length, length], tf.bool), -1, 0)[None, None]
        # the mask broadcast by the select itself (no mask or fill tensor of the energy's size)
        energy = tf.where(mask, energy, tf.constant(-1e30, energy.dtype))
        if initial_state is not None:  # the keys/values of the frames before this sequence come first
            prev = self.get_rec_initial_state(batch, name=self.name, num_heads=heads, total_key_dim=total_key_dim,
                                              n_out=n_out, initial_state=initial_state, network=self.network)
            energy = tf.concat([amp.matmul(q, prev["k_left"], transpose_b=True), energy], axis=-1)
            k = tf.concat([prev["k_left"], k], axis=2)
            v = tf.concat([prev["v_left"], v], axis=2)
            self.finish_rec_state({"k_left": k, "v_left": v}, name=self.name, initial_state=initial_state,
                                  network=self.network)
        weights = tf.nn.softmax(energy, axis=-1)
        if attention_dropout:
            from returnn.tf.ops.dropout import apply_dropout
            tmp = Tensor(name="att", shape=(None, None, None), batch_dim_axis=0)
            tmp.placeholder = weights
            # one mask value per weight (as the reference: its mask has the weights' shape [B, H, T, T'])
            weights = apply_dropout(tmp, attention_dropout, train_flag=self.network.train_flag,
                                    noise_shape={"*": None}, seed=self.network.random.randint(2 ** 31))
        out = tf.matmul(amp.cast(weights), amp.cast(v))  # [B, H, T, v]
        out = amp.uncast(tf.reshape(tf.transpose(out, [0, 2, 1, 3]), [batch, length, n_out]))
        tmpl = self.output.copy_as_batch_major().copy_with_time_dim_axis(1)
        tmpl.placeholder = out
        perm = [tmpl.dims.index(d) for d in self.output.dims]
        self.output.placeholder = out if perm == list(range(len(perm))) else tmpl.copy_transpose(perm).placeholder

    def _step(self, state: Optional[Dict[str, tf.Tensor]], step: Any, heads: int, key_dim: int, n_out: int,
              init: Any, key_shift: Any) -> None:
        """One step inside a rec unit: append this step's key/value to the buffers, attend over steps <= i."""
        if state is None:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="from",
                                problem="step-wise self-attention needs the loop state of a rec unit", got=None)
        inp = self.input_data.copy_as_batch_major()
        x = tf.cast(inp.placeholder, tf.float32) if not inp.sparse else tf.one_hot(inp.placeholder, inp.dim)
        qkv_w = self.create_param("QKV", (inp.dim, 2 * key_dim + n_out), init)
        amp = self.network.amp  # tf_amp: the products in bfloat16/float16, results float32
        dk, dv = key_dim // heads, n_out // heads
        batch = tf.shape(x)[0]
        qkv = tf.reshape(amp.matmul(x, qkv_w), [batch, heads, 1, 2 * dk + dv])  # columns grouped by head
        q, k, v = tf.split(qkv, [dk, dk, dv], axis=3)
        q = q * (float(dk) ** -0.5)
        keys = tf.concat([state["k_left"], k], axis=2)  # [B, H, T, dk]: all keys so far, this step's last
        values = tf.concat([state["v_left"], v], axis=2)
        energy = amp.matmul(q, keys, transpose_b=True)  # [B, H, 1, T]
        if key_shift is not None:
            shift_data = key_shift.output
            if shift_data.batch_dim_axis is not None or shift_data.batch_ndim not in (2, 3):
                raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="key_shift",
                                    problem="inside a rec unit, key_shift must be {1, T', k} or {T', k} (e.g. a "
                                            "relative_positional_encoding in the same unit), got",
                                    got=shift_data.get_dims_repr())
            shift = shift_data.placeholder  # this query's row of the relative encodings
            if shift_data.batch_ndim == 3:
                shift = shift[0]  # [T', dk]
            energy = energy + tf.einsum("bhqd,td->bhqt", q, shift)
        out = amp.matmul(tf.nn.softmax(energy, axis=-1), values)  # [B, H, 1, dv]
        self.rec_state = {"k_left": keys, "v_left": values}
        self.output.placeholder = tf.reshape(out, [batch, n_out])

    @classmethod
    def get_rec_initial_state(cls, batch_size: tf.Tensor, *, name: str, num_heads: int = 1,
                              total_key_dim: Optional[int] = None, n_out: int = 0, initial_state: Any = None,
                              network: Any = None, param_scope: Optional[str] = None,
                              **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """The keys and values before the first step of a rec loop, ``k_left`` ``[B, H, P, K/H]`` and ``v_left``
        ``[B, H, P, n_out/H]`` (``P`` frames before the loop), from ``initial_state``:

        - None/``"zeros"`` (default): no frames (``P = 0``);
        - ``"placeholder"``: the placeholders ``<layer>/initial_state_placeholder_k_left`` and ``..._v_left`` (to
          be fed; after the loop, ``<layer>/last_state_k_left`` and ``..._v_left`` hold all keys and values);
        - ``"keep_over_epoch"``/``"keep_over_epoch_no_init"``: the final state of the previous run, in the
          non-trainable variables ``<layer>/keep_state_k_left``, ``..._v_left``
          (:mod:`returnn.tf.layers.core.kept_state`).

        :param param_scope: the layer's absolute variable scope (``"<rec>/rec/<name>"``)
        :raises LayerArgError: another ``initial_state``
        """
        dims = {"k_left": total_key_dim // num_heads, "v_left": n_out // num_heads}
        if initial_state == "zeros":  # no frames before (zero frames)
            initial_state = None
        if initial_state not in (None, "placeholder") and not kept_state.is_kept_state(initial_state):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="initial_state", problem="invalid value",
                                got=initial_state, expected='None, "zeros", "placeholder", "keep_over_epoch" or '
                                                           '"keep_over_epoch_no_init"')
        if param_scope is None:
            param_scope = tf.compat.v1.get_variable_scope().name
        states = {}
        for key, dim in dims.items():
            shape = [None, num_heads, None, dim]
            empty = tf.zeros(tf.stack([batch_size, num_heads, 0, dim]))
            # the number of frames grows from step to step: no static size on that axis
            empty = tf.compat.v1.placeholder_with_default(empty, shape=shape)
            if initial_state == "placeholder":
                with tf.name_scope(f"{param_scope}/"):
                    states[key] = tf.compat.v1.placeholder(tf.float32, shape, name=f"initial_state_placeholder_{key}")
            elif initial_state is not None:
                var = _kept_state_var(param_scope, key, shape)
                states[key] = kept_state.initial_value(network, initial_state, var, empty)
            else:
                states[key] = empty
        return states

    @classmethod
    def finish_rec_state(cls, final_state: Dict[str, tf.Tensor], *, name: str, initial_state: Any = None,
                         network: Any = None, param_scope: Optional[str] = None, **_kwargs: Any) -> None:
        """After the rec loop (or the whole sequence): with ``initial_state`` ``"placeholder"``, names the final keys
        and values ``<layer>/last_state_k_left`` and ``..._v_left``; with a state kept over runs, writes them to its
        variables after the run (see :meth:`get_rec_initial_state`)."""
        if param_scope is None:
            param_scope = tf.compat.v1.get_variable_scope().name
        for key, value in final_state.items():
            if initial_state == "placeholder":
                with tf.name_scope(f"{param_scope}/"):
                    tf.identity(value, name=f"last_state_{key}")
            elif kept_state.is_kept_state(initial_state):
                var = _kept_state_var(param_scope, key, [None, value.shape[1], None, value.shape[3]])
                kept_state.register_final_value(network, var, value)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``key_shift`` to a layer."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if d.get("key_shift"):
            d["key_shift"] = get_layer(d["key_shift"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), n_out: Any = NotSpecified,
                               num_heads: int = 1, total_key_dim: Optional[int] = None, out_dim: Any = None,
                               **kwargs: Any) -> Tensor:
        """:return: the input's dims with feature ``n_out`` (``<name>_self_att_feat``), batch-major with the time axis
            after the batch (``{T, B, F}`` -> ``{B, T, n_out}``), as the reference
        :raises LayerArgError: missing ``n_out``; heads not dividing the dims; no time axis"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if out_dim is not None:
            n_out = out_dim.dimension
        if n_out in (NotSpecified, None):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument")
        for arg, value in (("total_key_dim", total_key_dim), ("n_out", n_out)):
            if not isinstance(value, int) or value % num_heads:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg=arg, problem="invalid value",
                                    got=value, expected=f"an int divisible by num_heads={num_heads}")
        if inp.sparse:
            inp = inp.copy_as_dense_template()
        inp = inp.copy_as_batch_major()  # as the reference (observed): batch-major, the time axis after the batch
        if inp.time_dim_axis is not None:
            inp = inp.copy_with_time_dim_axis(1)
        feat = out_dim or FeatureDim(f"{name}_self_att_feat", n_out)  # the reference's name (observed)
        return inp.copy_template_replace_dim(inp.feature_dim_axis, feat).copy_template(name=f"{name}_output")


def _relative_energy(amp: Any, q: tf.Tensor, shift: tf.Tensor, batch: tf.Tensor, heads: int,
                     length: tf.Tensor) -> tf.Tensor:
    """``einsum("bhid,ijd->bhij", q, shift)`` as one batched product over the query frames ``i``: ``q`` as
    ``[T, B*H, d]`` times ``shift^T`` ``[T, d, T']``, then back to ``[B, H, T, T']`` (TensorFlow's CPU einsum
    kernel took several times as long for this contraction, and its gradient runs two more einsums).

    :param q: ``[B, H, T, d]``
    :param shift: ``[T, T', d]``
    :return: ``[B, H, T, T']`` (float32; the product in ``amp``'s compute dtype)
    """
    dk = q.shape[-1]
    q_t = tf.reshape(tf.transpose(q, [2, 0, 1, 3]), [length, -1, dk])  # [T, B*H, d]
    rel = amp.matmul(q_t, shift, transpose_b=True)  # [T, B*H, T']
    rel = tf.reshape(rel, [length, batch, heads, -1])
    return tf.transpose(rel, [1, 2, 0, 3])


def _kept_state_var(param_scope: str, key: str, shape: Any) -> tf.Variable:
    """:return: the variable ``<param_scope>/keep_state_<key>`` (created on first use)"""
    scope = tf.compat.v1.VariableScope(reuse=tf.compat.v1.AUTO_REUSE, name=param_scope)
    with tf.compat.v1.variable_scope(scope, auxiliary_name_scope=False):
        return kept_state.create_state_var(f"keep_state_{key}", shape)
