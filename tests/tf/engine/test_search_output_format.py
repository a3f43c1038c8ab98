"""Search output file formats as the reference writes them: "txt" (one hypothesis per line, plain text),
"py" (dict literal; n-best lists for an output layer that still has a beam), parsed with ast.literal_eval."""

from __future__ import annotations

import ast

from tests.tf.engine.test_search import _config
from tests.tf.engine.test_training import run_task


def test_search_output_nbest_py_and_txt(tmp_path, capsys):
    run_task(_config(tmp_path), capsys=capsys)
    nbest_file = tmp_path / "nbest.py"
    run_task(_config(tmp_path, task="search", search_output_file=str(nbest_file), search_output_file_format="py",
                     search_output_layer="output"), capsys=capsys)
    text = nbest_file.read_text()
    nbest = ast.literal_eval(text)
    assert len(nbest) == 4
    for tag, hyps in nbest.items():
        assert text.count(f"{tag!r}: [\n") == 1
        assert len(hyps) == 3  # beam_size
        scores = [score for score, _ in hyps]
        assert scores == sorted(scores, reverse=True) and all(isinstance(s, float) for s in scores)
        assert all(isinstance(h, list) and all(isinstance(x, int) for x in h) for _, h in hyps)
    txt_file = tmp_path / "best.txt"
    run_task(_config(tmp_path, task="search", search_output_file=str(txt_file), search_output_file_format="txt"),
             capsys=capsys)
    py_file = tmp_path / "best.py"
    run_task(_config(tmp_path, task="search", search_output_file=str(py_file), search_output_file_format="py"),
             capsys=capsys)
    best = ast.literal_eval(py_file.read_text())
    assert txt_file.read_text().splitlines() == [str(h) for h in best.values()]
    for tag, hyp in best.items():  # the decided hypothesis is the best of the n-best list (copy task: equal lengths)
        assert hyp == nbest[tag][0][1]


def test_bad_search_output_file_format_stops_before_the_search(tmp_path, capsys):
    """The format is checked once, by SearchOptions (choices "txt"/"py"), when task search parses its options:
    one ConfigValueError naming the key, the valid values and the closest one; no network is built."""
    import pytest

    from returnn.errors import ConfigValueError

    with pytest.raises(ConfigValueError) as info:
        run_task(_config(tmp_path, task="search", search_output_file=str(tmp_path / "out.txt"),
                         search_output_file_format="tx"), capsys=capsys)
    text = str(info.value)
    assert "search_output_file_format" in text and "'txt' or 'py'" in text and "'tx'" in text
    assert "Search with network" not in capsys.readouterr().out
    assert not (tmp_path / "out.txt").exists()
