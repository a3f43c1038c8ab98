"""Public module ``returnn.datasets.hdf``: ``HDFDataset``, ``SimpleHDFWriter``, ``HDFDatasetWriter`` and
``SiameseHDFDataset``; ``CachedDataset`` is a public
name here too (the reference's module imports it; star-import users subclass it)."""

# names the reference's module has at module level (no ``__all__``), which star-import users rely on
import bisect as bisect
import collections as collections
import gc as gc
import typing as typing
from typing import TYPE_CHECKING as TYPE_CHECKING
from typing import Optional as Optional
from typing import Union as Union

import h5py as h5py
import numpy as numpy

from returnn.datasets.basic import Dataset as Dataset
from returnn.datasets.basic import DatasetSeq as DatasetSeq
from returnn.datasets.cached import CachedDataset as CachedDataset
from returnn.datasets.cached2 import CachedDataset2 as CachedDataset2
from returnn.log import log as log

from returnn.datasets.hdf_reader import HDFDataset as HDFDataset
from returnn.datasets.hdf_writer import HDFDatasetWriter as HDFDatasetWriter
from returnn.datasets.hdf_writer import SimpleHDFWriter as SimpleHDFWriter
from returnn.datasets.siamese_hdf import SiameseHDFDataset as SiameseHDFDataset

# the attribute names of the reference's HDF layout (the file's attrs / datasets)
attr_seqLengths = "seqLengths"
attr_inputPattSize = "inputPattSize"
attr_times = "times"
attr_ctcIndexTranscription = "ctcIndexTranscription"
