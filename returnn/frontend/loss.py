"""Losses: ``rf.cross_entropy``, ``rf.ctc_loss``, ``rf.edit_distance``, ``rf.ctc_greedy_decode``."""

from __future__ import annotations

from typing import Optional, Tuple

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["cross_entropy", "ctc_loss", "edit_distance", "ctc_greedy_decode"]


def cross_entropy(*, estimated: Tensor, target: Tensor, axis: Dim, estimated_type: str) -> Tensor:
    """``-sum_axis target * log(estimated)``; a sparse (int) ``target`` picks the entry of its label.

    :param estimated_type: ``"logits"``, ``"log-probs"`` or ``"probs"``
    :return: ``estimated``'s dims without ``axis``
    :raises FrontendError: unknown ``estimated_type``, ``axis`` not in ``estimated``
    """
    from returnn.frontend.array_ import gather
    from returnn.frontend.math_ import combine_bc, log, log_softmax, safe_log
    from returnn.frontend.reduce import reduce_sum
    _utils.check_dims("cross_entropy", estimated, [axis])
    if estimated_type == "logits":
        log_probs = log_softmax(estimated, axis=axis)
    elif estimated_type == "log-probs":
        log_probs = estimated
    elif estimated_type == "probs":
        log_probs = safe_log(estimated)
    else:
        raise FrontendError("cross_entropy", f"unknown estimated_type {estimated_type!r}",
                            expected="logits, log-probs, probs")
    del log
    if target.sparse_dim is not None:
        if target.sparse_dim != axis:
            raise FrontendError("cross_entropy", f"the target's sparse dim {target.sparse_dim!r} is not {axis!r}")
        return -gather(log_probs, indices=target, axis=axis)
    _utils.check_dims("cross_entropy", target, [axis])
    return -reduce_sum(combine_bc(target, "mul", log_probs), axis=axis)


def ctc_loss(*, logits: Tensor, logits_normalized: bool = False, targets: Tensor, input_spatial_dim: Dim,
             targets_spatial_dim: Dim, blank_index: int, max_approx: bool = False) -> Tensor:
    """CTC negative log likelihood per sequence (TF's ``ctc_loss``).

    :param logits: ``[B, T, C]`` over the labels with blank (``C``: ``logits.feature_dim``)
    :param logits_normalized: ``logits`` are log-probs (normalised over ``C``): the same value, but the gradient
        w.r.t. them is minus the occupancy (else ``softmax(logits)`` minus it)
    :param targets: int ``[B, S]`` (no blanks)
    :param blank_index: the blank's index in ``C`` (-1: the last)
    :return: ``[B]`` (the batch dims of ``logits``)
    :raises FrontendError: ``max_approx`` (not supported), missing dims
    """
    if max_approx:
        raise FrontendError("ctc_loss", "max_approx=True is not supported here")
    _utils.check_dims("ctc_loss", logits, [input_spatial_dim])
    _utils.check_dims("ctc_loss", targets, [targets_spatial_dim])
    classes = logits.feature_dim
    if classes is None:
        raise FrontendError("ctc_loss", f"the logits need a feature dim (the labels with blank): {logits.dims}")
    batch = [d for d in logits.dims if d not in (input_spatial_dim, classes)]
    if len(batch) != 1:
        raise FrontendError("ctc_loss", f"needs exactly one batch dim, got {batch}")
    (bdim,) = batch
    backend = _utils.backend_of(logits, targets)
    raw_logits = _utils.aligned_raw(logits, [input_spatial_dim, bdim, classes], backend=backend)
    raw_targets = _utils.aligned_raw(targets, [bdim, targets_spatial_dim], backend=backend, broadcast=True)
    in_lens = _lens(input_spatial_dim, bdim, backend)
    tgt_lens = _lens(targets_spatial_dim, bdim, backend)
    blank = blank_index if blank_index >= 0 else classes.dimension + blank_index
    raw = backend.ctc_loss(raw_logits, in_lens, backend.cast(raw_targets, "int32"), tgt_lens, blank)
    loss = _utils.make_tensor("ctc_loss", [bdim], logits.dtype, raw)
    if logits_normalized:
        loss = _normalized_logits_gradient(loss, logits, input_spatial_dim, classes)
    return loss


def _normalized_logits_gradient(loss: Tensor, log_probs: Tensor, spatial_dim: Dim, classes: Dim) -> Tensor:
    """The CTC kernel takes its input as unnormalised logits: its gradient is ``softmax(x) - occupancy``. For
    normalised log-probs the gradient is ``-occupancy`` (as the reference's with ``logits_normalized=True``,
    observed; it matters where the gradient is changed before a log-softmax, e.g. by label smoothing): subtract
    ``S - stop_gradient(S)``, ``S`` the sum of ``exp(x)`` over the valid frames (value 0, gradient ``exp(x)``)."""
    from returnn.frontend.array_ import stop_gradient, where
    from returnn.frontend.dims import sequence_mask
    from returnn.frontend.math_ import exp
    from returnn.frontend.reduce import reduce_sum
    probs = exp(log_probs)
    if spatial_dim.dimension is None:
        probs = where(sequence_mask(spatial_dim), probs, 0.0, allow_broadcast_all_sources=True)
    total = reduce_sum(probs, axis=[spatial_dim, classes])
    return loss - (total - stop_gradient(total))


def _lens(dim: Dim, bdim: Dim, backend: object) -> object:
    """:return: raw int32 ``[B]`` lengths of ``dim``"""
    from returnn.frontend.const import full
    if dim.dimension is not None or dim.dyn_size_ext is None:
        return full(dims=[bdim], fill_value=_utils.dim_value(dim, backend), dtype="int32").raw_tensor
    ext = dim.dyn_size_ext
    if list(ext.dims) == [bdim]:
        return ext.raw_tensor
    from returnn.frontend.const import expand_to
    return _utils.aligned_raw(expand_to(ext, [bdim]) if not ext.dims else ext, [bdim], backend=backend)


def edit_distance(a: Tensor, a_spatial_dim: Dim, b: Tensor, b_spatial_dim: Dim, *, dtype: str = "int32") -> Tensor:
    """Levenshtein distance between the label sequences ``a`` and ``b`` (int ``[B, T]``). :return: ``[B]``"""
    _utils.check_dims("edit_distance", a, [a_spatial_dim])
    _utils.check_dims("edit_distance", b, [b_spatial_dim])
    batch = [d for d in a.dims if d != a_spatial_dim]
    if len(batch) != 1:
        raise FrontendError("edit_distance", f"needs exactly one batch dim, got {batch}")
    (bdim,) = batch
    backend = _utils.backend_of(a, b)
    raw = backend.edit_distance(_utils.aligned_raw(a, [bdim, a_spatial_dim], backend=backend),
                                _lens(a_spatial_dim, bdim, backend),
                                _utils.aligned_raw(b, [bdim, b_spatial_dim], backend=backend, broadcast=True),
                                _lens(b_spatial_dim, bdim, backend))
    return _utils.make_tensor("edit_distance", [bdim], "int32", backend.cast(raw, dtype))


def ctc_greedy_decode(logits: Tensor, *, in_spatial_dim: Dim, blank_index: int, batch_dims: Optional[list] = None,
                      wb_target_dim: Optional[Dim] = None, target_dim: Optional[Dim] = None
                      ) -> Tuple[Tensor, Dim]:
    """Best path: argmax per frame, repeated labels merged, blanks removed.

    :return: (labels ``[B, out_spatial]`` (sparse dim ``target_dim``, or the logits' feature dim), out_spatial dim)
    """
    from returnn.frontend.array_ import masked_scatter, masked_select, shift_right
    from returnn.frontend.dims import sequence_mask, set_sparse_dim
    from returnn.frontend.math_ import cast, logical_and
    from returnn.frontend.reduce import reduce_argmax, reduce_sum
    wb_target_dim = wb_target_dim or logits.feature_dim
    if wb_target_dim is None:
        raise FrontendError("ctc_greedy_decode", "needs wb_target_dim (the logits have no feature dim)")
    labels = reduce_argmax(logits, axis=wb_target_dim)
    prev = shift_right(labels, axis=in_spatial_dim, pad_value=-1)
    keep = logical_and(labels != blank_index, labels != prev)
    keep = logical_and(keep, sequence_mask([in_spatial_dim]) if in_spatial_dim.need_masking() else keep)
    lens = reduce_sum(cast(keep, "int32"), axis=in_spatial_dim)
    out_dim = Dim(None, name="ctc_greedy_decode")
    out_dim.dyn_size_ext = lens
    batch = [d for d in labels.dims if d != in_spatial_dim]
    packed, pack_dim = masked_select(labels, mask=keep, dims=batch + [in_spatial_dim])
    out = masked_scatter(packed, mask=sequence_mask(batch + [out_dim]), dims=batch + [out_dim], in_dim=pack_dim)
    target_dim = target_dim or wb_target_dim
    return set_sparse_dim(out, target_dim), out_dim
