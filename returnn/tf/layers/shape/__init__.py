"""Shape layers: one file per layer."""

from returnn.tf.layers.shape import expand_dims as _expand_dims  # noqa: F401
from returnn.tf.layers.shape import flatten_batch as _flatten_batch  # noqa: F401
from returnn.tf.layers.shape import gather as _gather  # noqa: F401
from returnn.tf.layers.shape import merge_dims as _merge_dims  # noqa: F401
from returnn.tf.layers.shape import pad as _pad  # noqa: F401
from returnn.tf.layers.shape import postfix_in_time as _postfix_in_time  # noqa: F401
from returnn.tf.layers.shape import prefix_in_time as _prefix_in_time  # noqa: F401
from returnn.tf.layers.shape import reinterpret_data as _reinterpret_data  # noqa: F401
from returnn.tf.layers.shape import repeat as _repeat  # noqa: F401
from returnn.tf.layers.shape import reshape as _reshape  # noqa: F401
from returnn.tf.layers.shape import resize as _resize  # noqa: F401
from returnn.tf.layers.shape import seq_len_mask as _seq_len_mask  # noqa: F401
from returnn.tf.layers.shape import shift_axis as _shift_axis  # noqa: F401
from returnn.tf.layers.shape import slice as _slice  # noqa: F401
from returnn.tf.layers.shape import split as _split  # noqa: F401
from returnn.tf.layers.shape import split_batch_time as _split_batch_time  # noqa: F401
from returnn.tf.layers.shape import split_dims as _split_dims  # noqa: F401
from returnn.tf.layers.shape import squeeze as _squeeze  # noqa: F401
from returnn.tf.layers.shape import stack as _stack  # noqa: F401
from returnn.tf.layers.shape import swap_axes as _swap_axes  # noqa: F401
from returnn.tf.layers.shape import tile as _tile  # noqa: F401
from returnn.tf.layers.shape import time_chunking as _time_chunking  # noqa: F401
from returnn.tf.layers.shape import time_unchunking as _time_unchunking  # noqa: F401
from returnn.tf.layers.shape import transpose as _transpose  # noqa: F401
from returnn.tf.layers.shape import unflatten_batch as _unflatten_batch  # noqa: F401
from returnn.tf.layers.shape import window as _window  # noqa: F401
