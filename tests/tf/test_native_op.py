"""returnn.tf.native_op / returnn.native_op: the reference's native-op names load; the ops provided here are made
by make_op (their values: tests/tf/ops/native/), the others raise one clear NativeOpsUnavailableError naming the
op; CudaEnv finds nvcc as documented."""

import os
import stat

import pytest

import returnn.native_op as native_op
import returnn.tf.native_op as tf_native_op
from returnn.tf.util.basic import CudaEnv
from returnn.tf.util.errors import NativeOpsUnavailableError


@pytest.mark.parametrize("call, name", [
    (lambda: tf_native_op.make_op(native_op.TwoDLSTM), "returnn.native_op.TwoDLSTM"),
    (lambda: tf_native_op.OpMaker(native_op.MaxAndArgmaxSparse), "returnn.native_op.MaxAndArgmaxSparse"),
    (lambda: tf_native_op.TwoDNativeLstmCell(n_hidden=3)(None, None), "returnn.tf.native_op.TwoDNativeLstmCell"),
    (lambda: tf_native_op.fast_baum_welch_by_sprint_automata(None, None, None, None),
     "returnn.tf.native_op.fast_baum_welch_by_sprint_automata"),
    (lambda: native_op.FastBaumWelchOp(), "returnn.native_op.FastBaumWelchOp"),
])
def test_native_ops_raise_naming_the_op(call, name):
    with pytest.raises(NativeOpsUnavailableError) as info:
        call()
    assert name in str(info.value) and "builds no C++/CUDA" in str(info.value)


def test_make_op_gives_the_tf_op_implementations():
    from returnn.tf.ops.native.lstm2 import lstm_low_mem, native_lstm2

    assert tf_native_op.make_op(native_op.NativeLstm2).__wrapped__ is native_lstm2
    op = tf_native_op.OpMaker(native_op.LstmLowMem, compiler_opts={"verbose": True}).make_op()
    assert op.__wrapped__ is lstm_low_mem and callable(op.grad_op)


def test_blocksparse_not_available():
    assert tf_native_op.have_blocksparse_requirements() is False


def test_star_import_has_the_public_names():
    names = {}
    exec("from returnn.tf.native_op import *", names)
    for name in ("make_op", "NativeLstmCell", "fast_baum_welch", "edit_distance", "have_blocksparse_requirements"):
        assert name in names


def test_cuda_env_finds_nvcc_in_path(tmp_path, monkeypatch):
    bin_dir = tmp_path / "cuda" / "bin"
    bin_dir.mkdir(parents=True)
    nvcc = bin_dir / "nvcc"
    nvcc.write_text("#!/bin/sh\n")
    nvcc.chmod(nvcc.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(bin_dir))
    env = CudaEnv()
    assert env.is_available() and env.cuda_path == os.path.realpath(tmp_path / "cuda")


def test_cuda_env_without_toolkit(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    env = CudaEnv()
    assert env.is_available() == os.path.exists("/usr/local/cuda/bin/nvcc")
    assert CudaEnv.get_instance() is CudaEnv.get_instance()


def test_cuda_env_diagnostics(tmp_path):
    from returnn.tf.util.basic import get_tf_gcc_path

    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "nvcc").write_text("")
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cuda.h").write_text("")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "libcudart.so").write_text("")
    assert CudaEnv._get_lib_dir_name(str(tmp_path)) == "lib"
    assert CudaEnv._check_valid_cuda_path(str(tmp_path))
    assert not CudaEnv._check_valid_cuda_path(str(tmp_path / "bin"))
    assert all(isinstance(p, str) for p in CudaEnv._cuda_path_candidates())
    gcc = get_tf_gcc_path()
    assert gcc is None or os.path.basename(gcc) == "gcc"
