"""End-to-end tests of the command line (``rnn.py`` and ``python3 -m returnn``) as a user runs it."""

import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RNN_PY = os.path.join(REPO_ROOT, "rnn.py")
CONFIGS = os.path.join(REPO_ROOT, "tests", "data", "configs")


def run_rnn(*args, cwd=None, module=False):
    cmd = [sys.executable, "-m", "returnn"] if module else [sys.executable, RNN_PY]
    env = dict(os.environ, PYTHONPATH=REPO_ROOT)
    proc = subprocess.run(cmd + list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def cfg(name):
    return os.path.join(CONFIGS, name)


def test_nop_prints_banner():
    rc, out, err = run_rnn(cfg("python.config"), "++task", "nop")
    assert rc == 0, err
    first = out.splitlines()[0]
    assert first.startswith("RETURNN starting up, version ") and f"pid " in first and "cwd " in first
    assert "Task: No-operation" in out
    assert "elapsed: " in out


def test_module_entry_point_and_verbosity():
    rc, out, err = run_rnn(cfg("json.config"), "++log_verbosity", "4", module=True)
    assert rc == 0, err
    assert "RETURNN command line options: [" in out and "Hostname: " in out and out.rstrip().endswith("Quitting")


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help(flag):
    rc, out, _ = run_rnn(flag)
    assert rc == 0
    assert out.startswith("Usage: rnn.py [config_filename]* [option]* [++key value]*")
    assert "--num_epochs" in out and "++key value" in out


def test_version():
    rc, out, _ = run_rnn("--version")
    assert rc == 0 and out.startswith("RETURNN version ")


def test_log_file_written(tmp_path):
    log_file = tmp_path / "logs" / "returnn.log"
    rc, out, err = run_rnn(cfg("lines.config"), "++log", str(log_file), "++log_verbosity", "5")
    assert rc == 0, err
    text = log_file.read_text()
    assert text.startswith("RETURNN starting up") and "Task: No-operation" in text


def test_config_function_task(tmp_path):
    path = tmp_path / "f.config"
    marker = tmp_path / "called"
    path.write_text(f"#!rnn.py\ndef hello():\n    open({str(marker)!r}, 'w').write('yes')\n")
    rc, _, err = run_rnn(str(path), "++task", "config:hello")
    assert rc == 0, err
    assert marker.read_text() == "yes"


def _assert_one_clear_error(rc, out, err, *needles):
    assert rc != 0
    assert "Traceback" not in err and "Traceback" not in out
    for needle in needles:
        assert needle in err, f"{needle!r} not in stderr:\n{err}"


def test_missing_config_file():
    rc, out, err = run_rnn("/nonexistent/x.config")
    _assert_one_clear_error(rc, out, err, "/nonexistent/x.config", "does not exist")


def test_unreadable_config_file(tmp_path):
    path = tmp_path / "binary.config"
    path.write_bytes(b"\x00\xff\xfe\xfd")
    rc, out, err = run_rnn(str(path))
    _assert_one_clear_error(rc, out, err, str(path), "UTF-8")


def test_python_config_that_raises():
    rc, out, err = run_rnn(cfg("raises.config"))
    _assert_one_clear_error(rc, out, err, "raises.config', line 5", "IndexError", "dim = layers[5]")


def test_python_config_that_raises_debug_shows_traceback():
    rc, out, err = run_rnn(cfg("raises.config"), "--debug")
    assert rc != 0 and "IndexError" in err and ("Traceback" in err or "EXCEPTION" in err)
    rc, out, err = run_rnn(cfg("raises.config"), "++log_verbosity", "5")
    assert rc != 0 and ("Traceback" in err or "EXCEPTION" in err)


def test_malformed_json():
    rc, out, err = run_rnn(cfg("bad_json.config"))
    _assert_one_clear_error(rc, out, err, "bad_json.config', line 3", "malformed JSON")


def test_line_without_value():
    rc, out, err = run_rnn(cfg("bad_lines.config"))
    _assert_one_clear_error(rc, out, err, "bad_lines.config', line 2", "'num_epochs' has no value")


def test_plus_plus_without_value():
    rc, out, err = run_rnn(cfg("python.config"), "++num_epochs")
    _assert_one_clear_error(rc, out, err, "'num_epochs'", "a value after '++num_epochs'")


def test_typed_getter_on_wrong_type():
    # python.config does `num_epochs = config.int("num_epochs", 3)`
    rc, out, err = run_rnn(cfg("python.config"), "++num_epochs", "abc")
    _assert_one_clear_error(rc, out, err, "python.config', line 7", "config key 'num_epochs': expected an integer",
                            "'abc'")
    rc, out, err = run_rnn(cfg("lines.config"), "++log_verbosity", "loud")
    _assert_one_clear_error(rc, out, err, "config key 'log_verbosity'", "'loud'")


def test_unknown_task_lists_valid_tasks():
    rc, out, err = run_rnn(cfg("lines.config"), "++task", "trian")
    _assert_one_clear_error(rc, out, err, "unknown task 'trian'", "did you mean: 'train'?", "forward", "search")


@pytest.mark.parametrize("args, needle", [
    (["++backend", "torch"], "only the TensorFlow backend"),
    (["++use_theano", "True"], "Theano backend is not provided"),
])
def test_other_backends_rejected(args, needle):
    rc, out, err = run_rnn(cfg("lines.config"), *args)
    _assert_one_clear_error(rc, out, err, needle)


def test_tensorflow_backend_accepted():
    rc, _, err = run_rnn(cfg("lines.config"), "++backend", "tensorflow", "++use_tensorflow", "True")
    assert rc == 0, err


def test_unknown_named_option():
    rc, out, err = run_rnn(cfg("lines.config"), "--num_epoch", "3")
    _assert_one_clear_error(rc, out, err, "--num_epoch", "did you mean: '--num_epochs'?")


def test_a_crashed_thread_interrupts_the_main_thread(tmp_path):
    # observed on the reference: the thread's traceback after "Unhandled exception in thread ..., going to
    # interrupt main thread:", then a KeyboardInterrupt in the main thread and a non-zero exit
    config = tmp_path / "thread.config"
    config.write_text('#!rnn.py\ntask = "nop"\nimport threading, time\n'
                      't = threading.Thread(target=lambda: 1 / 0)\nt.start()\nt.join()\n'
                      'for _ in range(100):\n    time.sleep(0.05)\n')
    code, out, err = run_rnn(str(config))
    text = out + err
    assert code == 130, text
    assert "going to interrupt main thread:" in text and "ZeroDivisionError" in text
    assert "KeyboardInterrupt" in text and "ConfigFileError" not in text
