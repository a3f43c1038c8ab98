import numpy

from returnn.util.fsa import FastBwFsaShared


def test_fast_bw_fsa_layout():
    """Layout observed from the reference: sequence by sequence, states shifted by the FSA's state count."""
    fsa = FastBwFsaShared()
    fsa.add_edge(0, 2, emission_idx=1, weight=0.5)
    fsa.add_edge(0, 1, emission_idx=0)
    batch = fsa.get_fast_bw_fsa(n_batch=2)
    numpy.testing.assert_array_equal(batch.edges, [[0, 0, 3, 3], [2, 1, 5, 4], [1, 0, 1, 0], [0, 0, 1, 1]])
    assert batch.edges.dtype == numpy.int32 and batch.weights.dtype == numpy.float32
    numpy.testing.assert_array_equal(batch.weights, [0.5, 0.0, 0.5, 0.0])
    numpy.testing.assert_array_equal(batch.start_end_states, [[0, 3], [2, 5]])
    assert (batch.num_edges, batch.num_batch) == (4, 2)


def test_inf_loop():
    fsa = FastBwFsaShared()
    fsa.add_edge(0, 1, emission_idx=0)
    fsa.add_inf_loop(1, 3)
    assert fsa.edges == [[0, 1, 0, 0.0], [1, 1, 0, 0.0], [1, 1, 1, 0.0], [1, 1, 2, 0.0]]
    assert fsa.get_num_edges(n_batch=3) == 12
