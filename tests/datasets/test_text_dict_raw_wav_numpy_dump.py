"""TextDictDataset, RawWavDataset, NumpyDumpDataset against the reference's outputs on the same files."""

import gzip
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets import init_dataset  # noqa: E402
from returnn.errors import DataFileError, DatasetArgError  # noqa: E402


def _seqs(ds):
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, ds.num_seqs)
    return [(ds.get_tag(i), {k: ds.get_data(i, k).tolist() for k in ds.get_data_keys()}) for i in range(ds.num_seqs)]


@pytest.fixture
def vocab(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text(repr({"<unk>": 0, "hello": 1, "world": 2, "the": 3, "cat": 4, "word": 5}))
    return {"class": "Vocabulary", "vocab_file": str(path), "unknown_label": "<unk>"}


def test_text_dict_dataset(tmp_path, vocab):
    fn = tmp_path / "hyps.py"
    fn.write_text(repr({"seq-a": [(-1.5, "hello world"), (-2.0, "hello word")], "seq-b": [(0.0, "the cat")]}))
    ds = init_dataset({"class": "TextDictDataset", "filename": str(fn), "vocab": vocab})
    # observed from the reference
    assert ds.get_data_keys() == ["data", "data_flat", "data_seq_lens", "scores"]
    assert ds.num_outputs == {"data": (6, 1), "data_flat": (6, 1), "data_seq_lens": (1, 1), "scores": (1, 1)}
    assert [(ds.get_data_dtype(k), ds.is_data_sparse(k)) for k in ds.get_data_keys()] == [
        ("int32", True), ("int32", True), ("int32", False), ("float32", False)]
    assert _seqs(ds) == [("seq-a", {"data": [1, 2], "data_flat": [1, 2, 1, 5], "data_seq_lens": [2, 2],
                                    "scores": [-1.5, -2.0]}),
                         ("seq-b", {"data": [3, 4], "data_flat": [3, 4], "data_seq_lens": [2], "scores": [0.0]})]
    ds = init_dataset({"class": "TextDictDataset", "filename": str(fn), "vocab": vocab, "seq_ordering": "sorted"})
    assert [t for t, _ in _seqs(ds)] == ["seq-b", "seq-a"]
    single = tmp_path / "single.py"
    single.write_text(repr({"seq-a": "hello world", "seq-b": "the cat"}))
    ds = init_dataset({"class": "TextDictDataset", "filename": str(single), "item_format": "single", "vocab": vocab})
    assert ds.get_data_keys() == ["data"] and _seqs(ds) == [("seq-a", {"data": [1, 2]}), ("seq-b", {"data": [3, 4]})]
    with pytest.raises(DataFileError, match="'seq-a'.*list_with_scores"):
        init_dataset({"class": "TextDictDataset", "filename": str(single), "vocab": vocab})


def test_raw_wav_dataset(tmp_path):
    import soundfile

    soundfile.write(tmp_path / "a.wav", speech_corpus.tone(440, 0.1), 16000, subtype="PCM_16")
    soundfile.write(tmp_path / "b.wav", speech_corpus.tone(660, 0.05), 16000, subtype="PCM_16")
    lst = tmp_path / "list.txt"
    lst.write_text(f"{tmp_path / 'a.wav'}\n{tmp_path / 'b.wav'}\n")
    with pytest.raises(DatasetArgError, match="num_outputs"):
        init_dataset({"class": "RawWavDataset", "listFile": str(lst), "frameLength": 400, "frameShift": 160})
    ds = init_dataset({"class": "RawWavDataset", "listFile": str(lst), "frameLength": 400, "frameShift": 160,
                       "num_outputs": 4})
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 2)
    a, b = ds.get_data(0, "data"), ds.get_data(1, "data")
    # observed from the reference: raw 16-bit values, ceil((N - L) / S) + 1 frames, zero padded
    assert a.shape == (9, 400) and b.shape == (4, 400) and a.dtype == np.float32
    assert a[0, :3].tolist() == [0.0, 2501.0, 4740.0] and a[1, :3].tolist() == [7336.0, 5929.0, 3971.0]
    assert a[8, :3].tolist() == [8386.0, 8239.0, 8194.0] and a[-1, -5:].tolist() == [0.0] * 5
    assert b[0, :3].tolist() == [0.0, 3668.0, 6508.0] and ds.get_tag(1) == "seq-1"


def test_numpy_dump_dataset(tmp_path):
    prefix = str(tmp_path / "dump.")
    for i in range(3):
        with gzip.open(f"{prefix}{i}.data.txt.gz", "wt") as f:
            f.write("".join(f"{t * 0.5} {i}\n" for t in range(i + 2)))
        with gzip.open(f"{prefix}{i}.targets.txt.gz", "wt") as f:
            f.write("".join(f"{(t + i) % 3}\n" for t in range(i + 2)))
    ds = init_dataset({"class": "NumpyDumpDataset", "prefix": prefix, "num_inputs": 2, "num_outputs": 3})
    seqs = _seqs(ds)
    assert ds.num_outputs == {"data": (2, 2), "classes": (3, 1)} and len(seqs) == 3
    # the first sequence as the reference reads it
    assert seqs[0] == ("seq-0", {"data": [[0.0, 0.0], [0.5, 0.0]], "classes": [0, 1]})
    assert seqs[2][1]["classes"] == [2, 0, 1, 2]
    ds = init_dataset({"class": "NumpyDumpDataset", "prefix": prefix, "num_inputs": 2, "num_outputs": 3,
                       "start_seq": 1, "end_seq": 2})
    assert _seqs(ds) == [("seq-0", {"data": [[0.0, 1.0], [0.5, 1.0], [1.0, 1.0]], "classes": [1, 2, 0]})]
    os.remove(f"{prefix}2.targets.txt.gz")
    ds = init_dataset({"class": "NumpyDumpDataset", "prefix": prefix, "num_inputs": 2, "num_outputs": 3})
    ds.init_seq_order(epoch=1)
    with pytest.raises(DataFileError, match=r"dump\.2\.targets\.txt\.gz.*'seq-2'"):
        ds.load_seqs(0, 3)
