"""Backend selection. TensorFlow (the reference's net-dict engine) is the only backend this project ships."""

from __future__ import annotations

from typing import Optional

from returnn.errors import BackendError

# backend names of the reference that select the TF net-dict engine
_TF_NAMES = ("tensorflow", "tensorflow-net-dict", "tf")


class BackendEngine:
    """Which compute backend is selected. Mirrors the reference's ``BackendEngine`` class.

    ``TensorFlow`` is the only value this project supports; ``Theano`` and ``Torch`` exist as names so that
    code comparing against them keeps working, but selecting them raises :class:`returnn.errors.BackendError`.
    """

    Theano = 0
    TensorFlow = 1
    Torch = 2
    selected_engine: Optional[int] = None
    #: whether the config named TensorFlow (``use_tensorflow`` / ``backend``), set by :meth:`select_engine`
    selected_explicitly: bool = False

    @classmethod
    def select_engine(cls, engine: Optional[int] = None, config=None) -> None:
        """Selects the backend from ``engine`` or from the config keys ``backend`` / ``use_tensorflow``.

        :raises BackendError: for ``backend = "torch"``/``"jax"``/``"theano"`` or ``use_theano = True``
        """
        if engine is None and config is not None:
            from returnn.options.backend import BackendOptions

            options = BackendOptions.from_config(config)
            backend = options.backend
            if backend is not None and str(backend).lower() not in _TF_NAMES:
                raise BackendError(
                    f"config key 'backend': {backend!r} is not provided by this project; only the TensorFlow "
                    f"backend is (use backend = \"tensorflow\" or use_tensorflow = True)")
            if options.use_theano:
                raise BackendError(
                    "config key 'use_theano': the Theano backend is not provided by this project; only the "
                    "TensorFlow backend is (set use_tensorflow = True)")
            engine = cls.TensorFlow
            cls.selected_explicitly = options.tensorflow_explicit
        if engine not in (None, cls.TensorFlow):
            raise BackendError(f"backend {engine!r} is not provided by this project; only TensorFlow is")
        cls.selected_engine = cls.TensorFlow

    @classmethod
    def get_selected_engine(cls) -> int:
        """The selected engine; TensorFlow when nothing was selected explicitly."""
        return cls.TensorFlow if cls.selected_engine is None else cls.selected_engine

    @classmethod
    def is_tensorflow_selected(cls) -> bool:
        return cls.get_selected_engine() == cls.TensorFlow

    @classmethod
    def is_theano_selected(cls) -> bool:
        return False

    @classmethod
    def is_torch_selected(cls) -> bool:
        return False
