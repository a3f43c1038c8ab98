"""tools/hdf_dump_translation_dataset.py (returnn/datasets/translation_hdf.py): the printed lines, the HDF
layout (names, dtypes, shapes, chunks, compression, attributes) and what HDFDataset reads from it were observed
with the reference's tool and HDFDataset on the same inputs."""

import gzip
import os
import pickle
import subprocess
import sys

import h5py
import numpy
import pytest

from returnn.datasets.hdf import HDFDataset

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_SRC_VOCAB = {"hello": 0, "world": 1, "the": 2, "cat": 3, "sat": 4, "<S>": 5, "</S>": 6, "<UNK>": 7}
_TGT_VOCAB = {"hallo": 0, "welt": 1, "die": 2, "katze": 3, "sass": 4, "<S>": 5, "</S>": 6, "<UNK>": 7}
_TGT_LABELS = [b"hallo", b"welt", b"die", b"katze", b"sass", b"<S>", b"</S>", b"<UNK>"]


def _files(tmp_path, src_lines, tgt_lines, vocabs, gz=False):
    paths = {}
    for name, lines in (("src", src_lines), ("tgt", tgt_lines)):
        path = tmp_path / (name + ".txt" + (".gz" if gz else ""))
        text = "".join(line + "\n" for line in lines)
        if gz:
            with gzip.open(path, "wt", encoding="utf8") as f:
                f.write(text)
        else:
            path.write_text(text, encoding="utf8")
        paths[name] = str(path)
    for name, vocab in vocabs.items():
        path = tmp_path / f"{name}.pkl"
        with open(path, "wb") as f:
            pickle.dump(vocab, f)
        paths[name] = str(path)
    return paths


def _run(*args, rc=0):
    out = subprocess.run([sys.executable, "tools/hdf_dump_translation_dataset.py", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == rc, out.stderr
    return out.stdout.splitlines(), out.stderr


_HEAD = ["Setting attributes...", "Done.", "Writing labels (vocabulary)...", "Done.",
         "Writing source, target, sequence lengths and tags for all lines..."]


def _read(path):
    ds = HDFDataset(files=[path])
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, ds.num_seqs)
    return ds, [(ds.get_tag(i), {k: ds.get_data(i, k).tolist() for k in ds.get_data_keys()})
                for i in range(ds.num_seqs)]


def test_translation_hdf_layout(tmp_path):
    p = _files(tmp_path, ["hello world", "the cat sat", "unknownword hello"], ["hallo welt", "die katze sass", "hallo"],
               {"sv": _SRC_VOCAB, "tv": _TGT_VOCAB})
    out = str(tmp_path / "out.hdf")
    lines, _ = _run("-s", p["src"], "-t", p["tgt"], "-v", p["sv"], "-w", p["tv"], "-o", out, "-n", "3")
    assert lines == _HEAD + ["> Processed 3 lines.", "Done."]
    with h5py.File(out, "r") as f:
        assert dict(f.attrs) == {"inputPattSize": 8, "numLabels": 8}
        assert all(isinstance(v, numpy.int64) for v in f.attrs.values())
        assert sorted(f.keys()) == ["inputs", "seqLengths", "seqTags", "targets"]
        assert (f["inputs"].dtype, f["inputs"].chunks, f["inputs"].maxshape, f["inputs"].compression) == (
            numpy.int32, (9766,), (None,), None)
        assert f["inputs"][()].tolist() == [0, 1, 6, 2, 3, 4, 6, 7, 0, 6]
        assert f["targets/data/classes"][()].tolist() == [0, 1, 6, 2, 3, 4, 6, 0, 6]
        assert f["targets/data/classes"].chunks == (9766,)
        assert f["seqLengths"].dtype == numpy.int32 and f["seqLengths"].chunks is None
        assert f["seqLengths"][()].tolist() == [[3, 3], [4, 4], [3, 2]]
        assert f["seqTags"].dtype == numpy.dtype("S6") and f["seqTags"][()].tolist() == [b"line-0", b"line-1",
                                                                                        b"line-2"]
        assert f["targets/labels/classes"].dtype == numpy.dtype("S6")
        assert f["targets/labels/classes"][()].tolist() == _TGT_LABELS
        size = f["targets/size"].attrs["classes"]
        assert size.dtype == numpy.int64 and size.tolist() == [8, 1]
    ds, seqs = _read(out)
    assert ds.get_data_keys() == ["data", "classes"] and ds.is_data_sparse("data")
    assert (ds.get_data_dim("data"), ds.get_data_dim("classes")) == (8, 8)
    assert ds.labels["classes"] == [w.decode() for w in _TGT_LABELS]
    assert seqs == [("line-0", {"data": [0, 1, 6], "classes": [0, 1, 6]}),
                    ("line-1", {"data": [2, 3, 4, 6], "classes": [2, 3, 4, 6]}),
                    ("line-2", {"data": [7, 0, 6], "classes": [0, 6]})]


def test_translation_hdf_gzip_buffers(tmp_path):
    p = _files(tmp_path, ["hello world", "the cat sat", "unknownword hello"], ["hallo welt", "die katze sass", "hallo"],
               {"sv": _SRC_VOCAB, "tv": _TGT_VOCAB}, gz=True)
    out = str(tmp_path / "out.hdf")
    lines, _ = _run("-s", p["src"], "-t", p["tgt"], "-v", p["sv"], "-w", p["tv"], "-o", out, "-n", "3", "-c", "gzip",
                    "-d", "4", "-l", "2")
    assert lines == _HEAD + ["> Processed 2 lines.", "> Processed 3 lines.", "Done."]
    with h5py.File(out, "r") as f:
        for key in ("inputs", "targets/data/classes"):
            assert (f[key].chunks, f[key].compression) == ((4,), "gzip")
        assert f["inputs"][()].tolist() == [0, 1, 6, 2, 3, 4, 6, 7, 0, 6]


def test_translation_hdf_factors(tmp_path):
    p = _files(tmp_path, ["hello|A world|B", "the|B cat|A sat|C"], ["hallo|x welt|y", "die|y katze|x"],
               {"sv": _SRC_VOCAB, "tv": _TGT_VOCAB, "sf": {"A": 0, "B": 1, "C": 2, "</S>": 3, "<UNK>": 4},
                "tf": {"x": 0, "y": 1, "</S>": 2, "<UNK>": 3}})
    out = str(tmp_path / "out.hdf")
    _run("-s", p["src"], "-t", p["tgt"], "-v", p["sv"] + "," + p["sf"], "-w", p["tv"] + "," + p["tf"], "-o", out,
         "-n", "2", "--source_factors", "sf1", "--target_factors", "tf1", "--factor_separator", "|")
    with h5py.File(out, "r") as f:
        assert f["seqLengths"][()].tolist() == [[3, 3, 3, 3], [4, 3, 4, 3]]
        assert f["targets/data/sf1"][()].tolist() == [0, 1, 3, 1, 0, 2, 3]
        assert f["targets/data/tf1"][()].tolist() == [0, 1, 2, 1, 0, 2]
        assert f["targets/labels/sf1"].dtype == numpy.dtype("S6")
        assert f["targets/labels/tf1"][()].tolist() == [b"x", b"y", b"</S>", b"<UNK>"]
        assert f["targets/size"].attrs["sf1"].tolist() == [5, 1]
    ds, seqs = _read(out)
    assert ds.get_data_keys() == ["data", "classes", "sf1", "tf1"]
    assert (ds.get_data_dim("sf1"), ds.get_data_dim("tf1")) == (5, 4)
    assert seqs[1] == ("line-1", {"data": [2, 3, 4, 6], "classes": [2, 3, 6], "sf1": [1, 0, 2, 3], "tf1": [1, 0, 2]})


def test_translation_hdf_widths(tmp_path):
    # labels: bytes of the longest label + 1; tags: bytes of the longest tag
    p = _files(tmp_path, ["hello world"] * 11, ["a bb c"] * 11,
               {"sv": {"hello": 0, "world": 1, "</S>": 2, "<UNK>": 3}, "tv": {"a": 0, "</S>": 1, "<UNK>": 2,
                                                                             "abcdefghij": 3}})
    out = str(tmp_path / "out.hdf")
    _run("-s", p["src"], "-t", p["tgt"], "-v", p["sv"], "-w", p["tv"], "-o", out, "-n", "11")
    with h5py.File(out, "r") as f:
        assert f["targets/labels/classes"].dtype == numpy.dtype("S11")
        assert f["seqTags"].dtype == numpy.dtype("S7") and f["seqTags"][10] == b"line-10"
        assert f["targets/data/classes"][:4].tolist() == [0, 2, 2, 1]


@pytest.mark.parametrize("n, message", [(2, "more lines in the corpus files than specified (2)"),
                                        (5, "fewer lines (3) in the corpus files than specified (5)")])
def test_translation_hdf_wrong_line_count(tmp_path, n, message):
    p = _files(tmp_path, ["hello", "world", "the"], ["hallo", "welt", "die"], {"sv": _SRC_VOCAB, "tv": _TGT_VOCAB})
    out = tmp_path / "out.hdf"
    _, err = _run("-s", p["src"], "-t", p["tgt"], "-v", p["sv"], "-w", p["tv"], "-o", str(out), "-n", str(n), rc=1)
    assert message in err and "Traceback" not in err
    assert not [name for name in os.listdir(tmp_path) if name.startswith("out.hdf")]


def test_translation_hdf_vocab_without_unk(tmp_path):
    p = _files(tmp_path, ["hello"], ["hallo"], {"sv": {"hello": 0, "</S>": 1}, "tv": _TGT_VOCAB})
    _, err = _run("-s", p["src"], "-t", p["tgt"], "-v", p["sv"], "-w", p["tv"], "-o", str(tmp_path / "o.hdf"),
                  "-n", "1", rc=1)
    assert "the vocabulary lacks '<UNK>'" in err
