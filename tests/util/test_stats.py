import io

import numpy
import pytest

from returnn.util.basic import Stats


def test_chunks_match_numpy():
    rnd = numpy.random.RandomState(1)
    m = rnd.uniform(-2.0, 10.0, (500, 3))
    stats = Stats()
    for start in range(0, 500, 37):
        stats.collect(m[start:start + 37])
    numpy.testing.assert_allclose(stats.get_mean(), m.mean(axis=0))
    numpy.testing.assert_allclose(stats.get_std_dev(), m.std(axis=0))
    numpy.testing.assert_array_equal(stats.get_min(), m.min(axis=0))
    numpy.testing.assert_array_equal(stats.get_max(), m.max(axis=0))
    assert (stats.num_seqs, stats.total_data_len) == (14, 500)


def test_dump_lines_and_files_as_reference(tmp_path):
    # observed from the reference: two sequences (4 and 2 frames of dim 3), float32
    stats = Stats()
    stats.collect(numpy.arange(12, dtype="float32").reshape(4, 3))
    stats.collect(numpy.arange(6, dtype="float32").reshape(2, 3) * 2)
    assert stats.get_mean().dtype == numpy.float32
    out = io.StringIO()
    prefix = str(tmp_path / "st")
    stats.dump(output_file_prefix=prefix, stream=out, stream_prefix="Layer 'x' ")
    assert out.getvalue() == (
        "Layer 'x' Stats:\n"
        "  2 seqs, 6 total frames, 3.000000 average frames\n"
        "  Mean: [4.        5.3333335 6.6666665]\n"
        "  Std dev: [3.3166249 3.2489314 3.2489314]\n"
        "  Min/max: [0. 1. 2.] / [ 9. 10. 11.]\n"
        f"  Write mean/std-dev to {prefix}.(mean|std_dev).txt.\n"
        f"  Write min/max to {prefix}.(min|max).txt.\n"
        f"  Write extra info to {prefix}.info.txt.\n")
    assert (tmp_path / "st.info.txt").read_text() == '{\n"num_seqs": 2,\n"total_data_len": 6,\n}\n'
    assert (tmp_path / "st.max.txt").read_text() == (
        "9.000000000000000000e+00\n1.000000000000000000e+01\n1.100000000000000000e+01\n")
    numpy.testing.assert_allclose(numpy.loadtxt(str(tmp_path / "st.std_dev.txt")), [3.3166249, 3.2489314, 3.2489314],
                                  rtol=1e-6)


def test_scalar_frames_and_empty():
    stats = Stats()
    stats.collect(numpy.array([1.0, 2.0, 3.0], dtype="float32"))  # three scalar frames
    stats.collect(numpy.zeros((0,), dtype="float32"))  # not counted
    out = io.StringIO()
    stats.dump(stream=out)
    assert out.getvalue().splitlines()[:3] == ["Stats:", "  1 seqs, 3 total frames, 3.000000 average frames",
                                               "  Mean: 2.0"]
    empty = io.StringIO()
    Stats().dump(stream=empty)
    assert empty.getvalue() == "Stats:\n  0 seqs\n  (No data)\n"


def test_errors():
    stats = Stats()
    with pytest.raises(ValueError, match="no frames"):
        stats.get_mean()
    stats.collect(numpy.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        stats.collect(numpy.zeros((2, 4)))
