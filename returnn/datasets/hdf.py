"""Public module ``returnn.datasets.hdf``: ``HDFDataset`` and ``SimpleHDFWriter``."""

from returnn.datasets.hdf_reader import HDFDataset as HDFDataset
from returnn.datasets.hdf_writer import SimpleHDFWriter as SimpleHDFWriter
