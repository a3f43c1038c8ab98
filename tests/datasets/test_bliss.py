"""BlissDataset on a tiny Bliss corpus (the reference's class stops with NotImplementedError when loading)."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets import init_dataset  # noqa: E402
from returnn.datasets.util.feature_extraction import ExtractAudioFeatures  # noqa: E402
from returnn.errors import DataFileError  # noqa: E402


def test_bliss_dataset(tmp_path):
    import soundfile

    rec1 = speech_corpus.tone(440, 1.0)
    soundfile.write(tmp_path / "a.wav", rec1, 16000, subtype="PCM_16")
    soundfile.write(tmp_path / "b.wav", speech_corpus.tone(660, 0.5), 16000, subtype="PCM_16")
    (tmp_path / "corpus.xml").write_text(
        '<?xml version="1.0" encoding="utf8"?>\n<corpus name="test">\n'
        '  <recording name="rec1" audio="a.wav">\n'
        '    <segment name="seg1" start="0.0" end="0.4"><orth> hello   world </orth></segment>\n'
        '    <segment name="seg2" start="0.4" end="1.0"><orth>the cat</orth></segment>\n'
        '  </recording>\n  <subcorpus name="sub"><recording name="rec2" audio="b.wav">\n'
        '    <segment name="seg1" start="0" end="inf"><orth>sat dog</orth></segment>\n'
        '  </recording></subcorpus>\n</corpus>\n')
    (tmp_path / "vocab.txt").write_text(repr({"UNK": 0, "hello": 1, "world": 2, "the": 3, "cat": 4, "sat": 5}))
    ds = init_dataset({"class": "BlissDataset", "path": str(tmp_path / "corpus.xml"),
                       "vocab_file": str(tmp_path / "vocab.txt"), "num_feature_filters": 13,
                       "seq_ordering": "sorted"})
    assert ds.get_all_tags() == ["test/rec1/seg1", "test/rec1/seg2", "test/sub/rec2/seg1"]
    ds.init_seq_order(epoch=1)
    assert [ds.get_tag(i) for i in range(3)] == ["test/rec1/seg1", "test/sub/rec2/seg1", "test/rec1/seg2"]
    ds.load_seqs(0, 3)
    assert ds.get_data(0, "classes").tolist() == [1, 2] and str(ds.get_data(0, "raw")) == "hello world"
    assert ds.get_data(1, "classes").tolist() == [5, 0]  # "dog" -> UNK
    data = ds.get_data(2, "data")
    assert data.shape == (61, 13) and ds.num_outputs["data"] == [13, 2]
    audio, _ = soundfile.read(tmp_path / "a.wav")
    expected = ExtractAudioFeatures(features="mfcc", num_feature_filters=13).get_audio_features(audio[6400:16000],
                                                                                                16000)
    np.testing.assert_allclose(data, expected, rtol=1e-5, atol=1e-4)
    (tmp_path / "a.wav").write_bytes(b"broken")
    ds.init_seq_order(epoch=1)
    with pytest.raises(DataFileError, match="'test/rec1/seg1'"):
        ds.load_seqs(0, 1)
