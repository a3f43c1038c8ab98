"""The generated data of the published-config values check (``benchmarks/real-configs/run.py --values``): the
per-key lengths a config needs and the network dict both sides compute (benchmark scripts, loaded by path)."""

import importlib.util
import os

import numpy

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks")


def _load(folder: str, name: str):
    spec = importlib.util.spec_from_file_location(name, os.path.join(BENCH, folder, "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_key_lens_fixed_and_downsampled():
    speed = _load("real-configs-speed", "real_configs_speed_run")
    lens = speed._key_lens(numpy, ["speaker_label=1", "alignment=/6"])
    in_lens = numpy.array([79, 60, 66, 61])
    assert lens["speaker_label"](in_lens).tolist() == [1, 1, 1, 1]
    assert lens["alignment"](in_lens).tolist() == [14, 10, 11, 11]  # rounded up, as a time reduction 3 * 2
    assert speed._key_lens(numpy, []) == {}


def test_key_lens_bad_spec_names_the_forms():
    speed = _load("real-configs-speed", "real_configs_speed_run")
    try:
        speed._key_lens(numpy, ["alignment=half"])
    except SystemExit as exc:
        assert "KEY=N or KEY=/F" in str(exc) and "'alignment=half'" in str(exc)
    else:
        raise AssertionError("no error for a bad --key-lens spec")


def test_dropout_on_forward_off_in_nested_units():
    speed = _load("real-configs-speed", "real_configs_speed_run")
    net = {"dec": {"class": "rec", "unit": {"pre": {"class": "dropout", "dropout": 0.5, "dropout_on_forward": True,
                                                    "from": ["prev:x"]}}},
           "enc": {"class": "copy", "dropout": 0.1, "from": ["data"]}}
    out = speed._without_dropout_on_forward(net)
    assert out["dec"]["unit"]["pre"] == {"class": "dropout", "dropout": 0.5, "dropout_on_forward": False,
                                         "from": ["prev:x"]}
    assert out["enc"] == net["enc"]
    assert net["dec"]["unit"]["pre"]["dropout_on_forward"] is True  # the config's own dict unchanged


def test_values_key_lens_by_config_path():
    run = _load("real-configs", "real_configs_run")
    assert run.values_key_lens("2021-tts-asr-librispeech100h/tacotron2-tts/tts-phonemes-lookup.config") == [
        "speaker_label=1"]
    assert run.values_key_lens("2018-asr-attention/librispeech/attention/exp3.ctc.config") == []
    args = run._worker_args(type("A", (), {"grads": True, "ours_python": "py", "timeout": 5})(), "/d", "auto",
                            ["alignment=/6"])
    assert args.key_lens == ["alignment=/6"] and args.target_lens == "auto" and args.values == "/d"


def test_same_infinities_compare_the_finite_entries(tmp_path):
    speed = _load("real-configs-speed", "real_configs_speed_run")
    ref = {"objective": numpy.float32(3.0), "grad:w": numpy.array([numpy.inf, -1.66082880e19], "float32")}
    numpy.savez(tmp_path / "ref.npz", **ref)
    numpy.savez(tmp_path / "ours.npz", **{**ref, "grad:w": numpy.array([numpy.inf, -1.66082875e19], "float32")})
    assert speed.value_differences(numpy, str(tmp_path))["differences"] == []
    numpy.savez(tmp_path / "ours.npz", **{**ref, "grad:w": numpy.array([1.0, -1.66082880e19], "float32")})
    assert [key for key, _ in speed.value_differences(numpy, str(tmp_path))["differences"]] == ["grad:w"]
