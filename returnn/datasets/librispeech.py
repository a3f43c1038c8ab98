"""``LibriSpeechCorpus``: the LibriSpeech directory layout, public at the reference's path
``returnn.datasets.generating.LibriSpeechCorpus``.

Layout: ``<path>/<subdir>/<speaker>/<chapter>/<speaker>-<chapter>.trans.txt`` (lines ``<speaker>-<chapter>-<seq>
<TRANSCRIPTION>``) and the audio ``<speaker>-<chapter>-<seq>.flac`` next to it (``use_ogg``:
``.flac.ogg``). Every ``<subdir>`` whose name starts with ``prefix`` is used (``train`` covers
``train-clean-100``, ``train-clean-360``, ``train-other-500``). With ``use_zip``, ``<path>/<subdir>.zip``
files hold the tree as LibriSpeech distributes it: ``LibriSpeech/<subdir>/<speaker>/<chapter>/...``.

Behaviour observed from the reference: the corpus is ordered by (subdir, speaker, chapter, seq) as numbers;
tags are ``seq_tag_format % {"subdir", "speaker", "chapter", "seq"}`` (default
``train-clean-100-19-198-0000``); ``orth_post_process`` is applied to the transcription, and the result is
``"raw"`` (a 0-dim object array) and the input of the targets; the sequence length for ``seq_ordering`` is the
length of that text; ``"data"`` holds the audio features, or ``0.0`` (a 0-dim float64 array, no
``num_outputs`` entry) with ``audio=None``; ``"classes"`` exists with ``targets``, ``bpe`` (options of
``BytePairEncoding``) or ``chars`` (options of ``CharacterTargets``); ``fixed_random_subset`` keeps the
sequences at the first ``n`` positions of a ``RandomState(42)`` shuffle, in corpus order; the
``epoch_wise_filter`` here: ``subdirs`` keeps the sequences of those subdirs; then ``max_mean_len`` keeps the shortest
``n`` sequences, ``n`` a power of two doubled from 1 while the mean text length of the shortest ``2n`` stays
``<= max_mean_len``, and returns them sorted by length; ``use_new_filter=True`` applies the generic
:class:`~returnn.datasets.epoch_wise_filter.EpochWiseFilter` rule to the text lengths instead (order kept).
"""

from __future__ import annotations

import os
import zipfile
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from returnn.errors import DataFileError, DatasetArgError
from returnn.log import log
from returnn.datasets.audio import make_post_process, make_vocab
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.epoch_wise_filter import EpochWiseFilter
from returnn.datasets.registry import register_dataset
from returnn.datasets.util.feature_extraction import make_feature_extractor
from returnn.datasets.util.vocabulary import BytePairEncoding, CharacterTargets

_Key = Tuple[str, int, int, int]


@register_dataset
class LibriSpeechCorpus(Dataset):
    """LibriSpeech's folder layout (or its zips): audio features of the ``.flac`` files, the transcriptions,
    targets (see the module doc).

    :param path: the folder holding ``<subdir>`` folders (or ``<subdir>.zip`` with ``use_zip``)
    :param prefix: subdir name prefix, e.g. ``"train"``, ``"dev-clean"``
    :param audio: :class:`ExtractAudioFeatures` options, or None (no audio is read)
    :param orth_post_process: text function(s), see :mod:`returnn.datasets.text_cleaners`
    :param targets: a Vocabulary or its options dict; ``bpe`` / ``chars``: BytePairEncoding / CharacterTargets
        options (older option names)
    :param use_zip: read ``<subdir>.zip`` files
    :param use_ogg: audio files are ``<name>.flac.ogg``
    :param use_cache_manager: accepted; the local files are used (no cache manager here)
    :param fixed_random_subset: int or fraction of the corpus
    :param epoch_wise_filter: ``{(first, last): {"max_mean_len": n}}`` (see the module doc)
    :param seq_tag_format: ``%``-format with ``subdir``, ``speaker``, ``chapter``, ``seq``
    :raises DataFileError: no subdir matches ``prefix``; a missing or unreadable transcription or audio file
    """

    def __init__(self, path, prefix, audio, orth_post_process=None, targets=None, chars=None, bpe=None,
                 use_zip=False, use_ogg=False, use_cache_manager=False, fixed_random_subset=None,
                 epoch_wise_filter=None, name=None,
                 seq_tag_format: str = "%(subdir)s-%(speaker)i-%(chapter)i-%(seq)04i", **kwargs):
        super().__init__(name=name or f"prefix:{prefix}", **kwargs)
        if use_cache_manager:
            from returnn.util.files import cf

            path = cf(path)
        self.path = path
        self.prefix = prefix
        self.use_zip = use_zip
        self.use_ogg = use_ogg
        self.seq_tag_format = seq_tag_format
        self.orth_post_process = make_post_process(orth_post_process, "LibriSpeechCorpus orth_post_process")
        given = [n for n, v in (("targets", targets), ("bpe", bpe), ("chars", chars)) if v is not None]
        if len(given) > 1:
            raise DatasetArgError(f"LibriSpeechCorpus: give only one of targets, bpe, chars; got {given}")
        if bpe is not None:
            self.targets = BytePairEncoding(**bpe)
        elif chars is not None:
            self.targets = CharacterTargets(**chars)
        else:
            self.targets = make_vocab(targets, "LibriSpeechCorpus")
        self.feature_extractor = make_feature_extractor(audio, "LibriSpeechCorpus") if audio is not None else None
        self.num_outputs = {"raw": {"dtype": "string", "shape": ()}}
        self.labels = {}
        if self.targets is not None:
            self.num_outputs["classes"] = [self.targets.num_labels, 1]
            self.labels["classes"] = self.targets.labels
        if self.feature_extractor is not None:
            self.num_outputs["data"] = [self.feature_extractor.get_feature_dimension(), 2]
            self.num_inputs = self.feature_extractor.get_feature_dimension()
        self._zips: Dict[str, zipfile.ZipFile] = {}
        self.transs = self._collect_transcriptions()
        self._keys: List[_Key] = sorted(self.transs)
        if fixed_random_subset:
            num = fixed_random_subset
            if isinstance(num, float) and 0 < num < 1:
                num = int(num * len(self._keys))
            perm = np.random.RandomState(42).permutation(len(self._keys))[:int(num)]
            self._keys = [self._keys[i] for i in sorted(perm)]
        self._orths = [self._post(self.transs[k]) for k in self._keys]
        self.epoch_wise_filter = epoch_wise_filter
        if epoch_wise_filter:
            EpochWiseFilter(epoch_wise_filter)  # validates the keys

    # ------------------------------------------------------------------ corpus
    def _post(self, text: str) -> str:
        return self.orth_post_process(text) if self.orth_post_process else text

    def _subdirs(self) -> List[str]:
        if not os.path.isdir(self.path):
            raise DataFileError(self.path, "LibriSpeechCorpus: path is not a directory")
        if self.use_zip:
            names = [f[:-len(".zip")] for f in os.listdir(self.path) if f.endswith(".zip")]
        else:
            names = [f for f in os.listdir(self.path) if os.path.isdir(os.path.join(self.path, f))]
        subdirs = sorted(n for n in names if n.startswith(self.prefix))
        if not subdirs:
            raise DataFileError(self.path, f"LibriSpeechCorpus: no {'<subdir>.zip file' if self.use_zip else 'subdir'}"
                                           f" starting with prefix {self.prefix!r} (found {sorted(names)})")
        return subdirs

    def _zip(self, subdir: str) -> zipfile.ZipFile:
        if subdir not in self._zips:
            fn = os.path.join(self.path, subdir + ".zip")
            try:
                self._zips[subdir] = zipfile.ZipFile(fn)
            except (zipfile.BadZipFile, OSError) as exc:
                raise DataFileError(fn, f"LibriSpeechCorpus: cannot open the zip file: {exc}") from None
        return self._zips[subdir]

    def _parse_trans(self, where: str, subdir: str, text: str, out: Dict[_Key, str]) -> None:
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            name, _, orth = line.strip().partition(" ")
            parts = name.split("-")
            if len(parts) != 3 or not all(p.isdigit() for p in parts):
                raise DataFileError(where, f"line {n}: expected '<speaker>-<chapter>-<seq> <TEXT>', got {line!r}")
            out[(subdir, int(parts[0]), int(parts[1]), int(parts[2]))] = orth

    def _collect_transcriptions(self) -> Dict[_Key, str]:
        out: Dict[_Key, str] = {}
        for subdir in self._subdirs():
            if self.use_zip:
                zf = self._zip(subdir)
                for member in zf.namelist():
                    if member.endswith(".trans.txt"):
                        self._parse_trans(f"{zf.filename}:{member}", subdir, zf.read(member).decode("utf8"), out)
                continue
            for root, _dirs, files in sorted(os.walk(os.path.join(self.path, subdir))):
                for fn in sorted(files):
                    if fn.endswith(".trans.txt"):
                        full = os.path.join(root, fn)
                        with open(full, encoding="utf8") as f:
                            self._parse_trans(full, subdir, f.read(), out)
        return out

    def get_total_num_seqs(self) -> int:
        return len(self._keys)

    def get_data_keys(self) -> List[str]:
        """All keys sorted, ``"data"`` included also with ``audio=None`` (as the reference)."""
        return sorted(set(self.num_outputs) | {"data"})

    def _tag(self, key: _Key) -> str:
        subdir, speaker, chapter, seq = key
        return self.seq_tag_format % {"subdir": subdir, "speaker": speaker, "chapter": chapter, "seq": seq}

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return self._tag(self._keys[corpus_idx])

    def get_all_tags(self) -> List[str]:
        return [self._tag(k) for k in self._keys]

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        return len(self._orths[corpus_idx])

    def get_seq_order_for_epoch(self, epoch: Optional[int], num_seqs: int, get_seq_len=None) -> List[int]:
        order = super().get_seq_order_for_epoch(epoch, num_seqs, get_seq_len=get_seq_len)
        if self.epoch_wise_filter:
            order = self._filter(epoch or 1, order)
        return order

    def _filter(self, epoch: int, order: List[int]) -> List[int]:
        prefix = f"{self!r}, epoch {epoch}. "
        opts = EpochWiseFilter(self.epoch_wise_filter)._opts_for_epoch(epoch)
        if opts is None:
            print(f"{prefix}No filter for this epoch.", file=log.v4)
            return order
        old_num = len(order)
        opts = dict(opts)
        unknown = sorted(set(opts) - {"max_mean_len", "subdirs", "use_new_filter"})
        if unknown:
            raise DatasetArgError(f"LibriSpeechCorpus epoch_wise_filter: unknown option(s) {unknown}; known: "
                                  f"['max_mean_len', 'subdirs', 'use_new_filter']")
        if opts.pop("use_new_filter", False):  # the generic EpochWiseFilter on the text lengths
            return EpochWiseFilter.filter_epoch(opts, order, lambda i: len(self._orths[i]), prefix)
        subdirs = opts.get("subdirs")
        if subdirs is not None:
            order = [i for i in order if self._keys[i][0] in subdirs]
        max_mean_len = opts.get("max_mean_len")
        if max_mean_len is not None and order:
            order = sorted(order, key=lambda i: (len(self._orths[i]), i))
            lens = np.array([len(self._orths[i]) for i in order], dtype=np.float64)
            cum_mean = np.cumsum(lens) / np.arange(1, len(lens) + 1)
            num = 1  # doubled while the mean of the shortest 2 * num stays <= max_mean_len (as the reference)
            while 2 * num <= len(lens) and cum_mean[2 * num - 1] <= max_mean_len:
                num *= 2
            print(f"{prefix}Old mean seq len (transcription) is {float(np.mean(lens)):f}, new is "
                  f"{float(cum_mean[num - 1]):f}, requested max is {float(max_mean_len):f}. Old num seqs is "
                  f"{old_num}, new num seqs is {num}.", file=log.v4)
            order = order[:num]
        print(f"{prefix}Old num seqs {old_num}, new num seqs {len(order)}.", file=log.v4)
        return order

    # ------------------------------------------------------------------ loading
    def _read_audio(self, key: _Key, tag: str) -> bytes:
        subdir, speaker, chapter, seq = key
        fn = f"{speaker}/{chapter}/{speaker}-{chapter}-{seq:04d}.flac" + (".ogg" if self.use_ogg else "")
        if self.use_zip:
            zf = self._zip(subdir)
            member = f"LibriSpeech/{subdir}/{fn}"
            try:
                return zf.read(member)
            except KeyError:
                raise DataFileError(zf.filename, f"LibriSpeechCorpus: sequence {tag!r}: no audio member {member!r}") \
                    from None
        full = os.path.join(self.path, subdir, fn)
        try:
            with open(full, "rb") as f:
                return f.read()
        except OSError as exc:
            raise DataFileError(full, f"LibriSpeechCorpus: sequence {tag!r}: cannot read the audio: {exc}") from None

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        key = self._keys[corpus_idx]
        tag = self._tag(key)
        orth = self._orths[corpus_idx]
        features: Dict[str, Any] = {"raw": np.array(orth, dtype=object)}
        if self.targets is not None:
            try:
                features["classes"] = np.array(self.targets.get_seq(orth), dtype=np.int32)
            except KeyError as exc:
                raise DataFileError(self.path, f"LibriSpeechCorpus: sequence {tag!r}: the text {orth!r} has the label "
                                               f"{exc}, not in the targets vocabulary (no unknown_label)") from None
        if self.feature_extractor is not None:
            raw = self._read_audio(key, tag)
            seed = self._get_epoch_seed(self.epoch or 1)
            self.feature_extractor.random_state = np.random.RandomState(
                int(np.random.SeedSequence([seed % (2 ** 32), corpus_idx]).generate_state(1)[0]))
            try:
                features["data"] = self.feature_extractor.get_audio_features_from_raw_bytes(raw, seq_name=tag)
            except DataFileError as exc:
                raise DataFileError(self.path, f"LibriSpeechCorpus: sequence {tag!r}: {exc.message}") from None
        else:
            features["data"] = np.array(0.0)
        return DatasetSeq(corpus_idx, features, seq_tag=tag)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_zips"] = {}
        return state
