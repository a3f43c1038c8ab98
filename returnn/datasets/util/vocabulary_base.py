"""The vocabulary classes defined here: ``Vocabulary`` (labels from a vocab file), ``BytePairEncoding``,
``CharacterTargets``, ``Utf8ByteTargets``, and the name table ``VOCAB_CLASSES`` of ``create_vocab``. The public
path is :mod:`returnn.datasets.util.vocabulary` (file formats there), which also adds the classes of their own
modules (``SentencePieces``, ``SamplingBytePairEncoding``, subclasses of :class:`Vocabulary`) to the table.
"""

from __future__ import annotations

import ast
import gzip
import os
import pickle
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Type, Union

import numpy

from returnn.errors import DatasetArgError, UnknownNameError
from returnn.util.files import DataFileNotFoundError, DataFileValueError
from returnn.util.values import NotSpecified

_SPECIAL_SYMBOL_KEYS = ("unknown_label", "bos_label", "eos_label", "pad_label", "control_symbols",
                        "user_defined_symbols")


class Vocabulary:
    """A list of labels with their indices, and the conversion of text to label indices and back.

    :param vocab_file: the vocab file (formats in the module doc); may be None if ``labels`` is given
    :param special_symbols_via_file: a file with a dict (Python or JSON) of any of ``unknown_label``,
        ``bos_label``, ``eos_label``, ``pad_label``, ``control_symbols``, ``user_defined_symbols``
    :param unknown_label: label (or index) used for words not in the vocabulary; default ``"UNK"``;
        None: unknown words raise ``KeyError``
    :param bos_label: begin-of-sequence label (or index), stored as ``bos_label_id``
    :param eos_label: end-of-sequence label (or index), stored as ``eos_label_id``
    :param pad_label: padding label (or index), stored as ``pad_label_id``
    :param control_symbols: name → label (or index), stored as ``control_symbol_ids``
    :param user_defined_symbols: name → label (or index), stored as ``user_defined_symbol_ids``
    :param num_labels: if given, must equal the number of labels
    :param seq_postfix: label indices appended by :meth:`get_seq` (e.g. ``[0]`` for end-of-sentence)
    :param labels: the labels (or a function returning them) instead of a vocab file
    :param single_whitespace_split: :meth:`get_seq` splits at single spaces only, so labels containing spaces
        are matched (the reference's ``decode_seq_token_re``)
    :raises DatasetArgError: neither ``vocab_file`` nor ``labels``, a ``num_labels`` mismatch, an unknown
        special label, or bad special-symbols keys
    :raises DataFileNotFoundError: the vocab file does not exist
    :raises DataFileValueError: a vocab file that does not parse, or whose indices are not ``0..n-1``
    """

    #: parsed vocab files: filename → (label → index, labels), shared by all instances (as the reference)
    _cache: Dict[str, Tuple[Dict[str, int], List[str]]] = {}

    def __init__(self, vocab_file: Optional[str], *, special_symbols_via_file: Optional[str] = None,
                 unknown_label: Union[str, int, None, Type[NotSpecified]] = NotSpecified,
                 bos_label: Optional[Union[str, int]] = None, eos_label: Optional[Union[str, int]] = None,
                 pad_label: Optional[Union[str, int]] = None,
                 control_symbols: Optional[Dict[str, Union[str, int]]] = None,
                 user_defined_symbols: Optional[Dict[str, Union[str, int]]] = None,
                 num_labels: Optional[int] = None, seq_postfix: Optional[List[int]] = None,
                 labels: Optional[Union[List[str], Callable[[], List[str]]]] = None,
                 single_whitespace_split: bool = False):
        cls_name = type(self).__name__
        if vocab_file is None and labels is None:
            raise DatasetArgError(f"{cls_name}: needs vocab_file (a vocab file) or labels (a list of labels), "
                                  f"got neither")
        if special_symbols_via_file:
            special = _load_special_symbols(special_symbols_via_file)
            unknown_label = special.get("unknown_label", unknown_label)
            bos_label = special.get("bos_label", bos_label)
            eos_label = special.get("eos_label", eos_label)
            pad_label = special.get("pad_label", pad_label)
            control_symbols = special.get("control_symbols", control_symbols)
            user_defined_symbols = special.get("user_defined_symbols", user_defined_symbols)
        self.vocab_file = vocab_file
        if unknown_label is NotSpecified:
            unknown_label = "UNK"
        self.unknown_label: Optional[str] = unknown_label  # type: ignore[assignment]
        self.num_labels: Optional[int] = None
        self._vocab: Dict[str, int] = {}
        self._labels: Optional[List[str]] = None
        self._init_labels(labels)
        if num_labels is not None and num_labels != self.num_labels:
            raise DatasetArgError(f"{cls_name}({vocab_file!r}): num_labels={num_labels} given, but the vocabulary "
                                  f"has {self.num_labels} labels")
        if isinstance(self.unknown_label, int) and not isinstance(self.unknown_label, bool):
            self.unknown_label = self.id_to_label(self.unknown_label)
        self.unknown_label_id = self._special_id("unknown_label", self.unknown_label)
        self.bos_label_id = self._special_id("bos_label", bos_label)
        self.eos_label_id = self._special_id("eos_label", eos_label)
        self.pad_label_id = self._special_id("pad_label", pad_label)
        self.control_symbol_ids = {name: self._special_id(f"control_symbols[{name!r}]", label)
                                   for name, label in (control_symbols or {}).items()}
        self.user_defined_symbol_ids = {name: self._special_id(f"user_defined_symbols[{name!r}]", label)
                                        for name, label in (user_defined_symbols or {}).items()}
        self.seq_postfix: List[int] = list(seq_postfix or [])
        self.decode_seq_token_re = None
        if single_whitespace_split and self._labels is not None:
            alternatives = "|".join(re.escape(label) for label in self._labels)
            self.decode_seq_token_re = re.compile(f"({alternatives}|\\S+)(?: |$)")

    def _init_labels(self, labels) -> None:
        """Sets ``_vocab``, ``_labels`` and ``num_labels`` from ``labels`` or the vocab file."""
        if labels is not None:
            if callable(labels):
                labels = labels()
            labels = list(labels)
            self._vocab = {label: i for i, label in enumerate(labels)}
            self._labels = labels
        else:
            self._vocab, self._labels = _load_vocab_file_cached(self.vocab_file)
        self.num_labels = len(self._labels)

    def _special_id(self, what: str, label: Optional[Union[str, int]]) -> Optional[int]:
        if label is None:
            return None
        try:
            return self.to_id(label)
        except KeyError:
            raise DatasetArgError(f"{type(self).__name__}({self.vocab_file!r}): {what}={label!r} is not a label of "
                                  f"the vocabulary ({self.num_labels} labels)") from None

    def __repr__(self) -> str:
        parts = [repr(self.vocab_file), f"num_labels={self.num_labels}"]
        if self.unknown_label is not None:
            parts.append(f"unknown_label={self.unknown_label!r}")
        for name, idx in (("bos_label", self.bos_label_id), ("eos_label", self.eos_label_id),
                          ("pad_label", self.pad_label_id)):
            if idx is not None:
                parts.append(f"{name}={self.id_to_label(idx)!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def set_random_seed(self, seed: int) -> None:
        """For vocabularies with random segmentation; a no-op here."""

    @property
    def labels(self) -> List[str]:
        """The label of each index (``labels[i]``)."""
        return self._labels

    def is_id_valid(self, idx: int) -> bool:
        """Whether ``0 <= idx < num_labels``."""
        return 0 <= idx < self.num_labels

    def id_to_label(self, idx: int, default: Union[str, Type[KeyError], None] = KeyError) -> Optional[str]:
        """The label of index ``idx``.

        :raises KeyError: an index out of range, when ``default`` is ``KeyError``
        """
        if self.is_id_valid(idx):
            return self._labels[idx]
        if default is KeyError:
            raise KeyError(f"idx {idx} out of range")
        return default

    def label_to_id(self, label: str, default: Union[int, Type[KeyError], None] = KeyError) -> Optional[int]:
        """The index of ``label``.

        :raises KeyError: an unknown label, when ``default`` is ``KeyError``
        """
        if label in self._vocab:
            return self._vocab[label]
        if default is KeyError:
            raise KeyError(label)
        return default

    def to_id(self, label: Union[str, int, None], default: Union[str, Type[KeyError], None] = KeyError,
              allow_none: bool = False) -> Optional[int]:
        """A label or index as index (an int is checked for range).

        :raises KeyError: an unknown label or an index out of range
        :raises TypeError: ``None`` without ``allow_none``, or another type
        """
        if label is None and allow_none:
            return None
        if isinstance(label, (int, numpy.integer)) and not isinstance(label, bool):
            if self.is_id_valid(int(label)):
                return int(label)
            raise KeyError(f"invalid label id {label}")
        if isinstance(label, str):
            return self.label_to_id(label, default=default)
        raise TypeError(f"invalid label type {type(label)}")

    def get_seq(self, sentence: str) -> List[int]:
        """The label indices of the whitespace-separated words of ``sentence``, then ``seq_postfix``; unknown
        words map to ``unknown_label``.

        :raises KeyError: an unknown word when there is no ``unknown_label``
        """
        if self.decode_seq_token_re is not None:
            words = self.decode_seq_token_re.findall(sentence)
        else:
            words = sentence.split()
        return self.get_seq_indices(words) + self.seq_postfix

    def get_seq_indices(self, seq: List[str]) -> List[int]:
        """The index of each label in ``seq`` (unknown ones as ``unknown_label_id``).

        :raises KeyError: an unknown label when there is no ``unknown_label``
        """
        if self.unknown_label_id is not None:
            return [self._vocab.get(label, self.unknown_label_id) for label in seq]
        return [self._vocab[label] for label in seq]

    def get_seq_labels(self, seq: Union[List[int], numpy.ndarray]) -> str:
        """The labels of the indices in ``seq``, joined with single spaces.

        :raises IndexError: an index out of range
        """
        return " ".join(self._labels[int(i)] for i in seq)

    def serialize_labels(self, data: numpy.ndarray) -> str:
        """The text of a label-index sequence (:meth:`get_seq_labels`)."""
        return self.get_seq_labels(data)

    def tf_get_init_variable_func(self, var) -> Callable:
        """A function ``(session) -> None`` loading the labels into ``var`` (a TF string variable of shape
        ``[num_labels]``)."""

        def init_vocab_var(session) -> None:
            var.load(numpy.array(self._labels, dtype=object), session=session)

        return init_vocab_var

    @classmethod
    def create_vocab(cls, **opts) -> "Vocabulary":
        """A vocabulary from options, as in dataset dicts: ``opts["class"]`` names the class (``Vocabulary``,
        ``BytePairEncoding``, ``CharacterTargets``, ``Utf8ByteTargets``); without it, ``bpe_file`` selects
        :class:`BytePairEncoding`, else :class:`Vocabulary`. The other options go to the constructor.

        :raises UnknownNameError: an unknown class name (with the closest known one)
        :raises TypeError: an option the class does not take
        """
        import returnn.datasets.util.vocabulary  # noqa: F401  (the family: adds the classes of their own modules)

        opts = dict(opts)
        if "class" in opts:
            name = opts.pop("class")
            vocab_cls = VOCAB_CLASSES.get(name)
            if vocab_cls is None:
                from returnn.util.suggest import close_matches

                raise UnknownNameError(kind="vocabulary class", name=name, context="create_vocab option 'class'",
                                       suggestions=close_matches(name, VOCAB_CLASSES), known=sorted(VOCAB_CLASSES))
        elif "bpe_file" in opts:
            vocab_cls = BytePairEncoding
        else:
            vocab_cls = Vocabulary
        return vocab_cls(**opts)

    @classmethod
    def create_vocab_dict_from_labels(cls, labels: Sequence[str]) -> Dict[str, int]:
        """``{label: index}`` of a label list.

        :raises DatasetArgError: a label given twice
        """
        d = {label: i for i, label in enumerate(labels)}
        if len(d) != len(labels):
            repeated = sorted({label for label in labels if list(labels).count(label) > 1})
            raise DatasetArgError(f"create_vocab_dict_from_labels: labels given more than once: {repeated}")
        return d

    @classmethod
    def create_vocab_from_labels(cls, labels: Sequence[str], **kwargs) -> "Vocabulary":
        """A vocabulary of ``labels`` (no vocab file): :class:`CharacterTargets` if every label is one
        character, else :class:`Vocabulary`; ``unknown_label`` defaults to None here."""
        kwargs.setdefault("unknown_label", None)
        if all(len(label) == 1 for label in labels):
            return CharacterTargets(vocab_file=None, labels=list(labels), **kwargs)
        return Vocabulary(vocab_file=None, labels=list(labels), **kwargs)


class BytePairEncoding(Vocabulary):
    """Words split into BPE units by a ``subword-nmt`` codes file (:mod:`returnn.util.bpe`), units inside a word
    marked ``@@`` (``th@@ e``), mapped to indices by the vocab file.

    :param vocab_file: the vocab of BPE units
    :param bpe_file: the BPE codes file
    :param seq_postfix: label indices appended by :meth:`get_seq`
    """

    def __init__(self, vocab_file, bpe_file, seq_postfix=None, **kwargs):
        super().__init__(vocab_file=vocab_file, seq_postfix=seq_postfix, **kwargs)
        from returnn.util.bpe import StandardBytePairEncoder

        self.bpe = StandardBytePairEncoder(bpe_codes_file=bpe_file, labels=self._labels)

    def get_seq(self, sentence):
        """The indices of the BPE units of ``sentence``, then ``seq_postfix``."""
        return self.get_seq_indices(self.bpe.segment_sentence(sentence)) + self.seq_postfix


class CharacterTargets(Vocabulary):
    """One label per character; :meth:`get_seq_labels` joins without spaces. ``unknown_label`` defaults to
    ``"@"``."""

    def __init__(self, vocab_file, seq_postfix=None, unknown_label="@", labels=None, **kwargs):
        super().__init__(vocab_file=vocab_file, seq_postfix=seq_postfix, unknown_label=unknown_label,
                         labels=labels, **kwargs)

    def get_seq(self, sentence):
        """The index of each character of ``sentence`` (spaces included), then ``seq_postfix``."""
        return self.get_seq_indices(list(sentence)) + self.seq_postfix

    def get_seq_labels(self, seq):
        """The characters of the indices in ``seq``, joined without separator."""
        return "".join(self._labels[int(i)] for i in seq)


class Utf8ByteTargets(Vocabulary):
    """One label per UTF-8 byte (256 labels, ``labels[i] == chr(i)``); no vocab file."""

    def __init__(self, seq_postfix=None, **opts):
        opts.setdefault("unknown_label", None)
        super().__init__(vocab_file=None, seq_postfix=seq_postfix, labels=[chr(i) for i in range(256)], **opts)

    def get_seq(self, sentence):
        """The UTF-8 bytes of ``sentence``, then ``seq_postfix``."""
        return list(sentence.encode("utf8")) + self.seq_postfix

    def get_seq_labels(self, seq):
        """The text of a UTF-8 byte sequence.

        :raises UnicodeDecodeError: bytes that are not valid UTF-8
        """
        return bytes(int(i) for i in seq).decode("utf8")


#: the classes ``create_vocab`` knows by name
VOCAB_CLASSES: Dict[str, type] = {
    "Vocabulary": Vocabulary, "BytePairEncoding": BytePairEncoding, "CharacterTargets": CharacterTargets,
    "Utf8ByteTargets": Utf8ByteTargets,
}


def _load_vocab_file_cached(filename: str) -> Tuple[Dict[str, int], List[str]]:
    if filename not in Vocabulary._cache:
        Vocabulary._cache[filename] = _load_vocab_file(filename)
    return Vocabulary._cache[filename]


def _load_vocab_file(filename: str) -> Tuple[Dict[str, int], List[str]]:
    """Parses a vocab file (formats in the module doc): (label → index, labels by index)."""
    if not os.path.exists(filename):
        raise DataFileNotFoundError(filename, "vocab file does not exist")
    if filename.endswith(".pkl"):
        try:
            with open(filename, "rb") as f:
                vocab = pickle.load(f)
        except Exception as exc:
            raise DataFileValueError(filename, f"vocab file ending in .pkl does not unpickle: {exc}") from None
        if not isinstance(vocab, dict):
            raise DataFileValueError(filename, f"a pickled vocab must be a dict label -> index, got "
                                               f"{type(vocab).__name__}")
    else:
        with (gzip.open(filename, "rt", encoding="utf8") if filename.endswith(".gz")
              else open(filename, "r", encoding="utf8")) as f:
            content = f.read()
        if content.startswith("{"):
            try:
                vocab = ast.literal_eval(content)
            except (ValueError, SyntaxError) as exc:
                raise DataFileValueError(filename, f"vocab file starting with '{{' is not a Python dict literal "
                                                   f"({exc})") from None
        else:  # one label per line: the labels are the lines (a repeated label keeps its last index)
            labels = content.splitlines()
            if not labels:
                raise DataFileValueError(filename, "the vocab is empty")
            return {label: i for i, label in enumerate(labels)}, labels
    return vocab, _labels_from_vocab(filename, vocab)


def _labels_from_vocab(filename: str, vocab: Dict[Any, Any]) -> List[str]:
    for label, idx in vocab.items():
        if not isinstance(label, str) or not isinstance(idx, int) or isinstance(idx, bool):
            raise DataFileValueError(filename, f"vocab entries must be label (str) -> index (int), got "
                                               f"{label!r}: {idx!r}")
    if not vocab:
        raise DataFileValueError(filename, "the vocab is empty")
    by_idx: Dict[int, str] = {}
    for label, idx in vocab.items():
        if idx not in by_idx or label > by_idx[idx]:
            by_idx[idx] = label
    num_labels = len(by_idx)
    if min(by_idx) != 0 or max(by_idx) != num_labels - 1:
        unused = sorted(set(range(min(min(by_idx), 0), max(by_idx) + 1)) - set(by_idx))
        raise DataFileValueError(filename, f"the label indices must be 0..{num_labels - 1} ({num_labels} distinct "
                                           f"indices), got min {min(by_idx)}, max {max(by_idx)}; unused indices: "
                                           f"{unused[:20]}{' ...' if len(unused) > 20 else ''}")
    return [by_idx[i] for i in range(num_labels)]


def _load_special_symbols(filename: str) -> Dict[str, Any]:
    if not os.path.exists(filename):
        raise DataFileNotFoundError(filename, "special-symbols file (special_symbols_via_file) does not exist")
    with open(filename, "r", encoding="utf8") as f:
        content = f.read()
    try:
        special = ast.literal_eval(content.strip())
    except (ValueError, SyntaxError):
        import json

        try:
            special = json.loads(content)
        except ValueError as exc:
            raise DataFileValueError(filename, f"expected a dict (Python or JSON): {exc}") from None
    if not isinstance(special, dict) or any(key not in _SPECIAL_SYMBOL_KEYS for key in special):
        raise DataFileValueError(filename, f"expected a dict with keys among {', '.join(_SPECIAL_SYMBOL_KEYS)}, "
                                           f"got {special!r}")
    return special
