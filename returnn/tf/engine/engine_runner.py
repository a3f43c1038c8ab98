"""``EngineRunner``: one pass of an :class:`~returnn.tf.engine.engine.Engine`'s network over given batches with the
reference's public ``Runner`` signature (``returnn.tf.engine.Runner``), as scripts and tests use it::

    runner = Runner(engine=engine, dataset=dataset, batches=batches, train=False, eval=False,
                    extra_fetches={"out": layer.output.placeholder}, extra_fetches_callback=callback)
    runner.run(report_prefix="my pass")
    assert runner.finalized

The pass itself is the engine's :class:`~returnn.tf.engine.runner.Runner`.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from returnn.tensor import Tensor
from returnn.tf.engine.runner import LossFetches, Runner


class EngineRunner:
    """One pass over ``batches`` of ``dataset`` with ``engine``'s network and session.

    :param engine: an :class:`~returnn.tf.engine.engine.Engine` with its network built
    :param dataset: the dataset the batches are from (``init_seq_order`` called)
    :param batches: a :class:`~returnn.datasets.batching.BatchSetGenerator` (``dataset.generate_batches(...)``)
    :param train: run the engine's training op each step (built by ``init_train_from_config``)
    :param eval: fetch the losses (scores and errors of the pass: :attr:`score`, :attr:`error`)
    :param train_flag: the value fed to the train flag placeholder (default: ``train``)
    :param extra_fetches: name -> a tensor (or a ``Data``: its raw tensor), or a function returning one (called
        when the pass starts); their
        values are given to ``extra_fetches_callback`` each step as keyword arguments (numpy arrays; ``seq_tag``
        of :meth:`TFNetwork.get_seq_tags` as a list of str)
    :param extra_fetches_callback: ``f(**values)`` after each step
    :raises ValueError: ``train`` without a training op in the engine
    :raises NoTrainableLossError: ``train`` with a network without a loss to train
    """

    def __init__(self, engine, dataset, batches, train: bool, eval: bool = True, train_flag: Optional[bool] = None,
                 extra_fetches: Optional[Dict[str, Any]] = None,
                 extra_fetches_callback: Optional[Callable[..., None]] = None):
        if train and engine.state.optim_op is None and engine.state.optim_op_error is not None:
            raise engine.state.optim_op_error
        if train and engine.state.optim_op is None:
            raise ValueError("Runner(train=True): the engine has no training op (call init_train_from_config first)")
        self.engine = engine
        self.dataset = dataset
        self.batches = batches
        self.train = train
        self.eval = eval
        self.train_flag = train if train_flag is None else train_flag
        self.extra_fetches = dict(extra_fetches or {})
        self.extra_fetches_callback = extra_fetches_callback
        #: whether the pass ran to its end
        self.finalized = False
        self.num_steps = 0
        #: loss name -> score of the pass (``eval`` or ``train``)
        self.score: Dict[str, float] = {}
        #: loss name -> error of the pass
        self.error: Dict[str, float] = {}

    def run(self, report_prefix: str) -> None:
        """Runs all batches; sets :attr:`finalized`, :attr:`num_steps`, :attr:`score`, :attr:`error`.

        :param report_prefix: the name in the log lines
        """
        state = self.engine.state
        network = state.network
        with state.graph.as_default():
            fetches = {}
            for name, value in self.extra_fetches.items():
                value = value() if callable(value) else value
                fetches[name] = value.placeholder if isinstance(value, Tensor) else value  # a Data: its raw tensor
            loss_fetches = LossFetches(network) if (self.train or self.eval) else None
        feed_extra = {}
        if state.train_flag is not None:
            feed_extra[state.train_flag] = bool(self.train_flag)
        callback = self.extra_fetches_callback

        def on_step(batch, values):
            if callback is None:
                return
            kwargs = {}
            for name in fetches:
                value = values[name]
                if getattr(value, "dtype", None) is not None and value.dtype == object:  # strings (seq tags)
                    value = [v.decode("utf8") if isinstance(v, bytes) else v for v in value.tolist()]
                kwargs[name] = value
            callback(**kwargs)

        runner = Runner(state, network=network, dataset=self.dataset, batches=self.batches, name=report_prefix,
                        loss_fetches=loss_fetches, train_op=state.optim_op if self.train else None,
                        extra_fetches=fetches, step_callback=on_step, feed_extra=feed_extra)
        result = runner.run()
        self.num_steps = result.num_steps
        if loss_fetches is not None:
            self.score = result.scores()
            self.error = result.errors()
        self.finalized = result.finished
