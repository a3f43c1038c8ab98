"""``{"class": "hdf_dump", "filename": "out.hdf", "from": "x", "extra": {"k": "layer"}}``: writes every computed
batch of the input (and of the ``extra`` layers) into an HDF file in the reference's layout.

The output is the input (unchanged). The file (:class:`returnn.datasets.hdf.SimpleHDFWriter` layout, read by
``HDFDataset``) gets, as observed from the reference:

- ``inputs``: per sequence the frames within its lengths; all non-batch axes except the feature axis are
  flattened into frames (``{B, T, S, F}`` -> ``T_b * S`` frames of ``[F]``; sparse input: ids);
  ``inputPattSize``/``numLabels`` = feature dim (sparse: number of classes); ``labels`` = ``labels``;
- extra stream ``seq_sizes``: per sequence the sizes of those axes (``[T_b]``, ``[T_b, S]``); ``sizes`` the same
  when there is more than one such axis;
- per ``extra`` key ``k``: ``targets/data/k`` with all frames of the padded batch entry (not cut to the
  lengths, as the reference) and ``k_seq_lens`` with the sizes of all its non-batch axes (feature included);
  ``targets/size`` ``k`` = ``[dim, 1]`` (sparse) or ``[dim, 2]``;
- with ``dump_whole_batches``: one entry per batch, tag ``'<tag1><-><tag2>...'``, the padded batch as frames,
  ``seq_sizes`` ``{B, axes}`` and ``seq_tags``.

Sequence tags come from the extern data ``seq_tag`` (added by the layer: :meth:`TFNetwork.get_seq_tags`; the
engine feeds the batch's tags).
The dump op runs with the network's post-control dependencies if the network collects them (as the reference),
else whenever the output is computed. The file is written under a temporary name and renamed when the network's
graph-reset callbacks run, or at exit. ``filename`` may be a callable (called with ``dataset_name`` as known to the
network, else ``"unknown"``). ``extend_existing_file`` with an existing file and ``dump_per_run`` are not supported:
an error is raised when the first batch is dumped.
"""

from __future__ import annotations

import atexit
import itertools
import os
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template

_tag_counter = itertools.count()


def _axis_sizes(data: Tensor, raw_lens: Sequence[np.ndarray], with_feature: bool,
                batch: Optional[int] = None) -> np.ndarray:
    """:param batch: the batch size (else from the dynamic lengths, or 1 without any)
    :return: ``[B, n]`` sizes of the non-batch axes (feature included iff ``with_feature``)"""
    cols, k = [], 0
    for i, d in enumerate(data.dims):
        if i == data.batch_dim_axis:
            continue
        if i == data.feature_dim_axis and not with_feature:
            continue
        if d.dimension is None:
            cols.append(np.asarray(raw_lens[k]))
            batch = len(raw_lens[k])
            k += 1
        else:
            cols.append(d.dimension)
    batch = batch if batch is not None else 1
    return np.stack([np.broadcast_to(np.asarray(c), (batch,)) for c in cols], axis=1).astype("int32") if cols \
        else np.zeros((batch, 0), "int32")


def _batch_major_feature_last(data: Tensor) -> Tensor:
    """:return: ``data`` batch-major with the feature axis (if dense) last (the order an extra is dumped in)"""
    data = data.copy_as_batch_major()
    if not data.sparse and data.feature_dim_axis is not None and data.feature_dim_axis != data.batch_ndim - 1:
        data = data.copy_with_feature_last()
    return data


class _Dumper:
    """Python side: owns the writer, called per batch from the TF graph."""

    def __init__(self, layer: HDFDumpLayer, filename: Any, labels: Optional[Sequence[str]],
                 extend_existing_file: bool, dump_whole_batches: bool):
        self.layer_name = layer.name
        self.network = layer.network
        self.filename = filename
        self.labels = labels
        self.extend_existing_file = extend_existing_file
        self.dump_whole_batches = dump_whole_batches
        self.writer: Any = None
        self.main = layer.input_data.copy_template()
        self.extras = {k: _batch_major_feature_last(v.output.copy_template()) for k, v in layer.extra.items()}

    def _open(self) -> None:
        from returnn.datasets.hdf_writer import SimpleHDFWriter
        filename = self.filename
        if callable(filename):
            filename = filename(dataset_name=getattr(self.network.get_root_network(), "dataset_name", "unknown"))
        if os.path.exists(filename) and self.extend_existing_file:
            raise LayerArgError(layer=self.layer_name, layer_class="hdf_dump", arg="extend_existing_file",
                                problem="is not supported (yet) in this implementation (the file exists):",
                                got=filename, hint="remove the file or set extend_existing_file=False")
        main = self.main
        dim = main.sparse_dim.dimension if main.sparse else main.dim
        self.writer = SimpleHDFWriter(filename, dim=dim, labels=self.labels, ndim=1 if main.sparse else 2)

    def dump(self, x: np.ndarray, tags: np.ndarray, n_main: int, *args: np.ndarray) -> np.int64:
        if self.writer is None:
            self._open()
        main = self.main.copy_as_batch_major() if self.main.batch_dim_axis else self.main
        main_lens, rest = list(args[:n_main]), list(args[n_main:])
        sizes = _axis_sizes(main, main_lens, with_feature=False)
        tags = [t.decode("utf8") if isinstance(t, bytes) else str(t) for t in tags] if tags.size else \
            [f"seq-{next(_tag_counter)}" for _ in range(x.shape[0])]
        frame_shape = () if main.sparse or main.feature_dim_axis is None else (x.shape[-1],)
        extra: Dict[str, np.ndarray] = {}
        lens: Dict[Any, Any] = {}
        extra_type: Dict[str, Any] = {}
        whole = self.dump_whole_batches
        for key, tmpl in self.extras.items():
            arr = rest.pop(0)
            n_dyn = len(tmpl.get_dynamic_axes())
            k_lens = [rest.pop(0) for _ in range(n_dyn)]
            n_batch = arr.shape[0]
            k_frame = () if whole or tmpl.sparse or tmpl.feature_dim_axis is None else (arr.shape[-1],)
            dim = tmpl.sparse_dim.dimension if tmpl.sparse else (tmpl.dim or 1)
            seq_lens = _axis_sizes(tmpl, k_lens, with_feature=True, batch=n_batch)
            if whole:  # the padded batch entry, all axes flattened; its sizes [B, n] as one entry
                extra[key], lens[key] = arr.reshape((1, -1)), [arr.size]
                extra[f"{key}_seq_lens"], lens[f"{key}_seq_lens"] = seq_lens[None], [n_batch]
                extra_type[f"{key}_seq_lens"] = (1, 2, "int32")
            else:  # per sequence: all frames of its padded entry (not cut to its lengths); sizes per sequence
                extra[key] = arr.reshape((n_batch, -1) + k_frame)
                lens[key] = [extra[key].shape[1]] * n_batch
                if seq_lens.shape[1]:  # one value per sequence (e.g. a score): no sizes (as the reference, observed)
                    extra[f"{key}_seq_lens"], lens[f"{key}_seq_lens"] = seq_lens, [seq_lens.shape[1]] * n_batch
                    extra_type[f"{key}_seq_lens"] = (1, 1, "int32")
            extra_type[key] = (dim, 2 if k_frame else 1, str(arr.dtype))
        if whole:
            inputs = x.reshape((1, -1) + frame_shape)
            lens[0] = [inputs.shape[1]]
            extra["seq_sizes"], lens["seq_sizes"] = sizes[None], [sizes.shape[0]]
            extra_type["seq_sizes"] = (1, 2, "int32")
            # variable-length strings, as the reference (observed)
            extra["seq_tags"], lens["seq_tags"] = np.array([tags], dtype=object), [len(tags)]
            extra_type["seq_tags"] = (1, 1, "object")
            tags = ["<->".join(tags)]
        else:
            frames = [x[b][tuple(slice(0, int(s)) for s in sizes[b])].reshape((-1,) + frame_shape)
                      for b in range(x.shape[0])]
            max_frames = max([len(f) for f in frames] + [0])
            inputs = np.zeros((x.shape[0], max_frames) + frame_shape, x.dtype)
            for b, f in enumerate(frames):
                inputs[b, :len(f)] = f
            lens[0] = [len(f) for f in frames]
            extra["seq_sizes"], lens["seq_sizes"] = sizes, [sizes.shape[1]] * x.shape[0]
            extra_type["seq_sizes"] = (1, 1, "int32")
            if sizes.shape[1] > 1:
                extra["sizes"], lens["sizes"] = sizes, [sizes.shape[1]] * x.shape[0]
                extra_type["sizes"] = (1, 1, "int32")
        for key, value in extra_type.items():
            self.writer.extra_type.setdefault(key, value)
        self.writer.insert_batch(inputs, seq_len=lens, seq_tag=tags, extra=extra)
        return np.int64(0)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


@register_layer
class HDFDumpLayer(LayerBase):
    """Passes the input through and dumps every batch into an HDF file."""

    layer_class = "hdf_dump"

    def __init__(self, filename: Any, extra: Optional[Dict[str, LayerBase]] = None, dump_whole_batches: bool = False,
                 labels: Optional[Sequence[str]] = None, extend_existing_file: bool = False,
                 dump_per_run: bool = False, **kwargs: Any):
        """
        :param filename: path of the HDF file, or a function called with the dataset name that returns it
        :param extra: further layers to dump: {key: layer}, each as a target stream ``key``
        :param dump_whole_batches: write one entry per batch (the padded batch) instead of one per sequence
        :param labels: the label names written into the file (``labels``)
        :param extend_existing_file: append to an existing file; not supported here (an error at the first batch)
        :param dump_per_run: a new file per run; not supported here (an error at the first batch)
        """
        super().__init__(**kwargs)
        self.extra = dict(extra or {})
        tmpl = concat_sources_template(self.sources, name=self.name, layer_class=self.layer_class)
        tmpl.placeholder = concat_sources(self.sources, tmpl)
        self._input = tmpl
        self.dumper = _Dumper(self, filename, labels, extend_existing_file, dump_whole_batches)
        inp = tmpl.copy_as_batch_major() if tmpl.batch_dim_axis else tmpl
        main_lens = [inp.dims[i].dyn_size for i in inp.get_dynamic_axes()]
        extra_raw: List[tf.Tensor] = []
        for layer in self.extra.values():
            out = _batch_major_feature_last(layer.output)
            extra_raw.append(out.placeholder)
            extra_raw.extend(out.dims[i].dyn_size for i in out.get_dynamic_axes())
        tags = self.network.get_seq_tags()
        op = tf.numpy_function(lambda x, t, *a: self.dumper.dump(x, t, len(main_lens), *a),
                               [inp.placeholder, tags] + main_lens + extra_raw, tf.int64, name="hdf_dump")
        # the dump runs with the output, and with the network's post control dependencies (fetched by a caller
        # that does not need the output, as the reference's tests do)
        self.network.register_post_control_dependencies([op])
        with tf.control_dependencies([op]):
            self.output.placeholder = tf.identity(tmpl.placeholder)
        self.network.register_graph_reset_callback(self.dumper.close)
        atexit.register(self.dumper.close)

    @property
    def input_data(self) -> Tensor:
        return self._input

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + list(self.extra.values())

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if d.get("extra"):
            d["extra"] = {k: get_layer(v) if isinstance(v, str) else v for k, v in d["extra"].items()}

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), filename: Any = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: no filename
        :raises LayerShapeError: an input without a batch axis"""
        if filename is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="filename",
                                problem="missing required argument")
        out = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if out.batch_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs an input with a batch axis", got=repr(out))
        return out
