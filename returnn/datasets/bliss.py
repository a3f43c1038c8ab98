"""``BlissDataset``: a RASR Bliss XML corpus (recordings of audio files with time segments and transcriptions),
public at the reference's path ``returnn.datasets.generating``. (The reference's class stops with
``NotImplementedError`` when loading a sequence; this one reads the corpus.)

Corpus file (optionally ``.gz``)::

    <corpus name="c">
      <recording name="r1" audio="r1.wav">
        <segment name="s1" start="0.0" end="2.5"><orth>hello world</orth></segment>
        ...

``audio`` paths are relative to the corpus file; ``end="inf"`` means the end of the file; nested
``<subcorpus>`` elements add their name to the tag. Tags: ``<corpus>/<recording>/<segment>``. Keys: ``"data"``
(:class:`~returnn.datasets.util.feature_extraction.ExtractAudioFeatures` with ``features="mfcc"`` and the
options below), ``"classes"`` (the orth through ``Vocabulary(vocab_file, unknown_label="UNK")``, or
``BytePairEncoding`` with ``bpe_file``), ``"orth"`` (UTF-8 bytes) and ``"raw"`` (the text). The sequence length
for the sorting orders is the segment duration in frames.
"""

from __future__ import annotations

import gzip
import os
import xml.etree.ElementTree as ElementTree
from typing import Any, Dict, List

from returnn.errors import DataFileError
from returnn.datasets.audio import text_keys_num_outputs, text_features
from returnn.datasets.dataset import Dataset, DatasetSeq
from returnn.datasets.registry import register_dataset
from returnn.datasets.util.feature_extraction import ExtractAudioFeatures
from returnn.datasets.util.vocabulary import BytePairEncoding, Utf8ByteTargets, Vocabulary


def read_bliss(path: str) -> List[Dict[str, Any]]:
    """The segments of a Bliss corpus: dicts ``tag``, ``audio`` (absolute path), ``start``, ``end`` (seconds or
    None), ``orth``.

    :raises DataFileError: unreadable or malformed XML, a recording without ``audio``
    """
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            root = ElementTree.parse(f).getroot()
    except (OSError, ElementTree.ParseError) as exc:
        raise DataFileError(path, f"BlissDataset: cannot read the Bliss XML corpus: {exc}") from None
    base = os.path.dirname(os.path.abspath(path))
    segments: List[Dict[str, Any]] = []

    def walk(elem, prefix: str) -> None:
        for child in elem:
            if child.tag == "subcorpus":
                walk(child, f"{prefix}/{child.get('name')}")
            elif child.tag == "recording":
                audio = child.get("audio")
                if not audio:
                    raise DataFileError(path, f"BlissDataset: recording {child.get('name')!r} has no 'audio'")
                for seg in child.iter("segment"):
                    end = seg.get("end")
                    orth = seg.find("orth")
                    segments.append({
                        "tag": f"{prefix}/{child.get('name')}/{seg.get('name')}",
                        "audio": os.path.join(base, audio), "start": float(seg.get("start", 0.0)),
                        "end": None if end in (None, "inf") else float(end),
                        "orth": " ".join((orth.text or "").split()) if orth is not None else ""})

    walk(root, root.get("name", "corpus"))
    return segments


@register_dataset
class BlissDataset(Dataset):
    """A Bliss corpus with its audio (see the module doc).

    :param path: the corpus XML file
    :param vocab_file: the vocabulary (word labels, or BPE units with ``bpe_file``)
    :param bpe_file: subword-nmt codes: the targets are BPE units
    :param num_feature_filters: MFCC coefficients
    :raises DataFileError: see :func:`read_bliss`; unreadable audio (naming file and segment)
    """

    def __init__(self, path, vocab_file, bpe_file=None, num_feature_filters=40, feature_window_len=0.025,
                 feature_step_len=0.01, with_delta=False, norm_mean=None, norm_std_dev=None, **kwargs):
        super().__init__(**kwargs)
        self.path = path
        self.segments = read_bliss(path)
        self.feature_extractor = ExtractAudioFeatures(
            features="mfcc", num_feature_filters=num_feature_filters, window_len=feature_window_len,
            step_len=feature_step_len, with_delta=with_delta, norm_mean=norm_mean, norm_std_dev=norm_std_dev)
        if bpe_file:
            self.targets: Vocabulary = BytePairEncoding(vocab_file=vocab_file, bpe_file=bpe_file, unknown_label="UNK")
        else:
            self.targets = Vocabulary(vocab_file, unknown_label="UNK")
        self.step_len = feature_step_len
        self.num_outputs = text_keys_num_outputs(self.targets)
        self.num_outputs["data"] = [self.feature_extractor.get_feature_dimension(), 2]
        self.num_inputs = self.feature_extractor.get_feature_dimension()
        self.labels = {"classes": self.targets.labels, "orth": Utf8ByteTargets().labels}
        self._data_dtypes = {"orth": "uint8"}

    def get_total_num_seqs(self) -> int:
        return len(self.segments)

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        return self.segments[corpus_idx]["tag"]

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        seg = self.segments[corpus_idx]
        end = seg["end"]
        if end is None:
            import soundfile

            info = soundfile.info(seg["audio"])
            end = info.frames / info.samplerate
        return int((end - seg["start"]) / self.step_len)

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        import soundfile

        seg = self.segments[corpus_idx]
        try:
            info = soundfile.info(seg["audio"])
            start = int(round(seg["start"] * info.samplerate))
            stop = None if seg["end"] is None else int(round(seg["end"] * info.samplerate))
            audio, sample_rate = soundfile.read(seg["audio"], start=start, stop=stop)
        except (RuntimeError, OSError, soundfile.LibsndfileError) as exc:
            raise DataFileError(seg["audio"], f"BlissDataset: segment {seg['tag']!r}: cannot read the audio: {exc}") \
                from None
        features = text_features(seg["orth"], self.targets, None, seg["tag"], self.path)
        features["data"] = self.feature_extractor.get_audio_features(audio, sample_rate, seq_name=seg["tag"])
        return DatasetSeq(corpus_idx, features, seq_tag=seg["tag"])
