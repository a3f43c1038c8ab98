"""``OggZipDataset``: speech corpora as zip files (or unpacked directories) of audio files and transcriptions,
at the reference's path ``returnn.datasets.audio``.

Layout of ``<name>.zip`` (as the reference reads it):

- ``<name>.txt``: a Python literal list of dicts, one per sequence: ``{"file": "<audio file>", "seq_name":
  "<tag>", "text": "<transcription>", "duration": <seconds>}`` (``seq_name`` optional: the tag is then ``file``;
  ``duration`` needed for the length-based orders and ``epoch_wise_filter``; ``text`` needed unless
  ``targets=None`` and only audio is read);
- ``<name>/<file>``: the audio (with ``zip_audio_files_have_name_as_prefix=False``: ``<file>`` at the root), in
  any format ``soundfile`` reads (Ogg Vorbis, FLAC, WAV, ...).

An unpacked directory works the same: ``path="<dir>/<name>"`` reads ``<dir>/<name>.txt`` and the audio from
``<dir>/<name>/<file>``. ``<name>`` is the zip's base name, or ``content_name``.

Data keys (as the reference): ``"data"`` (``float32 [T, dim]`` audio features, see
:mod:`returnn.datasets.util.feature_extraction`; absent with ``audio=None``), ``"classes"`` (``int32 [L]``, the
``targets`` vocabulary's labels of the text; absent with ``targets=None``), ``"orth"`` (``uint8 [bytes]``, the
UTF-8 bytes of the text, sparse dim 256) and ``"raw"`` (the text as a 0-dim numpy str array; ``num_outputs``
entry ``{"dtype": "string", "shape": ()}``). The length of a sequence for ``seq_ordering`` and
``epoch_wise_filter`` is ``int(duration * 100)``; audio is only decoded when a sequence is loaded.

Errors: a missing zip / ``.txt`` / audio member, an undecodable audio file, a corrupt zip or an entry without
``text`` raise :class:`returnn.errors.DataFileError` naming the file and the sequence.
"""

from __future__ import annotations

import ast
import os
import zipfile
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from returnn.errors import DataFileError, DatasetArgError
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.epoch_wise_filter import EpochWiseFilter
from returnn.datasets.registry import register_dataset
from returnn.datasets.util.feature_cache import make_feature_cache
from returnn.datasets.util.feature_extraction import make_feature_extractor
from returnn.datasets.util.vocabulary import Utf8ByteTargets, Vocabulary


def make_vocab(targets: Union[None, Vocabulary, Dict[str, Any]], where: str) -> Optional[Vocabulary]:
    """A vocabulary from a ``targets`` option: None, a :class:`Vocabulary` or its options dict."""
    if targets is None or isinstance(targets, Vocabulary):
        return targets
    if isinstance(targets, dict):
        return Vocabulary.create_vocab(**targets)
    raise DatasetArgError(f"{where}: 'targets' must be None, a Vocabulary or a dict of Vocabulary options, got "
                          f"{type(targets).__name__}: {targets!r}")


def make_post_process(opts: Any, where: str):
    """``targets_post_process`` / ``orth_post_process``: None, a function str -> str, a name of a function of
    :mod:`returnn.datasets.text_cleaners` or a list of these."""
    if opts is None:
        return None
    from returnn.datasets.text_cleaners import get_post_processor_function

    try:
        return get_post_processor_function(opts)
    except KeyError as exc:
        raise DatasetArgError(f"{where}: unknown text post-processing {exc}") from None


def text_keys_num_outputs(vocab: Optional[Vocabulary]) -> Dict[str, Any]:
    """``num_outputs`` of ``"classes"`` (when ``vocab``), ``"orth"`` and ``"raw"``."""
    out: Dict[str, Any] = {"raw": {"dtype": "string", "shape": ()}, "orth": [256, 1]}
    if vocab is not None:
        out["classes"] = [vocab.num_labels, 1]
    return out


class _Source:
    """One zip file or unpacked directory."""

    def __init__(self, path: str, content_name: Optional[str], name_prefix: bool, use_cache_manager: bool,
                 resolve_symlink: bool):
        if use_cache_manager:
            from returnn.util.files import cf

            path = cf(path)
        self.path = path
        self.is_dir = os.path.isdir(path)
        base = os.path.basename(os.path.realpath(path) if resolve_symlink else path.rstrip("/"))
        if not self.is_dir:
            if not os.path.exists(path):
                raise DataFileError(path, "OggZipDataset: the zip file does not exist")
            if not base.endswith(".zip"):
                raise DataFileError(path, "OggZipDataset: expected a .zip file or a directory <dir>/<name> next to "
                                          "<dir>/<name>.txt")
            base = base[:-len(".zip")]
        if self.is_dir and not os.path.exists(path.rstrip("/") + ".txt"):
            raise DataFileError(path.rstrip("/") + ".txt", f"OggZipDataset: the directory {path!r} needs the "
                                                           f"sequence list next to it (<dir>/<name>.txt)")
        self.name = content_name or base
        self.name_prefix = name_prefix
        self._zip: Optional[zipfile.ZipFile] = None
        self._zip_pid: Optional[int] = None

    def _zipfile(self) -> zipfile.ZipFile:
        if self._zip is None or self._zip_pid != os.getpid():
            try:
                self._zip = zipfile.ZipFile(self.path)
            except (zipfile.BadZipFile, OSError) as exc:
                raise DataFileError(self.path, f"OggZipDataset: cannot open the zip file: {exc}") from None
            self._zip_pid = os.getpid()
        return self._zip

    def list_file(self) -> str:
        """The ``.txt`` list's location, for messages."""
        return self.path + ".txt" if self.is_dir else f"{self.path}:{self.name}.txt"

    def read_list(self) -> List[Dict[str, Any]]:
        if self.is_dir:
            fn = self.path.rstrip("/") + ".txt"
            if not os.path.exists(fn):
                raise DataFileError(fn, f"OggZipDataset: the directory {self.path!r} needs the sequence list "
                                        f"{fn!r} next to it")
            with open(fn, "rb") as f:
                raw = f.read()
        else:
            member = f"{self.name}.txt"
            try:
                raw = self._zipfile().read(member)
            except DataFileError:
                raise
            except KeyError:
                raise DataFileError(self.path, f"OggZipDataset: no member {member!r} in the zip (the sequence list; "
                                               f"members: {self._zipfile().namelist()[:5]}...)") from None
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                raise DataFileError(self.path, f"OggZipDataset: cannot read {member!r}: {exc}") from None
        try:
            data = ast.literal_eval(raw.decode("utf8"))
        except (ValueError, SyntaxError, UnicodeDecodeError) as exc:
            raise DataFileError(self.list_file(), f"OggZipDataset: expected a Python literal list of dicts: "
                                                  f"{exc}") from None
        if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
            raise DataFileError(self.list_file(), "OggZipDataset: expected a list of dicts with 'file', 'seq_name', "
                                                  "'text', 'duration'")
        for i, entry in enumerate(data):
            if "file" not in entry and "seq_name" not in entry:
                raise DataFileError(self.list_file(), f"OggZipDataset: entry {i} has neither 'file' nor 'seq_name': "
                                                      f"{entry!r}")
        return data

    def read_audio(self, filename: str, seq_tag: str) -> bytes:
        if self.is_dir:
            fn = os.path.join(self.path, filename)
            try:
                with open(fn, "rb") as f:
                    return f.read()
            except OSError as exc:
                raise DataFileError(fn, f"OggZipDataset: sequence {seq_tag!r}: cannot read the audio file: "
                                        f"{exc}") from None
        member = f"{self.name}/{filename}" if self.name_prefix else filename
        try:
            return self._zipfile().read(member)
        except DataFileError:
            raise
        except KeyError:
            raise DataFileError(self.path, f"OggZipDataset: sequence {seq_tag!r}: no audio member {member!r} in the "
                                           f"zip") from None
        except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
            raise DataFileError(self.path, f"OggZipDataset: sequence {seq_tag!r}: cannot read the audio member "
                                           f"{member!r}: {exc}") from None

    def audio_identity(self, filename: str, seq_tag: str) -> str:
        """The feature cache's sequence key of one audio file: its location and content identity (a zip member's
        CRC-32 and size; a plain file's size and modification time)."""
        if self.is_dir:
            fn = os.path.join(self.path, filename)
            try:
                st = os.stat(fn)
            except OSError as exc:
                raise DataFileError(fn, f"OggZipDataset: sequence {seq_tag!r}: cannot read the audio file: "
                                        f"{exc}") from None
            return f"{os.path.abspath(fn)}|{st.st_size}|{st.st_mtime_ns}"
        member = f"{self.name}/{filename}" if self.name_prefix else filename
        try:
            info = self._zipfile().getinfo(member)
        except KeyError:
            raise DataFileError(self.path, f"OggZipDataset: sequence {seq_tag!r}: no audio member {member!r} in the "
                                           f"zip") from None
        return f"{os.path.abspath(self.path)}:{member}|{info.CRC}|{info.file_size}"

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_zip"] = None
        return state


@register_dataset
class OggZipDataset(Dataset):
    """Audio + transcriptions from zip files or folders in the reference's layout: audio features, BPE / character
    / vocabulary targets, orth (see the module doc for the layout and the data keys).

    :param path: a zip file, an unpacked directory, or a list of these (sequences of all, in that order)
    :param content_name: the ``<name>`` inside the zip (default: the zip's base name); a list for several
    :param resolve_symlink_for_name: take ``<name>`` from the real path of a symlinked zip
    :param audio: options of :class:`ExtractAudioFeatures`, or None: no ``"data"`` key (text only)
    :param targets: a :class:`Vocabulary`, its options dict (``"class"``: ``Vocabulary``, ``BytePairEncoding``,
        ``SentencePieces``, ``CharacterTargets``, ``Utf8ByteTargets``), or None: no ``"classes"`` key
    :param targets_post_process: text function(s) applied before ``targets`` (not to ``orth``/``raw``)
    :param use_cache_manager: accepted; no cache manager exists here, the local file is used (the reference's
        behaviour without one, with its notice)
    :param segment_file: text file, one tag per line: only these sequences (corpus order kept)
    :param zip_audio_files_have_name_as_prefix: audio members are ``<name>/<file>`` (default) or ``<file>``
    :param fixed_random_subset: an int ``n`` or a fraction: a fixed random subset (shuffled with
        ``numpy.random.RandomState(fixed_random_subset_seed)``, the first ``n`` kept in that order)
    :param epoch_wise_filter: see :class:`returnn.datasets.epoch_wise_filter.EpochWiseFilter`
    :param feature_cache: not in the reference: keep the extracted ``"data"`` features of a sequence across epochs,
        ``None`` (default: computed at every load), ``"memory"`` (in this process) or a directory path (``.npy``
        files shared between processes and runs); entries are per ``audio`` options and audio file content, so
        changing either recomputes. See :mod:`returnn.datasets.util.feature_cache`. Not with ``random_permute``.
    :raises DataFileError: see the module doc
    :raises DatasetArgError: bad option values
    """

    def __init__(self, path: Union[str, Sequence[str]], *, content_name: Union[None, str, Sequence[str]] = None,
                 resolve_symlink_for_name: bool = False, audio: Optional[Dict[str, Any]],
                 targets: Union[None, Vocabulary, Dict[str, Any]], targets_post_process=None,
                 use_cache_manager: bool = False, segment_file: Optional[str] = None,
                 zip_audio_files_have_name_as_prefix: bool = True,
                 fixed_random_subset: Union[None, float, int] = None, fixed_random_subset_seed: int = 42,
                 epoch_wise_filter: Optional[Dict] = None, feature_cache: Optional[str] = None, **kwargs):
        paths = [path] if isinstance(path, str) else list(path)
        if not paths:
            raise DatasetArgError("OggZipDataset: 'path' must be a zip file, a directory or a non-empty list")
        names = [content_name] * len(paths) if content_name is None or isinstance(content_name, str) \
            else list(content_name)
        if len(names) != len(paths):
            raise DatasetArgError(f"OggZipDataset: content_name has {len(names)} entries, path has {len(paths)}")
        self._sources = [_Source(p, n, zip_audio_files_have_name_as_prefix, use_cache_manager,
                                 resolve_symlink_for_name) for p, n in zip(paths, names)]
        kwargs.setdefault("name", self._sources[0].name)
        super().__init__(**kwargs)
        self.paths = paths
        if audio is not None and not isinstance(audio, dict):
            raise DatasetArgError(f"OggZipDataset: 'audio' must be a dict of feature options or None, got {audio!r}")
        self._audio_opts = audio
        self.feature_extractor = make_feature_extractor(audio, "OggZipDataset") if audio is not None else None
        self.feature_cache = make_feature_cache(feature_cache, self.feature_extractor, "OggZipDataset")
        self.targets = make_vocab(targets, "OggZipDataset")
        self.targets_post_process = make_post_process(targets_post_process, "OggZipDataset targets_post_process")
        self.segment_file = segment_file
        self.fixed_random_subset = fixed_random_subset
        self.fixed_random_subset_seed = fixed_random_subset_seed
        self.epoch_wise_filter = EpochWiseFilter(epoch_wise_filter) if epoch_wise_filter else None
        self.num_outputs = text_keys_num_outputs(self.targets)
        self.labels = {"orth": Utf8ByteTargets().labels}
        self._data_dtypes = {"orth": "uint8"}
        if self.targets is not None:
            self.labels["classes"] = self.targets.labels
        if self.feature_extractor is not None:
            self.num_outputs["data"] = [self.feature_extractor.get_feature_dimension(), 2]
            self.num_inputs = self.feature_extractor.get_feature_dimension()
        self._entries: Optional[List[Dict[str, Any]]] = None
        self._entry_source: List[int] = []

    # ------------------------------------------------------------------ corpus
    def _lazy_init(self) -> None:
        if self._entries is not None:
            return
        entries, sources = [], []
        for i, src in enumerate(self._sources):
            for entry in src.read_list():
                entries.append(entry)
                sources.append(i)
        if self.segment_file:
            from returnn.datasets.meta import _read_tag_list

            allowed = set(_read_tag_list(self.segment_file))
            keep = [j for j, e in enumerate(entries) if self._entry_tag(e) in allowed]
            entries, sources = [entries[j] for j in keep], [sources[j] for j in keep]
        if self.fixed_random_subset:
            num = self.fixed_random_subset
            if isinstance(num, float) and 0 < num < 1:
                num = int(num * len(entries))
            perm = list(range(len(entries)))
            np.random.RandomState(self.fixed_random_subset_seed).shuffle(perm)
            perm = perm[:int(num)]
            entries, sources = [entries[j] for j in perm], [sources[j] for j in perm]
        self._entries, self._entry_source = entries, sources

    @staticmethod
    def _entry_tag(entry: Dict[str, Any]) -> str:
        return entry.get("seq_name", entry.get("file"))

    def get_total_num_seqs(self) -> int:
        self._lazy_init()
        return len(self._entries)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        self._lazy_init()
        return self._entry_tag(self._entries[corpus_idx])

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        self._lazy_init()
        entry = self._entries[corpus_idx]
        if "duration" not in entry:
            src = self._sources[self._entry_source[corpus_idx]]
            raise DataFileError(src.list_file(), f"OggZipDataset: sequence {self._entry_tag(entry)!r} has no "
                                                 f"'duration', needed by seq_ordering={self.seq_ordering!r} / "
                                                 f"epoch_wise_filter")
        return int(entry["duration"] * 100)

    def get_seq_order_for_epoch(self, epoch: Optional[int], num_seqs: int, get_seq_len=None) -> List[int]:
        order = super().get_seq_order_for_epoch(epoch, num_seqs, get_seq_len=get_seq_len)
        if self.epoch_wise_filter is not None:
            self.epoch_wise_filter.debug_msg_prefix = repr(self)
            order = self.epoch_wise_filter.filter(epoch=epoch or 1, seq_order=order,
                                                  get_seq_len=self._get_corpus_seq_len)
        return order

    def get_all_tags(self) -> List[str]:
        self._lazy_init()
        return [self._entry_tag(e) for e in self._entries]

    # ------------------------------------------------------------------ loading
    def _text(self, corpus_idx: int) -> str:
        entry = self._entries[corpus_idx]
        if "text" not in entry:
            src = self._sources[self._entry_source[corpus_idx]]
            raise DataFileError(src.list_file(), f"OggZipDataset: sequence {self._entry_tag(entry)!r} has no 'text' "
                                                 f"(every entry needs one; use '' for an empty transcription)")
        return entry["text"]

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        self._lazy_init()
        entry = self._entries[corpus_idx]
        tag = self._entry_tag(entry)
        src = self._sources[self._entry_source[corpus_idx]]
        text = self._text(corpus_idx)
        features = text_features(text, self.targets, self.targets_post_process, tag, src.list_file())
        if self.feature_extractor is not None:
            features["data"] = self._audio_features(corpus_idx, src, entry["file"], tag)
        return DatasetSeq(corpus_idx, features, seq_tag=tag)

    def _audio_features(self, corpus_idx: int, src: _Source, filename: str, tag: str) -> np.ndarray:
        cache_key = None
        if self.feature_cache is not None:
            cache_key = src.audio_identity(filename, tag)
            cached = self.feature_cache.get(cache_key)
            if cached is not None:
                return cached
        raw = src.read_audio(filename, tag)
        self.feature_extractor.random_state = np.random.RandomState(self._audio_seed(corpus_idx))
        data = self._decode(raw, src, filename, tag)
        if cache_key is not None:
            self.feature_cache.put(cache_key, data)
        return data

    def _audio_seed(self, corpus_idx: int) -> int:
        seed = self._get_epoch_seed(self.epoch or 1)
        return int(np.random.SeedSequence([seed % (2 ** 32), corpus_idx]).generate_state(1)[0])

    def _decode(self, raw: bytes, src: _Source, filename: str, tag: str) -> np.ndarray:
        where = os.path.join(src.path, filename) if src.is_dir else f"{src.path}:{src.name}/{filename}"
        try:
            return self.feature_extractor.get_audio_features_from_raw_bytes(raw, seq_name=tag)
        except DataFileError as exc:
            raise DataFileError(where, f"OggZipDataset: sequence {tag!r}: {exc.message}") from None


def text_features(text: str, vocab: Optional[Vocabulary], post_process, tag: str, where: str
                  ) -> Dict[str, np.ndarray]:
    """``"raw"``, ``"orth"`` and (with ``vocab``) ``"classes"`` of one transcription.

    :raises DataFileError: a label of the text is not in the vocabulary (and it has no unknown label)
    """
    out = {"raw": np.array(text), "orth": np.frombuffer(text.encode("utf8"), dtype=np.uint8).copy()}
    if vocab is not None:
        target_text = post_process(text) if post_process else text
        try:
            out["classes"] = np.array(vocab.get_seq(target_text), dtype=np.int32)
        except KeyError as exc:
            raise DataFileError(where, f"sequence {tag!r}: the text {target_text!r} has the label {exc} which is not "
                                       f"in the targets vocabulary (and it has no unknown_label)") from None
    return out
