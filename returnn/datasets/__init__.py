"""Package ``returnn.datasets``: datasets (generated, HDF, text, combined), sequence ordering and batching.

Pure numpy/h5py; never imports TensorFlow. See :mod:`returnn.datasets.basic` for the public names.
"""

from returnn.datasets.dataset import Dataset as Dataset
from returnn.datasets.init import init_dataset as init_dataset
