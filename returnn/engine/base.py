"""``EngineBase``: the backend-independent part of the reference's engine API (``returnn.engine.base``, legacy
``EngineBase``), as far as scripts use it: the epoch and model-file naming, the model choice of a config, and
the abstract entry points the TF engine implements.

Observed from the reference: a new engine has ``epoch == 0``, ``model_filename`` None (set when a network is
set up), ``pretrain`` None, ``learning_rate`` 0.0; ``epoch_model_filename("/x/m", 3) == "/x/m.003"`` (and
``/x/m.pretrain.003``); ``get_epoch_str() == "epoch 3"``; ``config_get_final_epoch`` is ``num_epochs``
(default 5); ``init_network_from_config``, ``init_train_from_config`` and ``delete_model`` raise
``NotImplementedError`` here.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from returnn.config import Config, config_or_global
from returnn.engine.checkpoint_files import get_epoch_model_filename, get_existing_epochs
from returnn.errors import ConfigValueError
from returnn.options import CheckpointOptions, RunOptions, TrainingOptions


class EngineBase:
    """Base of the engines.

    :param config: defaults to the global config
    """

    def __init__(self, config: Optional[Config] = None):
        self.config = config_or_global(config)
        self.epoch = 0
        self.global_train_step = None
        self.pretrain = None
        self.model_filename: Optional[str] = None
        self.learning_rate = 0.0
        self.learning_rate_control = None

    @classmethod
    def config_get_final_epoch(cls, config: Config) -> int:
        """The last epoch to train: ``num_epochs`` (default 5)."""
        return TrainingOptions.read_one(config, "num_epochs")

    @classmethod
    def epoch_model_filename(cls, model_filename: str, epoch: int, *, is_pretrain: bool = False) -> str:
        """``<model>.NNN`` (``<model>.pretrain.NNN`` for a pretrain epoch)."""
        return get_epoch_model_filename(model_filename, epoch, is_pretrain=is_pretrain)

    @classmethod
    def get_existing_models(cls, config: Config, *, for_training: Optional[bool] = None) -> Dict[int, str]:
        """epoch → checkpoint prefix of the complete checkpoints of ``model`` (pretrain ones included, a regular
        one wins for the same epoch).

        :param for_training: accepted for the reference's signature
        """
        model = RunOptions.read_one(config, "model")
        if not model:
            return {}
        out = {epoch: cls.epoch_model_filename(model, epoch, is_pretrain=True)
               for epoch in get_existing_epochs(model, is_pretrain=True)}
        out.update({epoch: cls.epoch_model_filename(model, epoch) for epoch in get_existing_epochs(model)})
        return dict(sorted(out.items()))

    @classmethod
    def get_epoch_model(cls, config: Config) -> Tuple[Optional[int], Optional[str]]:
        """``(epoch, checkpoint prefix)`` of the model a task of ``config`` starts from, ``(None, None)`` for
        none (the TF engine's model choice: ``load``, ``load_epoch``, the last existing epoch)."""
        from returnn.tf.engine.model_selection import choose_model_for_eval, choose_model_for_train

        run, checkpoints = RunOptions.from_config(config), CheckpointOptions.from_config(config)
        if run.task == "train":
            choice = choose_model_for_train(checkpoints, run.model)
        else:
            choice = choose_model_for_eval(checkpoints, run.model, task=run.task)
        return choice.epoch, choice.filename

    @classmethod
    def get_train_start_epoch(cls, config: Config) -> int:
        """The first epoch training will run: one after the last existing checkpoint, else ``start_epoch``
        (default 1)."""
        existing = cls.get_existing_models(config)
        if existing:
            return max(existing) + 1
        return cls.get_start_epoch_no_existing_model(config)

    @classmethod
    def get_start_epoch_no_existing_model(cls, config: Config) -> int:
        """``start_epoch`` when no checkpoint exists (1 when unset or ``"auto"``)."""
        start_epoch = CheckpointOptions.read_one(config, "start_epoch")
        return 1 if start_epoch in (None, "auto") else int(start_epoch)

    def set_epoch(self, epoch: int) -> None:
        """Sets the current epoch."""
        self.epoch = epoch

    def get_epoch_str(self) -> str:
        """``"epoch N"`` (``"pretrain epoch N"`` during pretraining)."""
        return ("pretrain " if self.is_pretrain_epoch() else "") + "epoch %s" % self.epoch

    def is_pretrain_epoch(self, epoch: Optional[int] = None) -> Optional[bool]:
        """Whether ``epoch`` (default: the current one) is a pretrain epoch; None without pretraining."""
        if self.pretrain is None:
            return None
        epoch = self.epoch if epoch is None else epoch
        return epoch <= self.pretrain.get_train_num_epochs()

    def is_first_epoch_after_pretrain(self) -> Optional[bool]:
        """Whether the current epoch is the first one after pretraining; None without pretraining."""
        if self.pretrain is None:
            return None
        return self.epoch == self.pretrain.get_train_num_epochs() + 1

    def get_epoch_model_filename(self, epoch: Optional[int] = None) -> str:
        """``<model_filename>.NNN`` of ``epoch`` (default: the current one).

        :raises ConfigValueError: no ``model_filename`` (no ``model`` in the config)
        """
        if not self.model_filename:
            raise ConfigValueError("model", expected="a checkpoint path prefix", got=self.model_filename)
        epoch = self.epoch if epoch is None else epoch
        return self.epoch_model_filename(self.model_filename, epoch, is_pretrain=bool(self.is_pretrain_epoch(epoch)))

    def init_network_from_config(self, config: Optional[Config] = None) -> None:
        """Builds the network for a non-training task (the backend engine implements it)."""
        raise NotImplementedError

    def init_train_from_config(self, config: Optional[Config] = None) -> None:
        """Prepares training (the backend engine implements it)."""
        raise NotImplementedError

    @staticmethod
    def delete_model(filename: str) -> int:
        """Deletes a checkpoint (the backend engine implements it)."""
        raise NotImplementedError
