"""Public module ``returnn.datasets.hdf``: ``HDFDataset``, ``SimpleHDFWriter`` and ``HDFDatasetWriter``; ``CachedDataset`` is a public
name here too (the reference's module imports it; star-import users subclass it)."""

from returnn.datasets.cached import CachedDataset as CachedDataset

from returnn.datasets.hdf_reader import HDFDataset as HDFDataset
from returnn.datasets.hdf_writer import HDFDatasetWriter as HDFDatasetWriter
from returnn.datasets.hdf_writer import SimpleHDFWriter as SimpleHDFWriter
