import pytest

from returnn.util.multi_proc_non_daemonic_spawn import NonDaemonicSpawnProcess


class _Unpicklable:
    def __getstate__(self):
        return 1

    def __setstate__(self, state):
        raise Exception("cannot unpickle")


class _PreInit:
    def __init__(self, payload):
        self.payload = payload

    def __call__(self):
        pass


def test_spawn_and_bad_pre_init_func():
    """One child runs fine; one whose pre_init_func cannot be unpickled (with a payload larger than a pipe
    buffer) fails with a non-zero exit code, and the parent does not block."""
    proc = NonDaemonicSpawnProcess(target=print, args=("child ok",))
    proc.start()
    proc.join(timeout=60)
    assert proc.exitcode == 0 and proc.payload_filename is None
    proc = NonDaemonicSpawnProcess(target=print)
    proc.pre_init_func = _PreInit(["A" * 100_000, _Unpicklable(), "B" * 100_000])
    proc.start()
    proc.join(timeout=60)
    assert proc.exitcode not in (0, None)


def test_never_daemonic():
    with pytest.raises(ValueError, match="daemon"):
        NonDaemonicSpawnProcess(target=print, daemon=True)
