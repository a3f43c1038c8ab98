"""Batch variants of a dynamic :class:`returnn.tensor.Dim` (:meth:`returnn.tensor.Dim.make_batch_variant`).

When a layer changes the batch a dynamic axis is over, e.g. ``merge_dims`` over ``["B", "T"]`` of ``[B, T, T2, F]``
gives ``[B*T, T2, F]``, the axis ``T2`` stays the same axis (the variant equals it: it is declared the same), but its
lengths are per entry of the new batch (``[B*T]``: each sequence's length repeated ``T`` times), as the reference
(observed: the merged tensor's dim equals the input's, its ``size_placeholder`` is another tensor). The variant keeps
its own lengths in its ``_extra`` (:class:`returnn.tensor._dim_extra.DimExtra`); everything else comes from the dim
it is a variant of. ``split_batch_time`` maps it back (:attr:`returnn.tensor.Dim.batch_variant_of`).
"""

from __future__ import annotations

from typing import Any


def make_batch_variant(dim: Any, lengths: Any) -> Any:
    """:param dim: a dynamic :class:`returnn.tensor.Dim`
    :param lengths: raw int32 ``[N]`` lengths, one per entry of the other batch
    :return: a new Dim, declared the same as ``dim``, whose ``dyn_size`` is ``lengths`` (recorded on ``lengths``)
    :raises TensorArgError: ``dim`` is static or a batch dim
    """
    from returnn.errors import TensorArgError
    from returnn.tensor.dim import Dim
    if not dim.is_dynamic():
        raise TensorArgError(f"{dim!r}.make_batch_variant(...)", "only a dynamic axis has lengths per batch entry",
                             expected="a dynamic dim (dimension None, not the batch dim)", got=dim)
    origin = dim.batch_variant_of or dim
    new = Dim(None, description=origin.description, kind=origin.kind, vocab=origin.vocab,
              auto_generated=origin.auto_generated)
    new.same_as = origin
    new._extra.batch_variant_of = origin
    new._extra.variant_dyn_size = lengths
    if Dim.get_tag_from_size_tensor(lengths) is None:
        new.set_tag_on_size_tensor(lengths)
    return new


def lengths_template(dim: Any) -> Any:
    """:return: the lengths of the batch variant ``dim`` as an int32 :class:`returnn.tensor.Tensor` over the batch"""
    from returnn.tensor.dim import batch_dim
    from returnn.tensor.tensor import Tensor
    return Tensor(name=f"{dim.description}:dyn_size", dims=[batch_dim], dtype="int32",
                  placeholder=dim._extra.variant_dyn_size)
