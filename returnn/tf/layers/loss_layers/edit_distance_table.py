"""``{"class": "edit_distance_table", "from": "output", "target": "layer:base:data:classes"}`` (inside a rec loop)
and ``{"class": "optimal_completions", "from": "prev:edit_dist_table", "target": ...}``: optimal completion
distillation, as the reference.

- ``edit_distance_table``: per step, the row of the Levenshtein table of the labels chosen so far (the source, one
  sparse label ``{B}`` per step) against the target labels: int32 ``{B, S+1}`` (the target's time dim + 1; entries
  beyond a sequence's length repeat its last one). Before the first step the row is ``0 .. S``. A label equal to
  ``blank_idx``, and any label of a hypothesis that has ended, leaves the row unchanged. Only inside the loop (the reference: "operating on a whole sequence not
  supported yet"), carried from step to step as the layer's loop state.
- ``optimal_completions``: from a table row ``{B, S+1}`` (usually ``prev:`` of the table), int32 ``{B, C}`` over
  the target's classes: the smallest distance reachable by appending each class (the blank, or any class for a
  hypothesis that has ended: no change).

See :mod:`returnn.tf.ops.edit_distance`. ``debug`` is accepted without effect.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, NotSpecified, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.out_template import get_target_template
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.ops.edit_distance import initial_row, next_row, optimal_completions

_STATE = "row"


def _target_template(name: str, layer_class: str, network: Any, target: Any, target_layers: Any) -> Tensor:
    if not isinstance(target, str):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="target", problem="missing (the reference "
                            "labels)", got=target, expected="an extern data key or 'layer:<name>'")
    tmpl = get_target_template(network, target, target_layers)
    if not tmpl.sparse or tmpl.time_dim_axis is None or tmpl.batch_ndim != 2:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="target", problem="must be sparse labels {B, S}:",
                            got=tmpl.get_description())
    return tmpl


def _prev_end_flag(network: Any, src_rows: Optional[tf.Tensor]) -> Optional[tf.Tensor]:
    """:return: bool ``[B]``: the hypotheses that had ended before this loop step (in this step's order), or None
        outside a loop / without end information"""
    info = network.get_rec_step_info(must_exist=False) if network.is_inside_rec_layer() else None
    if info is None:
        return None
    try:
        ended = info.get_prev_end_flag()
    except ValueError:
        return None
    return tf.gather(ended, src_rows) if src_rows is not None else ended


def _refs(data: Tensor) -> tuple:
    bm = data.copy_as_batch_major()
    return bm.placeholder, bm.get_sequence_lengths()


@register_layer
class EditDistanceTableLayer(LayerBase):
    """One row of the edit distance table per loop step."""

    layer_class = "edit_distance_table"
    recurrent = True
    has_rec_state = True
    gathers_own_search_state = True  # the rec loop leaves its previous state to it (gathered in __init__)
    can_run_over_time = False

    def __init__(self, axis: Any = NotSpecified, debug: bool = False, blank_idx: Optional[int] = None,
                 out_dim: Any = None, rec_previous_state: Optional[Dict[str, tf.Tensor]] = None, **kwargs: Any):
        """
        :param axis: accepted for compatibility with the reference; no effect here (only the loop's time axis is
            supported)
        :param debug: accepted for compatibility with the reference; no effect here
        :param blank_idx: label index that leaves the table row unchanged (e.g. the blank of CTC); default none
        :param rec_previous_state: set by the rec loop, not in a config: this layer's state from the previous step
        """
        super().__init__(**kwargs)
        refs, ref_lens = _refs(self._loss_target_data())
        if rec_previous_state is None:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="from",
                                problem="must stay inside the rec loop (it carries the table row from step to step; "
                                        "the reference does not support it on a whole sequence either):",
                                got="(no loop state)")
        labels = self.sources[0].output.copy_as_batch_major().placeholder  # [B]
        prev = rec_previous_state[_STATE]
        # in a beam search, the state is in the order of the previous step's hypotheses: follow this step's choice
        choices = self.network.get_search_choices(src=self.sources[0])
        src_rows = getattr(getattr(choices, "owner", None), "search_src_rows", None)
        if src_rows is not None:
            prev = tf.gather(prev, src_rows)
        row = next_row(prev, labels, refs, ref_lens, blank_idx)
        ended = _prev_end_flag(self.network, src_rows)
        if ended is not None:  # a hypothesis that has ended keeps its row
            row = tf.where(ended[:, None], prev, row)
        self.rec_state = {_STATE: row}
        self.output.placeholder = row

    @classmethod
    def get_rec_initial_state(cls, batch_size: tf.Tensor, *, name: str, target: Any = None,
                              _target_layers: Any = None, **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """:return: the row of the empty hypothesis, ``min(j, S)``, int32 ``[B, S_max+1]``"""
        layer = (_target_layers or {}).get(target)
        if layer is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="target", problem="needs a target layer "
                                "('layer:base:data:<key>') for its initial row:", got=target)
        refs, ref_lens = _refs(layer.output)
        return {_STATE: initial_row(ref_lens, tf.shape(refs)[1] + 1)}

    @classmethod
    def get_rec_initial_output_raw(cls, batch_size: tf.Tensor, *, name: str, **kwargs: Any) -> tf.Tensor:
        """:return: ``prev:`` of this layer at the first step: the row of the empty hypothesis (as the reference)"""
        return cls.get_rec_initial_state(batch_size, name=name, **kwargs)[_STATE]

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any = None, sources: Any = (), target: Any = None,
                               _target_layers: Any = None, out_dim: Any = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: a source with a time axis (a whole sequence) or not sparse; no sparse target"""
        from returnn.tf.layers.shape._derived_dims import dim_add

        if len(sources) != 1 or not sources[0].output.sparse or sources[0].output.batch_ndim != 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                problem="needs one label per step {B} (keep the layer inside the rec loop):",
                                got=[s.output.get_description() for s in sources])
        tmpl = _target_template(name, cls.layer_class, network, target, _target_layers)
        dim = out_dim if out_dim is not None else dim_add(tmpl.time_dim, 1)
        return Tensor(name=f"{name}_output", dims=(sources[0].output.dims[0], dim), dtype="int32", time_dim_axis=1,
                      feature_dim_axis=None)


@register_layer
class OptimalCompletionsLayer(LayerBase):
    """For each class, the best edit distance after appending it to the hypothesis of a table row."""

    layer_class = "optimal_completions"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, debug: bool = False, blank_idx: Optional[int] = None, **kwargs: Any):
        """
        :param debug: accepted for compatibility with the reference; no effect here
        :param blank_idx: label index that counts as no change to the hypothesis; default none
        """
        super().__init__(**kwargs)
        target = self._loss_target_data()
        refs, ref_lens = _refs(target)
        row = self.sources[0].output.copy_as_batch_major().placeholder  # [B, S+1]
        out = optimal_completions(row, refs, ref_lens, target.sparse_dim.dimension, blank_idx)
        if self.network.is_inside_rec_layer():
            choices = self.network.get_search_choices(src=self.sources[0])
            ended = _prev_end_flag(self.network, getattr(getattr(choices, "owner", None), "search_src_rows", None))
            if ended is not None:  # a hypothesis that has ended: every class leaves the distance as it is
                best = tf.reduce_min(tf.where(tf.range(tf.shape(row)[1])[None, :] <= ref_lens[:, None], row,
                                              tf.int32.max), axis=1)
                out = tf.where(ended[:, None], tf.tile(best[:, None], [1, tf.shape(out)[1]]), out)
        self.output.placeholder = out

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any = None, sources: Any = (), target: Any = None,
                               _target_layers: Any = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: not one ``{B, S+1}`` source; no sparse target"""
        if len(sources) != 1 or sources[0].output.batch_ndim != 2 or sources[0].output.batch_dim_axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                problem="needs an edit distance table row {B, S+1}:",
                                got=[s.output.get_description() for s in sources])
        tmpl = _target_template(name, cls.layer_class, network, target, _target_layers)
        batch = sources[0].output.dims[sources[0].output.batch_dim_axis]
        dim = FeatureDim(f"feature:{name}_output", tmpl.sparse_dim.dimension)
        return Tensor(name=f"{name}_output", dims=(batch, dim), dtype="int32", time_dim_axis=None,
                      feature_dim_axis=1)
