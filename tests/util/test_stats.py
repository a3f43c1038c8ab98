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
    out = io.StringIO()
    stats.dump(stream=out)
    assert "500 frames, dim 3" in out.getvalue()


def test_errors():
    stats = Stats()
    with pytest.raises(ValueError, match="no frames"):
        stats.get_mean()
    stats.collect(numpy.zeros(3))
    with pytest.raises(ValueError, match="dim 3"):
        stats.collect(numpy.zeros((2, 4)))
