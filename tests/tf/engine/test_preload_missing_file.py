"""preload_from_files with a checkpoint that does not exist: an entry that is used fails naming the entry and the
file (the reference fails too: TF's NotFoundError, observed); an entry skipped in this run is named in a warning
(the reference skips it without a word, observed: training that continues from its model, a forward task)."""

from __future__ import annotations

import pytest

from returnn.errors import DataFileError
from tests.tf.engine import standin
from tests.tf.engine.test_training import make_config, run_task


def test_used_entry_with_missing_file_fails_naming_entry_and_file(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    missing = str(tmp_path / "no-such-dir" / "model.001")
    config = make_config(tmp_path, num_epochs=1,
                         preload_from_files={"enc": {"filename": missing, "init_for_train": True}})
    with pytest.raises(DataFileError, match=r"preload_from_files\['enc'\]: the checkpoint '.*/no-such-dir/model\.001'"
                                            r" does not exist"):
        run_task(config, capsys=capsys)


def test_skipped_entry_with_missing_file_is_named_in_a_warning(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)  # model.001: the next run continues from it
    missing = str(tmp_path / "no-such-dir" / "model.001")
    out = run_task(make_config(tmp_path, num_epochs=2, preload_from_files={
        "enc": {"filename": missing, "init_for_train": True}}), capsys=capsys)
    assert "start training at epoch 2" in out  # the entry is not used: training continues, as the reference
    assert (f"WARNING: preload_from_files['enc']: the checkpoint {missing!r} does not exist (no .index file); the "
            f"entry is not used now (this run continues from the model), but a run that uses it will fail") in out


def test_skipped_entry_with_existing_file_gives_no_warning(tmp_path, monkeypatch, capsys):
    standin.install(monkeypatch)
    run_task(make_config(tmp_path, num_epochs=1), capsys=capsys)
    existing = str(tmp_path / "models" / "model.001")
    out = run_task(make_config(tmp_path, num_epochs=2, preload_from_files={
        "enc": {"filename": existing, "init_for_train": True}}), capsys=capsys)
    assert "start training at epoch 2" in out and "preload_from_files" not in out
