"""Numpy arrays through System V shared memory (returnn.util.shared_mem, via task_system's Pickler)."""

import gc
import io
import multiprocessing

import numpy
import pytest

from returnn.util import task_system
from returnn.util.shared_mem import SharedMem, SharedMemNumpyConfig, SharedNumpyArray, numpy_copy_and_set_unused
from returnn.util.task_system import Pickler, Unpickler, numpy_set_unused

shm_works = SharedMem.is_shmget_functioning()
needs_shm = pytest.mark.skipif(not shm_works, reason="shmget does not work in this environment")


@pytest.fixture
def shared_enabled():
    old = dict(SharedMemNumpyConfig)
    SharedMemNumpyConfig["enabled"] = True
    SharedMemNumpyConfig["auto_pickling_min_size"] = 1
    yield
    SharedMemNumpyConfig.clear()
    SharedMemNumpyConfig.update(old)


def _dumps(obj):
    buf = io.BytesIO()
    Pickler(buf).dump(obj)
    return buf.getvalue()


def _loads(data):
    return Unpickler(io.BytesIO(data)).load()


def test_defaults_and_star_exports():
    # observed on the reference
    assert SharedMemNumpyConfig == {
        "enabled": False,
        "auto_pickling_min_size": 8388608,
        "min_shared_mem_size": 33554432,
        "max_server_instances": 10,
    }
    ns = {}
    exec("from returnn.util.task_system import *", ns)
    for name in ("numpy", "Pickler", "Unpickler", "SharedMem", "SharedNumpyArray", "SharedMemNumpyConfig", "numpy_set_unused"):
        assert name in ns, name
    assert SharedNumpyArray.TooMuchInstances.__mro__[1] is SharedMem.ShmException


def test_disabled_pickles_as_usual():
    arr = numpy.arange(6.0)
    out = _loads(_dumps(arr))
    assert out.base is None or not isinstance(out.base, SharedNumpyArray)
    numpy.testing.assert_array_equal(out, arr)


@needs_shm
def test_roundtrip_shares_and_releases(shared_enabled):
    arr = numpy.arange(12.0).reshape(3, 4)
    data = _dumps(arr)
    assert len(data) < arr.nbytes + 50 or arr.nbytes < 200  # only the segment's id travels
    out = _loads(data)
    client = out.base
    assert isinstance(client, SharedNumpyArray) and not client.is_server
    server = next(s for s in SharedNumpyArray.ServerInstances if s.mem.shmid == client.mem.shmid)
    assert server.is_server and server.mem.is_creator and not client.mem.is_creator
    assert server.mem.size == 33554432  # min_shared_mem_size, as the reference
    numpy.testing.assert_array_equal(out, arr)
    out[0, 0] = 100.0  # the same memory
    assert server.create_numpy_array()[0, 0] == 100.0
    assert server.is_in_use() and client.is_in_use()
    client._get_in_use_flag_ref().value = 42
    assert server._get_in_use_flag_ref().value == 42
    numpy_set_unused(out)
    assert not server.is_in_use() and client.mem is None


@needs_shm
def test_segment_reused_after_gc(shared_enabled):
    counts = []
    for i in range(4):
        arr = numpy.random.randn(i * 3 + 1, i + 2)
        a, b = _loads(_dumps((arr, arr)))
        assert a is b
        numpy.testing.assert_array_equal(a, arr)
        counts.append(len(SharedNumpyArray.ServerInstances))
        a = b = None
        gc.collect()
    assert len(set(counts)) == 1


@needs_shm
def test_fortran_order_object_dtype_empty(shared_enabled):
    arr = numpy.asfortranarray(numpy.arange(6.0).reshape(2, 3))
    out = _loads(_dumps(arr))
    assert isinstance(out.base, SharedNumpyArray) and out.flags["F_CONTIGUOUS"]
    numpy.testing.assert_array_equal(out, arr)
    strided = numpy.arange(20.0).reshape(4, 5)[:, ::2]
    numpy.testing.assert_array_equal(_loads(_dumps(strided)), strided)
    for plain in (numpy.array([1, "a"], dtype=object), numpy.zeros((0, 3)), numpy.array(3.0)):
        out = _loads(_dumps(plain))
        assert not isinstance(out.base, SharedNumpyArray)
        numpy.testing.assert_array_equal(out, plain)
    copied = numpy_copy_and_set_unused({"x": [_loads(_dumps(arr))]})
    assert copied["x"][0].base is None or not isinstance(copied["x"][0].base, SharedNumpyArray)
    numpy.testing.assert_array_equal(copied["x"][0], arr)


def _child_sum(data, queue):
    arr = _loads(data)
    queue.put((float(arr.sum()), type(arr.base).__name__))


@needs_shm
def test_other_process_reads_it(shared_enabled):
    arr = numpy.arange(100.0)
    data = _dumps(arr)
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child_sum, args=(data, queue))
    proc.start()
    result = queue.get(timeout=30)
    proc.join(30)
    assert result == (4950.0, "SharedNumpyArray")
    server = max(SharedNumpyArray.ServerInstances, key=lambda s: s.array_id)
    assert not server.is_in_use()  # the child released it when it exited its array


def test_task_system_module_reexports():
    assert task_system.SharedMem is SharedMem and task_system.SharedNumpyArray is SharedNumpyArray
