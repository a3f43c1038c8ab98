"""The RASR (Sprint) datasets, at the reference's path ``returnn.datasets.sprint``.

``ExternSprintDataset`` starts RASR's ``nn-trainer`` as a child process and reads features and alignments
through a pipe; ``SprintDatasetBase`` is the base of the datasets RASR feeds in-process. Neither works without
RASR, which this project does not ship or drive: constructing them raises one :class:`SprintNotAvailableError`
that names the dataset option (``sprintTrainerExecPath`` / ``sprintConfigStr``) and what to do instead.

``SprintCacheDataset`` reads RASR's cache *files* (a file format, no RASR process); it needs the archive reader
``returnn.sprint.cache``, which is not implemented here yet, so it raises the same kind of error naming its
``data`` option.
"""

from __future__ import annotations

from typing import Any, Optional

from returnn.errors import DatasetArgError, format_details
from returnn.datasets.dataset import Dataset
from returnn.datasets.registry import register_dataset

_HINT = ("convert the data to HDF once where RASR is available (e.g. the reference's tools/dump-dataset.py with "
         "--type hdf) and read it with HDFDataset, or read the audio with OggZipDataset / LibriSpeechCorpus")


class SprintNotAvailableError(DatasetArgError):
    """A dataset needs RASR (Sprint), which is not available in this project.

    :param cls_name: the dataset class
    :param option: the dataset option that points to RASR
    :param value: its value
    """

    def __init__(self, cls_name: str, option: str, value: Any):
        self.cls_name, self.option, self.value = cls_name, option, value
        super().__init__(
            f"dataset {{\"class\": \"{cls_name}\"}}: option {option!r} = {value!r}: this dataset needs RASR "
            f"(Sprint), which this project does not support (no RASR process is started, no RASR cache reader)\n"
            + "\n".join(format_details(hint=_HINT)))


class SprintDatasetBase(Dataset):
    """The reference's base of the RASR-fed datasets; needs RASR.

    :raises SprintNotAvailableError: always
    """

    def __init__(self, target_maps=None, str_add_final_zero=False, input_stddev=1.0, orth_post_process=None,
                 bpe=None, orth_vocab=None, suppress_load_seqs_print=False, reduce_target_factor=1, **kwargs):
        raise SprintNotAvailableError(type(self).__name__, "class", type(self).__name__)


@register_dataset
class ExternSprintDataset(SprintDatasetBase):
    """Features/alignments from RASR's ``nn-trainer`` child process; needs RASR.

    :param sprintTrainerExecPath: path of RASR's ``nn-trainer`` binary
    :param sprintConfigStr: its command line / config
    :raises SprintNotAvailableError: always, naming ``sprintTrainerExecPath``
    """

    def __init__(self, sprintTrainerExecPath, sprintConfigStr, partitionEpoch: Optional[int] = None, **kwargs):
        raise SprintNotAvailableError("ExternSprintDataset", "sprintTrainerExecPath", sprintTrainerExecPath)


@register_dataset
class SprintCacheDataset(Dataset):
    """Features/alignments from RASR cache archives (``data``: key -> ``{"filename", "data_type", ...}``).

    :raises SprintNotAvailableError: always, naming ``data`` (the RASR archive reader is not implemented)
    """

    def __init__(self, data, **kwargs):
        raise SprintNotAvailableError("SprintCacheDataset", "data", data)
