"""One pass over a dataset's mini-batches: feeding, one ``Session.run`` per step, loss bookkeeping, reporting.

Per step the runner feeds the extern-data placeholders (data and sequence lengths, batch-major numpy arrays
built ahead by :func:`returnn.datasets.feeding.iterate_batch_data` in a background thread) and fetches, for
each loss, the summed loss, the summed errors and the number of target frames, plus the summed objective
(and the optimizer op when training). Scores over the pass are ``sum(loss) / sum(frames)`` per loss.

Log lines (reference formats, see docs/engine-log-format.md): at verbosity 5 one line per step,
``<name>, step N, cost:<loss> X, error:<loss> Y, loss Z, S sec/step, elapsed H:MM:SS, exp. remaining
H:MM:SS, complete P%``; at verbosity 3 ``<name>, finished after N steps, H:MM:SS elapsed (P% computing
time)``. When stdout is a terminal and per-step lines are off, a progress line with ETA is redrawn instead.

Passes without an optimizer op (eval, forward, search, compute_priors) keep ``inference_steps_in_flight``
(default 2) steps running at once: the next batch's ``Session.run`` starts while the previous one finishes;
results are processed strictly in batch order, so scores, callbacks and log lines are those of sequential
steps. Training steps always run one after another.
"""

from __future__ import annotations

import collections
import concurrent.futures
import math
import sys
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from returnn.errors import ReturnnError
from returnn.log import log
from returnn.util.timefmt import hms


class CancelTrainingException(Exception):
    """Raised to stop training early (SIGINT/SIGTERM, or by user code); the current epoch is abandoned."""


class NonFiniteLossError(ReturnnError, FloatingPointError):
    """The training loss became NaN or infinite (``stop_on_nonfinite_train_score = True``, the default)."""


class LossFetches:
    """The per-loss tensors fetched every step: summed loss, summed errors (or None), target frames.

    Built from ``network.get_losses_initialized(with_total=True)``; names are the loss holders' names.
    """

    def __init__(self, network):
        if hasattr(network, "maybe_construct_objective"):  # network.total_objective, as after the reference's fetches
            network.maybe_construct_objective()
        losses, total_loss, _constraints = network.get_losses_initialized(with_total=True)
        self.names: List[str] = sorted(losses)
        #: the names of the losses with a value (an error-only loss, e.g. RF's ``as_error``, has none)
        self.cost_names: List[str] = []
        self.fetches: Dict[str, Any] = {}
        for name in self.names:
            holder = losses[name]
            value = holder.get_loss_value()
            if value is not None:
                self.fetches["cost:" + name] = value
                self.cost_names.append(name)
            error = holder.get_error_value()
            if error is not None:
                self.fetches["error:" + name] = error
            self.fetches["frames:" + name] = _holder_frames(holder)
        import tensorflow as tf

        if total_loss is None:
            values = [v for k, v in self.fetches.items() if k.startswith("cost:")]
            total_loss = tf.add_n(values) if values else tf.constant(0.0)
        elif not tf.is_tensor(total_loss):  # a Python number when no loss has a value (e.g. search)
            total_loss = tf.constant(float(total_loss), tf.float32)
        self.fetches["loss"] = total_loss


def _holder_frames(holder):
    for attr in ("get_num_frames", "get_norm_frames"):
        if hasattr(holder, attr):
            return getattr(holder, attr)()
    import tensorflow as tf
    return tf.math.reciprocal(holder.get_norm_factor())


class PassResult:
    """Sums over one pass: per loss name, ``loss``, ``error`` and ``frames`` (float64).

    :param names: the loss names
    :param cost_names: those with a loss value (scored); default all (as the reference, an error-only loss has no
        score: with losses ``ce`` and error-only ``fer`` the keys are ``dev_score`` and ``dev_error``)
    """

    def __init__(self, names: List[str], cost_names: Optional[List[str]] = None):
        self.names = list(names)
        self.cost_names = list(names) if cost_names is None else [n for n in names if n in cost_names]
        self.loss = {n: 0.0 for n in names}
        self.error: Dict[str, float] = {}
        self.frames = {n: 0.0 for n in names}
        self.num_steps = 0
        self.num_seqs = 0
        self.elapsed = 0.0
        self.computing_time = 0.0
        self.finished = False

    def add(self, values: Dict[str, Any]) -> None:
        """Adds one step's fetched values (``cost:<n>``, ``error:<n>``, ``frames:<n>``)."""
        for name in self.names:
            self.frames[name] += float(values["frames:" + name])
            if "cost:" + name in values:
                self.loss[name] += float(values["cost:" + name])
            if "error:" + name in values:
                self.error[name] = self.error.get(name, 0.0) + float(values["error:" + name])

    def scores(self) -> Dict[str, float]:
        """loss name → sum(loss) / sum(frames) (the losses with a value)."""
        return {n: self.loss[n] / self.frames[n] if self.frames[n] else 0.0 for n in self.cost_names}

    def errors(self) -> Dict[str, float]:
        """loss name → sum(errors) / sum(frames) (only losses that define an error)."""
        return {n: self.error[n] / self.frames[n] if self.frames[n] else 0.0 for n in self.names if n in self.error}


def format_step_values(values: Dict[str, Any], names: List[str]) -> str:
    """``cost:a X, cost:b Y, error:a Z, ..., loss L`` as the reference prints a step (float32 values)."""
    parts = []
    for key in sorted(k for k in values if k.startswith(("cost:", "error:"))):
        name = key.split(":", 1)[1]
        frames = np.float32(values["frames:" + name])
        value = np.float32(values[key]) / frames if frames else np.float32(0.0)
        parts.append("%s %s" % (key, np.float32(value)))
    parts.append("loss %s" % np.float32(values["loss"]))
    return ", ".join(parts)


class Progress:
    """The ``\\r`` progress line with ETA, drawn on a terminal when per-step lines are off."""

    def __init__(self, name: str):
        self.name = name
        self.enabled = log.v3.isatty() and not log.v5.is_enabled()
        self._drawn = False

    def update(self, step: int, elapsed: float, complete: Optional[float]) -> None:
        if not self.enabled:
            return
        eta = ""
        if complete:
            eta = ", %.1f%%, ETA %s" % (complete * 100.0, hms(elapsed / complete - elapsed))
        sys.stdout.write("\r%s, step %i, elapsed %s%s\033[K" % (self.name, step, hms(elapsed), eta))
        sys.stdout.flush()
        self._drawn = True

    def clear(self) -> None:
        if self._drawn:
            sys.stdout.write("\r\033[K")
            sys.stdout.flush()
            self._drawn = False


class _StepFeeds:
    """What every step of a pass feeds, in one fixed order: the extern-data placeholders (each followed by its
    sequence-length placeholder when it has one), the extra feeds, the sequence tags (when a layer reads them),
    the gradient weight (distributed) and the step seed.

    :param feeds: [(data key, data placeholder, size placeholder or None, time major)]
    :param extra_items: [(placeholder, value)] fed every step
    :param seq_tag_ph: the ``seq_tag`` placeholder, or None
    :param grad_weight: the distributed gradient-weight placeholder (fed by ``sync``), or None
    :param step_seed: the step-seed placeholder (fed ``global_step_offset + step``), or None
    :param seq_idx_ph: the ``seq_idx`` placeholder (the batch entries' sequence indices), or None
    :param epoch_step_ph: the network's ``epoch_step`` placeholder (:meth:`TFNetwork.get_epoch_step`: a state kept
        over the epoch, ``initial_state`` ``"keep_over_epoch"``, restarts where it is 0), fed the step's index within
        the pass (0 for its first step), or None where no layer made it
    """

    def __init__(self, feeds: List[tuple], extra_items: List[tuple], seq_tag_ph, grad_weight, sync, step_seed,
                 global_step_offset: int, seq_idx_ph=None, epoch_step_ph=None):
        self.feeds = feeds
        self.extra_items = extra_items
        self.seq_tag_ph = seq_tag_ph
        self.seq_idx_ph = seq_idx_ph
        self.grad_weight = grad_weight
        self.sync = sync
        self.step_seed = step_seed
        self.global_step_offset = global_step_offset
        self.epoch_step_ph = epoch_step_ph

    def placeholders(self) -> List[Any]:
        """The placeholders, in the order of :meth:`values`."""
        out = []
        for _key, ph, size_ph, _time_major in self.feeds:
            out.append(ph)
            if size_ph is not None:
                out.append(size_ph)
        out += [ph for ph, _value in self.extra_items]
        out += [ph for ph in (self.seq_tag_ph, self.grad_weight, self.step_seed, self.seq_idx_ph, self.epoch_step_ph)
                if ph is not None]
        return out

    def values(self, batch, own_data: bool, step: int) -> List[Any]:
        """The values fed for ``step`` with ``batch`` (:class:`~returnn.datasets.feeding.BatchData`)."""
        args = []
        for key, _ph, size_ph, time_major in self.feeds:
            arr = batch.data[key]
            if time_major and arr.ndim >= 2:
                arr = np.swapaxes(arr, 0, 1)
            args.append(arr)
            if size_ph is not None:
                args.append(batch.seq_lens[key])
        args += [value for _ph, value in self.extra_items]
        if self.seq_tag_ph is not None:
            args.append(np.array(batch.seq_tags, dtype=object))
        if self.grad_weight is not None:
            args.append(self.sync.feed_weight(own_data))
        if self.step_seed is not None:
            args.append(np.int64(self.global_step_offset + step))
        if self.seq_idx_ph is not None:
            args.append(np.array(batch.seq_idx, dtype=np.int32))
        if self.epoch_step_ph is not None:
            args.append(np.int64(step))
        return args


class Runner:
    """Runs the network over all batches of one pass.

    :param state: the run (:class:`~returnn.tf.engine.state.RunState`): its ``session``, ``stop`` request and
        options (``log_batch_size``, ``inference_steps_in_flight``)
    :param network: the network whose ``extern_data`` placeholders are fed
    :param dataset: with ``init_seq_order`` already called for this pass
    :param batches: the pass's :class:`~returnn.datasets.batching.BatchSetGenerator`
    :param name: report prefix, e.g. ``"train epoch 3"`` or ``"epoch 3 'dev' eval"``
    :param loss_fetches: the per-loss tensors (None: no losses, e.g. forward)
    :param train_op: the optimizer op (training only)
    :param extra_fetches: more tensors fetched each step; passed to ``step_callback``
    :param step_callback: ``f(batch_data, fetched_values)`` after each step
    :param feed_extra: more feeds every step (e.g. train flag placeholder → True)
    :param nonfinite_callback: called with ``(step, values)`` when the step's loss is not finite
    :param summary_writer: optional TensorBoard writer (``returnn.tf.engine.summaries.SummaryWriter``)
    :param report: print the per-step and ``finished after`` lines
    :param sync: distributed training only: a :class:`returnn.tf.distributed.strategy.TrainSync` keeping
        the workers' steps in lockstep (steps without own data feed its gradient weight 0 and are left out of
        the scores)
    :param start_step: batches of the pass already done (a resumed epoch, see
        :mod:`~returnn.tf.engine.step_checkpoints`): they are skipped, the steps count on from here
    :param skipped_batch_check: called with the :class:`~returnn.datasets.feeding.BatchData` of the last skipped
        batch (to check that the batches are those of the interrupted run)
    :param step_hook: ``f(steps_done, batch_data, result)`` after each training step (step checkpoints)
    :param stop_hook: ``f(steps_done, batch_data, result)`` when a stop request (signal) ends the pass after a step
        of this run (a step checkpoint of the last step done); not called when no step ran
    :param step_seed: the graph's step-seed placeholder (:mod:`returnn.tf.ops.step_random`), fed the global step
        (``global_step_offset`` + step) each step; None: not fed
    """

    def __init__(self, state, *, network, dataset, batches, name: str, loss_fetches: Optional[LossFetches] = None,
                 train_op=None, extra_fetches: Optional[Dict[str, Any]] = None,
                 step_callback: Optional[Callable[[Any, Dict[str, Any]], None]] = None,
                 feed_extra: Optional[Dict[Any, Any]] = None,
                 nonfinite_callback: Optional[Callable[[int, Dict[str, Any]], bool]] = None,
                 summary_writer=None, global_step_offset: int = 0, report: bool = True, sync=None,
                 start_step: int = 0, skipped_batch_check: Optional[Callable[[Any], None]] = None,
                 step_hook: Optional[Callable[[int, Any, "PassResult"], None]] = None,
                 stop_hook: Optional[Callable[[int, Any, "PassResult"], None]] = None, step_seed=None):
        self.state = state
        self.network = network
        self.dataset = dataset
        self.batches = batches
        self.name = name
        self.loss_fetches = loss_fetches
        self.train_op = train_op
        self.extra_fetches = dict(extra_fetches or {})
        self.step_callback = step_callback
        self.feed_extra = dict(feed_extra or {})
        self.nonfinite_callback = nonfinite_callback
        self.summary_writer = summary_writer
        self.global_step_offset = global_step_offset
        self.report = report
        self.sync = sync
        self.start_step = int(start_step)
        self.skipped_batch_check = skipped_batch_check
        self.step_hook = step_hook
        self.stop_hook = stop_hook
        self.step_seed = step_seed
        self.result = PassResult(loss_fetches.names if loss_fetches else [],
                                 loss_fetches.cost_names if loss_fetches else None)
        #: (steps done, its :class:`~returnn.datasets.feeding.BatchData`) after the last training step this runner ran
        #: ([None, None] before one)
        self.last_step_done: List[Any] = [None, None]
        self.data_keys = self._data_keys()

    def _data_keys(self) -> List[str]:
        extern = self.network.extern_data.data
        ds_keys = set(self.dataset.get_data_keys())
        used = None
        if hasattr(self.network, "get_used_data_keys"):
            try:
                used = set(self.network.get_used_data_keys())
            except Exception:  # not all implementations can tell
                used = None
        keys = [k for k in sorted(extern) if k in ds_keys and (used is None or k in used)]
        return keys

    def _seq_tag_placeholder(self, key: str = "seq_tag"):
        """:return: the placeholder of extern data ``key`` (``seq_tag`` or ``seq_idx``) when a layer uses it (fed the
            batch's tags / sequence indices), else None"""
        data = self.network.extern_data.data.get(key)
        if data is None or data.placeholder is None or key not in self.network.get_used_data_keys():
            return None
        return data.placeholder

    def _pipeline_name(self) -> Optional[str]:
        """:return: the name of :attr:`dataset` in the run's tf.data pipeline (config ``dataset_pipeline``, see
            :mod:`returnn.tf.data_pipeline`), or None when its batches are fed"""
        provider = self.state.dataset_provider
        return provider.get_dataset_name_of(self.dataset) if provider is not None else None

    def _feed_placeholders(self):
        """[(key, data placeholder, size placeholder or None, time_major)] (not the keys the pipeline gives)"""
        out = []
        provider = self.state.dataset_provider
        piped = set(provider.data_keys) if provider is not None and self._pipeline_name() is not None else set()
        for key in self.data_keys:
            if key in piped:
                continue
            data = self.network.extern_data.data[key]
            size_ph = None
            sizes = getattr(data, "size_placeholder", None) or {}
            if sizes:
                size_ph = sizes[min(sizes)]
            time_major = getattr(data, "batch_dim_axis", 0) == 1 and getattr(data, "time_dim_axis", 1) == 0
            out.append((key, data.placeholder, size_ph, time_major))
        return out

    def run(self) -> PassResult:
        """Runs all batches. Returns :attr:`result` (``finished`` False when stopped early).

        :raises CancelTrainingException: stop requested (signal) — the pass is abandoned
        :raises NonFiniteLossError: via ``nonfinite_callback``
        """
        from returnn.datasets.feeding import iterate_batch_data

        feeds = self._step_feeds()
        pipeline = self._pipeline_name()
        if pipeline is not None:
            return self._run_pipeline(pipeline, feeds)
        step_fn = self.state.session.make_callable(self._fetch_list(), feed_list=feeds.placeholders())
        report_steps = log.v5.is_enabled() and self.report
        progress = Progress(self.name)
        reporting = (report_steps, bool(report_steps and self.state.options.run.log_batch_size), progress,
                     self._num_seqs_total())
        result = self.result
        start = time.time() - result.elapsed  # a resumed pass: its elapsed time so far
        if self.start_step:
            self._skip_batches(self.start_step)
        iterator = iterate_batch_data(self.dataset, self.batches, self.data_keys)
        try:
            in_flight = self._steps_in_flight()
            if in_flight > 1:
                self._run_overlapping(step_fn, feeds, self._steps(iterator), start, reporting, in_flight)
            else:
                self._run_sequential(step_fn, feeds, self._steps(iterator), start, reporting)
        finally:
            iterator.close()
            progress.clear()
        return self._finish(start)

    def _run_pipeline(self, name: str, feeds: "_StepFeeds") -> PassResult:
        """The pass over the batches of the tf.data pipeline (``dataset_pipeline``): nothing of the data is fed, one
        step per batch until the pipeline's end (``tf.errors.OutOfRangeError``). The batch's sequence lengths and
        size are fetched with the step (for the scores' bookkeeping and the log lines; sequence indices and tags are
        not known here).

        :raises ConfigValueError: a feature that needs the batch's sequences in Python (seq tags, step
            checkpoints, a resumed pass, distributed training)
        """
        import tensorflow as tf
        from returnn.datasets.feeding import BatchData
        from returnn.errors import ConfigValueError
        from returnn.tf.data_pipeline.tf_dataset import data_key_of_size_key
        from returnn.util.numbers_dict import NumbersDict

        if feeds.feeds or feeds.seq_tag_ph is not None or feeds.seq_idx_ph is not None or self.sync is not None \
                or self.start_step or self.step_hook is not None:
            raise ConfigValueError("dataset_pipeline", expected="False for a network that reads seq_tag/seq_idx or a "
                                   "data key not every dataset has, with step checkpoints or distributed training",
                                   got=True)
        provider = self.state.dataset_provider
        provider.contexts[name].set_batches(self.batches)
        provider.set_current_dataset(name)
        provider.start_threads(self.state.session)
        size_keys = sorted(k for k in provider.iterator_next_element if data_key_of_size_key(k) is not None)
        extra = [provider.iterator_next_element[k] for k in size_keys] + [provider.batch_size]
        step_fn = self.state.session.make_callable(self._fetch_list() + extra, feed_list=feeds.placeholders())
        report_steps = log.v5.is_enabled() and self.report
        progress = Progress(self.name)
        reporting = (report_steps, bool(report_steps and self.state.options.run.log_batch_size), progress, None)
        start, step = time.time(), 0
        while True:
            if self.state.stop.requested():
                self._stop(step, start)
            args = feeds.values(None, True, step)
            step_start = time.time()
            try:
                out = self._call(lambda: step_fn(*args), step)
            except tf.errors.OutOfRangeError:
                break
            lens = {data_key_of_size_key(k): v for k, v in zip(size_keys, out[len(out) - len(extra):])}
            num_seqs = int(out[-1])
            batch = BatchData(data={}, seq_lens=lens, seq_tags=[], seq_idx=[], num_seqs=num_seqs,
                              num_frames=NumbersDict({k: int(np.sum(v)) for k, v in lens.items()}))
            self._after_step(step, batch, out, time.time() - step_start, start, *reporting)
            step += 1
        progress.clear()
        return self._finish(start)

    def _finish(self, start: float) -> PassResult:
        """The end of the pass: :attr:`result` finished, the ``finished after`` line."""
        result = self.result
        result.elapsed = time.time() - start
        result.finished = True
        if self.report:
            print("%s, finished after %i steps, %s elapsed (%.1f%% computing time)" % (
                self.name, result.num_steps, hms(result.elapsed),
                100.0 * result.computing_time / result.elapsed if result.elapsed > 0 else 100.0), file=log.v3)
        return result

    def _step_feeds(self) -> "_StepFeeds":
        """What every step of this pass feeds (see :class:`_StepFeeds`)."""
        sync = self.sync
        return _StepFeeds(self._feed_placeholders(), list(self.feed_extra.items()), self._seq_tag_placeholder(),
                          sync.grad_weight if sync is not None else None, sync, self.step_seed,
                          self.global_step_offset, seq_idx_ph=self._seq_tag_placeholder("seq_idx"),
                          epoch_step_ph=getattr(self.network, "epoch_step", None))

    def _fetch_list(self) -> List[Any]:
        """The tensors each step fetches: the losses and extra fetches in sorted key order (the keys are kept for
        :meth:`_after_step`), then the optimizer op when training, then the network's post control dependencies."""
        fetches: Dict[str, Any] = {}
        if self.loss_fetches:
            fetches.update(self.loss_fetches.fetches)
        fetches.update(self.extra_fetches)
        self._fetch_keys = sorted(fetches)
        fetch_list = [fetches[k] for k in self._fetch_keys]
        if self.train_op is not None:
            fetch_list.append(self.train_op)
        # ops the network's layers run with every step (e.g. an hdf_dump layer that is no loss's input), as the
        # reference's fetches (their values are not used)
        if hasattr(self.network, "get_post_control_dependencies"):
            fetch_list.extend(self.network.get_post_control_dependencies())
        return fetch_list

    def _steps(self, iterator):
        """(batch, whether the batch is this worker's own data, whether a stop was requested) per step; distributed:
        the same number of steps on every worker."""
        stop_requested = self.state.stop.requested
        if self.sync is None:
            return ((batch, True, stop_requested()) for batch in iterator)
        return self.sync.steps(iterator, stop_requested)

    def _stop(self, step: int, start: float) -> None:
        """A stop was requested before ``step``: the stop hook gets the last step done (a step checkpoint).

        :raises CancelTrainingException: always
        """
        done_steps, done_batch = self.last_step_done
        if self.stop_hook is not None and done_steps is not None:
            self.result.elapsed = time.time() - start
            self.stop_hook(done_steps, done_batch, self.result)
        raise CancelTrainingException("%s: stopped at step %i (signal)" % (self.name, step))

    def _run_sequential(self, step_fn, feeds: "_StepFeeds", steps, start: float, reporting: tuple) -> None:
        """One step after another (training, distributed passes, ``inference_steps_in_flight = 1``)."""
        result, sync = self.result, self.sync
        for step, (batch, own_data, stop) in enumerate(steps, start=self.start_step):
            if stop:
                self._stop(step, start)
            args = feeds.values(batch, own_data, step)
            step_start = time.time()
            if own_data or feeds.grad_weight is not None:  # ("param": a worker without data skips the step)
                out = self._call(lambda: step_fn(*args), step)
            if sync is not None:
                sync.after_step(step)
            if not own_data:  # distributed: a step without own data is left out of the scores
                result.num_steps += 1
                continue
            self._after_step(step, batch, out, time.time() - step_start, start, *reporting)
            self.last_step_done[:] = [step + 1, batch]
            if self.step_hook is not None:
                result.elapsed = time.time() - start
                self.step_hook(step + 1, batch, result)
        if sync is not None:
            sync.end_of_pass()

    def _run_overlapping(self, step_fn, feeds: "_StepFeeds", steps, start: float, reporting: tuple,
                         in_flight: int) -> None:
        """Passes without updates: up to ``in_flight`` steps run at once, their results processed in batch order
        (a step's time counted from the previous step's end)."""
        pending: "collections.deque" = collections.deque()  # (step, batch, future), oldest first
        last_done = [time.time()]

        def finish_oldest() -> None:
            step_, batch_, future = pending.popleft()
            out_ = self._call(future.result, step_)
            now = time.time()
            self._after_step(step_, batch_, out_, now - last_done[0], start, *reporting)
            last_done[0] = now

        executor = concurrent.futures.ThreadPoolExecutor(in_flight)
        try:
            for step, (batch, own_data, stop) in enumerate(steps, start=self.start_step):
                if stop:
                    self._stop(step, start)
                pending.append((step, batch, executor.submit(step_fn, *feeds.values(batch, own_data, step))))
                if len(pending) >= in_flight:
                    finish_oldest()
            while pending:
                finish_oldest()
        finally:  # after an error/stop: let the steps still running finish first
            executor.shutdown(wait=True, cancel_futures=True)

    def _skip_batches(self, num: int) -> None:
        """Consumes the first ``num`` batches of :attr:`batches` without running them (a resumed pass); the last one
        is loaded and given to :attr:`skipped_batch_check`.

        :raises ReturnnError: the pass has fewer batches
        """
        from returnn.datasets.feeding import build_batch_data

        skipped = self.batches.peek_next_n(num)
        if len(skipped) < num:
            raise ReturnnError("%s: cannot skip the %i batches done before the restart: the pass has only %i "
                               "batches (the dataset or the batching options changed?)"
                               % (self.name, num, len(skipped)))
        if self.skipped_batch_check is not None:
            self.skipped_batch_check(build_batch_data(self.dataset, skipped[-1], self.data_keys))
        self.batches.advance(num)

    def _steps_in_flight(self) -> int:
        """:return: how many steps may run at once: ``inference_steps_in_flight`` (default 2) for passes without
        an optimizer op and without distributed sync, else 1"""
        if self.train_op is not None or self.sync is not None:
            return 1
        return self.state.options.run.inference_steps_in_flight

    def _call(self, fn: Callable[[], Any], step: int) -> Any:
        """:return: ``fn()`` (a step's fetched values); a failure is turned into the clear errors of the runner"""
        try:
            return fn()
        except Exception as exc:  # tf.errors.InvalidArgumentError for a missing feed
            self._raise_missing_feed(exc)
            self._raise_distributed(exc, step)
            raise

    def _after_step(self, step: int, batch, out, step_time: float, start: float, report_steps: bool,
                    log_batch_size: bool, progress: "Progress", num_seqs_total: Optional[int]) -> None:
        """Bookkeeping of one finished step: scores, callbacks, the per-step line / progress, summaries."""
        result = self.result
        result.computing_time += step_time
        values = dict(zip(self._fetch_keys, out))
        if (self.nonfinite_callback is not None and "loss" in values
                and not math.isfinite(float(values["loss"]))):
            if not self.nonfinite_callback(step, values):  # skip this step's values
                result.num_steps += 1
                return
        result.add(values)
        result.num_steps += 1
        result.num_seqs += batch.num_seqs
        if self.step_callback:
            self.step_callback(batch, values)
        elapsed = time.time() - start
        complete = None
        if num_seqs_total and batch.seq_idx:
            complete = min((max(batch.seq_idx) + 1) / num_seqs_total, 1.0)
        if report_steps:
            line = "%s, step %i, " % (self.name, step)
            if self.loss_fetches:
                line += format_step_values(values, result.names) + ", "
            if log_batch_size:  # as the reference: the longest sequence per data key, then the batch's sequences
                line += "".join("max_size:%s %i, " % (key, int(max(lens, default=0)))
                                for key, lens in sorted((batch.seq_lens or {}).items()))
                line += "num_seqs %i, " % batch.num_seqs
            line += "%.3f sec/step, elapsed %s" % (step_time, hms(elapsed))
            if complete:
                line += ", exp. remaining %s, complete %.2f%%" % (
                    hms(elapsed / complete - elapsed), complete * 100.0)
            print(line, file=log.v5)
        else:
            progress.update(step, elapsed, complete)
        if self.summary_writer is not None and self.loss_fetches:
            self.summary_writer.write_step(self.global_step_offset + step, values, result.names)

    def _raise_distributed(self, exc: BaseException, step: int) -> None:
        """Turns a failed collective op (distributed training: a peer died or hangs) into one
        :class:`~returnn.errors.DistributedError` naming the step."""
        if self.sync is None:
            return
        err = self.sync.translate_error(exc, "%s, step %i" % (self.name, step))
        if err is not None:
            raise err from None

    def _raise_missing_feed(self, exc: BaseException) -> None:
        """Turns TF's "You must feed a value for placeholder" into a ConfigValueError naming the data key."""
        text = str(exc)
        if "must feed a value for placeholder" not in text:
            return
        from returnn.errors import ConfigValueError

        for key, data in self.network.extern_data.data.items():
            names = [getattr(data.placeholder, "op", None)]
            names += [getattr(t, "op", None) for t in (getattr(data, "size_placeholder", None) or {}).values()]
            if any(op is not None and ("'%s'" % op.name in text or "%s" % op.name in text.split("\n")[0])
                   for op in names):
                raise ConfigValueError(
                    "extern_data", expected="the dataset to provide the data key %r, which the network needs for "
                                            "%s" % (key, self.name),
                    got="dataset %s with keys %s" % (getattr(self.dataset, "name", type(self.dataset).__name__),
                                                     sorted(self.dataset.get_data_keys()))) from exc

    def _num_seqs_total(self) -> Optional[int]:
        try:
            num = self.dataset.num_seqs
        except Exception:  # unknown for some datasets
            return None
        return int(num) if num else None
