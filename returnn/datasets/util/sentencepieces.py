"""``SentencePieces``: targets from a ``sentencepiece`` model, public at the reference's path
``returnn.datasets.util.vocabulary.SentencePieces``.

Observed from the reference: the options (except ``control_symbols`` / ``user_defined_symbols``) are passed to
``sentencepiece.SentencePieceProcessor(**opts)`` (``model_file``, ``add_bos``, ``add_eos``, ``enable_sampling``,
``alpha``, ``nbest_size``, ``reverse``, ...); ``labels[i]`` is piece ``i``; ``unknown_label_id``,
``bos_label_id``, ``eos_label_id`` and ``pad_label_id`` are the model's ids (None where the model has none);
:meth:`get_seq` encodes to ids (always ids, also with ``out_type=str``); :meth:`get_seq_labels` joins the pieces
with spaces; ``repr`` is ``SentencePieces(<opts>)``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

import numpy

from returnn.errors import DatasetArgError
from returnn.util.files import DataFileNotFoundError

from returnn.datasets.util.vocabulary_base import Vocabulary


class SentencePieces(Vocabulary):
    """A ``sentencepiece`` model as vocabulary (see the module doc).

    :raises DataFileNotFoundError: ``model_file`` does not exist
    :raises DatasetArgError: no ``model_file``, an option ``SentencePieceProcessor`` does not take, or the
        ``sentencepiece`` package is missing
    """

    def __init__(self, **opts):
        import os

        try:
            import sentencepiece as spm
        except ImportError:
            raise DatasetArgError("SentencePieces needs the 'sentencepiece' package: pip install sentencepiece") \
                from None
        self._opts = dict(opts)
        opts = dict(opts)
        control_symbols = opts.pop("control_symbols", None)
        user_defined_symbols = opts.pop("user_defined_symbols", None)
        opts.pop("out_type", None)  # ids are always returned
        model_file = opts.get("model_file")
        if not model_file:
            raise DatasetArgError(f"SentencePieces: needs model_file (a sentencepiece .model file), got {self._opts!r}")
        if not os.path.exists(model_file):
            raise DataFileNotFoundError(model_file, "SentencePieces: model_file does not exist")
        try:
            self.sp = spm.SentencePieceProcessor(**opts)
        except TypeError as exc:
            raise DatasetArgError(f"SentencePieces: an option sentencepiece.SentencePieceProcessor does not take: "
                                  f"{exc}") from None
        self._opts_for_seq = opts
        labels = [self.sp.id_to_piece(i) for i in range(self.sp.get_piece_size())]
        super().__init__(vocab_file=None, labels=labels, unknown_label=None, control_symbols=control_symbols,
                         user_defined_symbols=user_defined_symbols)
        self.vocab_file = model_file

        def _id(value: int) -> Optional[int]:
            return value if value >= 0 else None

        self.unknown_label_id = _id(self.sp.unk_id())
        self.unknown_label = self._labels[self.unknown_label_id] if self.unknown_label_id is not None else None
        self.bos_label_id = _id(self.sp.bos_id())
        self.eos_label_id = _id(self.sp.eos_id())
        self.pad_label_id = _id(self.sp.pad_id())

    def __repr__(self) -> str:
        return f"SentencePieces({self._opts!r})"

    def set_random_seed(self, seed: int) -> None:
        """Seeds sentencepiece's sampling (``enable_sampling``)."""
        import sentencepiece as spm

        spm.set_random_generator_seed(seed)

    def get_seq(self, sentence: str) -> List[int]:
        """The piece ids of ``sentence`` (with the processor's ``add_bos`` / ``add_eos`` / sampling options)."""
        return list(self.sp.encode(sentence, out_type=int))

    def get_seq_labels(self, seq: Union[List[int], numpy.ndarray]) -> str:
        """The pieces of the ids in ``seq``, joined with spaces."""
        return " ".join(self._labels[int(i)] for i in seq)

    def __getstate__(self) -> Dict[str, Any]:
        return {"_opts": self._opts}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__init__(**state["_opts"])
