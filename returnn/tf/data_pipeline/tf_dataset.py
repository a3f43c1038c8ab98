"""``DatasetDataProvider``: the mini-batches of RETURNN datasets as a ``tf.data`` input pipeline (config
``dataset_pipeline = True``).

Each dataset gets a :class:`InputContext` whose ``final_dataset`` is a ``tf.data.Dataset`` of padded batches
(built in Python by the same batching as the feeding runner, :func:`returnn.datasets.feeding.build_batch_data`,
from the dataset's current epoch: call ``init_seq_order`` first). All contexts share one reinitializable
iterator; its next element (:attr:`DatasetDataProvider.iterator_next_element`) replaces the extern data's
placeholders: ``extern_data.data[key].placeholder`` is the batch's padded data and the lengths of its dynamic axis
are the batch's sequence lengths, so a network built on that ``ExternData`` reads its input from the pipeline
without feeding. One ``Session.run`` that evaluates them takes one batch; at the end of the dataset's batches it
raises ``tf.errors.OutOfRangeError``.

Element keys (as the reference's): ``<key>`` (batch-major padded data) and ``size:<key>:<i>`` (``int32 [B]``, the
lengths of axis ``i`` counted without the batch axis) for each data key; the sequence lengths of a key without a dynamic axis are not
part of it. Data with more than one dynamic axis is not supported (:class:`~returnn.errors.ConfigValueError`).
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Sequence

import numpy as np
import tensorflow as tf

from returnn.errors import ConfigValueError

tf1 = tf.compat.v1


def size_key(key: str, axis_wo_batch: int) -> str:
    """:return: the element key of the lengths of axis ``axis_wo_batch`` (counted without the batch axis) of data
        ``key``: ``"size:<key>:<axis>"`` (as the reference names them)"""
    return "size:%s:%i" % (key, axis_wo_batch)


def data_key_of_size_key(element_key: str) -> Optional[str]:
    """:return: the data key whose lengths ``element_key`` holds (see :func:`size_key`), None for a data key"""
    if not element_key.startswith("size:"):
        return None
    return element_key[len("size:"):].rsplit(":", 1)[0]


def _dynamic_axis(data: Any, key: str) -> Optional[int]:
    """:return: the one dynamic axis of ``data`` (with batch axis), or None
    :raises ConfigValueError: more than one dynamic axis, or no batch axis"""
    if data.batch_dim_axis is None:
        raise ConfigValueError("extern_data", expected="data with a batch axis for the tf.data pipeline",
                               got="%s: %s" % (key, data))
    axes = data.get_dynamic_axes()
    if len(axes) > 1:
        raise ConfigValueError("extern_data", expected="at most one dynamic axis per data key for the tf.data "
                                                       "pipeline (dataset_pipeline)", got="%s: %s" % (key, data))
    return axes[0] if axes else None


def element_signature(extern_data: Any, data_keys: Sequence[str]) -> Dict[str, tf.TensorSpec]:
    """:return: element key → ``tf.TensorSpec`` of one batch (batch-major, batch and dynamic axes unknown)"""
    spec: Dict[str, tf.TensorSpec] = {}
    for key in data_keys:
        data = extern_data.data[key]
        dyn_axis = _dynamic_axis(data, key)
        batch_major = data.copy_as_batch_major()
        shape = [None if (i == batch_major.batch_dim_axis or d.dimension is None) else d.dimension
                 for i, d in enumerate(batch_major.dims)]
        spec[key] = tf.TensorSpec(shape=shape, dtype=tf.as_dtype(data.dtype), name=key)
        if dyn_axis is not None:
            spec[size_key(key, data.get_batch_axis_excluding_batch(dyn_axis))] = tf.TensorSpec(
                shape=[None], dtype=tf.int32)
    return spec


class InputContext:
    """The pipeline of one dataset.

    :param name: e.g. ``"train"``, ``"dev"`` (:attr:`dataset_name`)
    :param dataset: a :class:`returnn.datasets.basic.Dataset` (:attr:`returnn_dataset`; its current epoch is what
        the pipeline gives out)
    :param signature: from :func:`element_signature`
    :param batch_opts: keyword args of ``Dataset.generate_batches`` (``batch_size``, ``max_seqs``, ...)
    :ivar final_dataset: the ``tf.data.Dataset`` of the batches
    :ivar final_dataset_init_iterator_op: the op that (re)starts the provider's iterator at the first batch of this
        dataset (set by :class:`DatasetDataProvider`)
    """

    def __init__(self, name: str, dataset: Any, signature: Dict[str, tf.TensorSpec], batch_opts: Dict[str, Any]):
        self.dataset_name = name
        self.returnn_dataset = dataset
        self.signature = signature
        self.batch_opts = dict(batch_opts)
        self.data_keys: List[str] = [k for k in signature if data_key_of_size_key(k) is None]
        self.final_dataset: tf.data.Dataset = tf.data.Dataset.from_generator(
            self.iterate_elements, output_signature=signature)
        self.final_dataset_init_iterator_op: Any = None
        self._next_batches: Any = None

    def set_batches(self, batches: Any) -> None:
        """The batches of the next iterator initialization (a :class:`returnn.datasets.batching.BatchSetGenerator`
        of the dataset's current epoch, e.g. the engine's with its training options); default: the dataset's batches
        with ``batch_opts``."""
        self._next_batches = batches

    def iterate_elements(self) -> Iterator[Dict[str, np.ndarray]]:
        """The elements of the dataset's current epoch, one per batch (called by ``tf.data`` on each iterator
        initialization)."""
        from returnn.datasets.feeding import build_batch_data

        batches, self._next_batches = self._next_batches, None
        if batches is None:
            batches = self.returnn_dataset.generate_batches(used_data_keys=self.data_keys, **self.batch_opts)
        while batches.has_more():
            batch = batches.peek_next_n(1)[0]
            batches.advance(1)
            batch_data = build_batch_data(self.returnn_dataset, batch, self.data_keys)
            element: Dict[str, np.ndarray] = {}
            for key, spec in self.signature.items():
                data_key = data_key_of_size_key(key)
                if data_key is not None:
                    element[key] = np.asarray(batch_data.seq_lens[data_key], dtype=np.int32)
                else:
                    element[key] = np.asarray(batch_data.data[key], dtype=spec.dtype.as_numpy_dtype)
            yield element


class DatasetDataProvider:
    """The ``tf.data`` input of a network: one :class:`InputContext` per dataset, one shared iterator whose next
    element is set as the extern data's tensors (see the module doc).

    :param extern_data: :class:`returnn.tf.network.ExternData`, templates without placeholders (e.g.
        ``init_from_dataset(dataset, auto_create_placeholders=False)``); its data and lengths become the
        iterator's tensors, in the current default graph
    :param datasets: name → dataset
    :param config: the batching keys (``batch_size`` (default: no limit here), ``max_seqs``, ``max_seq_length``,
        ...; :class:`returnn.options.BatchingOptions`); default: the global config
    :param data_keys: the keys to provide (default: the extern data keys every dataset has)
    :raises ConfigValueError: a data key with more than one dynamic axis, no data key in common
    """

    def __init__(self, *, extern_data: Any, datasets: Dict[str, Any], config: Any = None,
                 data_keys: Optional[Sequence[str]] = None):
        from returnn.config import config_or_global
        from returnn.options import BatchingOptions

        self.extern_data = extern_data
        if data_keys is None:
            data_keys = [k for k in sorted(extern_data.data)
                         if all(k in ds.get_data_keys() for ds in datasets.values())]
        if not data_keys:
            raise ConfigValueError("extern_data", expected="data keys that every dataset of the pipeline has",
                                   got=sorted(extern_data.data))
        self.data_keys = sorted(data_keys)
        config = config_or_global(config)
        batch_opts = BatchingOptions.from_config(config).generate_batches_kwargs(train=False)
        if BatchingOptions.explicit_batch_size(config) is None:
            batch_opts["batch_size"] = np.iinfo(np.int64).max  # no frame limit: max_seqs decides
        signature = element_signature(extern_data, self.data_keys)
        self.contexts: Dict[str, InputContext] = {
            name: InputContext(name, ds, signature, batch_opts) for name, ds in datasets.items()}
        first = next(iter(self.contexts.values())).final_dataset
        self.iterator = tf1.data.Iterator.from_structure(tf1.data.get_output_types(first),
                                                          tf1.data.get_output_shapes(first))
        for ctx in self.contexts.values():
            ctx.final_dataset_init_iterator_op = self.iterator.make_initializer(ctx.final_dataset,
                                                                                name="init_iterator_%s" % ctx.dataset_name)
        #: element key → tensor of the current batch (see the module doc)
        self.iterator_next_element: Dict[str, tf.Tensor] = self.iterator.get_next()
        #: scalar int32: the number of sequences of the current batch
        self.batch_size: tf.Tensor = tf.shape(self.iterator_next_element[self.data_keys[0]])[0]
        self.current_dataset_name: Optional[str] = None
        self._set_extern_data()

    def _set_extern_data(self) -> None:
        for key in self.data_keys:
            data = self.extern_data.data[key]
            value = self.iterator_next_element[key]
            if data.batch_dim_axis != 0:
                value = tf.transpose(value, _perm_from_batch_major(data))
            data.placeholder = value
            dyn_axis = _dynamic_axis(data, key)
            if dyn_axis is not None:
                data.dims[dyn_axis].dyn_size = self.iterator_next_element[
                    size_key(key, data.get_batch_axis_excluding_batch(dyn_axis))]

    def get_dataset_name_of(self, dataset: Any) -> Optional[str]:
        """:return: the name of ``dataset`` (the same object) in :attr:`contexts`, or None"""
        for name, ctx in self.contexts.items():
            if ctx.returnn_dataset is dataset:
                return name
        return None

    def get_dataset_names(self) -> List[str]:
        """:return: the names of the datasets"""
        return list(self.contexts)

    def set_current_dataset(self, dataset_name: str) -> None:
        """The dataset :meth:`start_threads` starts the iterator on.

        :raises KeyError: an unknown name
        """
        if dataset_name not in self.contexts:
            raise KeyError("DatasetDataProvider: unknown dataset %r, have %s" % (dataset_name, sorted(self.contexts)))
        self.current_dataset_name = dataset_name

    def start_threads(self, session: Any) -> None:
        """(Re)starts the iterator at the first batch of the current dataset (its current epoch).

        :raises RuntimeError: no current dataset (:meth:`set_current_dataset`)
        """
        if self.current_dataset_name is None:
            raise RuntimeError("DatasetDataProvider: set_current_dataset() first")
        session.run(self.contexts[self.current_dataset_name].final_dataset_init_iterator_op)

    def stop_threads(self) -> None:
        """Nothing to stop: the batches are built when ``tf.data`` asks for them."""


def _perm_from_batch_major(data: Any) -> List[int]:
    """:return: the permutation that turns the batch-major layout of ``data`` into its own layout"""
    ndim = data.batch_ndim
    rest = [i for i in range(ndim) if i != data.batch_dim_axis]
    perm = [0] * ndim
    perm[data.batch_dim_axis] = 0
    for j, axis in enumerate(rest):
        perm[axis] = j + 1
    return perm
