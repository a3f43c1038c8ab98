"""``{"class": "choice", "from": "prob", "target": "classes", "beam_size": 12}``: the label of the current step.

- Training / without search: the output is the target label of the current frame (``{B}`` sparse int32 inside a
  rec unit, ``{B, T}`` if moved out of the loop).
- Search (the network's ``search_flag``, inside a rec unit): beam search over the hypotheses of all sequences.
  The input is ``{B*K, V}`` (probabilities, or log-probabilities with ``input_type="log_prob"``) for the ``K``
  hypotheses of each sequence; scores are summed log-probabilities; the best ``beam_size`` extensions of each
  sequence are kept (``tf.math.top_k`` over ``K * V``; ties: the lower index, as top_k). Hypotheses that have ended
  (the unit's ``end`` layer) keep their score and are extended by exactly one dummy label. The output is
  ``{B*K}`` labels of the new hypotheses; :attr:`ChoiceLayer.search_scores` ``[B, K]`` and
  :attr:`ChoiceLayer.search_src_beams` ``[B, K]`` (index of the previous hypothesis each new one extends) are
  used by the loop to re-gather the other layers' state.

``length_normalization`` (default True), as observed from the reference: the score of a hypothesis ended by the
unit's ``end`` layer at step ``e`` is rescaled at each later step ``t`` to ``score * (t + 1) / (e + 1)`` (so ended
hypotheses compete with running ones by length-normalized score); in a loop of known length (input frames, or the
target's length with the train flag), the hypotheses of a sequence of length ``L`` are scored as usual up to step
``L`` (one step past its end) and count as ended from step ``L + 1`` on, rescaled the same way; after the loop, all
final scores are divided by the longest hypothesis length in the batch + 1 (the rec layer's ``output.beam.scores``).

Search options, as observed from the reference: ``custom_score_combine`` (a function that computes the scores
of all extensions itself, see :meth:`ChoiceLayer._custom_combined_scores`; ``prob_scale`` is then not applied),
``explicit_search_sources`` (layers the function reads, as ``layer.explicit_search_sources``), ``keep_beams``
(each extended hypothesis keeps its own best ``beam_size / k`` extensions). Several choices in one rec unit
(e.g. an alignment position, then a label) search one after the other within the step: each extends the ``k``
hypotheses of the choice before it (the first: those of the previous step) into its own ``beam_size``, the
scores add up, and the loop carries the last choice's hypotheses (see :mod:`returnn.tf.layers.recurrent.subnet`).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import NotSpecified, Tensor
from returnn.tensor.search_beam import SearchBeam
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.search.beam import flat_beam_indices

NEG_INF = -1e30


@register_layer
class ChoiceLayer(LayerBase):
    """See the module docstring.

    :param beam_size: number of hypotheses per sequence (>= 1)
    :param input_type: ``"prob"`` (default) or ``"log_prob"``
    :param length_normalization: divide final scores by the hypothesis length when deciding
    :param search: NotSpecified (search iff the network searches) or a bool
    :param search_state: set by the loop in search: ``{"scores": [B, k], "ended": [B*k] bool, "beam": k, "step":
        int32 scalar, ...}`` for the ``k`` hypotheses this choice extends
    :param custom_score_combine: ``None`` or a function returning the ``[B, k, V]`` scores to search (see
        :meth:`_custom_combined_scores`)
    :param explicit_search_sources: layer names, resolved to layers (``self.explicit_search_sources``)
    :param keep_beams: each extended hypothesis keeps its best ``beam_size / k`` extensions
    :raises LayerArgError: ``beam_size`` < 1; no ``target`` while not searching; ``keep_beams`` with a
        ``beam_size`` not a multiple of ``k``; ``custom_score_combine`` not callable
    """

    layer_class = "choice"
    #: as the reference's debugging hook: set to a list (``ChoiceLayer._debug_out = []``) before a searching
    #: network is built, and each search step of its choice layers appends, when it runs, a dict ``{"step": int,
    #: "src_beam_idxs": [B, K] int32, "scores": [B, K] float32, "labels": [B, K] int32}`` (numpy arrays)
    _debug_out: Optional[List[Dict[str, Any]]] = None
    extra_config_keys = frozenset({"explicit_search_source", "explicit_search_sources", "scheduled_sampling",
                                   "cheating", "prob_scale", "base_beam_score_scale", "random_sample_scale",
                                   "custom_score_combine", "source_beam_sizes", "separate_beams",
                                   "length_normalization_exponent", "keep_beams", "debug", "use_bias"})

    def __init__(self, beam_size: int = 1, input_type: str = "prob", length_normalization: bool = True,
                 search: Any = NotSpecified, search_state: Optional[Dict[str, Any]] = None,
                 explicit_search_source: Any = None, explicit_search_sources: Any = None,
                 scheduled_sampling: Any = False, cheating: Any = False, prob_scale: float = 1.0,
                 base_beam_score_scale: float = 1.0, random_sample_scale: float = 0.0,
                 length_normalization_exponent: float = 1.0, custom_score_combine: Any = None,
                 source_beam_sizes: Any = None, separate_beams: bool = False, keep_beams: bool = False,
                 debug: bool = False, _cheating_target: Any = None, **kwargs: Any):
        """
        :param explicit_search_source: one layer name, as ``explicit_search_sources`` with one entry
        :param scheduled_sampling: the reference's sampling of the fed-back label in training; not supported here:
            a value (e.g. ``{"gold_mixin_prob": 0.5}``) raises LayerArgError where the layer returns the target
        :param cheating: keep the target's (gold) hypothesis in the beam during search (``"exclusive"``: the
            searched hypotheses leave the gold extension out)
        :param prob_scale: factor on the log-probabilities before they are added to the scores (default 1)
        :param base_beam_score_scale: the reference's factor on the hypotheses' scores in search; not supported here:
            a value other than 1 raises LayerArgError where the layer searches (no effect in training, as there)
        :param random_sample_scale: the reference's scale of random noise on the scores in search (sampling); not
            supported here: a value other than 0 raises LayerArgError where the layer searches
        :param length_normalization_exponent: the reference's exponent of the length in the length normalization;
            not supported here: a value other than 1 raises LayerArgError where the layer searches
        :param source_beam_sizes: the reference's beam sizes of several sources searched together; not supported
            here: a value raises LayerArgError where the layer searches
        :param separate_beams: the reference's separate beams of several sources; not supported here: True raises
            LayerArgError where the layer searches
        :param debug: accepted for compatibility with the reference; no effect here
        """
        super().__init__(**kwargs)
        self.beam_size = beam_size
        self.length_normalization = length_normalization
        self.input_type = input_type
        self.search_scores: Optional[tf.Tensor] = None
        self.search_src_beams: Optional[tf.Tensor] = None
        self.search_src_rows: Optional[tf.Tensor] = None  # [B*K]: b*k_in + search_src_beams[b, k]
        # the layers named by explicit_search_source(s), e.g. for a custom_score_combine function
        self.explicit_search_sources = list(explicit_search_sources or []) + (
            [explicit_search_source] if explicit_search_source is not None else [])
        do_search = _do_search(self.network, search)
        if do_search:  # as the reference: the output is on the beam of this choice (``output.beam``)
            self.output.beam = SearchBeam(beam_size, name=_beam_name(self))
        self._reject_unsupported(do_search, scheduled_sampling=scheduled_sampling,
                                 base_beam_score_scale=base_beam_score_scale, random_sample_scale=random_sample_scale,
                                 length_normalization_exponent=length_normalization_exponent,
                                 source_beam_sizes=source_beam_sizes, separate_beams=separate_beams)
        if not do_search:
            target = self._target_frame()
            # int32 labels; a dense target (input_type "regression") keeps its dtype
            self.output.placeholder = tf.cast(target.placeholder, self.output.dtype)
            if search_state is None:
                return
            # in a searching loop ("search": False in a search): the target extends every hypothesis (see below)
        if search_state is None:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="search",
                                problem="beam search needs the choice layer inside a rec unit:", got=True)
        if do_search and input_type == "regression":
            self._regression_step(search_state)
            return
        logp3, num_classes = self._step_log_probs(input_type, prob_scale if custom_score_combine is None else 1.0,
                                                  search_state)
        scores_in = _scores_of_extended(search_state, length_normalization)
        if not do_search:
            self._extend_by_target(scores_in, logp3, search_state["beam"])
            return
        self._search(logp3, num_classes, scores_in, search_state, custom_score_combine=custom_score_combine,
                     cheating=cheating, cheating_target=_cheating_target, keep_beams=keep_beams)

    def _reject_unsupported(self, do_search: bool, **values: Any) -> None:
        """:raises LayerArgError: an argument this implementation does not support given with a value where it
            would take effect (``scheduled_sampling`` where the layer returns the target, the search options where
            it searches), as for the unsupported common layer arguments"""
        for key, value in values.items():
            takes_effect = (not do_search) if key == "scheduled_sampling" else do_search
            default = _UNSUPPORTED_DEFAULTS[key]
            if takes_effect and (bool(value) if default in (False, None) else value != default):
                raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg=key,
                                    problem="is not supported (yet) in this implementation:", got=value,
                                    expected=f"the default {default!r}")

    def _step_log_probs(self, input_type: str, prob_scale: float, search_state: Dict[str, Any]) -> Any:
        """:return: (``[B, k, V]`` the log-probabilities of the step's labels for each of the ``k`` hypotheses this
        choice extends (times ``prob_scale``; an ended hypothesis extends by label 0 at no cost, by nothing else),
        ``V`` as an int32 scalar)"""
        src = self.sources[0]
        x = src.output.copy_as_batch_major().placeholder
        before_activation = getattr(src, "output_before_activation", None)
        if input_type == "log_prob":
            logp = x
        elif (before_activation is not None and before_activation.is_softmax_act_func()
              and src.output.is_batch_major):
            logp = tf.nn.log_softmax(before_activation.x)  # from the logits: exact and cheaper than log(softmax)
        else:
            logp = tf.math.log(tf.maximum(x, 1e-30))
        if prob_scale != 1.0:  # as the reference: not with a custom combination (the caller passes 1 then)
            logp = logp * prob_scale
        num_classes = tf.shape(logp)[-1]
        ended_logp = tf.one_hot(0, num_classes, on_value=0.0, off_value=NEG_INF)  # [V]
        logp = tf.where(search_state["ended"][:, None], ended_logp[None, :], logp)
        return tf.reshape(logp, [-1, search_state["beam"], num_classes]), num_classes

    def _regression_step(self, search_state: Dict[str, Any]) -> None:
        """``input_type="regression"`` in search: no labels to choose; each hypothesis is extended by its source's
        value (the output, ``{B*K, F}`` as the source's frame), its score unchanged. The ``beam_size`` best of the
        ``k`` hypotheses stay (all of them for ``beam_size`` = ``k``, e.g. 1 as in the reference's
        test_regression_choice).

        :raises LayerArgError: ``beam_size`` greater than the number of hypotheses ``k``"""
        k = search_state["beam"]
        if self.beam_size > k:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="beam_size",
                                problem=f"with input_type 'regression' the search keeps at most the {k} hypotheses "
                                        "it extends:", got=self.beam_size, expected=f"at most {k}")
        scores_in = search_state["scores"]
        self.search_scores, self.search_src_beams = tf.math.top_k(scores_in, k=self.beam_size, sorted=True)
        self.search_src_rows = flat_beam_indices(self.search_src_beams, k)
        value = self.sources[0].output.copy_as_batch_major()
        raw = tf.gather(value.placeholder, self.search_src_rows) if self.beam_size != k else value.placeholder
        self.output.placeholder = tf.cast(raw, self.output.dtype)

    def _extend_by_target(self, scores_in: tf.Tensor, logp3: tf.Tensor, k: int) -> None:
        """A choice with ``"search": False`` in a searching loop, as the reference (observed): the target's label
        extends each of the ``k`` hypotheses, its log-probability added to the hypothesis' score."""
        labels = tf.reshape(tf.cast(self.output.placeholder, tf.int32), [-1, k])
        self.search_scores = scores_in + tf.gather(logp3, labels, batch_dims=2)
        self.search_src_beams = tf.broadcast_to(tf.range(k)[None, :], tf.shape(labels))
        self.search_src_rows = flat_beam_indices(self.search_src_beams, k)

    def _search(self, logp3: tf.Tensor, num_classes: tf.Tensor, scores_in: tf.Tensor,
                search_state: Dict[str, Any], *, custom_score_combine: Any, cheating: Any, cheating_target: Any,
                keep_beams: bool) -> None:
        """The best ``beam_size`` extensions of each sequence's ``k`` hypotheses: sets the output labels
        ``{B*K}``, :attr:`search_scores`, :attr:`search_src_beams` and :attr:`search_src_rows`."""
        k = search_state["beam"]
        if custom_score_combine is not None:
            total3 = self._custom_combined_scores(custom_score_combine, logp3, scores_in, search_state["ended"],
                                                  search_state)
        else:
            total3 = scores_in[:, :, None] + logp3
        gold = None
        if cheating_target is not None:
            gold = _gold_extension(scores_in, logp3, cheating_target.output, search_state)
            if cheating == "exclusive":  # the searched ones leave the gold hypothesis' extension out
                gold_label, gold_src, _ = gold
                is_gold = (tf.equal(tf.range(k), gold_src)[None, :, None]
                           & tf.equal(tf.range(num_classes)[None, :], gold_label[:, None])[:, None, :])
                total3 = tf.where(is_gold, NEG_INF, total3)
        new_scores, idx = tf.math.top_k(tf.reshape(total3, [-1, k * num_classes]), k=self.beam_size, sorted=True)
        src_beams, labels = idx // num_classes, idx % num_classes
        if keep_beams:
            new_scores, src_beams, labels = self._best_per_hypothesis(total3, (new_scores, src_beams, labels),
                                                                       search_state)
        if gold is not None:
            new_scores, src_beams, labels = _with_gold_last(new_scores, src_beams, labels, gold)
        self.search_scores = new_scores
        self.search_src_beams = src_beams
        self.search_src_rows = flat_beam_indices(self.search_src_beams, k)
        self.output.placeholder = _with_debug_record(tf.reshape(labels, [-1]), search_state["step"], src_beams,
                                                     new_scores, labels)

    def _best_per_hypothesis(self, total3: tf.Tensor, best_overall: Any, search_state: Dict[str, Any]) -> Any:
        """``keep_beams``, as the reference (observed): each of the ``k`` extended hypotheses keeps its own best
        ``beam_size / k`` extensions (in the order of the hypotheses, each one's best first), so no hypothesis
        drops out; at the loop's first step, where only one hypothesis lives, the best ``beam_size`` overall.

        :param total3: ``[B, k, V]`` the scores of all extensions
        :param best_overall: (scores, src_beams, labels) ``[B, beam_size]`` of the best extensions overall
        :raises LayerArgError: ``beam_size`` not a multiple of ``k``
        """
        k = search_state["beam"]
        if self.beam_size % k:
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="beam_size",
                                problem=f"with keep_beams, each of the {k} hypotheses the choice extends keeps "
                                        f"beam_size / {k} extensions: invalid", expected=f"a multiple of {k}",
                                got=self.beam_size)
        scores, labels = tf.math.top_k(total3, k=self.beam_size // k, sorted=True)  # [B, k, beam_size / k]
        src_beams = tf.broadcast_to(tf.range(k)[None, :, None], tf.shape(labels))
        kept = [tf.reshape(x, [-1, self.beam_size]) for x in (scores, src_beams, labels)]
        first = _first_step_with_one_live(search_state)
        if first is None:
            return tuple(kept)
        return tuple(tf.where(first, overall, x) for overall, x in zip(best_overall, kept))

    def _custom_combined_scores(self, combine: Any, logp3: tf.Tensor, scores_in: tf.Tensor, ended: tf.Tensor,
                                search_state: Dict[str, Any]) -> tf.Tensor:
        """``custom_score_combine``, called as the reference calls it (observed): keyword arguments ``layer``
        (this layer), ``batch_dim`` (int32 scalar), ``scores_in`` (``[B, k, V]`` log-probabilities, those of
        ended hypotheses already 0 for label 0 and -1e30 else, without ``prob_scale``), ``scores_base``
        (``[B, k, 1]`` the hypotheses' scores), ``base_beam_in`` (int32 scalar: 1 at the first step of the loop,
        where only one hypothesis lives, else ``k``), ``end_flags`` (bool ``[B, k]``), ``scores_beam_in`` (``k``)
        and ``t`` (the step); it returns the ``[B, base_beam_in, V]`` scores the best ``beam_size`` are taken of.

        :raises LayerArgError: not callable
        """
        if not callable(combine):
            raise LayerArgError(layer=self.name, layer_class=self.layer_class, arg="custom_score_combine",
                                problem="expected a function (layer, batch_dim, scores_in, scores_base, "
                                        "base_beam_in, end_flags, **kwargs) -> scores", got=combine)
        k = search_state["beam"]
        first = _first_step_with_one_live(search_state)
        live = k if first is None else tf.where(first, 1, k)
        scores = combine(layer=self, batch_dim=tf.shape(scores_in)[0], scores_in=logp3[:, :live],
                         scores_base=scores_in[:, :live, None], base_beam_in=live,
                         end_flags=tf.reshape(ended, [-1, k])[:, :live], scores_beam_in=k, t=search_state["step"])
        if live is k:
            return scores
        # the rows of no hypothesis: below every candidate (a -inf of the function's is taken first, by index)
        return tf.pad(scores, [[0, 0], [0, k - live], [0, 0]], constant_values=float("-inf"))

    def _target_frame(self) -> Tensor:
        key = self.target if isinstance(self.target, str) else self.target[0]
        if key in self.target_layers:
            return self.target_layers[key].output
        return self.network.get_extern_data(key)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``target`` to the (frame of the) target data as ``_target_layers[target]``.

        :raises LayerArgError: missing ``target`` when not searching; ``beam_size`` < 1
        """
        name = d["name"]
        beam_size = d.get("beam_size", 1)
        if not isinstance(beam_size, int) or isinstance(beam_size, bool) or beam_size < 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="beam_size", problem="invalid value",
                                got=beam_size, expected="an int >= 1")
        target = d.get("target")
        if isinstance(target, (list, tuple)):
            target = target[0] if target else None
        if not target and not _do_search(network, d.get("search", NotSpecified)):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="target",
                                problem="missing required argument (needed when not searching, e.g. in training)",
                                hint='set "target": "classes" (the label the choice returns in training)')
        if not _do_search(network, d.get("search", NotSpecified)) and not network.search_flag:
            # the output is the target; the input (e.g. the softmax) is not a dependency (in a search it scores the
            # target: see __init__)
            d["from"] = []
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("explicit_search_source", "explicit_search_sources"):
            value = d.get(key)
            if isinstance(value, str):
                d[key] = get_layer(value)
            elif isinstance(value, (list, tuple)):
                d[key] = [get_layer(v) if isinstance(v, str) else v for v in value]
        if (target and not target.startswith("layer:") and target in network.extern_data.data
                and not _do_search(network, d.get("search", NotSpecified))):
            d.setdefault("_target_layers", {})[target] = get_layer("data:" + target)
        elif (target and d.get("cheating") and not target.startswith("layer:")
              and target in network.extern_data.data):  # search: the target's label of the step
            d["_cheating_target"] = get_layer("data:" + target)

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Sequence[Any] = (), target: Any = None,
                               _target_layers: Any = None, search: Any = NotSpecified, **kwargs: Any) -> Tensor:
        """:return: the target's frame template (sparse ``{B}`` inside a unit), else sparse ``{B}`` over the
        input's classes"""
        if isinstance(target, (list, tuple)):
            target = target[0] if target else None
        if target and _target_layers and target in _target_layers:
            out = _target_layers[target].output.copy_template(name=f"{name}_output")
        elif target and target in network.extern_data.data:  # search: a frame of the target's classes
            out = network.get_extern_data(target, mark_data_key_as_used=False)
            out = out.copy_template_excluding_time_dim().copy_template(name=f"{name}_output")
            src = sources[0].output if sources else None
            if (src is not None and src.feature_dim_axis is not None and out.sparse_dim is not None
                    and out.sparse_dim.dimension is None):
                # a target of classes of unknown number: the input's classes, as the reference (observed: a choice
                # over encoder frames with a target of positions)
                out.sparse_dim = src.feature_dim
        else:
            src = sources[0].output
            out = src.copy_template_excluding_axis(src.feature_dim_axis)
            out = Tensor(name=f"{name}_output", dims=out.dims, dtype="int32", sparse_dim=src.feature_dim,
                         time_dim_axis=out.time_dim_axis)
        out.available_for_inference = True
        return out


def _scores_of_extended(search_state: Dict[str, Any], length_normalization: bool) -> tf.Tensor:
    """:return: ``[B, k]`` the scores of the hypotheses the choice extends; with ``length_normalization``, as the
    reference (observed), the score of a hypothesis that ended at step ``e`` rescaled at each later step ``t`` to its
    length-normalized value at length ``t + 1``, ``score_e * (t + 1) / (e + 1)``, so that it competes with the longer
    running hypotheses by normalized score"""
    scores_in = search_state["scores"]
    if not (length_normalization and search_state.get("rescale_ended")):
        return scores_in
    t = tf.cast(search_state["step"], scores_in.dtype)
    ended = tf.reshape(search_state["ended"], tf.shape(scores_in))
    return scores_in * tf.where(ended, (t + 1.0) / tf.maximum(t, 1.0), 1.0)


#: the arguments this implementation does not support, with the default (the only value accepted where they would
#: take effect)
_UNSUPPORTED_DEFAULTS = {"scheduled_sampling": False, "base_beam_score_scale": 1.0, "random_sample_scale": 0.0,
                         "length_normalization_exponent": 1.0, "source_beam_sizes": None, "separate_beams": False}


def _first_step_with_one_live(search_state: Dict[str, Any]) -> Optional[tf.Tensor]:
    """:return: bool scalar, true at the loop's first step, where only the first of the ``k`` extended hypotheses
    lives (the step's first choice), or None where all ``k`` always live (a later choice, or ``k`` = 1)"""
    if search_state["beam"] == 1 or not search_state.get("one_live_at_first_step", True):
        return None
    return tf.equal(search_state["step"], 0)


def _gold_extension(scores_in: tf.Tensor, logp3: tf.Tensor, target: Tensor, search_state: Dict[str, Any]) -> Any:
    """``cheating``, as the reference (observed): the gold hypothesis (the target label at each step, its score the
    sum of the target labels' log-probabilities) continues the last of the ``k`` extended hypotheses (at the first
    step the first, the only live one); an ended one extends by label 0 at no cost, as ever.

    :param scores_in: ``[B, k]`` the extended hypotheses' scores
    :param logp3: ``[B, k, V]`` the step's log-probabilities
    :param target: the target's frame of this step, tiled over the beam (``{B*k}``)
    :return: (label ``[B]``, source hypothesis (int32 scalar), score ``[B]``) of the gold extension
    """
    k = search_state["beam"]
    gold = tf.reshape(tf.cast(target.placeholder, tf.int32), [-1, k])[:, 0]  # [B]
    gold = tf.where(tf.reshape(search_state["ended"], [-1, k])[:, -1], tf.zeros_like(gold), gold)
    gold_src = tf.where(tf.equal(search_state["step"], 0), 0, k - 1)
    gold_score = tf.gather(scores_in, gold_src, axis=1) + tf.gather(tf.gather(logp3, gold_src, axis=1), gold[:, None],
                                                                     batch_dims=1)[:, 0]
    return gold, gold_src, gold_score


def _with_gold_last(scores: tf.Tensor, src_beams: tf.Tensor, labels: tf.Tensor, gold: Any) -> Any:
    """:return: scores, src_beams, labels ``[B, K]``: the best ``K - 1`` of the search, then the gold extension
    (from :func:`_gold_extension`) as the last hypothesis, as the reference"""
    gold_label, gold_src, gold_score = gold
    k_out = scores.shape[1] if scores.shape[1] is not None else tf.shape(scores)[1]
    return (tf.concat([scores[:, :k_out - 1], gold_score[:, None]], axis=1),
            tf.concat([src_beams[:, :k_out - 1], tf.fill(tf.shape(gold_label), gold_src)[:, None]], axis=1),
            tf.concat([labels[:, :k_out - 1], gold_label[:, None]], axis=1))


def _beam_name(layer: LayerBase) -> str:
    """:return: the name of the beam of a choice layer, as the reference's: ``"<rec>/<choice>"`` inside a rec unit
    (e.g. ``"output/output"``), else the layer's absolute name"""
    prefix = layer.network.get_absolute_name_prefix()
    if prefix.endswith("/rec/"):  # the unit's network prefix: "<rec>/rec/"
        prefix = prefix[:-len("rec/")]
    return prefix + layer.name


def _with_debug_record(out: tf.Tensor, step: tf.Tensor, src_beams: tf.Tensor, scores: tf.Tensor,
                       labels: tf.Tensor) -> tf.Tensor:
    """:return: ``out``, which, while :attr:`ChoiceLayer._debug_out` was a list when the layer was built, appends this
    step's selection to that list whenever it is computed"""
    records = ChoiceLayer._debug_out
    if not isinstance(records, list):
        return out

    def record(step_value: Any, src_value: Any, scores_value: Any, labels_value: Any) -> Any:
        records.append({"step": int(step_value), "src_beam_idxs": src_value, "scores": scores_value,
                        "labels": labels_value})
        return step_value

    done = tf.compat.v1.py_func(record, [step, src_beams, scores, labels], tf.int32, stateful=True,
                                name="choice_debug_out")
    with tf.control_dependencies([done]):
        return tf.identity(out)


def _do_search(network: Any, search: Any) -> bool:
    if search is NotSpecified or search is None:
        return bool(network.search_flag)
    return bool(search)
