"""The RASR datasets: one clear error naming the option (RASR is not available here)."""

import pytest

from returnn.datasets import init_dataset
from returnn.datasets.sprint import SprintNotAvailableError
from returnn.errors import DatasetArgError


def test_extern_sprint_dataset_needs_rasr():
    with pytest.raises(SprintNotAvailableError) as info:
        init_dataset({"class": "ExternSprintDataset", "sprintTrainerExecPath": "/opt/rasr/nn-trainer",
                      "sprintConfigStr": "--config=train.config", "partitionEpoch": 20})
    text = str(info.value)
    assert "ExternSprintDataset" in text and "'sprintTrainerExecPath'" in text and "/opt/rasr/nn-trainer" in text
    assert "RASR" in text and "HDFDataset" in text and isinstance(info.value, DatasetArgError)


def test_sprint_cache_dataset_needs_archive_reader():
    with pytest.raises(SprintNotAvailableError, match="SprintCacheDataset.*'data'"):
        init_dataset({"class": "SprintCacheDataset", "data": {"data": {"filename": "f.cache", "data_type": "feat"}}})


@pytest.mark.parametrize("name", ["NextGenHDFDataset", "StereoHdfDataset",
                                  "ConfusionNetworkDataset", "ChunkShuffleDataset", "ClusteringDataset"])
def test_unsupported_classes_name_themselves(name):
    with pytest.raises(DatasetArgError, match=f"\"{name}\"}} is not supported by this project\\n  hint: "):
        init_dataset({"class": name, "dataset": {"class": "StaticDataset", "data": []}, "files": ["x.hdf"]})
