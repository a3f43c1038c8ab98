"""returnn.tf.native_op / returnn.native_op: the reference's native-op names load, using one raises one clear
NativeOpsUnavailableError naming it; CudaEnv finds nvcc as documented."""

import os
import stat

import pytest

import returnn.native_op as native_op
import returnn.tf.native_op as tf_native_op
from returnn.tf.util.basic import CudaEnv
from returnn.tf.util.errors import NativeOpsUnavailableError


@pytest.mark.parametrize("call, name", [
    (lambda: tf_native_op.make_op(native_op.NativeLstm2), "returnn.tf.native_op.make_op"),
    (lambda: tf_native_op.ctc_loss(None, None, None), "returnn.tf.native_op.ctc_loss"),
    (lambda: tf_native_op.NativeLstm2(n_hidden=3), "returnn.tf.native_op.NativeLstm2"),
    (lambda: tf_native_op.OpMaker(native_op.LstmLowMem), "OpMaker('LstmLowMem')"),
    (lambda: native_op.FastBaumWelchOp(), "returnn.native_op.FastBaumWelchOp"),
])
def test_native_ops_raise_naming_the_op(call, name):
    with pytest.raises(NativeOpsUnavailableError) as info:
        call()
    assert name in str(info.value) and "builds no C++/CUDA" in str(info.value)


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
