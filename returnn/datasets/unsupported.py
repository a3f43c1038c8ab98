"""Dataset classes of the reference that this project does not implement: each is registered under its name so
that a config using it gets one clear :class:`DatasetArgError` naming the class and what to use instead (rather
than "unknown dataset class").

- ``NextGenHDFDataset``, ``StereoHdfDataset``, ``DatasetWithTimeContext``: older HDF layouts;
  convert to the standard layout (``HDFDataset``, ``SimpleHDFWriter``);
- ``ConfusionNetworkDataset``, ``ChunkShuffleDataset``, ``ClusteringDataset``: these do not load data in the
  current reference either (observed: recursion error / missing keys).
"""

from __future__ import annotations

from returnn.errors import DatasetArgError, format_details
from returnn.datasets.dataset import Dataset
from returnn.datasets.registry import register_dataset

_HINTS = {
    "NextGenHDFDataset": "convert the file to the standard HDF layout (SimpleHDFWriter) and use HDFDataset",
    "StereoHdfDataset": "convert the file to the standard HDF layout (SimpleHDFWriter) and use HDFDataset",
    "DatasetWithTimeContext": "convert the file to the standard HDF layout (SimpleHDFWriter) and use HDFDataset",
    "ConfusionNetworkDataset": "the reference's version does not load data either; use TranslationDataset",
    "ChunkShuffleDataset": "the reference's version does not load data either; use chunking + shuffle_batches",
    "ClusteringDataset": "the reference's version does not load data either; add the cluster index as an HDF "
                         "stream and combine with MetaDataset",
}


def _make(name: str) -> type:
    def __init__(self, *args, **kwargs):
        raise DatasetArgError("\n".join([f"dataset {{\"class\": \"{name}\"}} is not supported by this project"]
                                        + format_details(hint=_HINTS[name])))

    cls = type(name, (Dataset,), {"__init__": __init__, "__doc__": f"Not supported here: {_HINTS[name]}.",
                                  "__module__": __name__, "accepts_any_kwargs": True})
    return register_dataset(cls)


for _name in _HINTS:
    globals()[_name] = _make(_name)
